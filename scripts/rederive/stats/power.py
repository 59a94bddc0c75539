"""Power and sample size of paired model comparisons (analytic, with a resampling check).

A comparison of two models graded on the same items is paired: the variance of the
difference of their accuracies is ``Var(s_A − s_B) / n`` (Miller 2024, §3.2), which
is ``Var(s_A) + Var(s_B) − 2 Cov(s_A, s_B)`` per item and therefore much smaller
than the unpaired ``Var(s_A) + Var(s_B)`` when the models tend to fail the same
items. When items come in clusters (variants of one seed question, continuations of
one problem) the unit is the cluster and the variance is that of the cluster totals
(Miller 2024, §2.2, clustered standard errors). Everything below works on one number
per comparison, ``sd`` = the standard deviation of the per-unit paired influence
value :func:`paired_influence`, so that ``SE(n) = sd / √n`` for any number ``n`` of
units (items, or clusters of the study's mean size).

Every function takes the form of the test the study runs (``test``):

* ``"z"`` — a two-sided z test (or the exact McNemar test, whose power the normal
  form approximates) at level ``α``: the power to detect a true difference ``δ``
  is ``Φ(δ√n/sd − z) + Φ(−δ√n/sd − z)``, ``z = Φ⁻¹(1 − α/2)``; the minimum
  detectable difference (MDE) at power ``1 − β`` is ``k · sd / √n`` where ``k``
  solves that equation (``k ≈ z + Φ⁻¹(1 − β)``, 2.80 at α = 0.05 and 80% power);
  the units needed for ``δ`` are ``⌈(k · sd / δ)²⌉``;
* ``"t"`` — the paired t test, or the clustered Wald test against t, with
  ``n − 1`` degrees of freedom (``n`` units: items or clusters): the statistic is
  noncentral t with ``n − 1`` df and noncentrality ``δ√n/sd``, so the power is
  ``P(T > t_{1−α/2}) + P(T < −t_{1−α/2})`` under that distribution (both tails,
  as ``pwr::pwr.t.test`` and ``power.t.test(strict = TRUE)`` count them); ``k`` now
  depends on ``n`` (``k_t(n) > k``: the z form's MDE is 11% too small with 10
  units, 3.4% with 30, 1% with 100) and the units needed are the smallest
  ``n`` whose power reaches the target. The t form is what every paired t or
  clustered t comparison of the project needs: the z form claims 2 units too few
  at 10 units.

Multiplicity: with ``m`` comparisons adjusted by Benjamini–Hochberg at FDR ``q``,
each test is, for large ``m``, a fixed-threshold test at the level ``α*`` solving
``α* = q · R(α*) / m`` with ``R(α) = m₀ α + Σⱼ powerⱼ(α)`` the expected number of
rejections (Genovese & Wasserman 2002; Jung 2005). ``α*`` lies between the
Bonferroni level ``q / m`` (the threshold of BH's first rejection, used as a floor)
and ``q`` (no adjustment); :func:`bh_threshold` computes it, treating the tests as
independent — an approximation that ``bench/power_simulation.py`` and the tests
check by resampling the ChemBench matrix.

References
----------
Miller, E. (2024). Adding error bars to evals: a statistical approach to language
    model evaluations. arXiv:2411.00640 (§2.2 clustered SE, §3.2 paired differences,
    §5 power analysis).
Cohen, J. (1988). *Statistical Power Analysis for the Behavioral Sciences*, 2nd ed.,
    ch. 2 (the t test; power from the noncentral t). Erlbaum.
Champely, S. (2020). pwr: Basic functions for power analysis, R package 1.3-0
    (``pwr.t.test(type = "paired")``, the reference values of the tests).
Cohen, J. (1988). *Statistical Power Analysis for the Behavioral Sciences*, 2nd ed.,
    ch. 6 (differences between proportions). Erlbaum.
Fleiss, J. L., Levin, B. & Paik, M. C. (2003). *Statistical Methods for Rates and
    Proportions*, 3rd ed., §4.2 (sample size for comparing two proportions). Wiley.
Benjamini, Y. & Hochberg, Y. (1995). Controlling the false discovery rate. *JRSS B*,
    57(1), 289–300.
Genovese, C. & Wasserman, L. (2002). Operating characteristics and extensions of the
    false discovery rate procedure. *JRSS B*, 64(3), 499–517.
Jung, S.-H. (2005). Sample size for FDR-control in microarray data analysis.
    *Bioinformatics*, 21(14), 3097–3104.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy.optimize import brentq

from rederive.stats.distributions import norm_cdf, norm_isf, norm_ppf, norm_sf, t_isf, t_sf

__all__ = [
    "DEFAULT_ALPHA",
    "DEFAULT_POWER",
    "LOWER_TAIL_NEGLIGIBLE",
    "MAX_EPOCHS",
    "MDE_XTOL",
    "MIN_UNITS",
    "POWER_METHOD",
    "T_TEST",
    "T_UNIT_STEPS",
    "Z_TEST",
    "bh_average_power",
    "bh_threshold",
    "binary_difference_sd",
    "cheapest_design",
    "comparison_power",
    "design_cost",
    "design_mde",
    "detectable_effect",
    "epochs_needed",
    "epochs_test",
    "items_needed",
    "mde",
    "mde_curve",
    "n_grid",
    "n_needed",
    "no_sd_reason",
    "paired_influence",
    "paired_unit_sds",
    "power_df",
    "power_test_of",
    "power_two_sided",
    "resampled_bh_power",
    "resampled_power",
    "sd_from_ci",
    "unit_sd",
    "unit_totals",
    "unpaired_two_proportion_n",
]

DEFAULT_POWER = 0.80
DEFAULT_ALPHA = 0.05

Z_TEST = "z"
T_TEST = "t"
#: ``power_method`` text of each form, for the power tables.
POWER_METHOD = {
    Z_TEST: "normal (z): z test or exact McNemar",
    T_TEST: "noncentral t, n-1 df: paired or clustered t test",
}
#: Root-finding tolerance of the standardised MDE (absolute, in units of sd/sqrt(n)).
MDE_XTOL = 1e-12


def _check_test(test) -> np.ndarray:
    kinds = np.asarray(test, dtype=object)
    bad = ~np.isin(kinds, (Z_TEST, T_TEST))
    if bad.any():
        raise ValueError(f"test must be {Z_TEST!r} or {T_TEST!r}, got {kinds[bad].ravel()[0]!r}")
    return kinds


def power_test_of(p_method: str) -> str:
    """The power form of a comparison from its ``p_method`` text: z for McNemar and z tests."""
    text = str(p_method).lower()
    return Z_TEST if ("mcnemar" in text or text.startswith("z") or "normal" in text) else T_TEST


def power_df(n, test) -> np.ndarray:
    """Degrees of freedom of each comparison's test: ``n − 1`` for t, NaN for z."""
    kinds = _check_test(test)
    n_arr = np.asarray(n, dtype=float)
    return np.where(kinds == T_TEST, n_arr - 1.0, np.nan)


