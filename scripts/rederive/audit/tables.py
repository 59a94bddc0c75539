"""Read a results table from CSV, Markdown or a LaTeX ``tabular`` into rows of text.

The syntax is told by the file's content, not its name: a ``\\begin{tabular}`` or
rows ending in ``\\\\`` are LaTeX, rows starting with ``|`` are Markdown, anything
else is CSV (comma, semicolon or tab, whichever splits the header widest). A long
table (``quantity`` and ``value`` columns, the layout of rederive's ``published/``
files) is turned wide: one row per item, one column per quantity. Every problem is
an :class:`~rederive.errors.InputError` naming the file and line.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field

from rederive.errors import InputError
from rederive.io.source import read_text

#: Columns of a long table that describe a number rather than name its row.
LONG_META = ("quantity", "value", "source", "unit", "tolerance", "note", "notes")


@dataclass
class Table:
    """Header and cell texts of one table; ``lines[i]`` is the 1-based line of row ``i``."""

    path: str
    syntax: str
    header: list[str]
    rows: list[list[str]]
    lines: list[int]
    units: dict[str, str] = field(default_factory=dict)  # quantity -> unit (long tables)


def detect_syntax(text: str) -> str:
    """``latex``, ``markdown`` or ``csv`` from the content."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if "\\begin{tabular" in text or sum(ln.endswith("\\\\") for ln in lines) >= 2:
        return "latex"
    if lines and sum(ln.startswith("|") for ln in lines) >= max(2, len(lines) // 2):
        return "markdown"
    return "csv"


def _split_unescaped(line: str, sep: str) -> list[str]:
    parts, current, i = [], [], 0
    while i < len(line):
        ch = line[i]
        if ch == "\\" and i + 1 < len(line) and line[i + 1] == sep:
            current.append(sep if sep == "|" else "\\" + sep)
            i += 2
            continue
        if ch == sep:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
        i += 1
    parts.append("".join(current))
    return parts


def read_markdown(text: str, path: str) -> Table:
    header, rows, lines = None, [], []
    for number, line in enumerate(text.splitlines(), start=1):
        s = line.strip()
        if not s.startswith("|"):
            continue
        cells = [
            c.strip() for c in _split_unescaped(s.strip("|") if s.endswith("|") else s[1:], "|")
        ]
        if all(re.fullmatch(r":?-{2,}:?", c) for c in cells if c) and any(cells):
            continue
        if header is None:
            header = cells
            continue
        rows.append(cells)
        lines.append(number)
    if header is None:
        raise InputError("no Markdown table row (a line starting with '|') found", file=path)
    return Table(path, "markdown", header, rows, lines)


_RULES = re.compile(
    r"\\(?:toprule|midrule|bottomrule|hline|addlinespace|endhead|endfirsthead|endfoot)(?:\[[^\]]*\])?"
    r"|\\(?:cmidrule|cline)(?:\([^)]*\))?\{[^}]*\}"
)
_MULTI = re.compile(r"\\multicolumn\{(\d+)\}\{[^}]*\}\{((?:[^{}]|\{[^{}]*\})*)\}")
_MULTIROW = re.compile(r"\\multirow\{[^}]*\}\{[^}]*\}\{((?:[^{}]|\{[^{}]*\})*)\}")


def read_latex(text: str, path: str) -> Table:
    begin = re.search(r"\\begin\{tabular\*?\}(?:\{[^}]*\})?\{(?:[^{}]|\{[^{}]*\})*\}", text)
    start = begin.end() if begin else 0
    end = text.find("\\end{tabular", start)
    body = text[start : end if end >= 0 else len(text)]
    rows, lines = [], []
    pos = start
    pieces = re.split(r"(\\\\(?:\[[^\]]*\])?)", body)
    for chunk, sep in zip(pieces[::2], [*pieces[1::2], ""], strict=True):
        lead = len(chunk) - len(_RULES.sub(lambda m: " " * len(m.group(0)), chunk).lstrip())
        first = text.count("\n", 0, pos + lead) + 1
        pos += len(chunk) + len(sep)
        clean = "\n".join(ln.split("%")[0] if "\\%" not in ln else ln for ln in chunk.split("\n"))
        clean = _RULES.sub("", clean).strip()
        if not clean:
            continue
        cells = []
        for raw in _split_unescaped(clean, "&"):
            cell = raw.strip()
            multi = _MULTI.fullmatch(cell)
            if multi:
                cells += [multi.group(2).strip()] + [""] * (int(multi.group(1)) - 1)
                continue
            cells.append(_MULTIROW.sub(r"\1", cell).strip())
        rows.append(cells)
        lines.append(first)
    if not rows:
        raise InputError("no row of a LaTeX tabular found (rows end in \\\\)", file=path)
    return Table(path, "latex", rows[0], rows[1:], lines[1:])


def read_csv_text(text: str, path: str) -> Table:
    first = text.splitlines()[0] if text.strip() else ""
    delimiter = max((",", ";", "\t"), key=first.count)
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    header, rows, lines = None, [], []
    for record in reader:
        if not any(c.strip() for c in record):
            continue
        if header is None:
            header = [c.strip() for c in record]
            continue
        if len(record) != len(header):
            raise InputError(
                f"{len(record)} fields where the header has {len(header)}",
                file=path,
                line=reader.line_num,
            )
        rows.append([c.strip() for c in record])
        lines.append(reader.line_num)
    if header is None:
        raise InputError("the table is empty", file=path)
    return Table(path, "csv", header, rows, lines)


def widen_long(table: Table) -> Table:
    """A long table (``quantity``, ``value``) as one row per item, one column per quantity.

    The row is named by every column that is not :data:`LONG_META` (joined by
    `` / ``); a quantity printed twice for one item is an error.
    """
    header = table.header
    q, v = header.index("quantity"), header.index("value")
    unit = header.index("unit") if "unit" in header else None
    keys = [i for i, h in enumerate(header) if h not in LONG_META]
    # A column constant over the table (e.g. the table name) names nothing.
    keys = [i for i in keys if len({r[i] for r in table.rows}) > 1] or keys[:0]
    items: dict[str, dict[str, str]] = {}
    lines: dict[str, int] = {}
    quantities: list[str] = []
    units: dict[str, str] = {}
    for row, line in zip(table.rows, table.lines, strict=True):
        item = " / ".join(row[i] for i in keys) or "(table)"
        quantity = row[q]
        if quantity not in quantities:
            quantities.append(quantity)
        if unit is not None and row[unit]:
            units[quantity] = row[unit]
        cells = items.setdefault(item, {})
        if quantity in cells:
            raise InputError(
                f"quantity {quantity!r} printed twice for {item!r}", file=table.path, line=line
            )
        cells[quantity] = row[v]
        lines.setdefault(item, line)
    label = " / ".join(header[i] for i in keys) or "item"
    rows = [[item] + [cells.get(qn, "") for qn in quantities] for item, cells in items.items()]
    return Table(
        table.path,
        table.syntax + " (long)",
        [label, *quantities],
        rows,
        list(lines.values()),
        units,
    )


def read_table(path) -> Table:
    """Read ``path`` (any of the three syntaxes); long tables come back wide."""
    text = read_text(path)
    if not text.strip():
        raise InputError("the table is empty", file=str(path))
    syntax = detect_syntax(text)
    reader = {"latex": read_latex, "markdown": read_markdown, "csv": read_csv_text}[syntax]
    table = reader(text, str(path))
    if not table.rows:
        raise InputError("the table has a header but no rows", file=str(path))
    width = len(table.header)
    for row, line in zip(table.rows, table.lines, strict=True):
        if len(row) != width:
            raise InputError(
                f"{len(row)} cells where the header has {width}", file=str(path), line=line
            )
    if "quantity" in table.header and "value" in table.header:
        table = widen_long(table)
    return table
