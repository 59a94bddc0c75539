"""The one-call Bradley–Terry tables: determinism, the baseline, the caption note."""

import io

import numpy as np
from preference_fixtures import ARENA_HARD_BASELINE as BASE
from preference_fixtures import load_arena_hard

from rederive.stats.preference.elo import EloScale
from rederive.stats.preference.simulate import simulate_arena
from rederive.stats.preference.tables import bradley_terry_tables


def _csv(frame):
    buffer = io.StringIO()
    frame.to_csv(buffer, index=False, float_format="%.10g", lineterminator="\n")
    return buffer.getvalue()


def test_same_seed_same_bytes():
    games, _ = simulate_arena(8, 4000, 100, rng=np.random.default_rng(1), prompt_sd=0.3)
    one = bradley_terry_tables(games, n_boot=200, seed=5, fdr_q=0.05)
    two = bradley_terry_tables(games, n_boot=200, seed=5, fdr_q=0.05)
    for name in ("scores", "pairs", "ranks"):
        assert _csv(getattr(one, name)) == _csv(getattr(two, name))
    assert one.note == two.note


def test_arena_hard_tables_and_note():
    tables = bradley_terry_tables(
        load_arena_hard(),
        n_boot=200,
        seed=36,
        fdr_q=0.05,
        strong_weight=3,
        scale=EloScale(anchor=BASE, anchor_rating=1000.0),
        baseline=BASE,
    )
    assert tables.scores.set_index("model").loc[BASE, "role"] == "baseline"
    assert BASE not in set(tables.pairs["a"]) | set(tables.pairs["b"])
    assert list(tables.ranks["rank"])[-1] == "baseline"
    assert "a strong label counted 3 times" in tables.note
    assert f"{BASE} fixed at 1000" in tables.note
    assert "500 items (prompts)" in tables.note
    assert "BH over all 10 pairs" in tables.note
    # Five contestants far apart: every pair separated.
    assert list(tables.ranks["rank"])[:5] == ["1", "2", "3", "4", "5"]


def test_per_game_strong_weights_equal_one_weight_when_they_agree():
    games = load_arena_hard()
    one = bradley_terry_tables(games, n_boot=100, seed=3, fdr_q=0.05, strong_weight=3)
    many = bradley_terry_tables(
        games, n_boot=100, seed=3, fdr_q=0.05, strong_weight=np.full(len(games), 3.0)
    )
    assert _csv(one.scores) == _csv(many.scores)
    mixed = np.where(np.arange(len(games)) % 2 == 0, 3.0, 1.0)
    other = bradley_terry_tables(games, n_boot=100, seed=3, fdr_q=0.05, strong_weight=mixed)
    assert "as its source's strong_weight says" in other.note
    assert not np.allclose(other.scores["beta"], one.scores["beta"])


def test_not_ranked_models_are_fitted_but_left_out_of_pairs_and_ranks():
    games, _ = simulate_arena(6, 3000, 80, rng=np.random.default_rng(4))
    tables = bradley_terry_tables(
        games, n_boot=100, seed=2, fdr_q=0.05, not_ranked={"m002": "small_n"}
    )
    scores = tables.scores.set_index("model")
    assert scores.loc["m002", "role"] == "small_n" and np.isfinite(scores.loc["m002", "rating"])
    assert "m002" not in set(tables.pairs["a"]) | set(tables.pairs["b"])
    assert len(tables.pairs) == 10  # 5 contestants
    ranks = tables.ranks.set_index("model")
    assert ranks.loc["m002", "rank"] == "small_n"
    assert list(tables.ranks["order"])[-1] == ranks.loc["m002", "order"]


def test_resampling_games_repeats_a_strong_label_as_show_result_does():
    games = load_arena_hard()
    by_prompt = bradley_terry_tables(games, n_boot=200, seed=7, fdr_q=0.05, strong_weight=3)
    by_game = bradley_terry_tables(
        games, n_boot=200, seed=7, fdr_q=0.05, strong_weight=3, resample="games"
    )
    # The same point estimate: three copies of a game weigh what one game weighted 3 does.
    assert np.allclose(by_game.scores["beta"], by_prompt.scores["beta"], atol=1e-10)
    strong = int((games["strength"] == 2).sum())
    assert by_game.scores["n_units"].iloc[0] == len(games) + 2 * strong
    assert set(by_game.scores["ci_method"]) == {"game bootstrap, percentile"}
    assert "Resampling games (resample: games)" in by_game.note
    assert "(as that many games)" in by_game.note
    width = lambda t: (t.scores["ci_high"] - t.scores["ci_low"]).sum()  # noqa: E731
    assert width(by_game) < width(by_prompt)