def _nct():
    """scipy.stats' noncentral t, imported when a t-based power is computed
    (importing scipy.stats costs ~0.8 s of CPU; most jobs never need it)."""
    from scipy.stats import nct

    return nct


def _check_level(alpha: float, power: float) -> None:
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    if not 0 < power < 1:
        raise ValueError(f"power must be in (0, 1), got {power}")


def paired_influence(num_a, num_b, den_a=None, den_b=None, clusters=None) -> np.ndarray:
    """Per-unit paired influence values of the difference of two ratio estimates.

    The estimates are ``R_a = Σ num_a / Σ den_a`` and ``R_b`` likewise (a mean when
    the denominators are 1). Linearising (delta method) around the observed ratios,
    ``R̂_a − R̂_b − (R_a − R_b) ≈ mean_c(u_c)`` with, per unit ``c``,
    ``u_c = (y_ac − R_a x_ac) / x̄_a − (y_bc − R_b x_bc) / x̄_b`` (``y``, ``x`` the
    unit's totals, ``x̄`` the mean unit total), so ``Var(R̂_a − R̂_b) ≈ Var(u) / C``.
    For 0/1 scores without clusters ``u_i = (a_i − b_i) − (R_a − R_b)``: Miller's
    (2024, eq. 8) paired variance. With clusters ``Var(u) / C`` is Miller's clustered
    variance (eq. 4) of the difference, times ``C / (C − 1)``.

    Parameters
    ----------
    num_a, num_b : array_like, shape (n_rows,)
        Per-row numerators (scores) of the two models; NaN marks a missing score,
        and a row missing for either model is left out (the comparison is paired).
    den_a, den_b : array_like, shape (n_rows,), optional
        Per-row denominators (1 = the row counts); default all 1.
    clusters : array_like, shape (n_rows,), optional
        Unit of each row; default every row is its own unit.

    Returns
    -------
    ndarray, shape (n_units,)
        ``u_c`` per unit (units with no usable row are dropped).
    """
    a = np.asarray(num_a, dtype=float)
    b = np.asarray(num_b, dtype=float)
    xa = np.ones_like(a) if den_a is None else np.asarray(den_a, dtype=float)
    xb = np.ones_like(b) if den_b is None else np.asarray(den_b, dtype=float)
    if not (a.shape == b.shape == xa.shape == xb.shape) or a.ndim != 1:
        raise ValueError("num_a, num_b, den_a, den_b must be 1-D arrays of one length")
    keep = ~(np.isnan(a) | np.isnan(b) | np.isnan(xa) | np.isnan(xb))
    a, b, xa, xb = a[keep], b[keep], xa[keep], xb[keep]
    if clusters is None:
        totals = np.column_stack([a, b, xa, xb])
    else:
        labels = np.asarray(clusters)[keep]
        _, inverse = np.unique(labels, return_inverse=True)
        totals = np.zeros((inverse.max() + 1 if inverse.size else 0, 4))
        np.add.at(totals, inverse, np.column_stack([a, b, xa, xb]))
    return _influence_from_totals(totals)


def _influence_from_totals(totals: np.ndarray) -> np.ndarray:
    """``u_c`` of :func:`paired_influence` from per-unit totals ``(y_a, y_b, x_a, x_b)``.

    No usable unit (no unit scored for both models, or a model without a valid
    row) gives an empty array: a comparison of a model with one item, or of two
    partial models that share none, has no variance, which :func:`unit_sd`
    reports as NaN rather than failing the whole power table.
    """
    totals = totals[(totals[:, 2] > 0) | (totals[:, 3] > 0)]
    if totals.shape[0] == 0:
        return np.empty(0)
    ya, yb, xa_c, xb_c = totals.T
    mean_xa, mean_xb = xa_c.mean(), xb_c.mean()
    if mean_xa == 0 or mean_xb == 0:
        return np.empty(0)
    ratio_a = ya.sum() / xa_c.sum()
    ratio_b = yb.sum() / xb_c.sum()
    return (ya - ratio_a * xa_c) / mean_xa - (yb - ratio_b * xb_c) / mean_xb


