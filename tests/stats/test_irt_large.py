"""The large-matrix paths of the 1PL (issue 24) against the dense float64 ones.

Tolerances: the likelihood and gradient from sufficient statistics equal the
dense ones to 1e-10 relative at the same parameters (only the order of the sums
differs; measured <= 2e-15); the closed-form information equals central
differences of the analytic gradient to 1e-6 relative (the differences' own
error; measured 1.5e-10); fits run to the same optimiser tolerance agree to 1e-6
logit; bootstrap replicates with the same information matrix to 1e-10 (the
float32 products are exact integers).
"""

import numpy as np
import pandas as pd
import pytest

from rederive.stats import irt_large, irt_mml
from rederive.stats.items import epoch_flips, epoch_flips_from_codes, item_analysis
from rederive.studies.benchmark import irt as benchmark_irt


def rasch(n_models, n_items, *, missing=0.0, seed=0):
    rng = np.random.default_rng(seed)
    theta, b = rng.normal(0, 1, n_models), rng.normal(0, 1, n_items)
    y = (rng.random((n_models, n_items)) < 1 / (1 + np.exp(b[None] - theta[:, None]))).astype(float)
    y[rng.random(y.shape) < missing] = np.nan
    return pd.DataFrame(
        y,
        index=[f"m{i:03d}" for i in range(n_models)],
        columns=[f"i{j:04d}" for j in range(n_items)],
    )


@pytest.mark.parametrize("missing", [0.0, 0.1, 0.5])
@pytest.mark.parametrize("n_cols", [12, 80])
def test_sufficient_statistics_likelihood_equals_dense(missing, n_cols):
    rng = np.random.default_rng(1)
    y = rasch(n_cols, 300, missing=missing, seed=2).to_numpy().T  # rows = items
    obs = ~np.isnan(y)
    nodes, logw, _ = irt_mml._quadrature(None, n_cols)
    data = irt_large.MarginalData.from_matrix(y)
    assert data.complete == (missing == 0)
    for _ in range(3):
        x = np.append(rng.normal(0, 1, n_cols), rng.normal(0, 0.3))
        f0, g0, p0 = irt_mml._marginal(
            x, np.where(obs, y, 0.0), obs.astype(float), nodes, logw, None
        )
        f1, g1, p1 = irt_large.marginal(x, data, nodes, logw, None)
        assert abs(f1 - f0) <= 1e-10 * abs(f0)
        np.testing.assert_allclose(g1, g0, rtol=0, atol=1e-10 * np.abs(g0).max())
        np.testing.assert_allclose(irt_large.row_posterior(data, p1), p0, atol=1e-12)


def test_closed_form_information_equals_numerical_hessian():
    y = rasch(15, 400, seed=3).to_numpy().T
    nodes, logw, _ = irt_mml._quadrature(None, 15)
    data = irt_large.MarginalData.from_matrix(y)
    x = np.append(np.random.default_rng(4).normal(0, 1, 15), np.log(0.9))

    def fun(z):
        return irt_mml._marginal(z, y, np.ones_like(y), nodes, logw, None)[:2]

    numeric = irt_mml._hessian(x, fun)
    exact = irt_large.observed_information(x, data, nodes, logw)
    np.testing.assert_allclose(exact, numeric, rtol=0, atol=1e-6 * np.abs(numeric).max())


@pytest.mark.parametrize("missing", [0.0, 0.2])
def test_large_fit_equals_dense_fit_at_the_same_tolerance(missing):
    y = rasch(60, 500, missing=missing, seed=5).to_numpy().T
    nodes, logw, _ = irt_mml._quadrature(None, 60)
    dense = irt_mml._fit_rows_random(y, ~np.isnan(y), nodes, logw, None, 1e-8, ftol=0.0)
    large = irt_mml._fit_rows_random_large(y, nodes, logw, None, 1e-8)
    for a, b in zip(dense[:4], large[:4], strict=True):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-6)


def test_grid_quadrature_beyond_fifty_models():
    fit = irt_mml.rasch_mml(rasch(51, 200, seed=6))
    assert fit.quadrature.startswith("equally spaced grid")
    assert irt_mml.rasch_mml(rasch(50, 200, seed=6)).quadrature == "Gauss-Hermite, 41 nodes"
    nodes, logw = irt_large.grid_quadrature(5000)
    assert nodes[1] - nodes[0] <= 2 / np.sqrt(5000) and abs(np.exp(logw).sum() - 1) < 1e-12


def test_large_rasch_mml_is_the_same_fit():
    responses = rasch(30, 600, seed=7)
    dense, large = irt_mml.rasch_mml(responses), irt_mml.rasch_mml(responses, large=True)
    # The dense path stops on L-BFGS-B's relative f-reduction (its default);
    # the large one runs to the gradient tolerance: same optimum within 1e-3.
    np.testing.assert_allclose(large.ability, dense.ability, atol=1e-3)
    assert large.log_lik >= dense.log_lik - 1e-9


