"""Markdown (GitHub-flavoured) table cells and rows that names cannot break.

Every Markdown table the project writes builds its rows with :func:`row`, so a
name holding ``|`` or a line break (both legal in a CSV-quoted model name) stays
inside its cell instead of adding cells or ending the table.
"""

from __future__ import annotations

import math
import re

# Every character str.splitlines() breaks on: a renderer ends a table row at
# \n or \r, and a program reading the file line by line may split on the rest.
_LINE_BREAKS = re.compile(r"\r\n|[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
# A pipe, with the backslashes right before it: GFM reads "\\" as one escaped
# character, so "a\|b" must become "a\\\|b" for its pipe to stay escaped.
_PIPE = re.compile(r"(\\*)\|")


def cell(value, missing: str = "") -> str:
    """Text of one table cell: ``|`` escaped, line breaks as ``<br>``.

    Parameters
    ----------
    value : object
        Printed with ``str``; None and NaN print as ``missing`` (a blank note
        read back from a CSV is NaN, and must not print as "nan").
    missing : str
        Text of a missing value.
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return missing
    text = _LINE_BREAKS.sub("<br>", str(value))
    return _PIPE.sub(lambda m: m.group(1) * 2 + r"\|", text)


def row(*values) -> str:
    """One table row, ``| a | b |``, every value passed through :func:`cell`.

    Values that are already cell text (formatted numbers) pass unchanged, as
    they hold neither a pipe nor a line break.
    """
    return "| " + " | ".join(cell(v) for v in values) + " |"
