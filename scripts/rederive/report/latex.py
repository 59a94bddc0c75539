"""LaTeX (booktabs) rendering of result tables.

Written by hand rather than with ``DataFrame.to_latex`` so that the output is
stable across pandas versions (tables must be byte-identical between runs) and so
that bolding follows the paper's rule per column, decided by the caller.
"""

from __future__ import annotations

import math

import pandas as pd

_ESCAPES = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    # In the default OT1 font encoding these three print as "¡", "¿" and "—":
    # "BH q < 0.05" must not read "BH q ¡ 0.05".
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
    # Line breaks and tabs inside a name are spaces (a blank line would end
    # the paragraph inside a table cell).
    "\t": " ",
    "\n": " ",
    "\r": " ",
    "\f": " ",
    "\v": " ",
}

#: Non-ASCII characters written as they are (UTF-8): those pdfLaTeX's default
#: setup (utf8 input, OT1 fonts, no package) typesets, checked by compiling
#: each one: Latin-1 and Latin Extended-A letters and signs, and common
#: punctuation. Ð, þ, ą, ę, «, … need T1 fonts and are not among them.
TYPESET_AS_IS = (
    (0x00A0, 0x00AA), (0x00AC, 0x00BA), (0x00BC, 0x00CF), (0x00D1, 0x00DD),
    (0x00DF, 0x00EF), (0x00F1, 0x00FD), (0x00FF, 0x0103), (0x0106, 0x010F),
    (0x0112, 0x0117), (0x011A, 0x0125), (0x0128, 0x012D), (0x0130, 0x0137),
    (0x0139, 0x013E), (0x0141, 0x0148), (0x014C, 0x0165), (0x0168, 0x0171),
    (0x0174, 0x017E), (0x2013, 0x2014), (0x2018, 0x2019), (0x201C, 0x201D),
    (0x2020, 0x2022), (0x2026, 0x2026), (0x2030, 0x2030), (0x20AC, 0x20AC),
    (0x2122, 0x2122),
)  # fmt: skip


def _typesets(code: int) -> bool:
    return any(low <= code <= high for low, high in TYPESET_AS_IS)


def codepoint(ch: str) -> str:
    """A character pdfLaTeX cannot typeset, as its code point: ``\texttt{[U+4E2D]}``.

    CJK, emoji, Greek, math signs and control characters have no glyph in
    pdfLaTeX's default fonts (the compile stops with "Unicode character … not
    set up for use with LaTeX"); the code point keeps the name identifiable,
    and the CSV beside the table holds it byte-exact.
    """
    return rf"\texttt{{[U+{ord(ch):04X}]}}"


def _escape_char(ch: str) -> str:
    if ch in _ESCAPES:
        return _ESCAPES[ch]
    code = ord(ch)
    if 32 <= code < 127 or (code > 127 and _typesets(code)):
        return ch
    return codepoint(ch)


def escape(text: str) -> str:
    """Escape plain text for LaTeX: specials, ``<``, ``>``, ``|`` and non-ASCII.

    The result compiles with pdfLaTeX without any package: characters outside
    :data:`TYPESET_AS_IS` are written as their code point (:func:`codepoint`).
    """
    return "".join(_escape_char(ch) for ch in str(text))


def format_number(value, decimals: int = 1, missing: str = "--") -> str:
    """Fixed-decimal number, or ``missing`` for None/NaN (the papers print ``--``)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return missing
    if isinstance(value, str):
        return escape(value)
    return f"{value:.{decimals}f}"


def bold_extremes(table: pd.DataFrame, rules: dict[str, str], eligible=None) -> pd.DataFrame:
    """Boolean mask marking each column's best cell(s), as the papers bold them.

    Parameters
    ----------
    table : DataFrame of numbers
    rules : dict
        Column → ``"max"`` or ``"min"``; columns not named are never bold. Ties are
        all bold.
    eligible : array_like of bool, optional
        Per row, whether it may be "best"; default every row. A model flagged
        ``small_n`` (one item answered gives a TAR of 100.0) is not eligible: it is
        never bold, and the best is taken among the other rows.
    """
    mask = pd.DataFrame(False, index=table.index, columns=table.columns)
    keep = (
        pd.Series(True, index=table.index)
        if eligible is None
        else pd.Series(list(eligible), index=table.index, dtype=bool)
    )
    for column, rule in rules.items():
        values = pd.to_numeric(table[column], errors="coerce").where(keep)
        if values.notna().any():
            target = values.max() if rule == "max" else values.min()
            mask[column] = values == target
    return mask


def booktabs(
    body: pd.DataFrame,
    *,
    caption: str,
    label: str,
    decimals: int | dict[str, int] = 1,
    bold: pd.DataFrame | None = None,
    header: list[str] | None = None,
    column_format: str | None = None,
    notes: str | None = None,
) -> str:
    """Render a DataFrame as a booktabs ``table`` environment.

    Parameters
    ----------
    body : DataFrame
        Rows and columns as they should print; the index is not printed (reset it
        first if it should be a column).
    caption, label : str
        LaTeX caption (escaped) and ``\\label`` key.
    decimals : int or dict
        Decimals for numeric cells, globally or per column.
    bold : DataFrame of bool, optional
        Same shape as ``body``; True cells are wrapped in ``\\textbf``.
    header : list of str, optional
        Printed column names (escaped); defaults to ``body.columns``.
    column_format : str, optional
        Defaults to ``l`` for the first column and ``r`` for the rest.
    notes : str, optional
        A footnote line under the table (escaped).
    """
    columns = list(body.columns)
    header = header or [str(c) for c in columns]
    column_format = column_format or ("l" + "r" * (len(columns) - 1))
    lines = [
        r"\begin{table}[t]",
        r"\centering",
        rf"\caption{{{escape(caption)}}}",
        rf"\label{{{label}}}",
        rf"\begin{{tabular}}{{{column_format}}}",
        r"\toprule",
        " & ".join(escape(h) for h in header) + r" \\",
        r"\midrule",
    ]
    for i in range(len(body)):
        cells = []
        for column in columns:
            value = body.iloc[i][column]
            places = decimals.get(column, 1) if isinstance(decimals, dict) else decimals
            text = format_number(value, places) if not isinstance(value, str) else escape(value)
            if bold is not None and bool(bold.iloc[i][column]):
                text = rf"\textbf{{{text}}}"
            cells.append(text)
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    if notes:
        lines.append(rf"\par\smallskip{{\footnotesize {escape(notes)}}}")
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"
