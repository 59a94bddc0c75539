"""A statistical gate between a baseline and a candidate: better, not worse, worse, inconclusive.

On the items both models answered, the paired difference ``Δ = candidate − baseline``
(accuracies as fractions) is estimated with a two-sided confidence interval at
``level`` by the analysis's own method (:mod:`rederive.stats.clustered`, as
``pairwise.csv``):

* unclustered 0/1 scores: Tango's asymptotic score interval for a difference of
  paired proportions (the inversion of the score test whose statistic at Δ = 0
  is McNemar's), with the exact McNemar test (a binomial test on the discordant
  items) deciding superiority, as ``pairwise.csv``'s p-value does;
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

Why Tango's score interval for 0/1 scores, and exact McNemar beside it. The
exact McNemar test conditions on the number of discordant items ``m`` and is
exact at Δ = 0 only: at Δ = −margin the conditional distribution depends on the
discordant share ``ψ = P(a ≠ b)``, a nuisance parameter, and the exact
conditional interval (Clopper–Pearson on the discordant split, mapped by the
observed ``ψ̂``) ignores its variance: for two close models (ψ = 4%) and a
3-point margin it calls a candidate that is exactly 3 points worse "not worse"
11% of the time instead of 2.5%. Tango's score test handles ψ by its
restricted maximum-likelihood estimate under each Δ₀, and Newcombe's hybrid
score interval (method 10) by the Wilson intervals of the two margins; both are
near nominal for distant models, but at close models Newcombe's non-inferiority
test is liberal (0.028–0.032 at ψ = 4–5%) where Tango's stays at or below 0.025
(``bench/gate_simulation.py``, bench/README.md). A gate must above all not pass
a regression, so the interval is Tango's (Fagerland, Lydersen & Laake 2014
recommend both); at Δ = 0 its statistic is McNemar's asymptotic one.
Superiority is a test at Δ = 0, where the conditional test is exact and is
what ``pairwise.csv`` reports, so ``better`` is decided by it; at a borderline
the interval's lower bound may sit a hair on the other side of 0, and the
row's reason says which test decided.

Inconclusive gates report what would decide them: the distance of the
estimate from the margin, the minimum detectable distance (MDE) at this ``n`` and
the items (or, without clusters, the epochs per item,
:mod:`rederive.stats.noise`) at which a true difference equal to the estimate
would be decided with the target power (:mod:`rederive.stats.power`, two-sided
``α`` = one-sided ``α/2``), in the form of the test that decides: the normal
form for Tango's interval and the exact McNemar test, the noncentral t with
``n − 1`` (``C − 1``) df for the paired (clustered) t interval.

References
----------
Schuirmann, D. J. (1987). A comparison of the two one-sided tests procedure and
    the power approach for assessing the equivalence of average bioavailability.
    *Journal of Pharmacokinetics and Biopharmaceutics*, 15(6), 657–680.
Wellek, S. (2010). *Testing Statistical Hypotheses of Equivalence and
    Noninferiority*, 2nd ed., ch. 2 (non-inferiority), ch. 5.2 (paired binary
    data). Chapman & Hall/CRC.
Tango, T. (1998). Equivalence test and confidence interval for the difference in
    proportions for the paired-sample design. *Statistics in Medicine*, 17(8),
    891–908.
Nam, J. (1997). Establishing equivalence of two treatments and sample size
    requirements in matched-pairs design. *Biometrics*, 53(4), 1422–1430.
Newcombe, R. G. (1998). Improved confidence intervals for the difference between
    binomial proportions based on paired data. *Statistics in Medicine*, 17(22),
    2635–2650 (method 10; measured against here).
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

from rederive.stats.clustered import (
    PAIRED_T,
    T_METHOD,
    clustered_ratio,
    paired_differences,
    t_interval,
)
from rederive.stats.multitest import bh_adjust
from rederive.stats.power import (
    POWER_METHOD,
    T_TEST,
    Z_TEST,
    mde,
    n_needed,
    paired_influence,
    unit_sd,
)

__all__ = [
    "BETTER",
    "NOT_WORSE",
    "WORSE",
    "INCONCLUSIVE",
    "VERDICTS",
    "TANGO",
    "MCNEMAR_ONE_SIDED",
    "PairedDifference",
    "GateDecision",
    "tango_statistic",
    "tango_interval",
    "tango_pvalues",
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
TANGO = "Tango score interval, paired (restricted ML)"
#: ``p_method`` of the superiority test of unclustered 0/1 scores.
MCNEMAR_ONE_SIDED = "exact McNemar, one-sided (binomial on discordant items)"


def tango_statistic(cand_only, base_only, n, delta0):
    """Tango's score statistic of ``H0: Δ = delta0`` on paired 0/1 data (vectorised).

    Parameters
    ----------
    cand_only, base_only : int or array_like
        Discordant items: only the candidate right (``b``), only the baseline (``c``).
    n : int or array_like
        Items.
    delta0 : float or array_like
        Hypothesised ``Δ = P(candidate only) − P(baseline only)``, in (−1, 1).

    Returns
    -------
    float or ndarray
        ``z = (b − c − n Δ₀) / √(n (2 p̃ + Δ₀ − Δ₀²))``, ``p̃`` the restricted
        maximum-likelihood estimate of ``P(baseline only)`` under ``Δ = Δ₀``, the
        root of ``2n p² + (−b − c + (2n − b + c) Δ₀) p − c Δ₀ (1 − Δ₀) = 0``
        (Tango 1998, eq. 3; Nam 1997). At Δ₀ = 0 it is McNemar's
        ``(b − c)/√(b + c)``; with no discordant item it is 0 there.
    """
    b = np.asarray(cand_only, dtype=float)
    c = np.asarray(base_only, dtype=float)
    n = np.asarray(n, dtype=float)
    d = np.asarray(delta0, dtype=float)
    big_a = 2.0 * n
    big_b = -b - c + (2.0 * n - b + c) * d
    big_c = -c * d * (1.0 - d)
    root = np.sqrt(np.maximum(big_b * big_b - 4.0 * big_a * big_c, 0.0))
    p_base = (-big_b + root) / (2.0 * big_a)
    var = n * (2.0 * p_base + d - d * d)
    num = b - c - n * d
    with np.errstate(invalid="ignore", divide="ignore"):
        z = np.where(var > 0, num / np.sqrt(np.where(var > 0, var, 1.0)), np.sign(num) * np.inf)
    z = np.where(num == 0, 0.0, z)
    return float(z) if z.ndim == 0 else z


def tango_interval(cand_only: int, base_only: int, n: int, level: float = 0.95):
    """Tango's score interval of ``Δ = p_candidate − p_baseline``: the Δ₀ not rejected.

    The bounds solve ``z(Δ₀) = ±z_{(1+level)/2}`` (:func:`tango_statistic`,
    decreasing in Δ₀), found by Brent's method on (−1, 1).

    Returns
    -------
    low, high : float
    """
    if n <= 0:
        return float("nan"), float("nan")
    crit = float(stats.norm.isf((1.0 - level) / 2.0))
    edge = 1.0 - 1e-12

    def solve(target: float, lo: float, hi: float) -> float:
        def f(x: float) -> float:
            return tango_statistic(cand_only, base_only, n, x) - target

        if f(lo) <= 0:  # the bound is the edge of the parameter space
            return -1.0 if lo == -edge else lo
        if f(hi) >= 0:
            return 1.0 if hi == edge else hi
        return float(optimize.brentq(f, lo, hi, xtol=1e-14, rtol=1e-13))

    point = (cand_only - base_only) / n
    return solve(crit, -edge, point), solve(-crit, point, edge)


def tango_pvalues(cand_only: int, base_only: int, n: int, margin: float) -> tuple[float, float]:
    """One-sided p-values of non-inferiority (``H0: Δ ≤ −margin``) and inferiority
    (``H0: Δ ≥ −margin``): ``1 − Φ(z)`` and ``Φ(z)``, ``z`` = :func:`tango_statistic` at −margin.

    ``p < α/2`` exactly when the ``1 − α`` :func:`tango_interval` lies above
    (below) −margin.
    """
    z = tango_statistic(cand_only, base_only, n, -margin)
    return float(stats.norm.sf(z)), float(stats.norm.cdf(z))


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
        low, high = tango_interval(cand_only, base_only, b.size, level)
        p_nw, p_w = tango_pvalues(cand_only, base_only, b.size, margin)
        return PairedDifference(
            n_items=int(b.size),
            n_units=int(b.size),
            baseline=float(b.mean()),
            candidate=float(c.mean()),
            diff=(cand_only - base_only) / b.size,
            ci_low=low,
            ci_high=high,
            ci_method=TANGO,
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
    power_test : str
        Form of the power calculation, that of the test that decides:
        ``"z"`` (Tango's interval, exact McNemar) or ``"t"`` (paired or
        clustered t, ``n_units − 1`` df).
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
    power_test: str

    @property
    def power_method(self) -> str:
        """The power form in words (:data:`rederive.stats.power.POWER_METHOD`)."""
        return POWER_METHOD[self.power_test]

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
    The MDE and the units needed are those of the two-sided test at
    ``α = 1 − level`` (:func:`rederive.stats.power.mde`,
    :func:`rederive.stats.power.n_needed`), i.e. the one-sided test at ``α/2``
    the gate runs against the margin, on the per-unit sd of the paired
    influence, in the form of the test that decides
    (:attr:`GateDecision.power_test`): the z form for Tango's interval and the
    exact McNemar test, the t form with ``n_units − 1`` df (items, or clusters:
    ``C − 1``) for the paired and clustered t intervals. With few units the t
    form's MDE is the larger (11% at 10 units) and it asks for more units.
    """
    d = paired_difference(baseline, candidate, margin=margin, level=level, clusters=clusters)
    alpha = 1.0 - level
    verdict = decide(d.p_better, d.p_not_worse, d.p_worse, alpha / 2.0)
    distance = abs(d.diff + margin)
    test = Z_TEST if d.ci_method == TANGO else T_TEST
    detectable = float(mde(d.sd_unit, d.n_units, alpha, power, test=test))
    units = float(n_needed(distance, d.sd_unit, alpha, power, test=test))
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
        power_test=test,
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
