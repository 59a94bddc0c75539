"""Exact percentages and small-sample intervals for rates.

References
----------
Wilson, E. B. (1927). Probable inference, the law of succession, and statistical
    inference. *JASA*, 22(158), 209–212.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

import numpy as np


def percent(numerator: int, denominator: int, decimals: int = 1) -> float:
    """``100 · numerator / denominator`` rounded half-up on the exact fraction.

    The papers print rates at one decimal; rounding the exact rational (not its
    binary float) makes a cell such as 5/8 = 62.5% print the way a reader computes
    it by hand. Returns NaN for a zero denominator (the papers' ``--``).
    """
    if denominator == 0:
        return math.nan
    return round_half_up(Fraction(100 * int(numerator), int(denominator)), decimals)


def round_half_up(value: float | Fraction, decimals: int = 1) -> float:
    """Half-up rounding, exact for a :class:`~fractions.Fraction`.

    A ``Fraction`` (e.g. ``Fraction(100 * 23, 80)``) is rounded on its exact value,
    so 28.75 gives 28.8; a float is rounded through its shortest decimal
    representation (``100 * 23 / 80`` is 28.749999999999996 and gives 28.7). Pass
    the exact fraction whenever the counts are known, so that every table and
    check rounds the same number once.
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return math.nan
    step = Decimal(1).scaleb(-decimals)
    if isinstance(value, Fraction):
        # Decimal division is exact to 28 digits, far beyond any tie a count can make.
        exact = Decimal(value.numerator) / Decimal(value.denominator)
        return float(exact.quantize(step, rounding=ROUND_HALF_UP))
    return float(Decimal(repr(float(value))).quantize(step, rounding=ROUND_HALF_UP))


def wilson_interval(successes, trials, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval (as proportions), NaN where ``trials`` is 0.

    Preferred over the bootstrap for small conditional rates (e.g. Pr[A | S] with a
    handful of flips), where percentile intervals collapse to a point.
    """
    # Imported here: statsmodels.stats.proportion pulls in scipy.stats (~0.6 s), which
    # most jobs that only need percent() / round_half_up() never use.
    from statsmodels.stats.proportion import proportion_confint

    k = np.atleast_1d(np.asarray(successes, dtype=float))
    n = np.atleast_1d(np.asarray(trials, dtype=float))
    lo = np.full(k.shape, np.nan)
    hi = np.full(k.shape, np.nan)
    ok = n > 0
    if ok.any():
        lo[ok], hi[ok] = proportion_confint(k[ok], n[ok], alpha=1 - level, method="wilson")
    return lo, hi


def rounding_compatible(rate_percent: float, denominator: int, decimals: int = 1) -> bool:
    """Whether some integer count k gives ``percent(k, denominator) == rate_percent``.

    Used to test the counts a published rate implies: 30.3% of 195 items must be
    k/195 for an integer k that rounds to 30.3.
    """
    centre = rate_percent * denominator / 100.0
    for k in range(max(0, math.floor(centre) - 2), math.ceil(centre) + 3):
        if k <= denominator and percent(k, denominator, decimals) == round(rate_percent, decimals):
            return True
    return False
