"""Cluster-robust standard errors, t intervals and paired tests of ratio estimators.

Every rate the studies report is a ratio of two sums over rows,
``R = Σ num / Σ den`` (a mean when ``den`` is 1), and rows come in clusters
(variants of one seed question, continuations of one problem, trials of one
question). Linearising ``R`` around the estimate (delta method), the cluster
``c`` contributes ``v_c = (y_c − R x_c) / N`` (``y_c``, ``x_c`` its numerator and
denominator totals, ``N = Σ x``), and the clustered variance is

    Var(R̂) = C / (C − 1) · Σ_c v_c²,

``C`` the clusters with a positive denominator: Miller (2024, eq. 4) with the
small-sample factor ``C / (C − 1)``, the same number statsmodels' cluster-robust
covariance (``cov_type="cluster"``) gives for an intercept-only regression of the
denominator rows. The interval of a paired difference is ``d̂ ± t_{C−1} · SE``
and its test the Wald statistic referred to ``t`` with ``C − 1`` degrees of
freedom (Cameron & Miller 2015, §VI). A rate near 0 or 1 is skewed, so its
interval is the Wilson score interval on the effective sample size
``n_eff = R̂(1 − R̂) / SE²`` (at most the rows ``n``: a design effect below 1 is
not credited) with the ``t_{C−1}`` quantile in place of ``z`` (Korn & Graubard
1998; Dean & Pagano 2015). With few clusters the percentile cluster bootstrap
under-covers (0.90–0.93 at 20–30 clusters); these cover ≥ 0.944 from 20
clusters up (``bench/coverage.py``, bench/README.md).

A paired difference ``R_a − R_b`` of two columns estimated on the same rows has
``v_c = v_ca − v_cb``: clusters in which both models do well or badly cancel,
which is what pairing buys. For unclustered 0/1 scores the exact McNemar test
(a binomial test on the discordant items) gives the p-value instead.

References
----------
Miller, E. (2024). Adding error bars to evals: a statistical approach to language
    model evaluations. arXiv:2411.00640 (§2.2 clustered SE, §3.2 paired differences).
Cameron, A. C. & Miller, D. L. (2015). A practitioner's guide to cluster-robust
    inference. *Journal of Human Resources*, 50(2), 317–372.
Korn, E. L. & Graubard, B. I. (1998). Confidence intervals for proportions with small
    expected number of positive counts estimated from survey data. *Survey
    Methodology*, 24(2), 193–201.
Dean, N. & Pagano, M. (2015). Evaluating confidence interval methods for binomial
    proportions in clustered surveys. *Journal of Survey Statistics and
    Methodology*, 3(4), 484–503.
McNemar, Q. (1947). Note on the sampling error of the difference between correlated
    proportions or percentages. *Psychometrika*, 12(2), 153–157.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from rederive.stats.bootstrap import RatioBootstrap, sum_by_cluster
from rederive.stats.distributions import t_ppf, t_sf

#: ``ci_method`` / ``p_method`` wording, shared so the tables say the same thing.
T_METHOD = "clustered SE (C/(C-1)), t with C-1 df"
WILSON_METHOD = "clustered Wilson (effective n from the clustered SE, t with C-1 df)"
MCNEMAR = "exact McNemar (binomial on discordant items)"
PAIRED_T = "paired t on item differences"


@dataclass(frozen=True)
class ClusteredRatio:
    """Ratios with their linearised cluster-robust standard errors.

    Attributes
    ----------
    estimate : ndarray, shape (k,)
        ``Σ num / Σ den`` per column (NaN where the denominator is 0).
    se : ndarray, shape (k,)
        Clustered standard error (NaN with fewer than 2 clusters).
    n_clusters : ndarray of int, shape (k,)
        Clusters with a positive denominator in the column; the t has one fewer df.
    scores : ndarray, shape (n_clusters_total, k)
        ``v_c`` per cluster and column (for paired differences).
    present : ndarray of bool, shape (n_clusters_total, k)
        Whether the cluster has a positive denominator in the column.
    """

    estimate: np.ndarray
    se: np.ndarray
    n_clusters: np.ndarray
    scores: np.ndarray
    present: np.ndarray


@dataclass(frozen=True)
class RatioEstimates(RatioBootstrap):
    """A ratio bootstrap plus the clustered linearisation of the same columns.

    ``clustered`` gives intervals and paired tests their clustered SE; the
    replicates give the percentile bootstrap interval kept beside them.
    """

    clustered: ClusteredRatio | None = None


def _variance(sum_sq: np.ndarray, n_clusters: np.ndarray) -> np.ndarray:
    c = np.asarray(n_clusters, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        var = c / (c - 1.0) * sum_sq
    return np.where(c >= 2, var, np.nan)


def clustered_ratio(num, den, *, clusters=None) -> ClusteredRatio:
    """Ratio estimates and clustered SEs of every column of ``num / den``.

    Parameters
    ----------
    num, den : array_like, shape (n_rows,) or (n_rows, k)
        Per-row numerator and denominator contributions (e.g. 1/0 "is Strict Pass",
        1/0 "is valid"); columns are models, arms, metric × model blocks.
    clusters : array_like, shape (n_rows,), optional
        Cluster of each row; default every row is its own cluster.

    Returns
    -------
    ClusteredRatio
    """
    num = np.asarray(num, dtype=float)
    den = np.asarray(den, dtype=float)
    if num.shape != den.shape:
        raise ValueError(f"numerator shape {num.shape} != denominator shape {den.shape}")
    y, _ = sum_by_cluster(num, clusters)
    x, _ = sum_by_cluster(den, clusters)
    total = x.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        estimate = np.where(total > 0, y.sum(axis=0) / total, np.nan)
        scores = np.where(total > 0, (y - np.nan_to_num(estimate) * x) / total, 0.0)
    present = x > 0
    n_clusters = present.sum(axis=0).astype(int)
    se = np.sqrt(_variance((scores**2).sum(axis=0), n_clusters))
    se = np.where(total > 0, se, np.nan)
    return ClusteredRatio(estimate, se, n_clusters, scores, present)


#: The Gram path of :func:`paired_differences` runs when pairs × this ≥ columns².
GRAM_FACTOR = 10


def _pair_sums(fit: ClusteredRatio, ia, ib, max_cells: int) -> tuple[np.ndarray, np.ndarray]:
    """``Σ_c (v_ca − v_cb)²`` and the clusters either column has, pair by pair in blocks."""
    scores = np.ascontiguousarray(fit.scores.T)
    present = np.ascontiguousarray(fit.present.T)
    sum_sq = np.empty(ia.size)
    n_clusters = np.empty(ia.size, dtype=int)
    step = max(1, max_cells // max(scores.shape[1], 1))
    for start in range(0, ia.size, step):
        a, b = ia[start : start + step], ib[start : start + step]
        d = scores[a] - scores[b]
        sum_sq[start : start + step] = np.einsum("ij,ij->i", d, d)
        n_clusters[start : start + step] = (present[a] | present[b]).sum(axis=1)
    return sum_sq, n_clusters


def paired_differences(
    fit: ClusteredRatio, ia, ib, *, max_cells: int = 4_000_000
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Difference ``R_a − R_b`` of column pairs with its clustered SE.

    Parameters
    ----------
    fit : ClusteredRatio
        From one :func:`clustered_ratio` call over rows both columns share.
    ia, ib : array_like of int
        Column indices of the pairs.

    Returns
    -------
    diff, se : ndarray
    n_clusters : ndarray of int
        Clusters where either column has a positive denominator.

    Memory is k² + clusters × k (two Gram matrices), never clusters × pairs.
    A family much smaller than all pairs (rank neighbours of thousands of models,
    :mod:`rederive.stats.family`) is summed pair by pair in blocks of at most
    ``max_cells`` clusters × pairs instead: the Gram matrices of 5,000 models
    cost clusters × 25 M products where the family needs clusters × 15,000.
    """
    ia = np.asarray(ia, dtype=np.intp)
    ib = np.asarray(ib, dtype=np.intp)
    k = fit.scores.shape[1]
    if ia.size * GRAM_FACTOR >= k * k:
        gram = fit.scores.T @ fit.scores
        shown = fit.present.astype(float)
        both = shown.T @ shown
        sum_sq = np.maximum(gram[ia, ia] + gram[ib, ib] - 2.0 * gram[ia, ib], 0.0)
        n_clusters = np.rint(both[ia, ia] + both[ib, ib] - both[ia, ib]).astype(int)
    else:
        sum_sq, n_clusters = _pair_sums(fit, ia, ib, max_cells)
    diff = fit.estimate[ia] - fit.estimate[ib]
    se = np.sqrt(_variance(sum_sq, n_clusters))
    return diff, np.where(np.isnan(diff), np.nan, se), n_clusters


