"""Error bars a proportion over N can have: SE, ± and CI width against √(p(1−p)/N).

For a proportion ``p = k/N`` of 0/1 scores the standard error is ``√(p(1−p)/N)``,
or ``√(p(1−p)/(N−1))`` with the sample sd (lm-evaluation-harness); a 95% CI
half-width is ``z·SE`` with ``z`` between 1.96 and 2. A printed ``± e`` passes when
some ``p`` the printed value allows and one of these gives ``e`` at its printed
precision. With clusters (``--clusters C``) the SE of a mean over ``C`` clusters can
be anything up to ``√(p(1−p)/(C−1))``, so only an ``e`` above that bound is flagged.
``0 ± 0`` at 0% or 100% is arithmetically right but says nothing (the Wald
interval degenerates; a Wilson or Clopper–Pearson interval does not), so it is a
warning; an SE of 0 strictly inside (0, 1) is impossible.

A CI in brackets is checked by its width against the Wald, Wilson and
Clopper–Pearson intervals at N, with a relative slack of :data:`CI_SLACK` for
bootstrap noise: narrower than all of them cannot come from N (error), wider than
all of them suggests a smaller N or a clustered design (warning).
"""

from __future__ import annotations

import math
from fractions import Fraction

from scipy.stats import beta, norm

from rederive.audit.cells import Number
from rederive.audit.findings import Finding
from rederive.audit.grim import fmt, grim
from rederive.stats.rates import wilson_interval

#: Relative slack on CI widths: a 2,000-replicate percentile bootstrap's width
#: varies by a few percent around the analytic one; 20% keeps it from firing.
CI_SLACK = 0.20
#: Relative slack on an SE bound: the float error of a value that reaches it.
MEAN_SE_SLACK = 1e-12


def p_range(printed: Number, n: int, scale: int, halves: bool = False) -> tuple[float, float]:
    """Proportions (0–1) the printed value allows: its GRIM counts (in halves for a win
    rate, a draw counting half), else its rounding interval."""
    units = 2 * n if halves else n
    result = grim(printed, units, scale)
    if result.consistent:
        return min(result.counts) / units, max(result.counts) / units
    v = printed.value / scale
    h = printed.half_step / scale
    return float(max(Fraction(0), v - h)), float(min(Fraction(1), v + 2 * h))


def _pq_range(p_lo: float, p_hi: float) -> tuple[float, float]:
    values = [p_lo * (1 - p_lo), p_hi * (1 - p_hi)]
    if p_lo <= 0.5 <= p_hi:
        values.append(0.25)
    return min(values), max(values)


def _draws_floor(p_lo: float, p_hi: float) -> float:
    """Smallest variance of values in {0, ½, 1} with a mean in ``[p_lo, p_hi]``: as many
    draws as the mean allows, p(½ − p) below ½ and (1 − p)(p − ½) above (0 at ½)."""

    def floor(p: float) -> float:
        return p * (0.5 - p) if p <= 0.5 else (1 - p) * (p - 0.5)

    if p_lo <= 0.5 <= p_hi:
        return 0.0
    return min(floor(p_lo), floor(p_hi))


def se_range(p_lo: float, p_hi: float, n: int, halves: bool = False) -> tuple[float, float]:
    """Smallest and largest binomial SE (0–1 scale) over ``[p_lo, p_hi]`` with N or N−1;
    for a win rate (``halves``: a draw is ½) the smallest is that of the most draws."""
    lo_pq, hi_pq = _pq_range(p_lo, p_hi)
    if halves:
        lo_pq = _draws_floor(p_lo, p_hi)
    return math.sqrt(lo_pq / n), math.sqrt(hi_pq / max(n - 1, 1))


def printed_range(e: Number, scale: int) -> tuple[float, float]:
    """Values (0–1 scale) a printed non-negative number may have been rounded or cut from."""
    lo = max(0.0, float(e.value - e.half_step) / scale)
    return lo, float(e.value + 2 * e.half_step) / scale


def z_range(level: float) -> tuple[float, float]:
    z = float(norm.ppf(0.5 + level / 2))
    # 2 is the textbook rounding of 1.96; accepted at 95% only.
    return (z, 2.0) if abs(level - 0.95) < 1e-9 else (z, z)