def paired_unit_sds(num, pairs, den=None, clusters=None) -> tuple[np.ndarray, np.ndarray]:
    """:func:`unit_sd` and unit count of :func:`paired_influence` for many column pairs.

    The same numbers, bit for bit, as calling the two functions pair by pair, but
    each column's per-unit totals are summed once instead of once per pair: all
    19,900 pairs of 200 models over 20,000 items clustered in 4,000 seeds took
    130 s one by one. A column with a missing score (NaN) is handled pair by pair,
    because which rows a pair keeps then depends on both columns.

    Parameters
    ----------
    num : array_like, shape (n_rows, n_columns)
        Per-row numerators (scores) of every column (model); NaN = missing.
    pairs : iterable of (int, int)
        Column indices ``(a, b)`` of each difference ``R_a - R_b``.
    den : array_like, shape (n_rows, n_columns), optional
        Per-row denominators; default all 1.
    clusters : array_like, shape (n_rows,), optional
        Unit of each row; default every row is its own unit.

    Returns
    -------
    sd : ndarray
        Per-unit sd (ddof = 1) of each pair's paired influence values.
    n_units : ndarray of int
        Units each sd is over.
    """
    num = np.asarray(num, dtype=float)
    den = np.ones_like(num) if den is None else np.asarray(den, dtype=float)
    if num.ndim != 2 or num.shape != den.shape:
        raise ValueError("num and den must be 2-D arrays of one shape")
    complete = ~(np.isnan(num).any(axis=0) | np.isnan(den).any(axis=0))
    if clusters is None:
        y_units, x_units = num, den
    else:
        _, inverse = np.unique(np.asarray(clusters), return_inverse=True)
        y_units = np.zeros((inverse.max() + 1 if inverse.size else 0, num.shape[1]))
        x_units = np.zeros_like(y_units)
        np.add.at(y_units, inverse, num)
        np.add.at(x_units, inverse, den)
    # One contiguous row per column: a pair's gather reads two rows, not two
    # strided columns of a units × models matrix (5,000 models: 4× the time).
    y_rows, x_rows = np.ascontiguousarray(y_units.T), np.ascontiguousarray(x_units.T)
    sds, units = [], []
    for a, b in pairs:
        if complete[a] and complete[b]:
            totals = np.column_stack([y_rows[a], y_rows[b], x_rows[a], x_rows[b]])
            u = _influence_from_totals(totals)
        else:
            u = paired_influence(num[:, a], num[:, b], den[:, a], den[:, b], clusters=clusters)
        sds.append(unit_sd(u))
        units.append(u.size)
    return np.array(sds, dtype=float), np.array(units, dtype=int)


#: Fewest units a per-unit sd (ddof = 1) can be estimated from.
MIN_UNITS = 2


def unit_sd(influence) -> float:
    """Standard deviation (ddof = 1) of per-unit influence values: ``SE = sd / √n``.

    Parameters
    ----------
    influence : array_like, shape (n_units,)
        Per-unit influence values (:func:`paired_influence`).

    Returns
    -------
    float
        The sd; NaN with fewer than :data:`MIN_UNITS` units, where no variance
        exists (:func:`no_sd_reason` says so in the power tables).
    """
    u = np.asarray(influence, dtype=float)
    if u.size < MIN_UNITS:
        return float("nan")
    return float(np.std(u, ddof=1))


def no_sd_reason(n_units: int) -> str:
    """Why a comparison over ``n_units`` units has no per-unit sd (and so no MDE)."""
    return f"none: {int(n_units)} unit(s), a variance needs at least {MIN_UNITS}"


def sd_from_ci(ci_low, ci_high, n_units, level: float = 0.95):
    """Per-unit sd implied by a (bootstrap) confidence interval of a difference.

    ``sd = √n · (high − low) / (2 z)``, ``z = Φ⁻¹((1 + level)/2)``: the normal
    reading of an interval. Used where a study's statistic is too involved to
    linearise here (its own paired bootstrap already carries pairing and clusters).
    """
    z = norm_ppf(0.5 + level / 2.0)
    width = np.asarray(ci_high, dtype=float) - np.asarray(ci_low, dtype=float)
    return np.sqrt(np.asarray(n_units, dtype=float)) * width / (2.0 * z)


def binary_difference_sd(p_a: float, p_b: float, corr: float) -> float:
    """Per-item sd of the paired difference of two 0/1 scores with accuracies and correlation.

    ``Var(a − b) = p_a q_a + p_b q_b − 2 ρ √(p_a q_a p_b q_b)`` with ``ρ`` the item-level
    (phi) correlation of the two models' correctness (Miller 2024, eq. 8).

    Raises
    ------
    ValueError
        If an accuracy is outside [0, 1], ``ρ`` outside [−1, 1], or ``ρ`` impossible
        for these two accuracies (the Fréchet bounds of a 2 × 2 table).
    """
    for name, p in (("acc-a", p_a), ("acc-b", p_b)):
        if not 0 <= p <= 1:
            raise ValueError(f"{name} must be a proportion in [0, 1], got {p}")
    if not -1 <= corr <= 1:
        raise ValueError(f"corr must be in [-1, 1], got {corr}")
    va, vb = p_a * (1 - p_a), p_b * (1 - p_b)
    if va > 0 and vb > 0:
        # P(both right) must lie in the Fréchet bounds of the 2 × 2 table.
        p11 = p_a * p_b + corr * math.sqrt(va * vb)
        lo, hi = max(0.0, p_a + p_b - 1), min(p_a, p_b)
        if not lo - 1e-12 <= p11 <= hi + 1e-12:
            rho_lo = (lo - p_a * p_b) / math.sqrt(va * vb)
            rho_hi = (hi - p_a * p_b) / math.sqrt(va * vb)
            raise ValueError(
                f"corr {corr} is impossible for accuracies {p_a} and {p_b} "
                f"(possible: {rho_lo:.3f} to {rho_hi:.3f})"
            )
    return math.sqrt(max(va + vb - 2 * corr * math.sqrt(va * vb), 0.0))


