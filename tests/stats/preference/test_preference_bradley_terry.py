"""Bradley–Terry fits against independent maximum-likelihood fits of the same games.

The library fits aggregated pair counts (Newton on the Laplacian; L-BFGS and
Newton for the tie models). The references fit every game separately:
statsmodels' binomial GLM on the per-game design matrix for ties as half a win
(each tie two half-weighted rows, as the arena notebooks duplicate battles), and
scipy's BFGS on the per-game Rao–Kupper / Davidson likelihoods written in the
models' original ``π``/``θ``/``ν`` form. Agreement is asserted to 1e-6.
"""

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from scipy import optimize

from rederive.stats.preference.bradley_terry import (
    comparison_components,
    fit_bradley_terry,
    fit_half,
    model_covariance,
)
from rederive.stats.preference.games import pair_counts
from rederive.stats.preference.simulate import simulate_arena

TOL = 1e-6


@pytest.fixture(scope="module")
def arena():
    games, _ = simulate_arena(9, 4000, 60, rng=np.random.default_rng(7), tie_nu=0.5)
    return games


def _indices(games, models):
    pos = {m: k for k, m in enumerate(models)}
    return games["model_a"].map(pos).to_numpy(), games["model_b"].map(pos).to_numpy()


def _centred(x):
    return np.asarray(x) - np.mean(x)


def test_half_equals_statsmodels_glm_on_games(arena):
    counts = pair_counts(arena)
    fit = fit_bradley_terry(counts, ties="half")
    a, b = _indices(arena, counts.models)
    m = len(counts.models)
    # Per game: y = outcome as a proportion with weight 1 (a tie is y = 0.5), the
    # same likelihood as two rows (one win each) of weight 1/2.
    x = np.zeros((len(arena), m))
    x[np.arange(len(arena)), a] = 1.0
    x[np.arange(len(arena)), b] = -1.0
    glm = sm.GLM(arena["outcome"].to_numpy(), x[:, 1:], family=sm.families.Binomial())
    ref = glm.fit(tol=1e-14, maxiter=200)
    beta_ref = _centred(np.concatenate([[0.0], ref.params]))
    np.testing.assert_allclose(fit.beta, beta_ref, atol=TOL)
    assert abs(fit.beta.sum()) < 1e-12


def _per_game_nll(params, a, b, verdict, model):
    m = params.size - 1
    log_pi = np.concatenate([[0.0], params[:m]])
    pi_a, pi_b = np.exp(log_pi[a]), np.exp(log_pi[b])
    if model == "rao_kupper":
        theta = 1.0 + np.exp(params[-1])
        p_a = pi_a / (pi_a + theta * pi_b)
        p_b = pi_b / (pi_b + theta * pi_a)
        p_t = (theta**2 - 1) * pi_a * pi_b / ((pi_a + theta * pi_b) * (pi_b + theta * pi_a))
    else:
        nu = np.exp(params[-1])
        norm = pi_a + pi_b + nu * np.sqrt(pi_a * pi_b)
        p_a, p_b, p_t = pi_a / norm, pi_b / norm, nu * np.sqrt(pi_a * pi_b) / norm
    p = np.where(verdict == "a", p_a, np.where(verdict == "b", p_b, p_t))
    return -np.log(p).sum()


@pytest.mark.parametrize("model", ["rao_kupper", "davidson"])
def test_tie_models_equal_scipy_on_per_game_likelihood(arena, model):
    counts = pair_counts(arena)
    fit = fit_bradley_terry(counts, ties=model)
    a, b = _indices(arena, counts.models)
    m = len(counts.models)
    verdict = arena["verdict"].to_numpy()
    x0 = np.concatenate([np.zeros(m - 1), [0.0]])
    ref = optimize.minimize(
        _per_game_nll, x0, args=(a, b, verdict, model), method="BFGS", options={"gtol": 1e-9}
    )
    ref = (
        optimize.minimize(
            _per_game_nll,
            ref.x,
            args=(a, b, verdict, model),
            method="Nelder-Mead",
            options={"xatol": 1e-10, "fatol": 1e-13, "maxiter": 200_000, "maxfev": 200_000},
        )
        if not ref.success
        else ref
    )
    beta_ref = _centred(np.concatenate([[0.0], ref.x[: m - 1]]))
    np.testing.assert_allclose(fit.beta, beta_ref, atol=TOL)
    tie_ref = 1.0 + np.exp(ref.x[-1]) if model == "rao_kupper" else np.exp(ref.x[-1])
    assert fit.tie_parameter == pytest.approx(tie_ref, abs=TOL)
    assert fit.loglik == pytest.approx(-ref.fun, abs=1e-6)


