"""The prompt bootstrap: a replicate is the fit of the games of the prompts it drew."""

import numpy as np
import pandas as pd
import pytest

from rederive.stats.bootstrap import rng_for, weight_chunks
from rederive.stats.preference.bootstrap import bootstrap_bradley_terry, draw_weights
from rederive.stats.preference.bradley_terry import fit_bradley_terry, fit_half, half_scores
from rederive.stats.preference.games import pair_counts
from rederive.stats.preference.simulate import simulate_arena


@pytest.fixture(scope="module")
def arena():
    games, _ = simulate_arena(7, 3000, 80, rng=np.random.default_rng(5), tie_nu=0.4, prompt_sd=0.8)
    return games


def test_replicate_is_the_fit_of_the_drawn_prompts_games(arena):
    counts = pair_counts(arena)
    boot = bootstrap_bradley_terry(counts, n_boot=6, seed=9, key=("t",))
    draws = next(weight_chunks(counts.n_units, 6, rng_for(9, "t")))
    for r in range(6):
        # Build the resampled game list explicitly: prompt u repeated draws[r, u] times.
        parts = [
            arena[arena["item_id"] == unit]
            for unit, times in zip(counts.units, draws[r], strict=True)
            for _ in range(times)
        ]
        refit = fit_bradley_terry(pair_counts(pd.concat(parts), models=counts.models))
        np.testing.assert_allclose(boot.replicates[r], refit.beta, atol=1e-8)


def test_same_seed_same_replicates_other_key_other_draws(arena):
    counts = pair_counts(arena)
    one = bootstrap_bradley_terry(counts, n_boot=20, seed=3)
    two = bootstrap_bradley_terry(counts, n_boot=20, seed=3)
    other = bootstrap_bradley_terry(counts, n_boot=20, seed=3, key=("other",))
    assert np.array_equal(one.replicates, two.replicates)
    assert not np.allclose(one.replicates, other.replicates)


def test_chord_refits_equal_full_newton(arena):
    counts = pair_counts(arena)
    boot = bootstrap_bradley_terry(counts, n_boot=40, seed=1)
    weights = np.concatenate(
        list(draw_weights(counts, 40, rng_for(1, "preference", "bradley_terry")))
    )
    score, total = half_scores(counts.totals(weights), counts.graded)
    newton, _ = fit_half(counts.ia, counts.ib, score, total, len(counts.models))
    np.testing.assert_allclose(boot.replicates, newton, atol=1e-8)


def test_prompt_bootstrap_is_wider_than_a_game_bootstrap_when_prompts_matter(arena):
    by_prompt = bootstrap_bradley_terry(pair_counts(arena), n_boot=300, seed=2)
    by_game = bootstrap_bradley_terry(
        pair_counts(arena.drop(columns="item_id")), n_boot=300, seed=2
    )
    assert by_game.unit_kind == "game" and by_prompt.unit_kind == "item"
    sd_prompt = by_prompt.replicates.std(axis=0).mean()
    sd_game = by_game.replicates.std(axis=0).mean()
    assert sd_prompt > 1.2 * sd_game


def test_game_units_draw_a_multinomial_over_distinct_games():
    games = pd.DataFrame(
        {
            "model_a": ["x", "x", "y", "x"],
            "model_b": ["y", "y", "x", "y"],
            "outcome": [1.0, 1.0, 1.0, 0.5],
            "verdict": ["a", "a", "a", "tie"],
        }
    )
    counts = pair_counts(games)
    assert counts.counts.shape[0] == 3 and counts.n_units == 4
    draws = np.concatenate(list(draw_weights(counts, 4000, np.random.default_rng(0))))
    assert (draws.sum(axis=1) == 4).all()
    # Each distinct game is drawn in proportion to how many games it stands for.
    share = draws.mean(axis=0) / 4
    np.testing.assert_allclose(share, counts.multiplicity / 4, atol=0.02)


def test_a_replicate_without_a_finite_estimate_is_counted_not_hidden():
    games = pd.DataFrame(
        {
            "model_a": ["x", "y", "x", "y"],
            "model_b": ["y", "x", "y", "x"],
            "outcome": [1.0, 1.0, 1.0, 1.0],
            "verdict": ["a"] * 4,
            "item_id": ["p1", "p2", "p3", "p4"],
        }
    )
    boot = bootstrap_bradley_terry(pair_counts(games), n_boot=200, seed=4)
    failed = np.isnan(boot.replicates).any(axis=1)
    assert boot.n_failed == failed.sum() > 0
    assert not np.isnan(boot.replicates[~failed]).any()
