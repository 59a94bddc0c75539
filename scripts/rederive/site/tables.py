"""CSV tables as the site's table widgets: the cells exactly as the workflow wrote
them (text, never re-formatted or re-computed) and a JSON payload safe to embed
in a page."""

from __future__ import annotations

import json
import re

from markupsafe import Markup

from rederive.io.csv_text import INLINE_ROWS, Table, read_table
from rederive.report.check_counts import NA, category, holds, tally

__all__ = [
    "INLINE_ROWS",
    "Table",
    "check_badges",
    "failures_first",
    "json_payload",
    "numeric_columns",
    "read_table",
]

_NUMBER = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?%?$")


def numeric_columns(table: Table) -> list[bool]:
    """Per column: every non-empty cell is a number (right-aligned on the page)."""
    flags = []
    for k in range(len(table.columns)):
        cells = [row[k].replace(",", "") for row in table.rows if k < len(row) and row[k] != ""]
        flags.append(bool(cells) and all(_NUMBER.match(c) for c in cells))
    return flags


def json_payload(table: Table) -> Markup:
    """The table as JSON for a ``<script type="application/json">`` element.

    ``<``, ``>`` and ``&`` are written as ``\\u`` escapes, so no cell (a model
    called ``</script>``, say) can end the script element early; the JSON value
    is unchanged.
    """
    text = json.dumps(
        {"columns": table.columns, "rows": table.rows, "numeric": numeric_columns(table)},
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
