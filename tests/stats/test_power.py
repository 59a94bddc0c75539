"""rederive.stats.power: analytic power of paired comparisons against statsmodels,
closed forms, and resampling of bundled data (ChemBench: real, unclustered;
SaliTrap: simulated, seed-clustered)."""

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.power import NormalIndPower, TTestPower
from statsmodels.stats.proportion import power_proportions_2indep

from rederive.stats.bootstrap import bootstrap_ratio, rng_for
from rederive.stats.power import (
    bh_average_power,
    bh_threshold,
    binary_difference_sd,
    comparison_power,
    detectable_effect,
    mde,
    n_needed,
    paired_influence,
    power_two_sided,
    resampled_bh_power,
    resampled_power,
    sd_from_ci,
    unit_sd,
    unit_totals,
    unpaired_two_proportion_n,
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def chembench():
    return pd.read_csv(ROOT / "raw/benchmark/matrix/chembench.csv", index_col=0)


@pytest.fixture(scope="module")
def salitrap_pair():
    """Control Strict-Pass and valid flags of two simulated SaliTrap models, by seed."""
    frames = []
    for model in ("GPT-5.4", "GPT-5.5"):
        rows = [json.loads(line) for line in open(ROOT / f"raw/salitrap/runs/{model}.jsonl")]
        frame = pd.DataFrame(rows)
        frame = frame[frame["condition"] == "control"]
        valid = ~frame["skipped"].astype(bool) & frame["error"].isna()
        frame = frame.assign(
            hit=(valid & (frame["judge_label"] == "Strict Pass")).astype(float),
            valid=valid.astype(float),
        )
        frames.append(frame.set_index("item_id")[["seed_id", "hit", "valid"]])
    a, b = frames
    b = b.reindex(a.index)
    return a["seed_id"].to_numpy(), a["hit"], b["hit"], a["valid"], b["valid"]


def test_unclustered_influence_is_millers_paired_variance():
    rng = np.random.default_rng(1)
    a = rng.integers(0, 2, 500).astype(float)
    b = np.where(rng.random(500) < 0.7, a, 1 - a)
    u = paired_influence(a, b)
    assert unit_sd(u) ** 2 == pytest.approx(np.var(a - b, ddof=1), rel=1e-12)
    # Miller (2024) eq. 8: Var(a) + Var(b) - 2 Cov(a, b).
    cov = np.cov(a, b, ddof=1)
    assert unit_sd(u) ** 2 == pytest.approx(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1], rel=1e-12)


def test_clustered_influence_is_millers_clustered_variance():
    rng = np.random.default_rng(2)
    clusters = np.repeat(np.arange(60), 5)
    a = rng.integers(0, 2, 300).astype(float)
    b = rng.integers(0, 2, 300).astype(float)
    d = a - b
    u = paired_influence(a, b, clusters=clusters)
    n, c = d.size, 60
    resid = pd.Series(d - d.mean()).groupby(clusters).sum().to_numpy()
    miller = (resid**2).sum() / n**2  # Miller (2024) eq. 4 for equal cluster sizes
    assert unit_sd(u) ** 2 / c == pytest.approx(miller * c / (c - 1), rel=1e-12)


def test_ratio_influence_matches_the_cluster_bootstrap(salitrap_pair):
    seeds, ha, hb, va, vb = salitrap_pair
    u = paired_influence(ha, hb, va, vb, clusters=seeds)
    analytic_se = unit_sd(u) / math.sqrt(u.size)
    boot = bootstrap_ratio(
        np.column_stack([ha, hb]),
        np.column_stack([va, vb]),
        clusters=seeds,
        n_boot=4000,
        rng=rng_for(3, "power"),
    )
    boot_se = np.std(boot.replicates[:, 0] - boot.replicates[:, 1], ddof=1)
    assert analytic_se == pytest.approx(boot_se, rel=0.06)


