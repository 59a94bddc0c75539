"""Clustered SEs, t intervals and paired tests against statsmodels and scipy."""

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar

from rederive.stats.clustered import (
    clustered_ratio,
    mcnemar_exact,
    paired_differences,
    t_interval,
    t_pvalue,
)


def _clustered_rows(seed=3, n_clusters=23):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 7, n_clusters)
    cluster = np.repeat(np.arange(n_clusters), sizes)
    effect = rng.normal(0, 1, n_clusters)[cluster]
    n = cluster.size
    a = (rng.normal(0.8 + effect, 1, n) > 0).astype(float)
    b = (rng.normal(0.3 + effect, 1, n) > 0).astype(float)
    # Denominators: a model's invalid rows drop out of its rate only.
    den_a = (rng.random(n) > 0.1).astype(float)
    den_b = (rng.random(n) > 0.2).astype(float)
    return cluster, a * den_a, b * den_b, den_a, den_b


def test_rate_se_equals_statsmodels_cluster_robust_ols():
    cluster, a, _, den_a, _ = _clustered_rows()
    fit = clustered_ratio(a, den_a, clusters=cluster)
    rows = den_a > 0
    ols = sm.OLS(a[rows], np.ones(rows.sum())).fit(
        cov_type="cluster", cov_kwds={"groups": cluster[rows]}, use_t=True
    )
    # K = 1: statsmodels' factor G/(G-1) · (N-1)/(N-K) is our C/(C-1).
    assert fit.estimate[0] == pytest.approx(ols.params[0], abs=1e-12)
    assert fit.se[0] == pytest.approx(ols.bse[0], abs=1e-8)
    assert fit.n_clusters[0] == np.unique(cluster[rows]).size
    lo, hi = t_interval(fit.estimate, fit.se, fit.n_clusters)
    ci = ols.conf_int()[0]
    assert lo[0] == pytest.approx(ci[0], abs=1e-8)
    assert hi[0] == pytest.approx(ci[1], abs=1e-8)


def test_paired_difference_equals_statsmodels_cluster_robust_wald():
    cluster, a, b, den_a, den_b = _clustered_rows()
    fit = clustered_ratio(
        np.column_stack([a, b]), np.column_stack([den_a, den_b]), clusters=cluster
    )
    diff, se, n_clusters = paired_differences(fit, [0], [1])
    # Stacked rows, one intercept per model: the contrast a - b, clustered.
    keep_a, keep_b = den_a > 0, den_b > 0
    y = np.concatenate([a[keep_a], b[keep_b]])
    design = np.zeros((y.size, 2))
    design[: keep_a.sum(), 0] = 1
    design[keep_a.sum() :, 1] = 1
    groups = np.concatenate([cluster[keep_a], cluster[keep_b]])
    ols = sm.OLS(y, design).fit(
        cov_type="cluster", cov_kwds={"groups": groups, "use_correction": False}, use_t=True
    )
    g = np.unique(groups).size
    test = ols.t_test(np.array([[1.0, -1.0]]))
    assert n_clusters[0] == g
    assert diff[0] == pytest.approx(float(test.effect[0]), abs=1e-12)
    # use_correction=False leaves out G/(G-1); ours includes it.
    assert se[0] == pytest.approx(float(test.sd[0, 0]) * np.sqrt(g / (g - 1)), abs=1e-8)
    p = t_pvalue(diff, se, n_clusters)[0]
    t = float(test.tvalue[0, 0]) / np.sqrt(g / (g - 1))
    assert p == pytest.approx(2 * stats.t.sf(abs(t), g - 1), abs=1e-10)
    assert int(ols.df_resid_inference) == g - 1