def t_interval(estimate, se, n_clusters, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """``estimate ± t_{C−1, (1+level)/2} · se`` (NaN where ``se`` is NaN)."""
    est = np.asarray(estimate, dtype=float)
    se = np.asarray(se, dtype=float)
    df = np.asarray(n_clusters, dtype=float) - 1.0
    with np.errstate(invalid="ignore"):
        half = t_ppf(0.5 + level / 2.0, np.where(df >= 1, df, np.nan)) * se
    return est - half, est + half


def rate_wilson(fit: ClusteredRatio, den, level: float = 0.95):
    """:func:`clustered_wilson` of every column of ``fit`` (``den``: its row denominators)."""
    n_rows = np.asarray(den, dtype=float).reshape(len(den), -1).sum(axis=0)
    return clustered_wilson(fit.estimate, fit.se, n_rows, fit.n_clusters, level)


def clustered_wilson(
    estimate, se, n_rows, n_clusters, level: float = 0.95
) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval of a clustered rate on its effective sample size.

    ``n_eff = R̂(1 − R̂) / SE²`` capped at ``n_rows`` (and ``n_rows`` itself where
    the SE is 0, i.e. at R̂ = 0 or 1), critical value ``t_{C−1, (1+level)/2}``.
    NaN where the rate or the SE is missing (fewer than 2 clusters).

    Parameters
    ----------
    estimate, se : array_like
        Rate (a proportion) and its clustered SE (:func:`clustered_ratio`).
    n_rows : array_like
        Denominator rows behind each rate.
    n_clusters : array_like of int
    """
    p = np.asarray(estimate, dtype=float)
    se = np.asarray(se, dtype=float)
    n = np.asarray(n_rows, dtype=float)
    df = np.asarray(n_clusters, dtype=float) - 1.0
    with np.errstate(invalid="ignore", divide="ignore"):
        n_eff = np.where(se > 0, np.minimum(n, p * (1 - p) / se**2), n)
        crit = t_ppf(0.5 + level / 2.0, np.where(df >= 1, df, np.nan))
        z2 = crit**2
        centre = (p + z2 / (2 * n_eff)) / (1 + z2 / n_eff)
        half = crit * np.sqrt(p * (1 - p) / n_eff + z2 / (4 * n_eff**2)) / (1 + z2 / n_eff)
    bad = np.isnan(p) | np.isnan(se) | ~(n > 0)
    lo = np.where(bad, np.nan, np.clip(centre - half, 0.0, 1.0))
    hi = np.where(bad, np.nan, np.clip(centre + half, 0.0, 1.0))
    return lo, hi


def t_pvalue(estimate, se, n_clusters) -> np.ndarray:
    """Two-sided p of the Wald statistic ``estimate / se`` against ``t`` with C − 1 df.

    A zero SE (every cluster shows exactly the mean difference) gives p = 1 for a
    zero difference and p = 0 otherwise, the limit of the statistic (as
    ``scipy.stats.ttest_1samp`` gives on constant non-zero differences): the data show
    the difference without any spread.
    """
    est = np.asarray(estimate, dtype=float)
    se = np.asarray(se, dtype=float)
    df = np.asarray(n_clusters, dtype=float) - 1.0
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.abs(est) / se
        p = 2.0 * t_sf(t, np.where(df >= 1, df, np.nan))
    p = np.where(se == 0, np.where(est == 0, 1.0, 0.0), p)
    return np.where(np.isnan(est) | np.isnan(se), np.nan, p)


def mcnemar_exact(a_only, b_only) -> np.ndarray:
    """Exact McNemar p per pair: two-sided binomial test of ``a_only`` of ``a_only + b_only``.

    Equal to ``scipy.stats.binomtest(a_only, a_only + b_only, 0.5).pvalue`` and to
    statsmodels' ``mcnemar(table, exact=True)``; vectorised through the binomial
    CDF (p = 0.5 makes the two-sided test twice the smaller tail). No discordant
    item gives p = 1.
    """
    a = np.asarray(a_only, dtype=float)
    b = np.asarray(b_only, dtype=float)
    n = a + b
    from scipy import stats  # only the exact McNemar test needs scipy.stats' binomial

    p = 2.0 * stats.binom.cdf(np.minimum(a, b), n, 0.5)
    return np.where(n == 0, 1.0, np.minimum(p, 1.0))


def pairwise_t(fit: ClusteredRatio, names, columns=None, level: float = 0.95) -> pd.DataFrame:
    """All unordered pairs of ``columns`` of ``fit``: clustered t interval and test.

    Pairs come in the order of :func:`rederive.stats.bootstrap.pairwise_differences`
    (``numpy.triu_indices``), so the two frames line up row by row.

    Parameters
    ----------
    fit : ClusteredRatio
    names : sequence of str
        Name of each column in ``columns`` (the pair's ``a`` and ``b``).
    columns : array_like of int, optional
        Columns of ``fit`` in table order; default all, in order.

    Returns
    -------
    DataFrame
        ``a, b, diff, se, t_low, t_high, p_value, n_clusters`` (fractions, as ``fit``).
    """
    names = list(names)
    columns = np.arange(len(names)) if columns is None else np.asarray(columns, dtype=np.intp)
    ia, ib = np.triu_indices(len(names), k=1)
    diff, se, n_clusters = paired_differences(fit, columns[ia], columns[ib])
    lo, hi = t_interval(diff, se, n_clusters, level)
    return pd.DataFrame(
        {
            "a": [names[i] for i in ia],
            "b": [names[j] for j in ib],
            "diff": diff,
            "se": se,
            "t_low": lo,
            "t_high": hi,
            "p_value": t_pvalue(diff, se, n_clusters),
            "n_clusters": n_clusters,
        }
    )