@pytest.mark.parametrize("alpha", [0.05, 0.01, 0.1])
@pytest.mark.parametrize("power", [0.5, 0.8, 0.9])
def test_paired_functions_reduce_to_statsmodels_one_sample_z(alpha, power):
    # ratio=0 makes NormalIndPower a one-sample z test: the paired test on the
    # per-unit differences with known sd. Its power function agrees to 1e-9; its
    # root finder stops near 1e-5 relative, hence rel=1e-4 on solved quantities.
    solver = NormalIndPower()
    for n in (20, 150, 2854):
        es = solver.solve_power(effect_size=None, nobs1=n, alpha=alpha, power=power, ratio=0)
        assert mde(1.0, n, alpha, power) == pytest.approx(es, rel=1e-4)
        assert mde(0.37, n, alpha, power) == pytest.approx(0.37 * es, rel=1e-4)
        achieved = solver.power(mde(1.0, n, alpha, power), nobs1=n, alpha=alpha, ratio=0)
        assert achieved == pytest.approx(power, abs=1e-9)
    for es in (0.1, 0.25):
        n_sm = solver.solve_power(effect_size=es, nobs1=None, alpha=alpha, power=power, ratio=0)
        assert n_needed(es * 0.4, 0.4, alpha, power) == max(math.ceil(n_sm - 1e-9), 2)
        got = power_two_sided(es, 1.0, 120, alpha)
        assert got == pytest.approx(solver.power(es, nobs1=120, alpha=alpha, ratio=0), abs=1e-9)


def test_paired_mde_approaches_the_paired_t_test_at_large_n():
    # The t test's n needed exceeds the z test's by about z^2/2 + 1 units; relative
    # tolerance 1% at n near 1,000.
    n_t = TTestPower().solve_power(effect_size=0.09, alpha=0.05, power=0.8)
    assert n_needed(0.09, 1.0) == pytest.approx(n_t, rel=0.01)
    assert detectable_effect() == pytest.approx(2.8016, abs=1e-4)


def test_binary_difference_sd_reads_a_two_by_two_table():
    # 1,000 items: both right 600, only A 120, only B 80, both wrong 200.
    a = np.repeat([1, 1, 0, 0], [600, 120, 80, 200]).astype(float)
    b = np.repeat([1, 0, 1, 0], [600, 120, 80, 200]).astype(float)
    rho = np.corrcoef(a, b)[0, 1]
    assert binary_difference_sd(a.mean(), b.mean(), rho) == pytest.approx(np.std(a - b), 1e-12)
    with pytest.raises(ValueError, match="impossible"):
        binary_difference_sd(0.9, 0.2, 0.9)
    with pytest.raises(ValueError, match="acc-a"):
        binary_difference_sd(72, 0.68, 0.5)


def test_unpaired_fleiss_n_reaches_the_power_at_n_and_not_before():
    n = unpaired_two_proportion_n(0.72, 0.68)
    # Fleiss' pooled-null-variance formula is statsmodels' default (score) power.
    at_n = power_proportions_2indep(-0.04, 0.72, n, alpha=0.05).power
    below = power_proportions_2indep(-0.04, 0.72, n - 1, alpha=0.05).power
    assert below < 0.8 <= at_n + 1e-4
    # With uncorrelated models, pairing buys nothing: within 1% of Fleiss.
    paired = n_needed(0.04, binary_difference_sd(0.72, 0.68, 0.0))
    assert paired == pytest.approx(n, rel=0.01)
    assert n_needed(0.04, binary_difference_sd(0.72, 0.68, 0.5)) < 0.55 * n


def test_sd_from_ci_inverts_a_normal_interval():
    se = 0.013
    lo, hi = 0.05 - 1.959964 * se, 0.05 + 1.959964 * se
    assert sd_from_ci(lo, hi, 400) == pytest.approx(se * 20, rel=1e-6)


def test_bh_threshold_brackets_bonferroni_and_unadjusted():
    sds = np.full(10, 0.5)
    assert bh_threshold(np.zeros(10), sds, 100, q=0.05) == pytest.approx(0.005)
    strong = bh_threshold(np.full(10, 1.0), sds, 100, q=0.05)
    assert strong == pytest.approx(0.05, rel=1e-6)
    mixed = bh_threshold(np.full(5, 0.2), sds[:5], 100, q=0.05, m0=5)
    assert 0.005 < mixed < 0.05


def test_resampled_power_matches_analytic_unclustered(chembench):
    a, b = chembench["GPT-4o"], chembench["Claude-3 (Opus)"]
    u = paired_influence(a, b)
    delta, sd = a.mean() - b.mean(), unit_sd(u)
    totals = unit_totals(a, b)
    for n, key in ((400, "n400"), (1500, "n1500")):
        n_sim = 2000
        sim = resampled_power(totals, n, n_sim=n_sim, rng=rng_for(5, key))
        analytic = power_two_sided(delta, sd, n)
        assert 0.1 < analytic < 0.95
        assert sim == pytest.approx(analytic, abs=3 * math.sqrt(0.25 / n_sim) + 0.01)


