"""Can a printed difference of two paired accuracies be significant at N?

Two models graded on the same N items differ by ``d = p_a − p_b``; the SE of ``d``
is ``sd(ρ)/√N`` with ``sd(ρ)² = p_a q_a + p_b q_b − 2ρ√(p_a q_a p_b q_b)``
(Miller 2024, eq. 8; :func:`rederive.stats.power.binary_difference_sd`), ``ρ`` the
item-level correlation of the two models' correctness, which the table does not
print. Real paired evaluations show ρ of about 0.3–0.7 (Miller 2024, §3.2), so a
difference is judged over that range: the two-sided z test at ``α`` is significant
when ``|d|√N/sd(ρ) ≥ z``, which solves in closed form for the smallest ρ needed,
``ρ* = (p_a q_a + p_b q_b − N d²/z²) / (2√(p_a q_a p_b q_b))``.
The z form is the right one here: two complete 0/1 columns are what the exact
McNemar test compares, whose power the normal form gives (the t form of
:mod:`rederive.stats.power` is for paired and clustered t tests).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scipy.stats import norm

from rederive.stats.power import binary_difference_sd, mde


@dataclass(frozen=True)
class Separation:
    """``needed``: smallest ρ at which ``d`` is significant (−inf: at any ρ; inf: at none);
    ``mde_pp``: the MDE (percentage points) at the two ends of the ρ range."""

    needed: float
    rho_max: float
    mde_pp: tuple[float, float]

    def verdict(self, corr: tuple[float, float]) -> str:
        lo, hi = corr
        if self.needed <= lo:
            return "significant"
        if self.needed > min(hi, self.rho_max):
            return "never"
        return "needs"


def rho_bounds(p_a: float, p_b: float) -> float:
    """Largest ρ two accuracies allow (Fréchet bound of the 2×2 table); 1 when degenerate."""
    va, vb = p_a * (1 - p_a), p_b * (1 - p_b)
    if va == 0 or vb == 0:
        return 1.0
    return (min(p_a, p_b) - p_a * p_b) / math.sqrt(va * vb)


def separation(
    p_a: float, p_b: float, n: int, corr=(0.3, 0.7), alpha=0.05, power=0.8
) -> Separation:
    """:class:`Separation` of accuracies ``p_a``, ``p_b`` (0–1) over ``n`` paired items."""
    va, vb = p_a * (1 - p_a), p_b * (1 - p_b)
    z = float(norm.isf(alpha / 2))
    d = abs(p_a - p_b)
    rmax = rho_bounds(p_a, p_b)
    if va == 0 or vb == 0:
        sd = math.sqrt(va + vb)
        needed = (
            -math.inf
            if (sd == 0 and d > 0) or (sd > 0 and d * math.sqrt(n) / sd >= z)
            else math.inf
        )
    else:
        needed = (va + vb - n * d * d / (z * z)) / (2 * math.sqrt(va * vb))
        if needed < -1:
            needed = -math.inf
    mdes = []
    for r in corr:
        r = min(r, rmax)
        try:
            mdes.append(100 * mde(binary_difference_sd(p_a, p_b, r), n, alpha, power))
        except ValueError:
            mdes.append(math.nan)
    return Separation(needed, rmax, (mdes[0], mdes[1]))
