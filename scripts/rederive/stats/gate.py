"""A statistical gate between a baseline and a candidate: better, not worse, worse, inconclusive.

On the items both models answered, the paired difference ``Δ = candidate − baseline``
(accuracies as fractions) is estimated with a two-sided confidence interval at
``level`` by the analysis's own method (:mod:`rederive.stats.clustered`, as
``pairwise.csv``):

* unclustered 0/1 scores: Newcombe's hybrid score interval for a difference of
  paired proportions (method 10 of Newcombe 1998; Fagerland, Lydersen & Laake
  2014 recommend it), with the exact McNemar test (a binomial test on the
  discordant items) deciding superiority, as ``pairwise.csv``'s p-value does;
* fractional scores (epoch means, partial credit): the paired t interval on the
  per-item differences (``n − 1`` df);
* with ``cluster_by``: the clustered t interval, ``C − 1`` df
  (:func:`rederive.stats.clustered.paired_differences`).

Three one-sided hypotheses are tested, each at ``α/2`` with ``α = 1 − level``:

===============  ==================  =====================================
verdict          rejected H0          reading of the interval
===============  ==================  =====================================
``worse``        Δ ≥ −margin          upper bound below −margin
``better``       Δ ≤ 0                lower bound above 0
``not worse``    Δ ≤ −margin          lower bound above −margin
===============  ==================  =====================================

checked in that order; none rejected is ``inconclusive``. A two-sided interval at
``level`` has each tail at ``α/2``, so "lower bound above −margin" is exactly the
one-sided non-inferiority test at ``α/2`` (a one-sided ``(1 + level)/2`` bound):
the regulatory convention of judging non-inferiority by the two-sided 95%
interval (ICH E9; CPMP 2000), and the lower half of the two one-sided tests
(TOST, Schuirmann 1987) at ``α/2`` each, i.e. of an equivalence test whose
interval is the same two-sided ``level`` one. Because the hypotheses are nested
(Δ > 0 implies Δ > −margin), reading superiority off the same interval after
non-inferiority needs no multiplicity adjustment (closed testing; Morikawa &
Yoshida 1995; CPMP 2000). A candidate that is below the baseline but provably
within the margin is ``not worse``, and the reason says so.

Why Newcombe's interval for 0/1 scores, and why exact McNemar beside it. The
exact McNemar test conditions on the number of discordant items ``m`` and is
exact at Δ = 0 only: inverting it at Δ = −margin needs the discordant share
``ψ = P(a ≠ b)``, a nuisance parameter, and plugging in ``ψ̂`` understates the
variance by the factor ``(1 − (δ/ψ)²) / (1 − δ²/ψ)`` (δ the margin): for two
close models (ψ = 5%) and a 2-point margin the test's size at the margin is
0.036 instead of 0.025. Newcombe's square-and-add interval combines the two
Wilson score intervals of the marginal accuracies with their correlation, is
unconditional, never leaves [−1, 1], and keeps near-nominal coverage at
every ψ (Newcombe 1998, Fagerland et al. 2014; ``bench/gate_simulation.py``
measures its size at the margin here). Superiority is a test at Δ = 0, where the
conditional test is exact and is what ``pairwise.csv`` reports, so ``better``
is decided by it; at a borderline the interval's lower bound may sit a hair on
the other side of 0, and the row's reason says which test decided.

Inconclusive gates report what would decide them: the distance of the
estimate from the margin, the minimum detectable distance (MDE) at this ``n`` and
the items (or, without clusters, the epochs per item,
:mod:`rederive.stats.noise`) at which a true difference equal to the estimate
would be decided with the target power (:mod:`rederive.stats.power`, two-sided
``α`` = one-sided ``α/2``).

References
----------
Schuirmann, D. J. (1987). A comparison of the two one-sided tests procedure and
    the power approach for assessing the equivalence of average bioavailability.
    *Journal of Pharmacokinetics and Biopharmaceutics*, 15(6), 657–680.
Wellek, S. (2010). *Testing Statistical Hypotheses of Equivalence and
    Noninferiority*, 2nd ed., ch. 2 (non-inferiority), ch. 5.2 (paired binary
    data). Chapman & Hall/CRC.
Newcombe, R. G. (1998). Improved confidence intervals for the difference between
    binomial proportions based on paired data. *Statistics in Medicine*, 17(22),
    2635–2650 (method 10).
Fagerland, M. W., Lydersen, S. & Laake, P. (2014). Recommended tests and
    confidence intervals for paired binomial proportions. *Statistics in
    Medicine*, 33(16), 2850–2875.
McNemar, Q. (1947). Note on the sampling error of the difference between
    correlated proportions or percentages. *Psychometrika*, 12(2), 153–157.
Morikawa, T. & Yoshida, M. (1995). A useful testing strategy in phase III trials:
    combined test of superiority and test of equivalence. *Journal of
    Biopharmaceutical Statistics*, 5(3), 297–306.
CPMP (2000). Points to consider on switching between superiority and
    non-inferiority. EMEA, CPMP/EWP/482/99.
Benjamini, Y. & Hochberg, Y. (1995). Controlling the false discovery rate. *JRSS B*,
    57(1), 289–300.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
from scipy import optimize, stats
from statsmodels.stats.proportion import proportion_confint

from rederive.stats.clustered import (
    PAIRED_T,
    T_METHOD,
    clustered_ratio,
    paired_differences,
    t_interval,
)
from rederive.stats.multitest import bh_adjust
from rederive.stats.power import mde, n_needed, paired_influence, unit_sd

__all__ = [
    "BETTER",
    "NOT_WORSE",
    "WORSE",
    "INCONCLUSIVE",
    "VERDICTS",
    "NEWCOMBE",
    "PairedDifference",
    "GateDecision",
    "newcombe_paired_interval",
    "newcombe_pvalues",
    "mcnemar_one_sided",
    "paired_difference",
    "decide",
    "gate",
    "gate_by_group",
]

BETTER = "better"
NOT_WORSE = "not worse"
WORSE = "worse"
INCONCLUSIVE = "inconclusive"
#: Every verdict, best first.
VERDICTS = (BETTER, NOT_WORSE, INCONCLUSIVE, WORSE)

#: ``ci_method`` of the unclustered 0/1 interval.
NEWCOMBE = "Newcombe hybrid score, paired (method 10)"
#: ``p_method`` of the superiority test of unclustered 0/1 scores.
MCNEMAR_ONE_SIDED = "exact McNemar, one-sided (binomial on discordant items)"


def _wilson(count, n, level: float):
    """Wilson score interval of ``count / n`` (statsmodels, vectorised); level 0 is the point."""
    count = np.asarray(count, dtype=float)
    n = np.asarray(n, dtype=float)
    if level <= 0:
        return count / n, count / n
    low, high = proportion_confint(count, n, alpha=1.0 - level, method="wilson")
    return np.asarray(low, dtype=float), np.asarray(high, dtype=float)


def _phi(both, cand_only, base_only, neither):
    """Newcombe's correlation of the two marginal accuracies, continuity-corrected.

    ``(ad − bc) / √(efgh)`` over the 2×2 table with the numerator pulled towards
    zero by ``n/2`` when positive (0 when it lies in ``[0, n/2]``; Newcombe 1998,
    method 10; Fagerland et al. 2014, §4.3), 0 when a margin is empty.
    """
    a, b, c, d = (np.asarray(x, dtype=float) for x in (both, cand_only, base_only, neither))
    n = a + b + c + d
    margins = (a + b) * (c + d) * (a + c) * (b + d)
    cross = a * d - b * c
    cross = np.where(cross > n / 2, cross - n / 2, np.where(cross >= 0, 0.0, cross))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(margins > 0, cross / np.sqrt(margins), 0.0)


def newcombe_paired_interval(both, cand_only, base_only, neither, level: float = 0.95):
    """Newcombe's hybrid score interval of ``p_candidate − p_baseline`` on paired 0/1 data.

    Parameters
    ----------
    both, cand_only, base_only, neither : int or array_like of int
        Items both models got right, only the candidate, only the baseline,
        neither (arrays: one table per entry).
    level : float
        Two-sided confidence level (0 gives the point estimate twice).

    Returns
    -------
    low, high : float or ndarray
        ``θ̂ − √(dl₁² − 2φ dl₁ du₂ + du₂²)`` and ``θ̂ + √(du₁² − 2φ du₁ dl₂ + dl₂²)``,
        ``θ̂ = (cand_only − base_only) / n``, ``dl``/``du`` the distances from each
        marginal accuracy to its Wilson bounds (1 = candidate, 2 = baseline) and
        ``φ`` the continuity-corrected correlation of the two margins. NaN for an
        empty table.

    Notes
    -----
    Square-and-add (MOVER) on Wilson intervals with the correlation of the two
    marginal estimates: Newcombe (1998) method 10, Fagerland et al. (2014)
    "Newcombe square-and-add".
    """
    a, b, c, d = (np.asarray(x, dtype=float) for x in (both, cand_only, base_only, neither))
    n = a + b + c + d
    safe = np.where(n > 0, n, 1.0)
    p1, p2 = (a + b) / safe, (a + c) / safe
    l1, u1 = _wilson(a + b, safe, level)
    l2, u2 = _wilson(a + c, safe, level)
    phi = _phi(a, b, c, d)
    down = (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2
    up = (u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2
    theta = p1 - p2
    low = np.where(n > 0, theta - np.sqrt(np.maximum(down, 0.0)), np.nan)
    high = np.where(n > 0, theta + np.sqrt(np.maximum(up, 0.0)), np.nan)
    if low.ndim == 0:
        return float(low), float(high)
    return low, high


def _inverted(bound, target: float, *, lower: bool) -> float:
    """One-sided p-value of ``H0: Δ ≤ target`` (``lower``) or ``H0: Δ ≥ target``, by inversion.

    ``bound(level)`` is the interval's lower (``lower``) or upper bound at
    two-sided ``level``, with the point estimate strictly above (below)
    ``target``. The p-value is the ``p`` at which the bound of level ``1 − 2p``
    meets ``target``, so ``p < α/2`` exactly when the ``1 − α`` interval
    excludes ``target``.
    """
    sign = 1.0 if lower else -1.0

    def gap(p: float) -> float:
        return sign * (bound(1.0 - 2.0 * p) - target)

    tiny = 1e-15
    if gap(tiny) > 0:
        return 0.0
    return float(optimize.brentq(gap, tiny, 0.5, xtol=1e-300, rtol=1e-15))


def newcombe_pvalues(
    both: int, cand_only: int, base_only: int, neither: int, margin: float
) -> tuple[float, float]:
    """One-sided p-values of non-inferiority (``H0: Δ ≤ −margin``) and inferiority
    (``H0: Δ ≥ −margin``) by inverting :func:`newcombe_paired_interval`.

    ``p < α/2`` exactly when the ``1 − α`` interval's lower (upper) bound lies
    above (below) ``−margin``. The side the estimate is not on gets ``1 − p`` of
    the other (so the two add up to 1, as a one-sided pair of a continuous test
    does); an estimate exactly on the margin gives 1/2 to both.
    """
    table = (both, cand_only, base_only, neither)

    def low(level: float) -> float:
        return newcombe_paired_interval(*table, level=level)[0]

    def high(level: float) -> float:
        return newcombe_paired_interval(*table, level=level)[1]

    point = low(0.0)
    if point > -margin:
        p_nw = _inverted(low, -margin, lower=True)
        return p_nw, 1.0 - p_nw
    if point < -margin:
        p_w = _inverted(high, -margin, lower=False)
        return 1.0 - p_w, p_w
    return 0.5, 0.5


def mcnemar_one_sided(cand_only: int, base_only: int) -> float:
    """Exact McNemar p of ``H0: Δ ≤ 0`` against the candidate being better.

    ``P(X ≥ cand_only)``, ``X ~ Bin(cand_only + base_only, 1/2)``: half the
    two-sided exact McNemar p (:func:`rederive.stats.clustered.mcnemar_exact`)
    when the candidate leads. 1 without discordant items.
    """
    m = cand_only + base_only
    if m == 0:
        return 1.0
    return float(stats.binom.sf(cand_only - 1, m, 0.5))


@dataclass(frozen=True)
class PairedDifference:
    """The paired difference candidate − baseline on the shared items, with its tests.

    Attributes
    ----------
    n_items : int
        Items both models answered.
    n_units : int
        Independent units behind the interval: items, or clusters with ``cluster_by``.
    baseline, candidate : float
        Mean scores (fractions).
    diff : float
        ``candidate − baseline``.
    ci_low, ci_high : float
        Two-sided interval at ``level``.
    ci_method, p_method : str
        The interval's method; the superiority test's.
    p_better, p_not_worse, p_worse : float
        One-sided p-values of ``H0: Δ ≤ 0``, ``H0: Δ ≤ −margin``, ``H0: Δ ≥ −margin``.
    cand_only, base_only : int
        Items only the candidate (only the baseline) scored higher on.
    sd_unit : float
        Per-unit sd of the paired influence (:func:`rederive.stats.power.unit_sd`).
    """

    n_items: int
    n_units: int
    baseline: float
    candidate: float
    diff: float
    ci_low: float
    ci_high: float
    ci_method: str
    p_method: str
    p_better: float
    p_not_worse: float
    p_worse: float
    cand_only: int
    base_only: int
    sd_unit: float


def _is_binary(*columns: np.ndarray) -> bool:
    return all(np.isin(c, (0.0, 1.0)).all() for c in columns)


def _t_one_sided(diff: float, se: float, df: float, target: float) -> tuple[float, float]:
    """``P(T ≥ t)`` and ``P(T ≤ t)`` for ``t = (diff − target) / se`` on ``df`` df.

    A zero SE (every unit shows the same difference) is the statistic's limit:
    0 or 1, and 1/2 on the target itself.
    """
    if not (df >= 1) or not np.isfinite(se):
        return float("nan"), float("nan")
    if se == 0:
        if diff == target:
            return 0.5, 0.5
        return (0.0, 1.0) if diff > target else (1.0, 0.0)
    t = (diff - target) / se
    return float(stats.t.sf(t, df)), float(stats.t.cdf(t, df))


def paired_difference(
    baseline,
    candidate,
    *,
    margin: float,
    level: float = 0.95,
    clusters=None,
) -> PairedDifference:
    """Paired difference ``candidate − baseline`` with its interval and one-sided tests.

    Parameters
    ----------
    baseline, candidate : array_like, shape (n,)
        Per-item scores in [0, 1] (epoch means) on the items both answered, aligned.
    margin : float
        Non-inferiority margin as a fraction (0.01 = 1 point), ≥ 0.
    level : float
        Two-sided confidence level; each one-sided test is at ``(1 − level)/2``.
    clusters : array_like, shape (n,), optional
        Cluster label of each item (``cluster_by``); None: items are independent.

    Returns
    -------
    PairedDifference

    Raises
    ------
    ValueError
        On unaligned or missing scores, fewer than two items, or a negative margin.
    """
    b = np.asarray(baseline, dtype=float)
    c = np.asarray(candidate, dtype=float)
    if b.shape != c.shape or b.ndim != 1:
        raise ValueError("baseline and candidate must be 1-D arrays of one length")
    if np.isnan(b).any() or np.isnan(c).any():
        raise ValueError("scores must be present for every item (pass the shared items only)")
    if margin < 0:
        raise ValueError(f"the margin must be >= 0, got {margin}")
    if b.size < 2:
        raise ValueError(f"a paired difference needs at least 2 items, got {b.size}")
    cand_only = int((c > b).sum())
    base_only = int((b > c).sum())
    influence = paired_influence(c, b, clusters=clusters)
    sd = unit_sd(influence)
    if clusters is None and _is_binary(b, c):
        both = int(((b == 1) & (c == 1)).sum())
        neither = int(((b == 0) & (c == 0)).sum())
        low, high = newcombe_paired_interval(both, cand_only, base_only, neither, level)
        p_nw, p_w = newcombe_pvalues(both, cand_only, base_only, neither, margin)
        return PairedDifference(
            n_items=int(b.size),
            n_units=int(b.size),
            baseline=float(b.mean()),
            candidate=float(c.mean()),
            diff=(cand_only - base_only) / b.size,
            ci_low=low,
            ci_high=high,
            ci_method=NEWCOMBE,
            p_method=MCNEMAR_ONE_SIDED,
            p_better=mcnemar_one_sided(cand_only, base_only),
            p_not_worse=p_nw,
            p_worse=p_w,
            cand_only=cand_only,
            base_only=base_only,
            sd_unit=sd,
        )
    fit = clustered_ratio(np.column_stack([c, b]), np.ones((b.size, 2)), clusters=clusters)
    diff, se, n_clusters = (float(v[0]) for v in paired_differences(fit, [0], [1]))
    n_clusters = int(n_clusters)
    low, high = (float(v) for v in t_interval(diff, se, n_clusters, level))
    df = n_clusters - 1.0
    p_better, _ = _t_one_sided(diff, se, df, 0.0)
    p_nw, p_w = _t_one_sided(diff, se, df, -margin)
    method = T_METHOD if clusters is not None else PAIRED_T
    return PairedDifference(
        n_items=int(b.size),
        n_units=n_clusters,
        baseline=float(fit.estimate[1]),
        candidate=float(fit.estimate[0]),
        diff=diff,
        ci_low=low,
        ci_high=high,
        ci_method=method,
        p_method=f"{method}, one-sided",
        p_better=p_better,
        p_not_worse=p_nw,
        p_worse=p_w,
        cand_only=cand_only,
        base_only=base_only,
        sd_unit=sd,
    )


def decide(p_better: float, p_not_worse: float, p_worse: float, alpha_one_sided: float) -> str:
    """The verdict from the three one-sided p-values (worse, better, not worse, in order).

    NaN p-values (no variance could be estimated) decide nothing: ``inconclusive``.
    """
    if p_worse < alpha_one_sided:
        return WORSE
    if p_better < alpha_one_sided:
        return BETTER
    if p_not_worse < alpha_one_sided:
        return NOT_WORSE
    return INCONCLUSIVE


@dataclass(frozen=True)
class GateDecision:
    """A gate's verdict with its difference and what would decide it.

    Attributes
    ----------
    difference : PairedDifference
    margin, level : float
        The margin (fraction) and two-sided level the verdict was reached at.
    verdict : str
        One of :data:`VERDICTS`.
    reason : str
        One sentence: which bound or test decided, or why nothing did.
    distance : float
        ``|Δ̂ + margin|``: how far the estimate is from the margin (fraction).
    mde : float
        Smallest true distance from the margin decided with ``power`` at this
        number of units (fraction).
    units_needed : float
        Units (items, or clusters) at which a true difference equal to the
        estimate is decided with ``power``; inf when the estimate is on the margin.
    items_needed : float
        ``units_needed`` in items (clusters × mean items per cluster).
    power : float
        The target power of ``mde`` and ``units_needed``.
    """

    difference: PairedDifference
    margin: float
    level: float
    verdict: str
    reason: str
    distance: float
    mde: float
    units_needed: float
    items_needed: float
    power: float

    def as_dict(self) -> dict:
        out = asdict(self.difference)
        out.update({k: v for k, v in asdict(self).items() if k != "difference"})
        return out


def _pp(x: float) -> str:
    return f"{100 * x:+.1f} pp".replace("-", "−")


def _reason(d: PairedDifference, verdict: str, margin: float, alpha: float) -> str:
    ci = f"CI [{_pp(d.ci_low)}, {_pp(d.ci_high)}]"
    edge = _pp(-margin)
    if verdict == WORSE:
        return f"{ci} lies below the margin {edge}"
    if verdict == BETTER:
        text = f"the candidate is better: p = {d.p_better:.2g} < {alpha:.3g} ({d.p_method})"
        if d.ci_low <= 0:
            text += f"; the interval's lower bound is {_pp(d.ci_low)} (another method)"
        return text
    if verdict == NOT_WORSE:
        text = f"{ci} lies above the margin {edge}"
        if d.ci_low > 0:
            text += (
                f"; not shown better: p = {d.p_better:.2g} ≥ {alpha:.3g} ({d.p_method}), "
                "the test that decides superiority"
            )
        elif d.ci_high < 0:
            text += ": lower than the baseline, but by less than the margin"
        return text
    if not np.isfinite(d.p_not_worse):
        return "no variance could be estimated (fewer than 2 units)"
    return f"{ci} contains the margin {edge}"


def gate(
    baseline,
    candidate,
    *,
    margin: float,
    level: float = 0.95,
    clusters=None,
    power: float = 0.8,
) -> GateDecision:
    """The gate's verdict between ``baseline`` and ``candidate`` (aligned per-item scores).

    Parameters
    ----------
    baseline, candidate, margin, level, clusters
        As :func:`paired_difference`.
    power : float
        Target power of the MDE and of the items needed.

    Returns
    -------
    GateDecision

    Notes
    -----
    The MDE and the units needed are those of the two-sided z test at
    ``α = 1 − level`` (:func:`rederive.stats.power.mde`,
    :func:`rederive.stats.power.n_needed`), i.e. the one-sided test at ``α/2``
    the gate runs against the margin, on the per-unit sd of the paired influence.
    """
    d = paired_difference(baseline, candidate, margin=margin, level=level, clusters=clusters)
    alpha = 1.0 - level
    verdict = decide(d.p_better, d.p_not_worse, d.p_worse, alpha / 2.0)
    distance = abs(d.diff + margin)
    detectable = float(mde(d.sd_unit, d.n_units, alpha, power))
    units = float(n_needed(distance, d.sd_unit, alpha, power))
    per_unit = d.n_items / d.n_units if d.n_units else float("nan")
    items = float(math.ceil(units * per_unit - 1e-9)) if np.isfinite(units) else units
    return GateDecision(
        difference=d,
        margin=margin,
        level=level,
        verdict=verdict,
        reason=_reason(d, verdict, margin, alpha / 2.0),
        distance=distance,
        mde=detectable,
        units_needed=units,
        items_needed=items,
        power=power,
    )


def gate_by_group(
    baseline,
    candidate,
    groups,
    *,
    margin: float,
    level: float = 0.95,
    clusters=None,
    power: float = 0.8,
    min_n: int = 2,
) -> list[dict]:
    """:func:`gate` per group (task), the verdicts taken on BH-adjusted p-values.

    Each of the three one-sided families (worse, better, not worse) is adjusted
    across the groups with Benjamini–Hochberg at the gate's one-sided level
    ``(1 − level)/2`` (:func:`rederive.stats.multitest.bh_adjust`), and each
    group's verdict is :func:`decide` on its q-values. A group with fewer than
    ``min_n`` items (or fewer than two units) is left out of the families and is
    ``inconclusive``, its reason saying so.

    Returns
    -------
    list of dict
        One per group in sorted order: ``group``, the :meth:`GateDecision.as_dict`
        fields (their ``verdict`` the adjusted one), ``q_better``,
        ``q_not_worse``, ``q_worse`` and ``in_family``.
    """
    b = np.asarray(baseline, dtype=float)
    c = np.asarray(candidate, dtype=float)
    g = np.asarray(groups).astype(str)
    cl = None if clusters is None else np.asarray(clusters)
    rows: list[dict] = []
    for name in sorted(set(g)):
        mask = g == name
        n = int(mask.sum())
        if n < max(min_n, 2):
            rows.append({"group": name, "n_items": n, "in_family": False})
            continue
        decision = gate(
            b[mask],
            c[mask],
            margin=margin,
            level=level,
            clusters=None if cl is None else cl[mask],
            power=power,
        )
        row = {"group": name, **decision.as_dict()}
        row["in_family"] = bool(np.isfinite(row["p_not_worse"]))
        rows.append(row)
    alpha = (1.0 - level) / 2.0
    family = [r for r in rows if r["in_family"]]
    for key in ("p_better", "p_not_worse", "p_worse"):
        _, q = bh_adjust(np.array([r[key] for r in family], dtype=float), alpha)
        for r, value in zip(family, q, strict=True):
            r["q" + key[1:]] = float(value)
    for r in rows:
        if r["in_family"]:
            r["verdict"] = decide(r["q_better"], r["q_not_worse"], r["q_worse"], alpha)
            r["reason"] = _bh_reason(r, margin, alpha)
        else:
            r.setdefault("verdict", INCONCLUSIVE)
            r["reason"] = (
                f"{r['n_items']} item(s), fewer than min_n = {min_n}: left out of the BH family"
                if r["n_items"] < max(min_n, 2)
                else "no variance could be estimated (fewer than 2 units): left out of the BH family"
            )
            for key in ("q_better", "q_not_worse", "q_worse"):
                r.setdefault(key, float("nan"))
    return rows


def _bh_reason(row: dict, margin: float, alpha: float) -> str:
    verdict = row["verdict"]
    q = {WORSE: "q_worse", BETTER: "q_better", NOT_WORSE: "q_not_worse"}.get(verdict)
    ci = f"CI [{_pp(row['ci_low'])}, {_pp(row['ci_high'])}]"
    if q is None:
        return f"{ci}; no BH-adjusted one-sided test below {alpha:.3g}"
    return f"{ci}; BH q = {row[q]:.2g} < {alpha:.3g} ({verdict}, margin {_pp(-margin)})"
