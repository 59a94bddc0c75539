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
}


def escape(text: str) -> str:
    """Escape LaTeX special characters in plain text."""
    return "".join(_ESCAPES.get(ch, ch) for ch in str(text))


def format_number(value, decimals: int = 1, missing: str = "--") -> str:
    """Fixed-decimal number, or ``missing`` for None/NaN (the papers print ``--``)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return missing
    if isinstance(value, str):
        return escape(value)
    return f"{value:.{decimals}f}"


def bold_extremes(table: pd.DataFrame, rules: dict[str, str]) -> pd.DataFrame:
    """Boolean mask marking each column's best cell(s), as the papers bold them.

    Parameters
    ----------
    table : DataFrame of numbers
    rules : dict
        Column → ``"max"`` or ``"min"``; columns not named are never bold. Ties are
        all bold.
    """
    mask = pd.DataFrame(False, index=table.index, columns=table.columns)
    for column, rule in rules.items():
        values = pd.to_numeric(table[column], errors="coerce")
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
