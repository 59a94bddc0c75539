"""CSV tables as the site's table widgets: the cells exactly as the workflow wrote
them (text, never re-formatted or re-computed) and a JSON payload safe to embed
in a page."""

from __future__ import annotations

import json
import re

from markupsafe import Markup

from rederive.io.csv_text import INLINE_ROWS, Table, read_table

__all__ = [
    "INLINE_ROWS",
    "Table",
    "failures_first",
    "json_payload",
    "numeric_columns",
    "read_table",
    "status_counts",
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