def test_unclustered_mean_difference_is_the_paired_t_test():
    rng = np.random.default_rng(5)
    a = rng.random(40)
    b = np.clip(a + rng.normal(0.05, 0.2, 40), 0, 1)
    fit = clustered_ratio(np.column_stack([a, b]), np.ones((40, 2)))
    diff, se, n = paired_differences(fit, [0], [1])
    ref = stats.ttest_rel(a, b)
    assert diff[0] / se[0] == pytest.approx(ref.statistic, abs=1e-10)
    assert t_pvalue(diff, se, n)[0] == pytest.approx(ref.pvalue, abs=1e-12)


@pytest.mark.parametrize(("a_only", "b_only"), [(0, 0), (3, 0), (7, 2), (12, 12), (40, 61)])
def test_mcnemar_exact_equals_binomtest_and_statsmodels(a_only, b_only):
    p = mcnemar_exact([a_only], [b_only])[0]
    if a_only + b_only:
        assert p == pytest.approx(stats.binomtest(a_only, a_only + b_only, 0.5).pvalue, abs=1e-14)
    table = np.array([[10, a_only], [b_only, 5]])
    assert p == pytest.approx(mcnemar(table, exact=True).pvalue, abs=1e-14)


def test_mcnemar_has_resolution_below_a_bootstrap_floor():
    # 60 discordant items all one way: far below 1/2001.
    assert mcnemar_exact([60], [0])[0] < 1e-15


def test_t_pvalue_degenerate_se():
    p = t_pvalue([0.0, 0.1, 0.1], [0.0, 0.0, np.nan], [10, 10, 10])
    assert p[0] == 1.0 and p[1] == 0.0 and np.isnan(p[2])


def test_one_cluster_has_no_se_and_empty_column_no_estimate():
    fit = clustered_ratio(
        pd.DataFrame({"a": [1, 0, 1], "b": [0, 0, 0]}).to_numpy(),
        np.array([[1, 1, 1], [0, 0, 0]]).T,
        clusters=np.array([1, 1, 1]),
    )
    assert np.isnan(fit.se[0]) and fit.n_clusters[0] == 1
    assert np.isnan(fit.estimate[1]) and np.isnan(fit.se[1])


def test_clustered_intervals_cover_from_20_clusters_seeded_simulation():
    """Seeded coverage check (bench/coverage.py does the full grid).

    20 clusters of 2..8 items, latent-probit scores, ICC 0.3, rates 0.9 and
    0.85: 600 replications, so the Monte-Carlo SE of a 0.95 coverage is 0.009;
    the bound 0.925 is 2.8 SE below 0.95. The symmetric Wald interval of the rate
    is shown to fall short in the same runs, which is why rates use Wilson.
    """
    from rederive.stats.clustered import clustered_wilson

    rng = np.random.default_rng(20250107)
    p, delta, icc, reps = 0.9, 0.05, 0.3, 600
    theta = stats.norm.ppf([p, p - delta])
    hits = {"wilson": 0, "wald": 0, "diff": 0}
    for _ in range(reps):
        sizes = rng.integers(2, 9, 20)
        cluster = np.repeat(np.arange(20), sizes)
        n = cluster.size
        shared = rng.normal(0, np.sqrt(icc), 20)[cluster] + rng.normal(0, np.sqrt(0.35), n)
        scores = (theta + shared[:, None] + rng.normal(0, np.sqrt(0.35), (n, 2)) > 0).astype(float)
        fit = clustered_ratio(scores, np.ones_like(scores), clusters=cluster)
        lo, hi = clustered_wilson(fit.estimate[:1], fit.se[:1], [n], fit.n_clusters[:1])
        hits["wilson"] += lo[0] <= p <= hi[0]
        lo, hi = t_interval(fit.estimate[:1], fit.se[:1], fit.n_clusters[:1])
        hits["wald"] += lo[0] <= p <= hi[0]
        diff, se, c = paired_differences(fit, [0], [1])
        lo, hi = t_interval(diff, se, c)
        hits["diff"] += lo[0] <= delta <= hi[0]
    coverage = {k: v / reps for k, v in hits.items()}
    assert coverage["wilson"] >= 0.925
    assert coverage["diff"] >= 0.925
    assert coverage["wald"] < coverage["wilson"]
