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
    """The rows whose ``column`` is not ``passing`` first, each group in file order."""
    if column not in table.columns:
        return table
    k = table.columns.index(column)
    rows = [r for r in table.rows if r[k] != passing] + [r for r in table.rows if r[k] == passing]
    return Table(columns=table.columns, rows=rows)


def status_counts(table: Table, column: str = "status") -> dict[str, int]:
    """How many rows carry each status value (a tally for the index, in first-seen order)."""
    if column not in table.columns:
        return {}
    k = table.columns.index(column)
    counts: dict[str, int] = {}
    for row in table.rows:
        counts[row[k]] = counts.get(row[k], 0) + 1
    return counts
