"""Score tables, paired comparisons under BH, rank ranges; the baseline is never ranked."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from rederive.stats.multitest import bh_adjust
from rederive.stats.preference.bootstrap import bootstrap_bradley_terry
from rederive.stats.preference.elo import ARENA, EloScale, to_elo, win_probability
from rederive.stats.preference.games import pair_counts
from rederive.stats.preference.ranking import pairwise_table, rank_table, score_table
from rederive.stats.preference.simulate import simulate_arena


@pytest.fixture(scope="module")
def arena():
    strengths = [1.5, 1.5, 1.45, 0.0, -0.2, -2.0]
    games, _ = simulate_arena(
        6, 6000, 150, rng=np.random.default_rng(8), strengths=strengths, prompt_sd=0.3
    )
    counts = pair_counts(games)
    return counts, bootstrap_bradley_terry(counts, n_boot=400, seed=8)


def test_elo_scale_anchor_and_mean():
    beta = np.array([0.5, -0.2, -0.3])
    models = ["x", "mixtral-8x7b-instruct-v0.1", "z"]
    anchored = to_elo(beta, models, ARENA)
    assert anchored[1] == pytest.approx(1114.0)
    assert anchored[0] - anchored[1] == pytest.approx(400 * 0.7 / np.log(10))
    free = to_elo(beta, ["x", "y", "z"], ARENA)
    assert free.mean() == pytest.approx(1000.0)
    # 400 points are odds of 10 to 1.
    assert win_probability(1400.0, 1000.0) == pytest.approx(10 / 11)


def test_score_table_intervals_are_replicate_percentiles(arena):
    counts, boot = arena
    scale = EloScale()
    table = score_table(boot, counts, scale=scale).set_index("model")
    reps = to_elo(boot.replicates, boot.fit.models, scale)
    for k, model in enumerate(boot.fit.models):
        lo, hi = np.quantile(reps[:, k], [0.025, 0.975])
        assert table.loc[model, "ci_low"] == pytest.approx(lo)
        assert table.loc[model, "ci_high"] == pytest.approx(hi)
        assert (
            table.loc[model, "ci_low"] <= table.loc[model, "rating"] <= table.loc[model, "ci_high"]
        )
    assert (table["role"] == "contestant").all()
    assert table["games"].sum() == pytest.approx(2 * 6000)


def test_pairwise_p_values_and_q_values(arena):
    _, boot = arena
    pairs = pairwise_table(boot, fdr_q=0.05)
    assert len(pairs) == 15 and (pairs["diff"] >= 0).all()
    points = 400 / np.log(10)
    k = {m: i for i, m in enumerate(boot.fit.models)}
    for row in pairs.itertuples():
        d = points * (boot.replicates[:, k[row.a]] - boot.replicates[:, k[row.b]])
        assert row.se == pytest.approx(d.std(ddof=1))
        assert row.p_value == pytest.approx(2 * stats.norm.sf(abs(row.diff) / d.std(ddof=1)))
    _, q = bh_adjust(pairs["p_value"].to_numpy(), 0.05)
    np.testing.assert_allclose(pairs["q_value"], q)


def test_rank_ranges_tie_the_equal_models_and_separate_the_rest(arena):
    counts, boot = arena
    ranks = rank_table(score_table(boot, counts), pairwise_table(boot, fdr_q=0.05))
    by = ranks.set_index("model")
    top = ["m000", "m001", "m002"]
    for m in top:
        assert by.loc[m, "rank_best"] == 1 and by.loc[m, "rank_worst"] == 3
    assert by.loc["m005", "rank"] == "6"


def test_the_baseline_is_scored_but_not_ranked(arena):
    counts, boot = arena
    scores = score_table(boot, counts, baseline="m003")
    pairs = pairwise_table(boot, fdr_q=0.05, baseline="m003")
    assert "m003" not in set(pairs["a"]) | set(pairs["b"])
    assert len(pairs) == 10
    ranks = rank_table(scores, pairs)
    assert ranks["model"].iloc[-1] == "m003" and ranks["rank"].iloc[-1] == "baseline"
    assert ranks["rank_worst"].iloc[:-1].max() <= 5
    row = scores.set_index("model").loc["m003"]
    assert row["role"] == "baseline" and row["win_rate_pct"] == pytest.approx(50.0)


def test_neighbour_family_ranks_from_the_order():
    scores = pd.DataFrame(
        {
            "model": list("abcde"),
            "role": "contestant",
            "rating": [5.0, 4, 3, 2, 1],
            "ci_low": 0.0,
            "ci_high": 0.0,
        }
    )
    pairs = pd.DataFrame(
        {
            "a": ["a", "b", "c", "d", "a", "a", "a"],
            "b": ["b", "c", "d", "e", "c", "d", "e"],
            "diff": 1.0,
            "significant": [False, True, False, False, True, True, True],
            "family": "neighbour",
        }
    )
    ranks = rank_table(scores, pairs).set_index("model")
    # b > c significant: c and everything below rank 3 or worse; a, b at best 1.
    assert ranks.loc["c", "rank_best"] == 3 and ranks.loc["b", "rank_worst"] == 2
    assert ranks.loc["a", "rank"] == "1-2"


def test_tie_model_bootstrap_runs_and_keeps_its_tie_parameter():
    games, _ = simulate_arena(5, 3000, 60, rng=np.random.default_rng(2), tie_nu=0.4)
    boot = bootstrap_bradley_terry(pair_counts(games), ties="davidson", n_boot=30, seed=1)
    assert boot.n_failed == 0
    assert np.isfinite(boot.tie_replicates).all()
    lo, hi = np.quantile(boot.tie_replicates, [0.025, 0.975])
    assert lo < boot.fit.tie_parameter < hi
