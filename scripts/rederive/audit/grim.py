"""GRIM for proportions: is a printed rate k/N for an integer k at its printed precision?

Brown & Heathers (2017) test means of integer data; an accuracy over ``N`` items is
such a mean, so a printed ``72.3%`` over ``N = 164`` must be ``round(100 k / 164)``
for some ``k``. Authors round differently, so a value passes when any common
convention gives it, and the conventions that do are reported:

``half-up``     ties away from zero (``rederive.stats.rates.round_half_up``, Excel)
``half-even``   ties to even (Python's ``decimal`` default, R's ``round``)
``truncate``    digits cut off (``floor`` for non-negative values)
``float``       the double ``k/N·scale`` printed with ``%.{d}f`` (NumPy, pandas, f-strings);
                printed at full precision (15 significant digits or more), any double
                within :data:`ULPS` units in the last place of it, as another order
                of operations computes it (``(wins + draws/2) / n · 100``)

All arithmetic except ``float`` is exact (:class:`~fractions.Fraction`).

Reference: Brown, N. J. L. & Heathers, J. A. J. (2017). The GRIM test. *Social
Psychological and Personality Science*, 8(4), 363–369.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import ROUND_DOWN, ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal, localcontext
from fractions import Fraction

from rederive.audit.cells import Number

MODES = ("half-up", "half-even", "truncate", "float")
#: Units in the last place by which a double computed in another order may differ.
ULPS = 4
#: Significant digits from which a printed number shows a double's last bits.
FULL_PRECISION = 15
_DECIMAL_MODES = {"half-up": ROUND_HALF_UP, "half-even": ROUND_HALF_EVEN, "truncate": ROUND_DOWN}


def _significant(printed: Number) -> int:
    digits = printed.text.strip().lstrip("+-−–").replace(",", "").rstrip("%").strip()
    digits = digits.split("e")[0].split("E")[0].replace(".", "").lstrip("0")
    return len(digits)


def _float_prints(exact: Fraction, decimals: int, target: Fraction) -> bool:
    """Whether a double within :data:`ULPS` of ``exact`` prints as ``target``."""
    x = float(exact)
    up, down = x, x
    for _ in range(ULPS):
        up, down = math.nextafter(up, math.inf), math.nextafter(down, -math.inf)
        for y in (up, down):
            text = repr(y) if decimals >= 15 else f"{y:.{decimals}f}"
            if Fraction(text) == target:
                return True
    return False


def round_as(value: Fraction, decimals: int, mode: str) -> Fraction:
    """``value`` rounded to ``decimals`` under ``mode`` (one of :data:`MODES`)."""
    if mode == "float":
        # A full-precision double is printed by repr (shortest round trip), not %.17f.
        if decimals >= 15:
            return Fraction(repr(float(value)))
        return Fraction(f"{float(value):.{decimals}f}")
    with localcontext() as ctx:
        ctx.prec = 60
        exact = Decimal(value.numerator) / Decimal(value.denominator)
        return Fraction(exact.quantize(Decimal(1).scaleb(-decimals), rounding=_DECIMAL_MODES[mode]))


@dataclass(frozen=True)
class GrimResult:
    """Outcome of :func:`grim`.

    ``counts`` are the k that print as the value (with the modes that do);
    ``below`` / ``above`` the nearest achievable printed values when none does.
    """

    consistent: bool
    counts: tuple[int, ...]
    modes: tuple[str, ...]
    below: tuple[int, Fraction] | None = None
    above: tuple[int, Fraction] | None = None
    informative: bool = True


def granularity_informative(decimals: int, n: int, scale: int) -> bool:
    """Whether GRIM can fail at all: the step ``scale/N`` exceeds the printed step."""
    return Fraction(scale, n) > Fraction(1, 10**decimals)


def grim(printed: Number, n: int, scale: int = 100) -> GrimResult:
    """Test a printed proportion (``scale`` 100 for percent, 1 for a fraction) over ``n``.

    Parameters
    ----------
    printed : Number
        The value as printed (:func:`rederive.audit.cells.number`).
    n : int
        Denominator (items).
    scale : int
        100 when the value is a percentage, 1 when a fraction.
    """
    if n < 1:
        raise ValueError(f"N must be at least 1, got {n}")
    d = printed.decimals
    target = printed.value
    informative = granularity_informative(d, n, scale)
    centre = float(target) * n / scale
    lo_k = max(0, math.floor(centre) - 2)
    hi_k = min(n, math.ceil(centre) + 2)
    counts, modes = [], set()
    full = _significant(printed) >= FULL_PRECISION
    for k in range(lo_k, hi_k + 1):
        exact = Fraction(k * scale, n)
        matched = [m for m in MODES if round_as(exact, d, m) == target]
        if not matched and full and _float_prints(exact, d, target):
            matched = ["float"]
        if matched:
            counts.append(k)
            modes.update(matched)
    if counts:
        order = tuple(m for m in MODES if m in modes)
        return GrimResult(True, tuple(counts), order, informative=informative)
    below = above = None
    k_below = min(n, max(0, math.floor(centre)))
    while k_below >= 0 and round_as(Fraction(k_below * scale, n), d, "half-up") >= target:
        k_below -= 1
    if k_below >= 0:
        below = (k_below, round_as(Fraction(k_below * scale, n), d, "half-up"))
    k_above = max(0, min(n, math.ceil(centre)))
    while k_above <= n and round_as(Fraction(k_above * scale, n), d, "half-up") <= target:
        k_above += 1
    if k_above <= n:
        above = (k_above, round_as(Fraction(k_above * scale, n), d, "half-up"))
    return GrimResult(False, (), (), below, above, informative)


def fmt(value: Fraction, decimals: int) -> str:
    """``value`` printed at ``decimals`` (half-up), for messages."""
    with localcontext() as ctx:
        ctx.prec = 60
        exact = Decimal(value.numerator) / Decimal(value.denominator)
        return str(exact.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP))
