"""CSV tables as the site's table widgets: the cells exactly as the workflow wrote
them (text, never re-formatted or re-computed) and a JSON payload safe to embed
in a page."""

from __future__ import annotations

import csv
import json
import re
from dataclasses import dataclass
from pathlib import Path

from markupsafe import Markup

from rederive.report.check_counts import NA, category, holds, tally

_NUMBER = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?%?$")


# Rows of one table written into its page. A leaderboard of 5,000 models has
# tables of 5,000 to 30,000 rows (accuracy, items); inlined whole, each page
# would carry tens of MB of JSON for the browser to parse. The page shows the
# first rows and says so; the linked CSV (copied beside it) has them all.
INLINE_ROWS = 1000


@dataclass(frozen=True)
class Table:
    """A CSV file's header and rows, every cell as its text.

    ``total_rows`` is the row count of the whole file when ``rows`` holds only
    its first rows (:meth:`head`); ``None`` when ``rows`` is the whole file.
    """

    columns: list[str]
    rows: list[list[str]]
    total_rows: int | None = None

    @property
    def truncated(self) -> bool:
        return self.total_rows is not None and self.total_rows > len(self.rows)

    def head(self, n: int = INLINE_ROWS) -> Table:
        """The first ``n`` rows, remembering how many the file has."""
        if len(self.rows) <= n:
            return self
        return Table(columns=self.columns, rows=self.rows[:n], total_rows=len(self.rows))

    @property
    def numeric(self) -> list[bool]:
        """Per column: every non-empty cell is a number (right-aligned on the page)."""
        flags = []
        for k in range(len(self.columns)):
            cells = [row[k].replace(",", "") for row in self.rows if k < len(row) and row[k] != ""]
            flags.append(bool(cells) and all(_NUMBER.match(c) for c in cells))
        return flags


def read_table(path: str | Path) -> Table:
    """Read a CSV the workflow wrote; short rows are padded so every row has
    one cell per column."""
    with open(path, encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle)
        columns = next(reader, [])
        rows = [row + [""] * (len(columns) - len(row)) for row in reader]
    return Table(columns=columns, rows=rows)


def json_payload(table: Table) -> Markup:
    """The table as JSON for a ``<script type="application/json">`` element.

    ``<``, ``>`` and ``&`` are written as ``\\u`` escapes, so no cell (a model
    called ``</script>``, say) can end the script element early; the JSON value
    is unchanged.
    """
    text = json.dumps(
        {"columns": table.columns, "rows": table.rows, "numeric": table.numeric},
        ensure_ascii=False,
        separators=(",", ":"),
    )
    for char, escape in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        text = text.replace(char, escape)
    # U+2028/2029 are valid in JSON but end a line in older JavaScript parsers.
    text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return Markup(text)


def failures_first(table: Table, column: str = "status", passing: str = "pass") -> Table:
    """The rows that need a reader first, each group in file order.

    A check table (with a ``kind`` column) puts first the rows whose status is
    not their kind's good one (:func:`rederive.report.check_counts.holds`: a
    ``detectable`` power row is not a finding); other tables the rows whose
    ``column`` is not ``passing``.
    """
    if column not in table.columns:
        return table
    k = table.columns.index(column)
    if "kind" in table.columns:
        j = table.columns.index("kind")
        fine = [holds(r[j], r[k]) for r in table.rows]
    else:
        fine = [r[k] == passing for r in table.rows]
    rows = [r for r, ok in zip(table.rows, fine, strict=True) if not ok]
    rows += [r for r, ok in zip(table.rows, fine, strict=True) if ok]
    return Table(columns=table.columns, rows=rows)


def check_badges(table: Table) -> list[dict]:
    """Counts of a published-check table per kind, as the index and page show them.

    One entry per kind present (:func:`rederive.report.check_counts.tally`):
    ``kind``, ``label`` (plural), ``attention`` (some row does not hold) and
    ``badges``, ``(count, status, css class)`` for every status that occurs:
    ``pass`` for a kind's good status, ``fail`` for FAIL, ``warn`` for another
    bad status (``underpowered``: not a failed reproduction), ``na`` for n/a.
    """
    if "status" not in table.columns:
        return []
    k = table.columns.index("status")
    j = table.columns.index("kind") if "kind" in table.columns else None
    rows = ((r[j] if j is not None else "check", r[k]) for r in table.rows)
    out = []
    for kind, statuses in tally(rows).items():
        what = category(kind)
        badges = []
        for status, n in statuses.items():
            if not n:
                continue
            css = (
                "pass"
                if status == what.good
                else "na"
                if status == NA
                else "fail"
                if status == "FAIL"
                else "warn"
            )
            badges.append((n, status, css))
        out.append(
            {
                "kind": kind,
                "label": what.plural,
                "attention": any(s != what.good for s, n in statuses.items() if n),
                "badges": badges,
            }
        )
    return out