def test_resampled_power_matches_analytic_clustered(salitrap_pair):
    seeds, ha, hb, va, vb = salitrap_pair
    u = paired_influence(ha, hb, va, vb, clusters=seeds)
    delta = ha.sum() / va.sum() - hb.sum() / vb.sum()
    sd = unit_sd(u)
    totals = unit_totals(ha, hb, va, vb, clusters=seeds)
    assert totals.shape[0] == u.size < len(seeds)
    for n_clusters in (100, 250):
        n_sim = 2000
        sim = resampled_power(totals, n_clusters, n_sim=n_sim, rng=rng_for(6, str(n_clusters)))
        analytic = power_two_sided(delta, sd, n_clusters)
        assert 0.1 < analytic < 0.97
        assert sim == pytest.approx(analytic, abs=3 * math.sqrt(0.25 / n_sim) + 0.015)


def test_bh_average_power_matches_resampling_on_chembench(chembench):
    scores = chembench.to_numpy(dtype=float)
    ia, ib = np.triu_indices(scores.shape[1], k=1)
    d = scores[:, ia] - scores[:, ib]
    deltas, sds = d.mean(axis=0), d.std(axis=0, ddof=1)
    for n in (300, 800):
        sim = resampled_bh_power(scores, n, n_sim=150, rng=rng_for(7, str(n)), q=0.05)
        analytic = bh_average_power(deltas, sds, n, q=0.05)
        # Pairs share models (correlated tests); the approximation is stated, and
        # it holds to 0.03 in average power here.
        assert sim.mean() == pytest.approx(analytic, abs=0.03)


def test_comparison_power_marks_only_wide_ties_underpowered():
    from rederive.report.power import curve_frame, headline_check, power_frame

    ids = pd.DataFrame({"a": ["x", "x", "y"], "b": ["y", "z", "z"]})
    table = power_frame(
        ids,
        unit="item",
        n_units=[400, 400, 400],
        diff_pp=[8.0, 1.0, 0.5],
        ci_low_pp=[4.0, -2.0, -0.5],
        ci_high_pp=[12.0, 4.0, 1.5],
        ci_source="test",
        significant=[True, False, False],
        sd_pp=[40.0, 40.0, 5.0],
        sd_source="test",
        alpha=0.05,
        power=0.8,
        fdr_q=0.05,
        relevant_pp=2.0,
    )
    alpha_bh = table["alpha_bh"].iloc[0]
    assert 0.05 / 3 <= alpha_bh <= 0.05
    assert table["mde_bh_pp"].iloc[1] == pytest.approx(mde(40.0, 400, alpha_bh))
    # sd 40 pp on 400 items: MDE ≈ 5.6 pp > 2 → underpowered; sd 5 pp: ≈ 0.7 pp → a real tie.
    assert list(table["verdict"]) == ["significant", "tie, underpowered", "tie, adequately powered"]
    assert table["n_needed"].iloc[1] == n_needed(1.0, 40.0)
    curve = curve_frame(table)
    assert curve["study_n"].eq(400).all()
    assert curve["mde_bh_low_pp"].le(curve["mde_bh_pp"]).all()
    assert curve["mde_bh_pp"].is_monotonic_decreasing

    check = headline_check(
        "s", "x vs y", -8.0, sd_pp=40.0, n_units=400, unit="item", alpha=0.05, power=0.8
    )
    assert check.published == 8.0 and check.ours == pytest.approx(mde(40.0, 400))
    assert check.status == "detectable"
    small = headline_check(
        "s", "x vs y", 1.0, sd_pp=40.0, n_units=400, unit="item", alpha=0.05, power=0.8
    )
    # A power row says what the sample can show; it is never a failed reproduction.
    assert (
        small.status == "underpowered" and f"needs {int(n_needed(1.0, 40.0)):,} items" in small.note
    )