@pytest.mark.parametrize("missing", [0.0, 0.1, 0.5])
def test_bootstrap_sums_equal_the_dense_replicates(missing):
    # 12 x 300 is within the dense path's budget for the numerical observed
    # information, the large path's closed form is the same matrix.
    responses = rasch(12, 300, missing=missing, seed=8)
    fit = irt_mml.rasch_mml(responses)
    clusters = np.random.default_rng(9).integers(0, 120, 300)
    args = dict(n_boot=300, seed=10, clusters=clusters)
    dense = irt_mml.bootstrap_mml_ability(responses, fit, large=False, **args)
    large = irt_mml.bootstrap_mml_ability(responses, fit, large=True, **args)
    if missing == 0:
        assert dense.hessian == large.hessian == "observed"
        tol = 1e-6  # central differences against the closed form
    else:
        tol = 1e-10
        # Both use the outer product here: force the dense one to it as well.
        dense_outer = _dense_outer_product(responses, fit, **args)
        np.testing.assert_allclose(large.replicates, dense_outer, rtol=0, atol=tol)
        return
    np.testing.assert_allclose(large.replicates, dense.replicates, rtol=0, atol=tol)
    np.testing.assert_allclose(large.table["se_boot"], dense.table["se_boot"], rtol=1e-4)


def _dense_outer_product(responses, fit, *, n_boot, seed, clusters):
    from rederive.stats.bootstrap import resample_weights, rng_for

    y = responses.to_numpy().T
    obs = ~np.isnan(y)
    x = np.append(-(fit.ability.to_numpy() + fit.shift), np.log(fit.sigma))
    scores = irt_mml._row_scores(
        x, np.where(obs, y, 0.0), obs.astype(float), fit.nodes, fit.log_weights
    )
    _, unit = np.unique(clusters, return_inverse=True)
    unit_scores = np.zeros((unit.max() + 1, x.size))
    np.add.at(unit_scores, unit, scores)
    w = resample_weights(unit.max() + 1, n_boot, rng_for(seed, "bootstrap_ability"))
    step = np.linalg.solve(scores.T @ scores, ((w - 1.0) @ unit_scores).T).T
    return -(x[None, :-1] - step[:, :-1]) - fit.shift


def test_pyirt_skipped_above_the_configured_size():
    matrix = rasch(8, 150, seed=11).T  # items x models, as load_scores gives
    items = pd.DataFrame({"item_key": matrix.index})
    settings = dict(
        epochs=50, lr=0.02, priors="hierarchical", seed=1, n_boot=50, level=0.95, cluster_by="none"
    )
    ability, difficulty, summary = benchmark_irt.fit(
        matrix, items, pyirt_max_cells=1000, **settings
    )
    assert summary["note"].iloc[0] == (
        "py-irt refinement skipped: 1,200 cells > irt.pyirt_max_cells = 1,000; abilities are "
        "the marginal-ML estimates, difficulties the marginal-ML posterior means and SDs"
    )
    assert summary["epochs_used"].iloc[0] == 0
    assert ability["ability_pyirt"].isna().all() and ability["rank"].notna().all()
    np.testing.assert_array_equal(difficulty["difficulty"], difficulty["difficulty_mml"])
    assert np.isfinite(ability["ci_low"]).all()
    _, _, ran = benchmark_irt.fit(matrix, items, pyirt_max_cells=1200, **settings)
    assert "note" not in ran.columns and ran["epochs_used"].iloc[0] > 0


def test_item_analysis_in_blocks_equals_one_block(monkeypatch):
    from rederive.stats import items as items_module

    responses = rasch(40, 500, missing=0.05, seed=12)
    responses.iloc[:, 3] = 1.0  # solved by all
    responses.iloc[:, 4] = 1.0 - responses.iloc[:, 4]  # mis-keyed
    whole = item_analysis(responses)
    monkeypatch.setattr(items_module, "_ITEM_BLOCK_CELLS", 40 * 37)
    blocks = item_analysis(responses)
    pd.testing.assert_frame_equal(blocks, whole, check_exact=False, rtol=0, atol=1e-9)


def test_epoch_flips_from_codes_equal_the_long_frame():
    rng = np.random.default_rng(13)
    n = 4000
    long = pd.DataFrame(
        {
            "model": rng.integers(0, 7, n),
            "item": rng.integers(0, 90, n),
            "epoch": rng.integers(0, 3, n),
            "correct": rng.random(n),
        }
    )
    items = pd.Index(range(95))
    expected = epoch_flips(long).reindex(items, fill_value=0)
    got = epoch_flips_from_codes(
        long["item"].to_numpy(), long["model"].to_numpy(), long["correct"] >= 0.5, items, 7
    )
    pd.testing.assert_frame_equal(got, expected, check_names=False)
