"""Arena-Hard v0.1 scoring on real judgments, against the repository's own procedure.

Fixture ``fixtures/arena_hard`` (README there): Ko-Arena-Hard-Auto's ensemble
judgments of five models against the baseline ``claude-3.7-sonnet``, both games
per question; ``reference_*.csv`` from Arena-Hard-Auto's ``show_result.py``
(commit 0489bf3) run on it by ``make_reference.py``; the fork's published
leaderboard rows for those models.

Every judgment pits a model against the baseline, so each model's Bradley–Terry
strength depends on its own games only and has a closed form: the weighted share
``p`` of its points against the baseline (``A>>B`` counted 3 times, a tie half)
gives ``Elo = 1000 + 400 log10(p / (1 − p))`` and a win rate of ``100 p``. The
fit is asserted equal to that to 1e-9, to ``show_result.py``'s numbers to 1e-6
(its scikit-learn solver stops at ``tol=1e-8``; measured gap ~5e-5 Elo) and to the
published Elo and score.
"""

import numpy as np
import pandas as pd
import pytest
from preference_fixtures import ARENA_HARD_BASELINE as BASE
from preference_fixtures import FIXTURES, load_arena_hard

from rederive.stats.bootstrap import percentile_ci
from rederive.stats.preference.bootstrap import bootstrap_bradley_terry
from rederive.stats.preference.bradley_terry import fit_bradley_terry
from rederive.stats.preference.elo import EloScale, elo_bound_win_rates, to_elo, win_rate_against
from rederive.stats.preference.games import game_weights, pair_counts
from rederive.stats.preference.ranking import rank_table, score_table

HERE = FIXTURES / "arena_hard"
SCALE = EloScale(anchor=BASE, anchor_rating=1000.0)


@pytest.fixture(scope="module")
def games():
    return load_arena_hard()


@pytest.fixture(scope="module")
def fitted(games):
    counts = pair_counts(games, strong_weight=3)
    fit = fit_bradley_terry(counts)
    return counts, fit, to_elo(fit.beta, fit.models, SCALE)


def test_elo_equals_the_closed_form_of_a_star_design(games, fitted):
    counts, fit, elo = fitted
    w = game_weights(games, 3)
    value = np.where(games["model_a"] == BASE, 1 - games["outcome"], games["outcome"])
    contestant = np.where(games["model_a"] == BASE, games["model_b"], games["model_a"])
    for model in set(contestant):
        mine = contestant == model
        p = (w[mine] * value[mine]).sum() / w[mine].sum()
        expected = 1000 + 400 * np.log10(p / (1 - p))
        assert elo[fit.models.index(model)] == pytest.approx(expected, abs=1e-9)
        wr = win_rate_against(elo, fit.models, BASE, SCALE)[fit.models.index(model)]
        assert wr == pytest.approx(100 * p, abs=1e-9)


def test_point_scores_equal_show_result(fitted):
    _, fit, elo = fitted
    reference = pd.read_csv(HERE / "reference_point.csv").set_index("model")
    wr = win_rate_against(elo, fit.models, BASE, SCALE)
    for k, model in enumerate(fit.models):
        assert elo[k] == pytest.approx(reference.loc[model, "elo"], abs=1e-3)
        assert wr[k] / 100 == pytest.approx(reference.loc[model, "win_rate_pct"] / 100, abs=1e-6)
        assert round(wr[k], 2) == pytest.approx(reference.loc[model, "win_rate_pct_rounded"])


def test_published_elo_and_score(fitted):
    _, fit, elo = fitted
    published = pd.read_csv(HERE / "published_no_control.csv").set_index("model")
    wr = win_rate_against(elo, fit.models, BASE, SCALE)
    for k, model in enumerate(fit.models):
        assert elo[k] == pytest.approx(published.loc[model, "elo_score"], abs=1e-3)
        assert round(wr[k], 2) == pytest.approx(published.loc[model, "score"], abs=1e-9)


def _their_bounds(replicates, models):
    """show_result.py's bounds: Elo percentiles per model (mean-centred replicates),
    then each bound's win rate against the baseline's bound."""
    elo = to_elo(replicates, models)  # no anchor: mean 1000, as its bootstrap fits are
    lo, hi = percentile_ci(elo, 0.95)
    return win_rate_against(lo, models, BASE), win_rate_against(hi, models, BASE)


def test_a_game_bootstrap_reproduces_show_result_intervals_within_their_noise(games, fitted):
    counts, fit, _ = fitted
    # show_result.py repeats an A>>B battle 3 times and resamples battles, not questions.
    strong = games[games["strength"] == 2]
    battles = pd.concat([games, strong, strong], ignore_index=True)
    battles = battles.assign(strength=1).drop(columns="item_id")
    boot = bootstrap_bradley_terry(pair_counts(battles), n_boot=2000, seed=36)
    lo, hi = _their_bounds(boot.replicates, fit.models)
    theirs = pd.read_csv(HERE / "reference_bootstrap.csv")
    spread = theirs.groupby("model").agg(["min", "max", "std"])
    for k, model in enumerate(fit.models):
        if model == BASE:
            continue
        for mine, column in ((lo[k], "lower_pct"), (hi[k], "upper_pct")):
            band = spread.loc[model, column]
            assert band["min"] - 2 * band["std"] <= mine <= band["max"] + 2 * band["std"], (
                model,
                column,
            )


def test_prompt_bootstrap_table_labels_the_baseline(fitted):
    counts, fit, _ = fitted
    boot = bootstrap_bradley_terry(counts, n_boot=300, seed=36, fit=fit)
    scores = score_table(boot, counts, scale=SCALE, baseline=BASE)
    assert scores.loc[scores["model"] == BASE, "role"].item() == "baseline"
    assert scores.loc[scores["model"] == BASE, "rating"].item() == pytest.approx(1000.0)
    assert boot.unit_kind == "item" and boot.n_units == 500
    ranks = rank_table(scores, pd.DataFrame(columns=["a", "b", "diff", "significant"]))
    assert ranks.loc[ranks["model"] == BASE, "rank"].item() == "baseline"


def test_elo_bound_win_rates_is_show_results_construction(games, fitted):
    counts, fit, _ = fitted
    boot = bootstrap_bradley_terry(counts, n_boot=200, seed=11, fit=fit)
    theirs = _their_bounds(boot.replicates, fit.models)
    mine = elo_bound_win_rates(boot.replicates, fit.models, BASE, SCALE)
    for a, b in zip(theirs, mine, strict=True):
        assert np.allclose(a, b, atol=1e-12)
    scores = score_table(boot, counts, scale=SCALE, baseline=BASE, win_interval="elo_bounds")
    by_model = scores.set_index("model")
    k = fit.models.index("deepseek-r1")
    assert by_model.loc["deepseek-r1", "win_ci_low_pct"] == pytest.approx(theirs[0][k])
