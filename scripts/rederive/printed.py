"""Published numbers as printed: their precision, their scale, and "ours rounds to it".

A paper prints rounded numbers: ``0.273`` stands for any value that rounds to
it at three decimals, ``70.5`` for any that rounds to it at one. The published
check (:mod:`rederive.check`) therefore compares a recomputed value with a
printed one at the printed precision, and the configured tolerance comes on top
of that. The precision is read from the published CSV's *text*: a float has
lost it (``0.250`` and ``0.25`` are the same double).

Precision of a cell
-------------------
``decimals`` is the place of the last printed digit: 3 for ``0.273``, 0 for
``120`` and ``1,500``, 9 for ``5.9e-8`` (scientific notation keeps every printed
digit, trailing zeros included), -2 for ``3e2``. A plain decimal takes the
finest precision of its column (or of its group, in a long table whose
``value`` column holds several quantities): CSV writers drop trailing zeros, so
``0.25`` in a column of three-decimal scores was printed ``0.250``, and ``0.5``
in a column of full-precision doubles (``0.5567624386825508``) is exactly 0.5,
not "0.5 at one decimal". A column can only get stricter this way, never looser.

Rounding rule
-------------
A published value ``p`` printed at ``d`` decimals passes when ours lies in the
closed interval ``[p - h, p + h]``, ``h = 0.5 * 10**-d`` (:func:`half_unit`),
widened by the tolerance. Closed, because the paper's tie rule is unknown: an
exact half (0.2735) prints as 0.274 under half-up and half-even, and as 0.273
when the binary double (0.27349999999999997…) is printed with ``%.3f`` (NumPy,
pandas, f-strings, R's ``sprintf``), so a tie passes for both neighbours.
Truncation is not accepted (it would double the window on one side); a paper
that truncates needs ``check.tolerance``. Ours is a double, so the comparison
allows a few units in its last place (:data:`ULPS`): 100 · 23 / 80 is
28.749999999999996, and its exact value 28.75 rounds half-up to 28.8.

Percent or fraction
-------------------
:func:`score_scale` decides whether a column of scores is in percent with the
audit's rule (:func:`rederive.audit.columns.scale_of`): a setting, then a ``%``
in a cell, a header saying percent, a median above 1; otherwise fractions.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from rederive.audit.cells import number, parse_cell
from rederive.audit.columns import scale_of
from rederive.errors import InputError, relpath
from rederive.io.source import CsvRows, read_csv_frame
from rederive.lazy import pandas as pd

__all__ = [
    "DECIMALS",
    "ULPS",
    "Printed",
    "half_unit",
    "read_printed",
    "column_decimals",
    "record_lines",
    "read_published",
    "score_scale",
]

#: Suffix of the column :func:`read_published` adds beside each value column.
DECIMALS = "__decimals"
#: Units in the last place of the larger operand allowed on top of the
#: printed half unit: the binary error of a recomputed double and of the
#: subtraction, never enough to move a value across a printed digit.
ULPS = 4

_SCIENTIFIC = re.compile(r"^[+\-−–]?(?:\d+(?:\.\d*)?|\.\d+)[eE][+\-−–]?\d+$")


@dataclass(frozen=True)
class Printed:
    """One printed number: its value, the place of its last digit, its ``%``.

    ``decimals`` is the cell's own (see the module docstring); ``scientific``
    cells keep it when a column's precision is applied.
    """

    text: str
    value: float
    decimals: int
    percent_sign: bool = False
    scientific: bool = False


def half_unit(decimals: int | None) -> float:
    """Half a unit of the last printed digit (0 when nothing was printed)."""
    return 0.0 if decimals is None else 0.5 * 10.0 ** (-decimals)


def read_printed(text) -> Printed | None:
    """The number a published cell prints, or None for an empty or missing cell.

    Accepts what :func:`rederive.audit.cells.parse_cell` reads (``−`` as minus,
    ``1,500``, ``70.5%``, bold and star marks) and scientific notation.

    Raises
    ------
    ValueError
        The text is not a number.
    """
    if text is None or (isinstance(text, float) and math.isnan(text)):
        return None
    raw = str(text)
    body = raw.strip()
    if _SCIENTIFIC.match(body):
        parsed = number(body)
        return Printed(raw, float(parsed.value), parsed.decimals, scientific=True)
    cell = parse_cell(raw)
    if cell.missing:
        return None
    if cell.value is None or cell.pm is not None or cell.ci is not None:
        raise ValueError(f"not a single number: {raw!r}")
    return Printed(raw, float(cell.value.value), cell.value.decimals, cell.percent_sign)


def column_decimals(numbers: Iterable[Printed | None]) -> list[int | None]:
    """Each number's printed decimals under its column's precision.

    Plain decimals take the finest precision among the column's plain decimals;
    scientific ones keep their own; missing cells stay None.
    """
    numbers = list(numbers)
    plain = [n.decimals for n in numbers if n is not None and not n.scientific]
    finest = max(plain) if plain else None
    return [None if n is None else (n.decimals if n.scientific else finest) for n in numbers]


def record_lines(path) -> list[int]:
    """The line each data record of ``path`` starts on (blank lines skipped, as pandas does)."""
    rows = iter(CsvRows(path))
    next(rows, None)
    return [line for line, cells in rows if cells]


def read_published(
    path: str | Path, columns: Sequence[str], *, by: Sequence[str] = (), text: Sequence[str] = ()
) -> pd.DataFrame:
    """A published CSV with ``columns`` read as printed numbers.

    Parameters
    ----------
    path : str or Path
        The published table (read with :func:`rederive.io.source.read_csv_frame`,
        so names stay text and a malformed file is an input error on its line).
    columns : sequence of str
        The numeric columns a check compares.
    by : sequence of str
        Columns naming a quantity in a long table: the precision of a plain
        decimal is then the finest within its group (e.g. ``("table",
        "quantity")``), not the whole column's.
    text : sequence of str
        Further columns kept as text (a delta printed with its sign).

    Returns
    -------
    DataFrame
        The table, each of ``columns`` as floats (NaN when empty) with a column
        ``<column>__decimals`` (:data:`DECIMALS`; nullable integers) beside it.

    Raises
    ------
    InputError
        A cell of ``columns`` is not a number (file, line and column named), or
        a column is missing.
    """
    frame = read_csv_frame(path, dtype=dict.fromkeys([*columns, *text], str))
    lines = record_lines(path)
    for column in [*columns, *by]:
        if column not in frame.columns:
            raise InputError("required column is missing", file=relpath(path), line=1, field=column)
    for column in columns:
        numbers = []
        for position, printed in enumerate(frame[column]):
            try:
                numbers.append(read_printed(printed))
            except ValueError as exc:
                line = lines[position] if position < len(lines) else None
                raise InputError(str(exc), file=relpath(path), line=line, field=column) from None
        decimals = pd.Series([None] * len(frame), index=frame.index, dtype="Int64")
        groups = frame.groupby(list(by), sort=False, dropna=False).indices if by else None
        for index in groups.values() if groups else [range(len(frame))]:
            chosen = [numbers[i] for i in index]
            decimals.iloc[list(index)] = pd.array(column_decimals(chosen), dtype="Int64")
        frame[column] = [math.nan if n is None else n.value for n in numbers]
        frame[column + DECIMALS] = decimals
    return frame


def score_scale(
    texts: Iterable, header: str, forced: str | None = None, why: str = ""
) -> tuple[int, str]:
    """100 when a column of printed scores is in percent, 1 for fractions, and why.

    The audit's rule (:func:`rederive.audit.columns.scale_of`) on the cells'
    text: ``forced`` (with ``why``, e.g. the setting that says it), a ``%`` in
    a cell, a header saying percent, a median above 1; otherwise fractions
    (reason :data:`rederive.audit.columns.MEDIAN_FRACTION`).
    """
    cells = [parse_cell(str(t)) for t in texts if t is not None and not _is_nan(t)]
    return scale_of([c for c in cells if not c.missing], header, forced, why)


def _is_nan(value) -> bool:
    return isinstance(value, float) and math.isnan(value)