def test_comparisons_without_an_sd_are_not_assessable():
    from rederive.report.power import curve_frame, power_frame

    def frame(sds, n):
        return power_frame(
            pd.DataFrame({"model": [f"m{i}" for i in range(len(sds))]}),
            unit="item",
            n_units=[n] * len(sds),
            diff_pp=[3.0] * len(sds),
            ci_low_pp=[0.0] * len(sds),
            ci_high_pp=[6.0] * len(sds),
            ci_source="t",
            significant=[False] * len(sds),
            sd_pp=sds,
            sd_source="t",
            alpha=0.05,
            power=0.8,
            fdr_q=0.1,
            relevant_pp=5.0,
        )

    mixed = frame([np.nan, 20.0], 20)
    assert list(mixed["verdict"]) == ["tie, not assessable", "tie, underpowered"]
    none = frame([np.nan], 1)
    assert list(none["verdict"]) == ["tie, not assessable"] and none["alpha_bh"].isna().all()
    assert curve_frame(none)["mde_bh_pp"].isna().all()
    assert curve_frame(frame([], 20)).empty


def test_mde_figure_draws_from_the_csvs(tmp_path):
    from rederive.plots.power import draw
    from rederive.plots.theme import save_figure
    from rederive.report.power import write_power

    table = pd.DataFrame()
    from rederive.report.power import power_frame

    table = power_frame(
        pd.DataFrame({"a": ["x", "y"]}),
        unit="item",
        n_units=[300, 300],
        diff_pp=[12.0, 0.5],
        ci_low_pp=[6.0, -3.0],
        ci_high_pp=[18.0, 4.0],
        ci_source="t",
        significant=[True, False],
        sd_pp=[40.0, 35.0],
        sd_source="t",
        alpha=0.05,
        power=0.8,
        fdr_q=0.05,
        relevant_pp=2.0,
    )
    write_power(table, tmp_path / "power.csv", tmp_path / "curve.csv")
    power, curve = pd.read_csv(tmp_path / "power.csv"), pd.read_csv(tmp_path / "curve.csv")
    fig = draw(power, curve, title="t")
    save_figure(fig, tmp_path / "f.png", tmp_path / "f.pdf", note="note")
    assert (tmp_path / "f.png").stat().st_size > 1000 and (tmp_path / "f.pdf").exists()
    empty = draw(power, curve.iloc[0:0], title="t")
    save_figure(empty, tmp_path / "e.png", tmp_path / "e.pdf")


def test_small_n_comparisons_stay_out_of_the_family():
    base = dict(alpha=0.05, power=0.8, fdr_q=0.05, relevant_pp=2.0)
    args = ([1.0, 9.0, 0.5], [40.0, 40.0, 40.0], [400, 400, 400], [False, True, False])
    kept = comparison_power(*args, **base)
    out = comparison_power(*args, **base, excluded=[False, False, True])
    assert list(out["verdict"]) == ["tie, underpowered", "significant", "excluded (small n)"]
    assert not out["underpowered"][2]
    # The family's BH level is computed without the excluded comparison.
    assert out["alpha_bh"] == pytest.approx(bh_threshold([1.0, 9.0], [40.0, 40.0], 400, 0.05))
    assert kept["alpha_bh"] != out["alpha_bh"]


@pytest.mark.parametrize("with_clusters", [False, True])
def test_paired_unit_sds_equal_pair_by_pair_bit_for_bit(with_clusters):
    from itertools import combinations

    from rederive.stats.power import paired_influence, paired_unit_sds, unit_sd

    rng = np.random.default_rng(3)
    n_rows, n_cols = 600, 7
    den = (rng.random((n_rows, n_cols)) < 0.9).astype(float)
    num = den * (rng.random((n_rows, n_cols)) < 0.6)
    num[rng.random((n_rows, n_cols)) < 0.02] = np.nan  # a few missing scores...
    num[:, :3] = np.nan_to_num(num[:, :3])  # ...but three complete columns
    den[:40, 4] = 0.0  # units with no valid row for one model
    clusters = rng.integers(0, 90, n_rows) if with_clusters else None
    pairs = list(combinations(range(n_cols), 2))
    sd, n_units = paired_unit_sds(num, pairs, den, clusters)
    for k, (a, b) in enumerate(pairs):
        u = paired_influence(num[:, a], num[:, b], den[:, a], den[:, b], clusters=clusters)
        assert sd[k] == unit_sd(u) and n_units[k] == u.size


def test_paired_unit_sds_validates_shapes():
    from rederive.stats.power import paired_unit_sds

    with pytest.raises(ValueError, match="2-D"):
        paired_unit_sds(np.ones(5), [(0, 1)])
