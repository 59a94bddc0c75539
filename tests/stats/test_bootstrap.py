import numpy as np
import pytest

from rederive.stats.bootstrap import (
    bootstrap_mean,
    bootstrap_pvalue,
    bootstrap_ratio,
    pairwise_differences,
    percentile_ci,
    resample_weights,
    rng_for,
    sum_by_cluster,
)


def test_resample_weights_rows_sum_to_n_and_are_reproducible():
    w1 = resample_weights(17, 500, rng_for(1, "x"))
    w2 = resample_weights(17, 500, rng_for(1, "x"))
    assert w1.shape == (500, 17)
    assert (w1.sum(axis=1) == 17).all()
    assert np.array_equal(w1, w2)
    assert not np.array_equal(w1, resample_weights(17, 500, rng_for(1, "y")))


def test_resample_weights_have_multinomial_moments():
    # Each unit is drawn Binomial(n, 1/n) times: mean 1, variance (n-1)/n.
    w = resample_weights(20, 20000, rng_for(7))
    assert w.mean() == pytest.approx(1.0)
    assert w.var() == pytest.approx(19 / 20, rel=0.03)


def test_rng_for_keys_are_order_sensitive_and_stable():
    a = rng_for(5, "table1", "overall").integers(0, 1_000_000, 3)
    b = rng_for(5, "table1", "overall").integers(0, 1_000_000, 3)
    c = rng_for(5, "overall", "table1").integers(0, 1_000_000, 3)
    assert list(a) == list(b)
    assert list(a) != list(c)


def test_sum_by_cluster():
    sums, labels = sum_by_cluster(np.array([[1, 0], [2, 1], [3, 1]]), ["b", "a", "b"])
    assert list(labels) == ["a", "b"]
    assert sums.tolist() == [[2, 1], [4, 1]]


def test_ratio_estimate_is_the_pooled_ratio_and_replicates_are_ratios():
    num = np.array([1, 1, 0, 0, 1])
    den = np.array([1, 1, 1, 0, 1])  # row 4 is invalid: out of the denominator
    boot = bootstrap_ratio(num, den, n_boot=300, rng=rng_for(0))
    assert boot.estimate[0] == pytest.approx(3 / 4)
    reps = boot.replicates[:, 0]
    assert np.nanmin(reps) >= 0 and np.nanmax(reps) <= 1


def test_ratio_rejects_mismatched_shapes():
    with pytest.raises(ValueError, match="shape"):
        bootstrap_ratio(np.ones(3), np.ones(4), n_boot=10, rng=rng_for(0))


def test_cluster_bootstrap_is_wider_when_clusters_are_homogeneous():
    # 40 clusters of 5 identical outcomes: the effective sample is 40, not 200,
    # so resampling rows understates the standard error by about sqrt(5).
    outcome = np.repeat(np.arange(40) % 2, 5).astype(float)
    clusters = np.repeat(np.arange(40), 5)
    ones = np.ones_like(outcome)
    iid = bootstrap_ratio(outcome, ones, n_boot=4000, rng=rng_for(3)).replicates.std()
    clustered = bootstrap_ratio(
        outcome, ones, clusters=clusters, n_boot=4000, rng=rng_for(3)
    ).replicates.std()
    assert clustered / iid == pytest.approx(np.sqrt(5), rel=0.1)


def test_percentile_ci_matches_numpy_quantiles_and_handles_all_nan():
    reps = np.column_stack([np.arange(1001.0), np.full(1001, np.nan)])
    lo, hi = percentile_ci(reps, 0.9)
    assert lo[0] == pytest.approx(50.0) and hi[0] == pytest.approx(950.0)
    assert np.isnan(lo[1]) and np.isnan(hi[1])


def test_bootstrap_mean_ignores_missing_cells():
    values = np.array([[1.0, np.nan], [0.0, 1.0], [1.0, 1.0]])
    boot = bootstrap_mean(values, n_boot=50, rng=rng_for(0))
    assert boot.estimate.tolist() == pytest.approx([2 / 3, 1.0])


def test_pvalue_small_for_clear_effect_large_for_null():
    rng = np.random.default_rng(0)
    effect = rng.normal(0.5, 1, 400)
    null = rng.normal(0.0, 1, 400)
    values = np.column_stack([effect, null])
    boot = bootstrap_mean(values, n_boot=2000, rng=rng_for(11))
    p = bootstrap_pvalue(boot.estimate, boot.replicates)
    assert p[0] < 0.001
    assert p[1] > 0.05
    # never exactly zero: (1 + count) / (1 + B)
    assert p[0] >= 1 / 2001


def test_bootstrap_pvalue_is_roughly_uniform_under_the_null():
    # Size check: at alpha = 0.10 the test should reject about 10% of null samples.
    rng = np.random.default_rng(42)
    data = rng.normal(0, 1, size=(200, 300))  # 300 independent null data sets
    boot = bootstrap_mean(data, n_boot=1000, rng=rng_for(42))
    p = bootstrap_pvalue(boot.estimate, boot.replicates)
    assert 0.05 <= (p < 0.10).mean() <= 0.16


def test_percentile_interval_coverage_on_a_known_rate():
    # 95% intervals for a Bernoulli(0.3) rate from 200 items cover the truth in
    # roughly 95% of repeats (Monte Carlo band for 400 repeats: about 92-98%).
    rng = np.random.default_rng(1)
    data = (rng.random((200, 400)) < 0.3).astype(float)
    boot = bootstrap_mean(data, n_boot=1000, rng=rng_for(1))
    lo, hi = percentile_ci(boot.replicates, 0.95)
    coverage = ((lo <= 0.3) & (0.3 <= hi)).mean()
    assert 0.91 <= coverage <= 0.985


def test_pairwise_differences_are_paired():
    # Column b = column a + 0.1 on every item: the paired difference has no
    # sampling variability at all, so its interval collapses to the point.
    rng = np.random.default_rng(3)
    a = rng.random(100)
    values = np.column_stack([a, a + 0.1])
    boot = bootstrap_mean(values, n_boot=500, rng=rng_for(3))
    pairs = pairwise_differences(["A", "B"], boot.estimate, boot.replicates)
    row = pairs.iloc[0]
    assert (row["a"], row["b"]) == ("A", "B")
    assert row["diff"] == pytest.approx(-0.1)
    assert row["ci_low"] == pytest.approx(-0.1) and row["ci_high"] == pytest.approx(-0.1)
    assert row["p_value"] == pytest.approx(1 / 501)
