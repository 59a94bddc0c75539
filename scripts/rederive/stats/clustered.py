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
denominator rows. The interval is ``R̂ ± t_{C−1} · SE`` and the test of a paired
difference is the Wald statistic referred to ``t`` with ``C − 1`` degrees of
freedom (Cameron & Miller 2015, §VI): with few clusters the percentile cluster
bootstrap under-covers (0.93 at 30 clusters, ``bench/coverage.py``); this
interval covers ≥ 0.94 from 20 clusters up.

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
McNemar, Q. (1947). Note on the sampling error of the difference between correlated
    proportions or percentages. *Psychometrika*, 12(2), 153–157.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from rederive.stats.bootstrap import sum_by_cluster

#: ``ci_method`` / ``p_method`` wording, shared so the tables say the same thing.
T_METHOD = "clustered SE (C/(C-1)), t with C-1 df"
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


def paired_differences(fit: ClusteredRatio, ia, ib) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
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
    """
    ia = np.asarray(ia, dtype=np.intp)
    ib = np.asarray(ib, dtype=np.intp)
    gram = fit.scores.T @ fit.scores
    shown = fit.present.astype(float)
    both = shown.T @ shown
    sum_sq = np.maximum(gram[ia, ia] + gram[ib, ib] - 2.0 * gram[ia, ib], 0.0)
    n_clusters = np.rint(both[ia, ia] + both[ib, ib] - both[ia, ib]).astype(int)
    diff = fit.estimate[ia] - fit.estimate[ib]
    se = np.sqrt(_variance(sum_sq, n_clusters))
    return diff, np.where(np.isnan(diff), np.nan, se), n_clusters


def t_interval(estimate, se, n_clusters, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """``estimate ± t_{C−1, (1+level)/2} · se`` (NaN where ``se`` is NaN)."""
    est = np.asarray(estimate, dtype=float)
    se = np.asarray(se, dtype=float)
    df = np.asarray(n_clusters, dtype=float) - 1.0
    with np.errstate(invalid="ignore"):
        half = stats.t.ppf(0.5 + level / 2.0, np.where(df >= 1, df, np.nan)) * se
    return est - half, est + half


def t_pvalue(estimate, se, n_clusters) -> np.ndarray:
    """Two-sided p of the Wald statistic ``estimate / se`` against ``t`` with C − 1 df.

    A zero SE (every cluster differs by exactly the mean) gives p = 1 for a zero
    difference and NaN otherwise: the data then carry no variance to test against,
    and NaN keeps the comparison out of the BH family rather than at p = 0.
    """
    est = np.asarray(estimate, dtype=float)
    se = np.asarray(se, dtype=float)
    df = np.asarray(n_clusters, dtype=float) - 1.0
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.abs(est) / se
        p = 2.0 * stats.t.sf(t, np.where(df >= 1, df, np.nan))
    p = np.where(se == 0, np.where(est == 0, 1.0, np.nan), p)
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
    p = 2.0 * stats.binom.cdf(np.minimum(a, b), n, 0.5)
    return np.where(n == 0, 1.0, np.minimum(p, 1.0))
