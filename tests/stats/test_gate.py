"""rederive.stats.gate against independent references.

* Tango's score statistic against the restricted maximum likelihood found
  numerically (1e-6), McNemar's statistic at Δ = 0 (statsmodels, 1e-12), and
  its interval against the test it inverts;
* fractional scores: the non-inferiority, inferiority and superiority p-values
  against statsmodels' ``ttost_paired`` (1e-10);
* clustered scores: interval and one-sided p against a cluster-robust OLS of the
  per-item differences (statsmodels, 1e-8);
* 0/1 scores: superiority against statsmodels' exact McNemar and scipy's
  binomtest; non-inferiority and inferiority against the interval;
* real SWE-bench Verified resolved lists (25 systems x 500 instances,
  fixtures/swebench_verified): every pair about 5 points apart gets the verdict
  exact McNemar and Newcombe's paired interval (method 10, written out here)
  give, and a pair 1 point apart is inconclusive with the
  items the power formula says would decide it.
"""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from scipy import optimize, stats
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.weightstats import ttost_paired

from rederive.stats import gate as g

SWEBENCH = Path(__file__).parent / "fixtures" / "swebench_verified" / "swebench_verified.csv"


# --- independent references -----------------------------------------------------------


def wilson(x: int, n: int, z: float) -> tuple[float, float]:
    """Wilson score interval, closed form (Wilson 1927)."""
    p = x / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def newcombe(a: int, b: int, c: int, d: int, level: float) -> tuple[float, float]:
    """Newcombe (1998) method 10 for p1 - p2, p1 = (a+b)/n, p2 = (a+c)/n, written out."""
    n = a + b + c + d
    z = stats.norm.ppf(0.5 + level / 2)
    p1, p2 = (a + b) / n, (a + c) / n
    l1, u1 = wilson(a + b, n, z)
    l2, u2 = wilson(a + c, n, z)
    prod = (a + b) * (c + d) * (a + c) * (b + d)
    num = a * d - b * c
    if prod == 0:
        phi = 0.0
    elif num > n / 2:
        phi = (num - n / 2) / math.sqrt(prod)
    elif num >= 0:
        phi = 0.0
    else:
        phi = num / math.sqrt(prod)
    low = (p1 - p2) - math.sqrt((p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2)
    high = (p1 - p2) + math.sqrt((u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2)
    return low, high


def table(baseline: np.ndarray, candidate: np.ndarray) -> tuple[int, int, int, int]:
    both = int(((baseline == 1) & (candidate == 1)).sum())
    cand_only = int(((baseline == 0) & (candidate == 1)).sum())
    base_only = int(((baseline == 1) & (candidate == 0)).sum())
    neither = int(((baseline == 0) & (candidate == 0)).sum())
    return both, cand_only, base_only, neither


def reference_binary_verdict(baseline, candidate, margin: float, level: float) -> str:
    """The verdict from statsmodels' exact McNemar and the written-out Newcombe interval
    (an interval of another construction than the gate's, Tango's)."""
    a, b, c, d = table(baseline, candidate)
    low, high = newcombe(a, b, c, d, level)
    exact = mcnemar([[a, c], [b, d]], exact=True).pvalue
    if high < -margin:
        return g.WORSE
    if b > c and exact < 1 - level:
        return g.BETTER
    if low > -margin:
        return g.NOT_WORSE
    return g.INCONCLUSIVE


def paired_binary(rng, n: int, p_base: float, delta: float, discordant: float):
    """0/1 pairs with P(candidate only) - P(baseline only) = delta."""
    cand_only = (discordant + delta) / 2
    base_only = (discordant - delta) / 2
    both = p_base - base_only
    cells = rng.choice(4, size=n, p=[both, cand_only, base_only, 1 - both - cand_only - base_only])
    baseline = np.isin(cells, (0, 2)).astype(float)
    candidate = np.isin(cells, (0, 1)).astype(float)
    return baseline, candidate


# --- the interval and its p-values ------------------------------------------------------


def restricted_mle_z(b: int, c: int, n: int, d0: float) -> float:
    """Tango's score z with the restricted MLE found by maximising the likelihood numerically."""
    r = n - b - c

    def nll(t: float) -> float:
        return (
            -(b * math.log(t + d0) if b else 0.0)
            - (c * math.log(t) if c else 0.0)
            - (r * math.log(1 - 2 * t - d0) if r else 0.0)
        )

    lo = max(0.0, -d0) + 1e-13
    hi = (1 - d0) / 2 - 1e-13
    t = optimize.minimize_scalar(nll, bounds=(lo, hi), method="bounded", options={"xatol": 1e-14}).x
    return (b - c - n * d0) / math.sqrt(n * (2 * t + d0 - d0 * d0))


def test_tango_statistic_equals_the_numerical_restricted_mle():
    rng = np.random.default_rng(3)
    for _ in range(200):
        n = int(rng.integers(20, 600))
        b, c = (int(x) for x in rng.multinomial(n, [0.15, 0.12, 0.73])[:2])
        d0 = float(rng.uniform(-0.2, 0.2))
        assert g.tango_statistic(b, c, n, d0) == pytest.approx(
            restricted_mle_z(b, c, n, d0), rel=1e-6, abs=1e-6
        ), (b, c, n, d0)


def test_tango_statistic_at_zero_is_mcnemars():
    for b, c, n in [(30, 12, 500), (12, 30, 100), (5, 0, 10), (1, 1, 3)]:
        z = g.tango_statistic(b, c, n, 0.0)
        chi2 = mcnemar([[0, c], [b, n - b - c]], exact=False, correction=False).statistic
        assert z == pytest.approx(math.copysign(math.sqrt(chi2), b - c), abs=1e-12)
    assert g.tango_statistic(0, 0, 50, 0.0) == 0.0


@pytest.mark.parametrize("level", [0.9, 0.95, 0.99])
def test_tango_interval_inverts_the_score_test(level):
    rng = np.random.default_rng(5)
    crit = stats.norm.isf((1 - level) / 2)
    for _ in range(100):
        n = int(rng.integers(10, 800))
        b, c = (int(x) for x in rng.multinomial(n, [0.1, 0.1, 0.8])[:2])
        low, high = g.tango_interval(b, c, n, level)
        assert -1 <= low <= (b - c) / n <= high <= 1
        for bound, z in ((low, crit), (high, -crit)):
            if abs(bound) < 1:
                assert g.tango_statistic(b, c, n, bound) == pytest.approx(z, abs=1e-7)
        for margin in (0.0, 0.01, 0.05):
            p_nw, p_w = g.tango_pvalues(b, c, n, margin)
            assert p_nw + p_w == pytest.approx(1.0, abs=1e-12)
            assert (p_nw < (1 - level) / 2) == (low > -margin)
            assert (p_w < (1 - level) / 2) == (high < -margin)


def test_mcnemar_one_sided_is_half_the_exact_test():
    for b, c in [(30, 12), (12, 30), (5, 0), (0, 0), (100, 90)]:
        p = g.mcnemar_one_sided(b, c)
        if b + c:
            assert p == pytest.approx(stats.binomtest(b, b + c, 0.5, "greater").pvalue, abs=1e-14)
        if b > c:
            two = mcnemar([[0, c], [b, 0]], exact=True).pvalue
            assert p == pytest.approx(two / 2, abs=1e-14)
    assert g.mcnemar_one_sided(0, 0) == 1.0


# --- fractional and clustered scores ----------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_fractional_pvalues_equal_statsmodels_ttost_paired(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 400))
    base = rng.beta(2, 2, n)
    cand = np.clip(base + rng.normal(rng.uniform(-0.04, 0.04), 0.15, n), 0, 1)
    margin, level = 0.02, 0.95
    d = g.paired_difference(base, cand, margin=margin, level=level)
    _, (_, p_low, df_low), (_, p_high, _) = ttost_paired(cand, base, -margin, -margin)
    assert d.p_not_worse == pytest.approx(p_low, abs=1e-10)
    assert d.p_worse == pytest.approx(p_high, abs=1e-10)
    _, (_, p_sup, _), _ = ttost_paired(cand, base, 0.0, 0.0)
    assert d.p_better == pytest.approx(p_sup, abs=1e-10)
    assert d.n_units == df_low + 1 and d.ci_method == "paired t on item differences"
    # The two-sided interval at `level` is the pair of one-sided bounds at (1 - level)/2.
    t = stats.t.ppf(0.5 + level / 2, n - 1)
    se = np.std(cand - base, ddof=1) / math.sqrt(n)
    assert (d.ci_low, d.ci_high) == pytest.approx(
        (np.mean(cand - base) - t * se, np.mean(cand - base) + t * se), abs=1e-12
    )
    a = (1 - level) / 2
    expected = g.decide(p_sup, p_low, p_high, a)
    assert g.gate(base, cand, margin=margin, level=level).verdict == expected


def test_clustered_interval_equals_cluster_robust_ols():
    rng = np.random.default_rng(11)
    clusters = np.repeat(np.arange(40), rng.integers(3, 9, 40))
    n = clusters.size
    effect = rng.normal(0, 0.1, 40)[clusters]
    base = (rng.random(n) < 0.55 + effect).astype(float)
    cand = (rng.random(n) < 0.53 + effect).astype(float)
    margin, level = 0.05, 0.9
    d = g.paired_difference(base, cand, margin=margin, level=level, clusters=clusters)
    ols = sm.OLS(cand - base, np.ones(n)).fit(
        cov_type="cluster", cov_kwds={"groups": clusters}, use_t=True
    )
    assert d.diff == pytest.approx(ols.params[0], abs=1e-12)
    assert (d.ci_low, d.ci_high) == pytest.approx(tuple(ols.conf_int(1 - level)[0]), abs=1e-8)
    tval = (ols.params[0] + margin) / ols.bse[0]
    assert d.p_not_worse == pytest.approx(stats.t.sf(tval, 39), abs=1e-8)
    assert d.p_worse == pytest.approx(stats.t.cdf(tval, 39), abs=1e-8)
    assert d.n_units == 40 and d.ci_method.startswith("clustered SE")


def test_power_calls_follow_the_test_t_with_c_minus_1_df_for_clusters():
    """MDE and units needed of a clustered gate: the noncentral t with C − 1 df
    (written out with scipy; the z form's MDE is 9% smaller at 12 clusters), items = units ×
    items per cluster; a 0/1 gate without clusters stays in the z form."""
    rng = np.random.default_rng(5)
    n_clusters, size = 12, 10
    clusters = np.repeat(np.arange(n_clusters), size)
    effect = rng.normal(0, 0.15, n_clusters)[clusters]
    base = (rng.random(clusters.size) < 0.55 + effect).astype(float)
    cand = (rng.random(clusters.size) < 0.54 + effect).astype(float)
    level, power, margin = 0.95, 0.8, 0.02
    decision = g.gate(base, cand, margin=margin, level=level, clusters=clusters, power=power)
    assert decision.power_test == "t" and decision.difference.n_units == n_clusters
    totals = pd.Series(cand - base).groupby(clusters).sum().to_numpy()
    # Per-cluster influence of the ratio estimator (equal cluster sizes: totals / size).
    sd = float(np.std(totals / size - np.mean(cand - base), ddof=1))
    assert decision.difference.sd_unit == pytest.approx(sd, rel=1e-9)

    def t_power(units, effect_size):
        df = units - 1
        crit = stats.t.isf((1 - level) / 2, df)
        ncp = effect_size * math.sqrt(units) / sd
        return stats.nct.sf(crit, df, ncp) + stats.nct.sf(crit, df, -ncp)

    mde = optimize.brentq(lambda x: t_power(n_clusters, x) - power, 1e-6, 1)
    assert decision.mde == pytest.approx(mde, rel=1e-8)
    z = stats.norm.isf((1 - level) / 2)
    k_z = optimize.brentq(lambda x: stats.norm.cdf(x - z) + stats.norm.cdf(-x - z) - power, 0, 10)
    assert decision.mde / (k_z * sd / math.sqrt(n_clusters)) > 1.09
    units = next(u for u in range(2, 100_000) if t_power(u, decision.distance) >= power)
    assert decision.units_needed == units
    assert decision.items_needed == units * size
    assert "noncentral t" in decision.power_method
    # Paired t on fractional scores: n − 1 df.
    frac = g.gate(base * 0.5 + 0.25, cand * 0.5 + 0.2, margin=margin, power=power)
    assert frac.power_test == "t" and frac.difference.ci_method == "paired t on item differences"
    # Tango and exact McNemar: the z form.
    binary = g.gate(base, cand, margin=margin, power=power)
    assert binary.power_test == "z" and binary.difference.ci_method == g.TANGO
    assert binary.mde == pytest.approx(k_z * binary.difference.sd_unit / math.sqrt(120), rel=1e-9)


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="one length"):
        g.paired_difference([1, 0], [1], margin=0.01)
    with pytest.raises(ValueError, match="present"):
        g.paired_difference([1, np.nan], [1, 0], margin=0.01)
    with pytest.raises(ValueError, match="margin"):
        g.paired_difference([1, 0], [1, 0], margin=-0.01)
    with pytest.raises(ValueError, match="at least 2"):
        g.paired_difference([1.0], [1.0], margin=0.01)


def test_decide_order_and_nan():
    assert g.decide(0.9, 0.9, 0.01, 0.025) == g.WORSE
    assert g.decide(0.01, 0.001, 0.99, 0.025) == g.BETTER
    assert g.decide(0.2, 0.01, 0.99, 0.025) == g.NOT_WORSE
    assert g.decide(0.2, 0.1, 0.9, 0.025) == g.INCONCLUSIVE
    assert g.decide(np.nan, np.nan, np.nan, 0.025) == g.INCONCLUSIVE


def test_not_worse_below_the_baseline_says_so():
    rng = np.random.default_rng(2)
    base, cand = paired_binary(rng, 20000, 0.6, -0.006, 0.1)
    decision = g.gate(base, cand, margin=0.02)
    assert decision.verdict == g.NOT_WORSE and decision.difference.ci_high < 0
    assert "by less than the margin" in decision.reason


# --- per task, BH -----------------------------------------------------------------------


def test_tasks_are_adjusted_with_bh_across_tasks():
    rng = np.random.default_rng(8)
    parts, tasks = [], []
    for task, delta, n in [("a", 0.0, 300), ("b", -0.12, 300), ("c", 0.15, 400), ("d", 0, 5)]:
        parts.append(paired_binary(rng, n, 0.6, delta, 0.3))
        tasks += [task] * n
    base = np.concatenate([p[0] for p in parts])
    cand = np.concatenate([p[1] for p in parts])
    rows = g.gate_by_group(base, cand, tasks, margin=0.02, level=0.95, min_n=20)
    by = {r["group"]: r for r in rows}
    assert [r["group"] for r in rows] == ["a", "b", "c", "d"]
    assert not by["d"]["in_family"] and by["d"]["verdict"] == g.INCONCLUSIVE
    assert "min_n" in by["d"]["reason"]
    family = [by[t] for t in "abc"]
    for key in ("p_worse", "p_not_worse", "p_better"):
        _, q, _, _ = multipletests([r[key] for r in family], alpha=0.025, method="fdr_bh")
        assert [r["q" + key[1:]] for r in family] == pytest.approx(list(q), abs=1e-14)
    assert by["b"]["verdict"] == g.WORSE
    assert by["c"]["verdict"] == g.BETTER
    for r in family:
        assert r["verdict"] == g.decide(r["q_better"], r["q_not_worse"], r["q_worse"], 0.025)


# --- real data: SWE-bench Verified -------------------------------------------------------


@pytest.fixture(scope="module")
def swebench() -> pd.DataFrame:
    matrix = pd.read_csv(SWEBENCH, index_col="instance_id")
    assert matrix.shape == (500, 25) and matrix.isin([0, 1]).all().all()
    return matrix


def independent_tango_bounds(b: int, c: int, n: int, level: float) -> tuple[float, float]:
    """Tango's interval by scanning the numerically maximised score test (no shared code)."""
    crit = stats.norm.isf((1 - level) / 2)
    point = (b - c) / n

    def root(target, lo, hi):
        return optimize.brentq(lambda x: restricted_mle_z(b, c, n, x) - target, lo, hi, xtol=1e-9)

    return root(crit, -0.999, point), root(-crit, point, 0.999)


def test_swebench_pairs_five_points_apart_match_mcnemar_tango_and_newcombe(swebench):
    margin, level = 0.01, 0.95
    checked, newcombe_differs = {}, []
    for a, b in itertools.permutations(swebench.columns, 2):
        base, cand = swebench[a].to_numpy(float), swebench[b].to_numpy(float)
        if not 0.04 <= abs(cand.mean() - base.mean()) <= 0.06:
            continue
        ours = g.gate(base, cand, margin=margin, level=level)
        both, n01, n10, neither = table(base, cand)
        # Superiority is the exact McNemar test (scipy's binomial test on the discordant items).
        sup = stats.binomtest(n01, n01 + n10, 0.5, alternative="greater").pvalue
        assert ours.difference.p_better == pytest.approx(sup, rel=1e-12)
        # The interval is Tango's, computed here from the likelihood alone.
        low, high = independent_tango_bounds(n01, n10, 500, level)
        assert (ours.difference.ci_low, ours.difference.ci_high) == pytest.approx(
            (low, high), abs=1e-7
        )
        exact = mcnemar([[both, n10], [n01, neither]], exact=True).pvalue
        if high < -margin:
            expected = g.WORSE
        elif n01 > n10 and exact < 1 - level:
            expected = g.BETTER
        elif low > -margin:
            expected = g.NOT_WORSE
        else:
            expected = g.INCONCLUSIVE
        assert ours.verdict == expected, (a, b)
        if ours.verdict != reference_binary_verdict(base, cand, margin, level):
            newcombe_differs.append((a, b, newcombe(both, n01, n10, neither, level), (low, high)))
        checked[(a, b)] = ours.verdict
    counts = pd.Series(list(checked.values())).value_counts()
    # Not vacuous: the 62 real pairs give every verdict.
    assert len(checked) == 62
    assert counts.get(g.BETTER, 0) >= 20 and counts.get(g.WORSE, 0) >= 10
    assert counts.get(g.INCONCLUSIVE, 0) >= 10 and counts.get(g.NOT_WORSE, 0) >= 1
    # Newcombe's interval (method 10) agrees on all but one pair, whose upper bound
    # sits on the margin: Tango's -1.006 points calls it worse, Newcombe's -0.986
    # inconclusive (docs/gate.md, "Why Tango's interval").
    assert len(newcombe_differs) == 1
    (a, b, (_, n_high), (_, t_high)) = newcombe_differs[0]
    assert (a, b) == ("20241028_solver", "20240924_solver")
    assert t_high < -margin < n_high and n_high - t_high < 0.0003
    for (a, b), verdict in checked.items():
        if verdict == g.BETTER:
            assert checked[(b, a)] != g.BETTER


def test_swebench_pair_one_point_apart_is_inconclusive_with_items_needed(swebench):
    base_name, cand_name = "20241022_tools_claude-3-5-sonnet-updated", "20241028_solver"
    base = swebench[base_name].to_numpy(float)
    cand = swebench[cand_name].to_numpy(float)
    assert 100 * (cand.mean() - base.mean()) == pytest.approx(1.0, abs=1e-9)
    margin, level, power = 0.01, 0.95, 0.8
    decision = g.gate(base, cand, margin=margin, level=level, power=power)
    assert decision.verdict == g.INCONCLUSIVE
    assert decision.difference.ci_low < -margin < decision.difference.ci_high
    # Items at which a true 1-point lead clears the 1-point margin (2 points of
    # distance) with 80% power: n = (k sd / distance)^2, k solving the z test's power.
    sd = np.std(cand - base, ddof=1)
    z = stats.norm.isf((1 - level) / 2)
    k = optimize.brentq(lambda x: stats.norm.cdf(x - z) + stats.norm.cdf(-x - z) - power, 0, 10)
    need = math.ceil((k * sd / 0.02) ** 2)
    assert decision.items_needed == need and need > 500
    assert decision.mde == pytest.approx(k * sd / math.sqrt(500), rel=1e-12)
    # At that many items (the same per-item spread) the interval clears the margin.
    grown = g.gate(np.tile(base, 9), np.tile(cand, 9), margin=margin, level=level)
    assert need < 9 * 500 and grown.verdict == g.NOT_WORSE