def power_two_sided(delta, sd, n, alpha: float = DEFAULT_ALPHA, *, test=Z_TEST):
    """Power of the two-sided test of a paired difference.

    Parameters
    ----------
    delta : float or array_like
        True difference (any sign).
    sd : float or array_like
        Per-unit sd of the paired influence (:func:`unit_sd`).
    n : float or array_like
        Number of units (items or clusters).
    alpha : float or array_like
        Two-sided level (per comparison).
    test : {"z", "t"} or array_like of them
        ``"z"``: the normal form; ``"t"``: the t test with ``n − 1`` df.

    Returns
    -------
    float or ndarray
        z: ``Φ(δ√n/sd − z) + Φ(−δ√n/sd − z)``, ``z = Φ⁻¹(1 − α/2)``; t: the same
        two tails of the noncentral t with ``n − 1`` df and noncentrality
        ``δ√n/sd`` beyond ``±t_{n−1, 1−α/2}`` (NaN for ``n < 2``). Both give ``α``
        where ``δ = 0`` and 1 where ``sd = 0 ≠ δ``.
    """
    kinds = _check_test(test)
    alpha = np.asarray(alpha, dtype=float)
    d = np.abs(np.asarray(delta, dtype=float))
    n_arr = np.asarray(n, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        effect = d * np.sqrt(n_arr) / np.asarray(sd, dtype=float)
    effect = np.where(np.isnan(effect) & (d == 0), 0, effect)
    z = norm_isf(alpha / 2.0)
    out = norm_cdf(effect - z) + norm_cdf(-effect - z)
    if np.any(kinds == T_TEST):
        df = np.where(n_arr >= 2, n_arr - 1.0, np.nan)
        crit = t_isf(alpha / 2.0, df)
        finite = np.where(np.isfinite(effect), effect, 0.0)
        with np.errstate(invalid="ignore"):
            t_power = _nct().sf(crit, df, finite) + _lower_tail(crit, df, finite)
        t_power = np.where(np.isinf(effect), 1.0, t_power)
        out = np.where(kinds == T_TEST, t_power, out)
    return float(out) if np.ndim(out) == 0 else out


#: Beyond this noncentrality the t test's lower rejection tail is below 1e-16.
LOWER_TAIL_NEGLIGIBLE = 8.3


def _lower_tail(crit, df, ncp) -> np.ndarray:
    """``P(T < −crit)`` for noncentral t with ``ncp ≥ 0``.

    Computed as the upper tail at ``−ncp`` (scipy's ``nct.cdf`` returns NaN far in
    the left tail, e.g. df 9 and ncp 10; ``nct.sf`` stays finite), and skipped
    where ``ncp > 8.3``: ``T < −crit`` needs ``Z < −ncp`` (T = (Z + ncp)/√(V/ν)), so
    the tail is below ``Φ(−8.3) < 1e-16`` there. This halves the cost of the
    power of thousands of comparisons.
    """
    crit, df, ncp = np.broadcast_arrays(
        np.asarray(crit, dtype=float), np.asarray(df, dtype=float), np.asarray(ncp, dtype=float)
    )
    out = np.zeros(ncp.shape)
    near = ncp <= LOWER_TAIL_NEGLIGIBLE
    if near.any():
        out[near] = _nct().sf(crit[near], df[near], -ncp[near])
    out[np.isnan(crit) | np.isnan(df) | np.isnan(ncp)] = np.nan
    return out


@functools.lru_cache(maxsize=4096)
def _standard_effect(alpha: float, power: float, df: float | None) -> float:
    """The ``δ√n/sd`` the test detects with this power (``df`` None: the z form)."""
    if power <= alpha:
        return 0.0
    z = norm_isf(alpha / 2.0)
    if df is None:
        return float(
            brentq(
                lambda k: norm_cdf(k - z) + norm_cdf(-k - z) - power,
                0.0,
                z + norm_ppf(power) + 1,
                xtol=MDE_XTOL,
            )
        )
    crit = t_isf(alpha / 2.0, df)

    def gap(k: float) -> float:
        return float(_nct().sf(crit, df, k) + _lower_tail(crit, df, k)) - power

    high = z + norm_ppf(power) + 1
    while gap(high) < 0:  # one df needs a noncentrality of ~ 10 to 100
        high *= 2
    return float(brentq(gap, 0.0, high, xtol=MDE_XTOL))


def detectable_effect(
    alpha: float = DEFAULT_ALPHA, power: float = DEFAULT_POWER, df: float | None = None
) -> float:
    """Standardised MDE ``k``: the ``δ√n/sd`` a two-sided test detects with this power.

    Parameters
    ----------
    alpha, power : float
        Two-sided level and target power.
    df : float, optional
        Degrees of freedom of a t test (``n − 1``); None: the z form, which solves
        ``Φ(k − z) + Φ(−k − z) = power`` exactly (the second tail matters only at
        low power; ``k = z_{1−α/2} + z_{power}`` is the usual approximation).

    Returns
    -------
    float
        ``k`` to :data:`MDE_XTOL` (Brent's method); the t form's ``k`` is the
        noncentrality at which the noncentral t's two tails reach ``power``.
    """
    _check_level(alpha, power)
    if df is not None and not df >= 1:
        raise ValueError(f"a t test needs at least 1 df, got {df}")
    return _standard_effect(float(alpha), float(power), None if df is None else float(df))


def _effect_per_unit_count(n, alpha, power, kinds) -> np.ndarray:
    """``k`` for each entry of ``n`` (z: one value; t: one per distinct n, NaN below 2)."""
    n_arr = np.asarray(n, dtype=float)
    k_z = detectable_effect(alpha, power)
    out = np.full(np.broadcast(n_arr, kinds).shape, k_z)
    n_b, kinds_b = np.broadcast_arrays(n_arr, kinds)
    is_t = kinds_b == T_TEST
    if is_t.any():
        values = np.unique(n_b[is_t])
        table = {
            v: (detectable_effect(alpha, power, v - 1.0) if v >= 2 else np.nan)
            for v in values
            if np.isfinite(v)
        }
        out[is_t] = [table.get(v, np.nan) for v in n_b[is_t]]
    return out


def mde(sd, n, alpha: float = DEFAULT_ALPHA, power: float = DEFAULT_POWER, *, test=Z_TEST):
    """Minimum detectable difference ``k · sd / √n`` (same unit as ``sd``).

    Parameters
    ----------
    sd : float or array_like
        Per-unit sd of the paired influence.
    n : float or array_like
        Number of units (items, or clusters).
    alpha, power : float
        Two-sided level and target power.
    test : {"z", "t"} or array_like of them
        The test's form; with ``"t"``, ``k`` is that of ``n − 1`` df (NaN for ``n < 2``).

    Returns
    -------
    float or ndarray
    """
    kinds = _check_test(test)
    k = _effect_per_unit_count(n, alpha, power, kinds)
    out = k * np.asarray(sd, dtype=float) / np.sqrt(np.asarray(n, dtype=float))
    return float(out) if np.ndim(out) == 0 else out


def n_needed(delta, sd, alpha: float = DEFAULT_ALPHA, power: float = DEFAULT_POWER, *, test=Z_TEST):
    """Units (items or clusters) needed to detect ``delta`` with this power.

    z: ``⌈(k · sd / δ)²⌉``. t: the smallest whole ``n`` whose t-test power
    (``n − 1`` df) reaches ``power``, found by bisection from the z answer (the
    t test never needs fewer units). At least 2; ``inf`` when ``δ = 0``.
    """
    kinds = _check_test(test)
    k = detectable_effect(alpha, power)
    d = np.abs(np.asarray(delta, dtype=float))
    sd_arr = np.asarray(sd, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        raw = (k * sd_arr / d) ** 2
    # The tiny slack keeps float noise (e.g. 63.0000000001) from adding a unit.
    out = np.where(d == 0, np.inf, np.maximum(np.ceil(raw - 1e-9), 2.0))
    d_b, sd_b, out_b, kinds_b = np.broadcast_arrays(d, sd_arr, out, kinds)
    is_t = (kinds_b == T_TEST) & np.isfinite(out_b)
    if is_t.any():
        out_b = out_b.copy()
        out_b[is_t] = _t_units(d_b[is_t], sd_b[is_t], out_b[is_t], alpha, power)
        out = out_b
    return float(out) if np.ndim(out) == 0 else out


#: Unit steps :func:`_t_units` tries from the z answer before bisecting.
T_UNIT_STEPS = 8


def _t_units(delta, sd, start, alpha, power) -> np.ndarray:
    """Smallest whole n ≥ ``start`` with t-test power ≥ ``power``.

    ``start`` is the z form's answer: below it the z power is short, and the t
    power, smaller at every n, shorter still. The t answer is usually a unit or
    two above, so units are stepped first (each step evaluates only the
    comparisons still short); the few left after :data:`T_UNIT_STEPS` steps
    (tiny n, or α far below 0.05) are bisected.
    """
    n = start.copy()
    todo = np.ones(n.shape, dtype=bool)
    for _ in range(T_UNIT_STEPS):
        short = power_two_sided(delta[todo], sd[todo], n[todo], alpha, test=T_TEST) < power
        index = np.flatnonzero(todo)
        todo[index[~short]] = False
        n[index[short]] += 1.0
        if not todo.any():
            return np.maximum(n, 2.0)
    low = n[todo] - 1.0
    high = n[todo].copy()
    d, s = delta[todo], sd[todo]
    while True:
        short = power_two_sided(d, s, high, alpha, test=T_TEST) < power
        if not short.any():
            break
        low = np.where(short, high, low)
        high = np.where(short, 2.0 * high + 2.0, high)
    while np.any(high - low > 1):
        mid = np.floor((low + high) / 2.0)
        reached = power_two_sided(d, s, mid, alpha, test=T_TEST) >= power
        step = high - low > 1
        high = np.where(step & reached, mid, high)
        low = np.where(step & ~reached, mid, low)
    n[todo] = high
    return np.maximum(n, 2.0)


def unpaired_two_proportion_n(
    p_a: float, p_b: float, alpha: float = DEFAULT_ALPHA, power: float = DEFAULT_POWER
) -> int:
    """Items per model needed to tell two proportions apart from independent samples.

    Fleiss, Levin & Paik (2003, eq. 4.14) without continuity correction:
    ``n = [z_{1−α/2} √(2 p̄ q̄) + z_{power} √(p_a q_a + p_b q_b)]² / (p_a − p_b)²``.
    This is what a paired design saves against: it ignores that both models answer
    the same items.
    """
    _check_level(alpha, power)
    if p_a == p_b:
        return math.inf
    p_bar = (p_a + p_b) / 2
    z_a, z_b = norm_isf(alpha / 2), norm_ppf(power)
    root = z_a * math.sqrt(2 * p_bar * (1 - p_bar)) + z_b * math.sqrt(
        p_a * (1 - p_a) + p_b * (1 - p_b)
    )
    return int(math.ceil(root**2 / (p_a - p_b) ** 2 - 1e-9))


def bh_threshold(deltas, sds, n, q: float, m0: int = 0, *, test=Z_TEST) -> float:
    """Asymptotic per-comparison level of Benjamini–Hochberg (Genovese–Wasserman / Jung).

    Iterates ``α ← q · (m₀ α + Σⱼ powerⱼ(α)) / m`` from ``α = q``; the sequence
    decreases to the largest fixed point, the threshold BH settles at for many
    tests. The result is floored at ``q / m`` (Bonferroni), the level of BH's first
    rejection, so it always lies in ``[q/m, q]``.

    Parameters
    ----------
    deltas, sds : array_like, shape (m₁,)
        Assumed true differences of the non-null comparisons and their per-unit sds.
    n : float or array_like
        Units per comparison (scalar or one per comparison).
    q : float
        BH false discovery rate.
    m0 : int
        Number of additional true-null comparisons in the family.
    test : {"z", "t"} or array_like of them
        Form of each comparison's test (:func:`power_two_sided`).

    Returns
    -------
    float
    """
    d = np.asarray(deltas, dtype=float)
    s = np.asarray(sds, dtype=float)
    n = np.broadcast_to(np.asarray(n, dtype=float), d.shape)
    kinds = np.broadcast_to(_check_test(test), d.shape)
    # A comparison that could not be made (NaN) is not part of the family.
    ok = np.isfinite(d) & np.isfinite(s) & np.isfinite(n)
    d, s, n, kinds = d[ok], s[ok], n[ok], kinds[ok]
    m = m0 + d.size
    if m == 0:
        raise ValueError("empty family")
    alpha = q
    for _ in range(1000):
        rejections = m0 * alpha + np.sum(power_two_sided(d, s, n, alpha, test=kinds))
        new = q * rejections / m
        if abs(new - alpha) < 1e-12:
            break
        alpha = new
    return float(max(alpha, q / m))


def bh_average_power(deltas, sds, n, q: float, m0: int = 0, *, test=Z_TEST) -> float:
    """Average power over the non-null comparisons under BH (at :func:`bh_threshold`)."""
    alpha = bh_threshold(deltas, sds, n, q, m0, test=test)
    return float(np.mean(power_two_sided(deltas, sds, n, alpha, test=test)))


def unit_totals(num_a, num_b, den_a=None, den_b=None, clusters=None) -> np.ndarray:
    """Per-unit totals ``(y_a, y_b, x_a, x_b)`` of the rows both models scored.

    The resampling unit of :func:`resampled_power`: an item, or a cluster's sums.
    """
    a = np.asarray(num_a, dtype=float)
    b = np.asarray(num_b, dtype=float)
    xa = np.ones_like(a) if den_a is None else np.asarray(den_a, dtype=float)
    xb = np.ones_like(b) if den_b is None else np.asarray(den_b, dtype=float)
    rows = np.column_stack([a, b, xa, xb])
    keep = ~np.isnan(rows).any(axis=1)
    rows = rows[keep]
    if clusters is None:
        return rows
    _, inverse = np.unique(np.asarray(clusters)[keep], return_inverse=True)
    totals = np.zeros((inverse.max() + 1, 4))
    np.add.at(totals, inverse, rows)
    return totals


def resampled_power(
    totals,
    n: int,
    *,
    n_sim: int,
    rng: np.random.Generator,
    alpha: float = DEFAULT_ALPHA,
    test: str = Z_TEST,
) -> float:
    """Share of studies of ``n`` units, drawn with replacement from the observed units,
    in which the two-sided test of the paired difference rejects at ``α``
    (``test``: the z test, or the t test with ``n − 1`` df).

    Each simulated study is analysed as a real one would be: its own ratio
    estimates and its own linearised (clustered) standard error. The observed
    difference plays the true difference, so the result estimates
    ``power_two_sided(observed, unit_sd, n, α, test=test)`` — the check of the
    analytic formula.

    Parameters
    ----------
    totals : array_like, shape (n_units, 4)
        :func:`unit_totals` of the observed data.
    n : int
        Units per simulated study.
    n_sim : int
        Simulated studies.
    rng : numpy.random.Generator
    alpha : float
    test : {"z", "t"}

    Returns
    -------
    float
    """
    _check_test(test)
    t = np.asarray(totals, dtype=float)
    draws = t[rng.integers(0, t.shape[0], size=(n_sim, n))]  # (n_sim, n, 4)
    ya, yb, xa, xb = (draws[..., k] for k in range(4))
    with np.errstate(invalid="ignore", divide="ignore"):
        ra = ya.sum(axis=1) / xa.sum(axis=1)
        rb = yb.sum(axis=1) / xb.sum(axis=1)
        u = (ya - ra[:, None] * xa) / xa.mean(axis=1, keepdims=True) - (
            yb - rb[:, None] * xb
        ) / xb.mean(axis=1, keepdims=True)
        se = u.std(axis=1, ddof=1) / np.sqrt(n)
        z = np.abs(ra - rb) / se
    crit = norm_isf(alpha / 2) if test == Z_TEST else t_isf(alpha / 2, n - 1)
    # A resample where both models agree on every unit has se = 0: no evidence.
    reject = np.where(se > 0, z > crit, False)
    return float(np.mean(reject))


def resampled_bh_power(
    scores, n: int, *, n_sim: int, rng: np.random.Generator, q: float, test: str = Z_TEST
) -> np.ndarray:
    """Per-pair rejection rate of BH over all model pairs in resampled studies of ``n`` items.

    Every simulated study draws ``n`` items (rows of ``scores``) with replacement,
    tests all pairs with the paired z (or t, ``n − 1`` df) test and adjusts with
    BH at ``q`` (statsmodels). Used to check :func:`bh_average_power`.

    Parameters
    ----------
    scores : array_like, shape (n_items, n_models)
        Per-item scores, no missing values.
    n, n_sim, rng, q
        Items per study, simulated studies, generator, BH level.
    test : {"z", "t"}

    Returns
    -------
    ndarray, shape (n_pairs,)
        Rejection rate per pair, pairs in ``numpy.triu_indices(n_models, 1)`` order.
    """
    from rederive.stats.multitest import bh_adjust

    s = np.asarray(scores, dtype=float)
    if np.isnan(s).any():
        raise ValueError("resampled_bh_power needs a complete score matrix")
    _check_test(test)
    ia, ib = np.triu_indices(s.shape[1], k=1)
    hits = np.zeros(ia.size)
    for _ in range(n_sim):
        sample = s[rng.integers(0, s.shape[0], size=n)]
        d = sample[:, ia] - sample[:, ib]
        se = d.std(axis=0, ddof=1) / np.sqrt(n)
        with np.errstate(invalid="ignore", divide="ignore"):
            stat = np.abs(d.mean(axis=0)) / se
            tail = norm_sf(stat) if test == Z_TEST else t_sf(stat, n - 1)
            p = np.where(se > 0, 2 * tail, 1.0)
        reject, _ = bh_adjust(p, q)
        hits += reject
    return hits / n_sim


def comparison_power(
    diff_pp,
    sd_pp,
    n_units,
    significant,
    *,
    alpha: float,
    power: float,
    fdr_q: float,
    relevant_pp: float,
    excluded=None,
    test=Z_TEST,
) -> dict[str, np.ndarray | float]:
    """Power columns of a family of comparisons tested together with BH.

    Parameters
    ----------
    diff_pp, sd_pp : array_like, shape (m,)
        Observed differences and per-unit sds, in percentage points.
    n_units : array_like, shape (m,)
        Units (items or clusters) behind each comparison.
    significant : array_like of bool, shape (m,)
        The study's own BH decision per comparison.
    alpha : float
        Two-sided level of one comparison on its own.
    power : float
        Target power.
    fdr_q : float
        The study's BH false discovery rate.
    relevant_pp : float
        Smallest difference that matters in practice; a tie whose BH-level MDE
        exceeds it is ``underpowered``.
    excluded : array_like of bool, shape (m,), optional
        Comparisons the study kept out of its BH family (e.g. ``small_n``): not
        ties, not part of the family's power; verdict ``excluded (small n)``.
    test : {"z", "t"} or array_like of them, shape (m,)
        The form of each comparison's test (:func:`power_test_of`): the MDE,
        units needed and power of a t test use the noncentral t with
        ``n_units − 1`` df.

    Returns
    -------
    dict
        ``alpha_bh`` (:func:`bh_threshold` with every observed difference taken as
        true, the plug-in the resampling check uses), and per comparison:
        ``mde_pp`` (at ``alpha``), ``mde_bh_pp`` (at ``alpha_bh``),
        ``mde_bonferroni_pp`` (at ``fdr_q / m``), ``n_needed`` / ``n_needed_bh``
        (units for the observed difference), ``power_observed_bh`` (power at the
        observed difference), ``underpowered``, ``verdict``.
    """
    d = np.abs(np.asarray(diff_pp, dtype=float))
    s = np.asarray(sd_pp, dtype=float)
    n = np.asarray(n_units, dtype=float)
    sig = np.asarray(significant, dtype=bool)
    kinds = np.broadcast_to(_check_test(test), d.shape)
    # A comparison without a usable sd (fewer than two units) has no MDE; it is
    # left out of the BH family's power and reported as "not assessable".
    out_of_family = (
        np.zeros(d.shape, dtype=bool) if excluded is None else np.asarray(excluded, dtype=bool)
    )
    ok = np.isfinite(d) & np.isfinite(s) & np.isfinite(n) & ~out_of_family
    m = int(ok.sum())
    if m == 0:
        nan = np.full(d.shape, np.nan)
        return {
            "alpha_bh": np.nan,
            **dict.fromkeys(
                ("mde_pp", "mde_bh_pp", "mde_bonferroni_pp", "n_needed", "n_needed_bh"), nan
            ),
            "power_observed_bh": nan,
            "underpowered": np.zeros(d.shape, dtype=bool),
            "verdict": np.where(
                out_of_family,
                "excluded (small n)",
                np.where(sig, "significant", "tie, not assessable"),
            ),
        }
    alpha_bh = bh_threshold(d[ok], s[ok], n[ok], fdr_q, test=kinds[ok])
    mde_bh = mde(s, n, alpha_bh, power, test=kinds)
    underpowered = ~sig & ~out_of_family & (mde_bh > relevant_pp)
    verdict = np.where(
        out_of_family,
        "excluded (small n)",
        np.where(
            sig,
            "significant",
            np.where(
                ~ok,
                "tie, not assessable",
                np.where(underpowered, "tie, underpowered", "tie, adequately powered"),
            ),
        ),
    )
    return {
        "alpha_bh": alpha_bh,
        "mde_pp": mde(s, n, alpha, power, test=kinds),
        "mde_bh_pp": mde_bh,
        "mde_bonferroni_pp": mde(s, n, fdr_q / m, power, test=kinds),
        "n_needed": n_needed(d, s, alpha, power, test=kinds),
        "n_needed_bh": n_needed(d, s, alpha_bh, power, test=kinds),
        "power_observed_bh": power_two_sided(d, s, n, alpha_bh, test=kinds),
        "underpowered": underpowered,
        "verdict": verdict,
    }


def mde_curve(sd_pp, n_grid, *, alpha: float, alpha_bh: float, power: float, test: str = Z_TEST):
    """MDE against n for the spread of per-unit sds of a study's comparisons.

    Returns a dict of arrays over ``n_grid``: ``mde_bh_pp`` for the median sd and
    ``mde_bh_low_pp`` / ``mde_bh_high_pp`` for the smallest and largest, all at
    ``alpha_bh``, and ``mde_pp`` for the median sd at ``alpha``; ``test`` is the
    form of the study's test (the t form's MDE at each n has ``n − 1`` df).
    """
    s = np.asarray(sd_pp, dtype=float)
    s = s[np.isfinite(s)]
    n = np.asarray(n_grid, dtype=float)
    if s.size == 0 or not np.isfinite(alpha_bh):
        nan = np.full(n.size, np.nan)
        keys = ("sd_median_pp", "mde_pp", "mde_bh_pp", "mde_bh_low_pp", "mde_bh_high_pp")
        return {"n": n, **dict.fromkeys(keys, nan)}
    med, lo, hi = np.median(s), s.min(), s.max()
    return {
        "n": n,
        "sd_median_pp": np.full(n.size, med),
        "mde_pp": mde(med, n, alpha, power, test=test),
        "mde_bh_pp": mde(med, n, alpha_bh, power, test=test),
        "mde_bh_low_pp": mde(lo, n, alpha_bh, power, test=test),
        "mde_bh_high_pp": mde(hi, n, alpha_bh, power, test=test),
    }


def n_grid(study_n: float, points: int = 40) -> np.ndarray:
    """Log-spaced unit counts from ``study_n / 20`` (at least 5) to ``20 · study_n``."""
    lo = max(5.0, study_n / 20.0)
    # A study of fewer than one unit (no comparison had one) still gets a grid.
    hi = max(20.0 * study_n, lo)
    return np.unique(np.round(np.geomspace(lo, hi, points)).astype(int))


# --- Repeated samples: more epochs or more items? ----------------------------------
#
# With ``K`` epochs per item the per-item variance of a score (or of a paired
# difference) is ``σ²_between + σ²_within / K`` (rederive.stats.noise; Miller 2024,
# §3), so the MDE of ``n`` items is ``k · √((σ²_between + σ²_within / K) / n)``.
# Epochs shrink only the second term: however many are run, the MDE stays above
# ``k · √(σ²_between / n)``, the data-noise floor of ``n`` items. The cost of a
# design is counted in graded answers, ``n · K``, plus ``item_cost`` per item for
# making it (writing, checking): ``n · (K + item_cost)``. Minimising it under a
# variance target gives the classical optimum of two-stage sampling,
# ``K* = √(item_cost · σ²_within / σ²_between)`` (Cochran 1977, §10.6): with items
# free (``item_cost = 0``) one epoch per item is cheapest, as a new item brings both
# kinds of information. The test a design gets is the one the benchmark runs on it
# (:func:`epochs_test`): one epoch gives 0/1 scores, compared by the exact McNemar
# test (z form); several give fractional item means, compared by the paired t test
# (t form, ``n − 1`` df).

#: Most epochs per item :func:`cheapest_design` considers.
MAX_EPOCHS = 1000


def _components(var_between: float, var_within: float) -> tuple[float, float]:
    """Planning components: a negative between estimate (a spread indistinguishable
    from zero) plans as zero; the within part must be a variance."""
    if not (np.isfinite(var_between) and np.isfinite(var_within)):
        raise ValueError("the between- and within-item variances must be numbers")
    if var_within < 0:
        raise ValueError(f"the within-item variance must be >= 0, got {var_within}")
    return max(float(var_between), 0.0), float(var_within)


def epochs_test(epochs) -> str | np.ndarray:
    """The test a design with ``epochs`` per item gets: z for one epoch, t for more."""
    kinds = np.where(np.asarray(epochs, dtype=float) <= 1, Z_TEST, T_TEST).astype(object)
    return str(kinds) if kinds.ndim == 0 else kinds


def design_mde(
    var_between: float,
    var_within: float,
    n: float,
    epochs: float,
    alpha: float = DEFAULT_ALPHA,
    power: float = DEFAULT_POWER,
) -> float:
    """MDE of ``n`` items with ``epochs`` epochs each: ``k · √((σ²_b + σ²_w / K) / n)``.

    ``epochs = inf`` gives the data-noise floor. Same unit as the variances' root.
    ``k`` is that of :func:`epochs_test` (the t form's with ``n − 1`` df for K > 1).
    """
    vb, vw = _components(var_between, var_within)
    per_item = vb + (0.0 if np.isinf(epochs) else vw / epochs)
    return float(mde(np.sqrt(per_item), n, alpha, power, test=epochs_test(epochs)))


def epochs_needed(
    var_between: float,
    var_within: float,
    n: float,
    target: float,
    alpha: float = DEFAULT_ALPHA,
    power: float = DEFAULT_POWER,
) -> float:
    """Fewest epochs per item (at least 1) for ``n`` items to reach MDE ``target``.

    ``inf`` when the data-noise floor of ``n`` items is at or above the target:
    then no number of epochs reaches it. One epoch is judged by the z form, more
    by the t form with ``n − 1`` df (:func:`epochs_test`).
    """
    vb, vw = _components(var_between, var_within)
    if design_mde(vb, vw, n, 1, alpha, power) <= target:
        return 1.0
    k = detectable_effect(alpha, power, n - 1.0) if n >= 2 else math.inf
    budget = n * (target / k) ** 2 - vb  # what sigma_w^2 / K may still take
    if budget <= 0:
        return math.inf
    return float(max(math.ceil(vw / budget - 1e-9), 2))


def items_needed(
    var_between: float,
    var_within: float,
    epochs: float,
    target: float,
    alpha: float = DEFAULT_ALPHA,
    power: float = DEFAULT_POWER,
) -> float:
    """Fewest items (at least 2) with ``epochs`` epochs each to reach MDE ``target``
    (by the test of :func:`epochs_test`)."""
    vb, vw = _components(var_between, var_within)
    return float(
        n_needed(target, np.sqrt(vb + vw / epochs), alpha, power, test=epochs_test(epochs))
    )


def design_cost(n: float, epochs: float, item_cost: float = 0.0) -> float:
    """Cost of ``n`` items × ``epochs`` epochs: ``n · (epochs + item_cost)`` graded answers."""
    return float(n * (epochs + item_cost))


def cheapest_design(
    var_between: float,
    var_within: float,
    target: float,
    item_cost: float = 0.0,
    alpha: float = DEFAULT_ALPHA,
    power: float = DEFAULT_POWER,
) -> tuple[int, int]:
    """(items, epochs) of least :func:`design_cost` reaching MDE ``target``.

    Every ``K`` from 1 to :data:`MAX_EPOCHS` is tried with its
    :func:`items_needed`; on a tie the fewer epochs win. The continuous optimum
    is Cochran's ``K* = √(item_cost · σ²_within / σ²_between)``.
    """
    if item_cost < 0:
        raise ValueError(f"item cost must be >= 0, got {item_cost}")
    vb, vw = _components(var_between, var_within)
    ks = np.arange(1, MAX_EPOCHS + 1, dtype=float)
    ns = np.asarray(
        n_needed(target, np.sqrt(vb + vw / ks), alpha, power, test=epochs_test(ks)), dtype=float
    )
    costs = ns * (ks + item_cost)
    best = int(np.argmin(costs))
    return int(ns[best]), int(ks[best])