def test_strong_weight_equals_repeating_the_strong_games():
    games, _ = simulate_arena(6, 1500, 30, rng=np.random.default_rng(3), strong_share=0.3)
    weighted = fit_bradley_terry(pair_counts(games, strong_weight=3))
    strong = games[games["strength"] == 2]
    repeated = pd.concat([games, strong, strong], ignore_index=True).assign(strength=1)
    plain = fit_bradley_terry(pair_counts(repeated))
    np.testing.assert_allclose(weighted.beta, plain.beta, atol=1e-10)


def test_games_as_units_give_the_same_point_estimate(arena):
    by_item = fit_bradley_terry(pair_counts(arena))
    by_game = pair_counts(arena.drop(columns="item_id"))
    assert by_game.unit_kind == "game"
    assert by_game.n_units == len(arena)
    np.testing.assert_allclose(fit_bradley_terry(by_game).beta, by_item.beta, atol=1e-12)


def test_a_model_that_never_loses_has_no_finite_estimate():
    games = pd.DataFrame(
        {
            "model_a": ["x", "x", "y", "z"],
            "model_b": ["y", "z", "z", "y"],
            "outcome": [1.0, 1.0, 1.0, 1.0],
            "verdict": ["a"] * 4,
        }
    )
    with pytest.raises(ValueError, match="not strongly connected.*x"):
        fit_bradley_terry(pair_counts(games))
    counts = pair_counts(games)
    totals = counts.totals()
    labels = comparison_components(counts.ia, counts.ib, totals[0], totals[1], 3)
    assert labels[0] != labels[1] and labels[1] == labels[2]


def test_graded_preferences_need_the_half_model():
    games = pd.DataFrame(
        {
            "model_a": ["x", "y", "x", "z"],
            "model_b": ["y", "z", "z", "x"],
            "outcome": [0.7, 0.4, 0.2, 0.9],
            "verdict": ["graded"] * 4,
        }
    )
    counts = pair_counts(games)
    assert counts.graded
    fit_bradley_terry(counts, ties="half")
    with pytest.raises(ValueError, match="graded"):
        fit_bradley_terry(counts, ties="davidson")


def test_batched_newton_equals_one_at_a_time(arena):
    counts = pair_counts(arena)
    rng = np.random.default_rng(0)
    weights = rng.multinomial(counts.n_units, np.full(counts.n_units, 1 / counts.n_units), 5)
    totals = counts.totals(weights)
    score = totals[:, 0] + 0.5 * totals[:, 2]
    total = totals[:, 0] + totals[:, 1] + totals[:, 2]
    m = len(counts.models)
    batch, _ = fit_half(counts.ia, counts.ib, score, total, m)
    for k in range(5):
        one, _ = fit_half(counts.ia, counts.ib, score[k], total[k], m)
        np.testing.assert_allclose(batch[k], one, atol=1e-10)


def test_model_covariance_equals_glm_covariance_without_ties():
    games, _ = simulate_arena(5, 2000, 40, rng=np.random.default_rng(11), tie_nu=0.0)
    counts = pair_counts(games)
    fit = fit_bradley_terry(counts)
    cov = model_covariance(fit, counts)
    a, b = _indices(games, counts.models)
    x = np.zeros((len(games), 5))
    x[np.arange(len(games)), a] = 1.0
    x[np.arange(len(games)), b] = -1.0
    ref = sm.GLM(games["outcome"].to_numpy(), x[:, 1:], family=sm.families.Binomial()).fit()
    # Reference-coded (model 0 fixed at 0): Var(β_j − β_0) from both parametrisations.
    for j in range(1, 5):
        var_lib = cov[j, j] + cov[0, 0] - 2 * cov[0, j]
        assert var_lib == pytest.approx(ref.cov_params()[j - 1, j - 1], rel=1e-6)