def expected_pm(
    kind: str,
    p_lo: float,
    p_hi: float,
    n: int,
    level: float,
    clusters: int | None,
    halves: bool = False,
):
    """(low, high) of what ``±`` may be (0–1 scale) for ``kind`` ``se`` / ``ci`` / ``sd``."""
    if kind == "sd":
        lo_pq, hi_pq = _pq_range(p_lo, p_hi)
        if halves:
            lo_pq = _draws_floor(p_lo, p_hi)
        return math.sqrt(lo_pq), math.sqrt(hi_pq * n / max(n - 1, 1))
    lo, hi = se_range(p_lo, p_hi, n, halves)
    if clusters:
        lo, hi = 0.0, math.sqrt(_pq_range(p_lo, p_hi)[1] / max(clusters - 1, 1))
    if kind == "ci":
        zl, zh = z_range(level)
        lo, hi = lo * zl, hi * zh
    return lo, hi


def _interval_widths(k_lo: int, k_hi: int, n: int, level: float) -> tuple[float, float]:
    widths = []
    z = float(norm.ppf(0.5 + level / 2))
    for k in {k_lo, k_hi, min(max(n // 2, k_lo), k_hi)}:
        p = k / n
        widths.append(2 * z * math.sqrt(p * (1 - p) / n))
        lo, hi = wilson_interval(k, n, level)
        widths.append(float(hi[0] - lo[0]))
        a = (1 - level) / 2
        cp_lo = 0.0 if k == 0 else float(beta.ppf(a, k, n - k + 1))
        cp_hi = 1.0 if k == n else float(beta.ppf(1 - a, k + 1, n - k))
        widths.append(cp_hi - cp_lo)
    return min(widths), max(widths)


def implied_n(p: float, half_width: float, z: float) -> int | None:
    """N at which ``z·√(p(1−p)/N)`` equals ``half_width`` (None when undefined)."""
    if half_width <= 0 or not 0 < p < 1:
        return None
    return max(1, round(p * (1 - p) * (z / half_width) ** 2))


def pm_findings(
    where: dict,
    value: Number,
    e: Number,
    n: int,
    scale: int,
    kind: str,
    level: float,
    clusters,
    halves: bool = False,
):
    """Findings of one ``value ± e`` cell (``where``: table, line, row, column);
    ``halves``: a win rate, a draw counting half."""
    name = {"se": "SE", "sd": "SD", "ci": f"{level:.0%} CI half-width"}[kind]
    p_lo, p_hi = p_range(value, n, scale, halves)
    printed = f"{value.text} ± {e.text}"
    if e.value == 0 and (p_hi == 0 or p_lo == 1):
        lo, hi = wilson_interval(round(p_lo * n), n, level if kind == "ci" else 0.95)
        return [
            Finding(
                **where,
                check="error bar: degenerate",
                printed=printed,
                possible=f"0 ± 0 at {'0' if p_hi == 0 else '100'}% is the Wald interval's degenerate case; "
                f"Wilson 95% [{fmt(Fraction(float(lo[0])) * scale, 1)}, {fmt(Fraction(float(hi[0])) * scale, 1)}]",
                severity="warning",
            )
        ]
    lo, hi = expected_pm(kind, p_lo, p_hi, n, level, clusters, halves)
    e_lo, e_hi = printed_range(e, scale)
    # At a bound (every value 0 or 1) a double computed in another order lands a few
    # units in its last place either side of it.
    if e_hi >= lo * (1 - MEAN_SE_SLACK) and e_lo <= hi * (1 + MEAN_SE_SLACK):
        return []
    d = e.decimals
    bound = (
        "at most " + fmt(Fraction(hi) * scale, d + 1)
        if clusters
        else (f"{fmt(Fraction(lo) * scale, d + 1)}–{fmt(Fraction(hi) * scale, d + 1)}")
    )
    why = f" with {clusters} clusters" if clusters else ""
    zero = "; an SE of 0 strictly inside (0, 1) is impossible" if e.value == 0 else ""
    z = z_range(level)[0] if kind == "ci" else 1.0
    p_mid = (p_lo + p_hi) / 2
    other = implied_n(p_mid, float(e.value) / scale / z, 1.0) if kind != "sd" else None
    tail = f" (this ± fits N ≈ {other})" if other else ""
    return [
        Finding(
            **where,
            check=f"error bar: {name}",
            printed=printed,
            possible=f"{name} at N = {n}{why}: {bound}{tail}{zero}",
            severity="error",
        )
    ]


def mean_se_findings(where: dict, value: Number, se: Number, n: int, scale: int):
    """Findings of the SE printed beside a mean of ``n`` per-item values in [0, 1]
    (a weighted win rate): not a proportion, so no lower bound (equal values have
    SE 0), but at most √(p(1−p)/(n−1)), the SE (sample sd) of values at 0 and 1."""
    p_hi = min(1.0, float(value.value + 2 * value.half_step) / scale)
    p_lo = max(0.0, float(value.value - value.half_step) / scale)
    top = math.sqrt(_pq_range(p_lo, p_hi)[1] / max(n - 1, 1))
    # The bound itself is reached (every value 0 or 1): a double computed in another
    # order lands a few units in its last place either side.
    if printed_range(se, scale)[0] <= top * (1 + MEAN_SE_SLACK):
        return []
    fits = implied_n(float(value.value) / scale, float(se.value) / scale, 1.0)
    tail = f" (this SE fits N ≈ {fits + 1} at most)" if fits else ""
    return [
        Finding(
            **where,
            check="error bar: SE of a mean",
            printed=f"{value.text} ± {se.text}",
            possible=f"the SE of a mean of {n} values in 0–1 at this mean is at most "
            f"{fmt(Fraction(top) * scale, se.decimals + 1)}{tail}",
            severity="error",
        )
    ]


def ci_findings(
    where: dict,
    value: Number | None,
    lo: Number,
    hi: Number,
    n: int,
    scale: int,
    level: float,
    clusters,
    halves: bool = False,
):
    """Findings of one printed interval ``[lo, hi]`` (of ``value`` when printed);
    ``halves``: a win rate, whose draws make intervals narrower than k/N's."""
    printed = (f"{value.text} " if value else "") + f"[{lo.text}, {hi.text}]"
    out = []
    if value is not None and not (
        lo.value - lo.half_step <= value.value <= hi.value + hi.half_step
    ):
        out.append(
            Finding(
                **where,
                check="error bar: CI",
                printed=printed,
                possible="the estimate lies outside its own interval",
                severity="error",
            )
        )
    centre = (
        value
        if value is not None
        else Number(
            text="", value=(lo.value + hi.value) / 2, decimals=max(lo.decimals, hi.decimals) + 1
        )
    )
    result = grim(centre, n, scale) if value is not None else None
    if result is not None and result.consistent:
        k_lo, k_hi = min(result.counts), max(result.counts)
    else:
        k = round(float(centre.value) / scale * n)
        k_lo = k_hi = min(max(k, 0), n)
    w_min, w_max = _interval_widths(k_lo, k_hi, n, level)
    if halves:
        p_lo, p_hi = k_lo / n, k_hi / n
        w_min = min(
            w_min, 2 * float(norm.ppf(0.5 + level / 2)) * math.sqrt(_draws_floor(p_lo, p_hi) / n)
        )
    width = float(hi.value - lo.value) / scale
    slack = float(lo.half_step + hi.half_step) * 2 / scale
    z = z_range(level)[0]
    p = (k_lo + k_hi) / 2 / n
    other = implied_n(p, width / 2, z)
    tail = f"; this width fits N ≈ {other}" if other else ""
    d = max(lo.decimals, hi.decimals)
    span = f"{fmt(Fraction(w_min) * scale, d)}–{fmt(Fraction(w_max) * scale, d)}"
    if width + slack < w_min * (1 - CI_SLACK):
        out.append(
            Finding(
                **where,
                check="error bar: CI width",
                printed=printed,
                possible=f"a {level:.0%} interval at N = {n} is {span} wide (Wald, Wilson, Clopper–Pearson){tail}",
                severity="error",
            )
        )
    elif not clusters and width - slack > w_max * (1 + CI_SLACK):
        out.append(
            Finding(
                **where,
                check="error bar: CI width",
                printed=printed,
                possible=f"wider than any {level:.0%} interval at N = {n} ({span}){tail}, or a clustered design (--clusters)",
                severity="warning",
            )
        )
    return out
