"""1PL IRT: py-irt fit (recovery, published LSAT-6 fit, determinism) and the item bootstrap."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import minimize_scalar

from rederive.stats import irt
from rederive.stats.irt import ability_given_difficulty, bootstrap_ability, fit_1pl
from rederive.stats.irt_mml import constrained_bayes, rasch_mml

LR = 0.02  # the configured initial learning rate (decays by 0.99 per step)


def simulate_rasch(n_models: int, n_items: int, seed: int):
    """Responses drawn from a Rasch model with N(0, 1) abilities and difficulties."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(0.0, 1.0, n_models)
    b = rng.normal(0.0, 1.0, n_items)
    p = 1.0 / (1.0 + np.exp(-(theta[:, None] - b[None, :])))
    y = (rng.random(p.shape) < p).astype(float)
    models = [f"model_{i:02d}" for i in range(n_models)]
    items = [f"item_{j:04d}" for j in range(n_items)]
    return (
        pd.DataFrame(y, index=models, columns=items),
        pd.Series(theta, index=models),
        pd.Series(b, index=items),
        p,
    )


# --------------------------------------------------------------------------------------
# Input validation (fails before py-irt is imported, so these are fast)
# --------------------------------------------------------------------------------------

GOOD = pd.DataFrame([[1, 0, 1], [0, 0, 1], [1, 1, 0]], index=["a", "b", "c"], columns=list("xyz"))


@pytest.mark.parametrize(
    ("responses", "match"),
    [
        (GOOD.iloc[:1], "at least 2 models and 2 items"),
        (GOOD.iloc[:, :1], "at least 2 models and 2 items"),
        (GOOD.replace({1: 2}), "0/1"),
        (GOOD.astype(float).where(GOOD.index.to_series().ne("a"), axis=0).fillna(0.5), "0/1"),
        (GOOD.astype(str).replace({"1": "yes"}), "0/1"),
        (GOOD.set_axis(["a", "a", "c"], axis=0), "unique"),
        (GOOD.astype(float).where(GOOD.index.to_series().ne("b"), axis=0), "no observed"),
        (GOOD.astype(float).assign(z=np.nan), "no observed"),
        (GOOD.to_numpy(), "DataFrame"),
    ],
)
def test_fit_rejects_bad_input(responses, match):
    with pytest.raises(ValueError, match=match):
        fit_1pl(responses, epochs=10, lr=LR, seed=0)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"epochs": 0, "lr": LR, "seed": 0},
        {"epochs": 10, "lr": 0.0, "seed": 0},
        {"epochs": 10, "lr": LR, "seed": 0, "priors": "flat"},
        {"epochs": 10, "lr": LR, "seed": 0, "tol": 0.0},
        {"epochs": 10, "lr": LR, "seed": 0, "lr_decay": 1.5},
        {"epochs": 10, "lr": LR, "seed": 0, "warm_start": pd.DataFrame({"label": ["a"]})},
    ],
)
def test_fit_rejects_bad_settings(kwargs):
    with pytest.raises(ValueError):
        fit_1pl(GOOD, **kwargs)


# --------------------------------------------------------------------------------------
# Abilities with fixed difficulties and the item bootstrap (pure numpy: fast)
# --------------------------------------------------------------------------------------


def test_ability_given_difficulty_matches_scalar_optimiser():
    responses, _, b, _ = simulate_rasch(4, 150, seed=11)
    responses.iloc[1, :40] = np.nan  # missing cells drop out of that model's likelihood
    est = ability_given_difficulty(responses, b)
    for model in responses.index:
        row = responses.loc[model].to_numpy()
        seen = ~np.isnan(row)
        y, bj = row[seen], b.to_numpy()[seen]

        def nll(t, y=y, bj=bj):
            eta = t - bj
            return -(y * eta - np.logaddexp(0.0, eta)).sum()

        ref = minimize_scalar(nll, bounds=(-10, 10), method="bounded", options={"xatol": 1e-10})
        assert est[model] == pytest.approx(ref.x, abs=1e-6)


def test_perfect_score_is_infinite_without_prior_and_finite_with():
    responses, _, b, _ = simulate_rasch(3, 40, seed=3)
    responses.iloc[0] = 1.0
    responses.iloc[1] = 0.0
    ml = ability_given_difficulty(responses, b)
    assert ml.iloc[0] == np.inf and ml.iloc[1] == -np.inf and np.isfinite(ml.iloc[2])
    mapped = ability_given_difficulty(responses, b, prior=(0.0, 1.0))
    assert np.isfinite(mapped).all()
    assert mapped.iloc[0] > mapped.iloc[2] > mapped.iloc[1]
    # The prior pulls towards its mean: |MAP| < |ML| for the ordinary model.
    assert abs(mapped.iloc[2]) < abs(ml.iloc[2])

    boot = bootstrap_ability(responses, b, n_boot=50, seed=0)
    assert boot.table.loc[responses.index[0], "ci_high"] == np.inf
    assert boot.table.loc[responses.index[0], "n_nonfinite"] == 50
    assert boot.table.loc[responses.index[2], "n_nonfinite"] == 0


def test_bootstrap_covers_estimate_and_is_reproducible():
    responses, _, b, _ = simulate_rasch(8, 300, seed=5)
    responses.iloc[2, ::7] = np.nan
    one = bootstrap_ability(responses, b, n_boot=400, seed=42)
    two = bootstrap_ability(responses, b, n_boot=400, seed=42)
    other = bootstrap_ability(responses, b, n_boot=400, seed=43)
    t = one.table
    assert list(t.columns) == ["ability", "se_boot", "ci_low", "ci_high", "n_items", "n_nonfinite"]
    assert (t["ci_low"] < t["ability"]).all() and (t["ability"] < t["ci_high"]).all()
    assert t.loc[responses.index[2], "n_items"] == 300 - len(range(0, 300, 7))
    assert one.replicates.shape == (400, 8)
    assert one.replicates.tobytes() == two.replicates.tobytes()
    assert not np.array_equal(one.replicates, other.replicates)
    pd.testing.assert_series_equal(
        t["ability"], ability_given_difficulty(responses, b), check_names=False
    )


@pytest.mark.parametrize("prior", [None, (0.0, 1.5)])
def test_large_matrix_path_equals_block_path(monkeypatch, prior):
    """Large matrices are bootstrapped one replicate at a time over the drawn items in
    cache-sized chunks; the answers must equal the all-at-once path to rounding."""
    responses, _, b, _ = simulate_rasch(7, 260, seed=21)
    responses.iloc[3, ::5] = np.nan  # missing cells
    responses.iloc[0] = 1.0  # a perfect score: +inf without prior
    block = bootstrap_ability(responses, b, n_boot=60, seed=4, prior=prior)
    monkeypatch.setattr(irt, "_CHUNKED_FROM_CELLS", 1)
    monkeypatch.setattr(irt, "_CHUNK_CELLS", 7 * 33)  # several chunks, the last one short
    chunked = bootstrap_ability(responses, b, n_boot=60, seed=4, prior=prior)
    finite = np.isfinite(block.replicates)
    assert np.array_equal(finite, np.isfinite(chunked.replicates))
    assert (np.isfinite(block.replicates).all()) == (prior is not None)
    np.testing.assert_allclose(
        chunked.replicates[finite], block.replicates[finite], rtol=0, atol=1e-12
    )
    np.testing.assert_array_equal(chunked.replicates[~finite], block.replicates[~finite])
    pd.testing.assert_frame_equal(chunked.table, block.table, rtol=0, atol=1e-12)


def test_bootstrap_width_shrinks_like_one_over_root_items():
    """Quadrupling the items should halve the interval (SE ∝ 1/sqrt(information))."""
    rng = np.random.default_rng(8)
    theta = rng.normal(0, 1, 10)
    widths = []
    for n_items in (200, 800):
        b = rng.normal(0, 1, n_items)
        p = 1 / (1 + np.exp(-(theta[:, None] - b[None, :])))
        y = pd.DataFrame((rng.random(p.shape) < p).astype(float))
        t = bootstrap_ability(y, pd.Series(b), n_boot=500, seed=1).table
        widths.append((t["ci_high"] - t["ci_low"]).to_numpy())
    ratio = widths[0] / widths[1]
    # Expected ratio 2; with 500 replicates a percentile width carries ~5-10 % noise.
    assert 1.6 < np.median(ratio) < 2.4
    assert (ratio > 1.3).all()


def test_bootstrap_interval_coverage_with_true_difficulties():
    """With the true difficulties the conditional interval should cover true abilities.

    200 models x 300 items, 95 % intervals: coverage has a binomial SD of
    sqrt(.95 * .05 / 200) = 1.5 points, so [0.90, 0.99] is a >3-SD band (the
    percentile interval of an ML estimate on 300 items is close to nominal).
    """
    responses, theta, b, _ = simulate_rasch(200, 300, seed=21)
    t = bootstrap_ability(responses, b, n_boot=400, seed=3).table
    covered = ((t["ci_low"] <= theta) & (theta <= t["ci_high"])).mean()
    assert 0.90 <= covered <= 0.99


def test_cluster_bootstrap_treats_duplicated_items_as_one_unit():
    """Each item duplicated: unclustered SE shrinks by ~sqrt(2), clustered SE does not."""
    responses, _, b, _ = simulate_rasch(6, 300, seed=4)
    doubled = pd.concat([responses, responses.add_suffix("_copy")], axis=1)
    b2 = pd.concat([b, b.add_suffix("_copy")])
    clusters = list(range(300)) * 2
    se_single = bootstrap_ability(responses, b, n_boot=800, seed=1).table["se_boot"]
    se_naive = bootstrap_ability(doubled, b2, n_boot=800, seed=1).table["se_boot"]
    se_cluster = bootstrap_ability(doubled, b2, n_boot=800, seed=1, clusters=clusters)
    assert se_cluster.n_units == 300
    ratio_naive = (se_single / se_naive).median()
    ratio_cluster = (se_single / se_cluster.table["se_boot"]).median()
    assert ratio_naive == pytest.approx(np.sqrt(2), rel=0.12)
    assert ratio_cluster == pytest.approx(1.0, rel=0.12)


def test_bootstrap_validation():
    responses, _, b, _ = simulate_rasch(3, 20, seed=0)
    with pytest.raises(ValueError, match="lacks"):
        bootstrap_ability(responses, b.iloc[1:], n_boot=10, seed=0)
    with pytest.raises(ValueError, match="n_boot"):
        bootstrap_ability(responses, b, n_boot=0, seed=0)
    with pytest.raises(ValueError, match="level"):
        bootstrap_ability(responses, b, n_boot=10, seed=0, level=1.5)
    with pytest.raises(ValueError, match="clusters"):
        bootstrap_ability(responses, b, n_boot=10, seed=0, clusters=[0, 1])
    with pytest.raises(ValueError, match="prior"):
        bootstrap_ability(responses, b, n_boot=10, seed=0, prior=(0.0, 0.0))


# --------------------------------------------------------------------------------------
# LSAT-6: the classical marginal-ML fit against ltm, and the py-irt path
# --------------------------------------------------------------------------------------

# LSAT section 6 (Bock & Lieberman 1970): 1,000 examinees x 5 items as 32 response
# patterns, in lexicographic order 00000, 00001, ..., 11111 (item 1 is the leftmost
# digit), as shipped in R's ltm::LSAT / mirt::LSAT6. Counts checked against the
# cumulative-frequency vector of the OpenBUGS "LSAT" example (culm = 3, 9, 11, 22,
# ..., 702, 1000) and the observed-pattern counts printed by ltm::factor.scores
# (patterns 01010 and 01100 never occur); item marginals 924, 709, 553, 763, 870.
LSAT6_COUNTS = [
    3, 6, 2, 11, 1, 1, 3, 4, 1, 8, 0, 16, 0, 3, 2, 15,
    10, 29, 14, 81, 3, 28, 15, 80, 16, 56, 21, 173, 11, 61, 28, 298,
]  # fmt: skip

# Rizopoulos (2006), ltm, J. Stat. Softw. 17(5), section 4.1 on LSAT:
# rasch(LSAT) - common discrimination estimated - gives difficulties (IRT
# parameterisation) -3.6153, -1.3224, -0.3176, -1.7301, -2.7802, discrimination
# 0.7551 and log-likelihood -2466.938; the fit with the discrimination fixed at 1,
# rasch(LSAT, constraint = cbind(length(LSAT) + 1, 1)), gives -2.8720, -1.0630,
# -0.2576, -1.3881, -2.2188 and log-likelihood -2473.054. (The -3.615 ... -2.780
# set belongs to the free discrimination, not to a = 1.)
LTM_FREE = np.array([-3.6153, -1.3224, -0.3176, -1.7301, -2.7802])
LTM_FREE_A = 0.7551
LTM_FREE_LOGLIK = -2466.938
LTM_A1 = np.array([-2.8720, -1.0630, -0.2576, -1.3881, -2.2188])
LTM_A1_LOGLIK = -2473.054


def lsat6() -> pd.DataFrame:
    patterns = np.array(list(itertools.product([0, 1], repeat=5)))
    responses = pd.DataFrame(
        np.repeat(patterns, LSAT6_COUNTS, axis=0), columns=[f"Item {k}" for k in range(1, 6)]
    )
    assert len(responses) == 1000
    assert responses.sum().tolist() == [924, 709, 553, 763, 870]
    return responses


def centred(x) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    return x - x.mean()


def test_mml_reproduces_ltm_on_lsat6():
    """Marginal ML with 41 Gauss-Hermite nodes against ltm's printed 4-decimal fits.

    Tolerances: 2e-3 logit on the centred difficulties (ltm prints 4 decimals and
    uses 21 nodes; measured gap <= 2e-4) and 0.01 on the log-likelihood (printed to
    3 decimals; measured gap < 1e-3).
    """
    responses = lsat6()
    fixed = rasch_mml(responses, random="models", sigma=1.0)
    assert fixed.random == "models" and fixed.sigma == 1.0
    np.testing.assert_allclose(fixed.difficulty, centred(LTM_A1), atol=2e-3)
    assert fixed.log_lik == pytest.approx(LTM_A1_LOGLIK, abs=0.01)
    # Free ability SD (= ltm's common discrimination): the scale py-irt's 1PL has.
    free = rasch_mml(responses)  # "auto" integrates the 1,000 examinees
    assert free.random == "models"
    assert free.sigma == pytest.approx(LTM_FREE_A, abs=1e-3)
    np.testing.assert_allclose(free.difficulty, centred(LTM_FREE * LTM_FREE_A), atol=2e-3)
    assert free.log_lik == pytest.approx(LTM_FREE_LOGLIK, abs=0.01)
    # Every examinee gets a finite EAP, perfect scores included.
    assert np.isfinite(free.ability).all() and (free.ability_sd > 0).all()


def test_mml_standard_errors_only_within_their_cost_budget(monkeypatch):
    """The fixed axis's SEs (a numerical Hessian) are skipped past the budget;
    the estimates themselves do not depend on it."""
    from rederive.stats import irt_mml

    responses = lsat6()
    with_se = rasch_mml(responses, random="models", sigma=1.0)
    assert np.isfinite(with_se.difficulty_sd).all() and (with_se.difficulty_sd > 0).all()
    # Five difficulties from 1,000 examinees: SEs of the order of 0.1 logit.
    assert with_se.difficulty_sd.between(0.05, 0.3).all()
    monkeypatch.setattr(irt_mml, "_SE_BUDGET_CELLS", 0)
    without = rasch_mml(responses, random="models", sigma=1.0)
    assert without.difficulty_sd.isna().all()
    np.testing.assert_array_equal(without.difficulty, with_se.difficulty)


@pytest.mark.slow
def test_pyirt_path_on_lsat6_matches_ltm():
    """py-irt's 1PL (free ability spread) started at the MML fit, against ltm.

    Target of issue 12: centred difficulties within 0.15 logit of ltm's marginal-ML
    fit with the discrimination free (py-irt's scale). Measured gap 0.027, stopping
    after 350 steps. The old fit (zero start, 400 epochs at lr 0.1) was 1.2-1.5x too
    wide, a gap of up to 0.59.
    """
    fit = fit_1pl(lsat6(), epochs=1000, lr=LR, seed=0)
    np.testing.assert_allclose(fit.difficulty, centred(LTM_FREE * LTM_FREE_A), atol=0.15)
    assert fit.converged and fit.epochs_used < 1000
    assert fit.difficulty.mean() == pytest.approx(0.0, abs=1e-9)
    assert len(fit.models_all_correct) == 298 and len(fit.models_all_wrong) == 3
    assert np.isfinite(fit.ability).all()


# --------------------------------------------------------------------------------------
# py-irt fits on the LLM shape (slow): recovery, seeds, extremes, warm start
# --------------------------------------------------------------------------------------

RECOVERY_SEEDS = [0, 1, 2, 3, 4]


def attainable_r(b: pd.Series, p: np.ndarray) -> float:
    """sqrt(reliability) of the difficulties: var(b) / (var(b) + mean SE^2)."""
    info = (p * (1 - p)).sum(axis=0)
    return float(np.sqrt(b.var() / (b.var() + np.mean(1 / info))))


@pytest.fixture(scope="module")
def recovery_fits():
    out = {}
    for seed in RECOVERY_SEEDS:
        responses, theta, b, p = simulate_rasch(12, 1145, seed=seed)
        out[seed] = (responses, theta, b, p, fit_1pl(responses, epochs=1000, lr=LR, seed=1))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("seed", RECOVERY_SEEDS)
def test_recovery_on_salitrap_shape(recovery_fits, seed):
    """12 models x 1,145 items, abilities and difficulties ~ N(0, 1) (SaliTrap shape).

    With 12 responses per item no estimate can correlate with the true difficulty
    beyond sqrt(reliability) (0.806-0.828 on these five draws; the issue's 0.82 is
    above that ceiling for draws 2 and 3). The test asks for the ceiling minus
    0.02 (about 2 sampling SDs of r over 1,145 items); measured shortfall <= 0.003.
    Posterior means are shrunk (SD ratio 0.78-0.86, as a posterior mean must be:
    its variance is var(b) minus the mean posterior variance), so the spread is
    checked on the constrained-Bayes estimate that the figures use (Ghosh 1992):
    0.85-1.15 x the true SD (measured 0.97-1.03). Abilities: r >= 0.99.
    """
    responses, theta, b, p, fit = recovery_fits[seed]
    r = np.corrcoef(fit.difficulty.loc[b.index], b)[0, 1]
    assert r >= attainable_r(b, p) - 0.02
    spread = constrained_bayes(fit.difficulty, fit.difficulty_sd)
    assert 0.85 <= spread.std() / b.std() <= 1.15
    assert np.corrcoef(fit.ability.loc[theta.index], theta)[0, 1] >= 0.99
    assert fit.converged and fit.attempts == 1 and fit.seed_used == 1
    # Items every model passes or fails: finite, inside the informative range's
    # neighbourhood (no mode at +/-6), with a wider posterior SD than the others.
    extreme = list(fit.items_all_correct) + list(fit.items_all_wrong)
    assert extreme and np.abs(fit.difficulty).max() < 3.5
    others = fit.difficulty_sd.drop(extreme)
    assert fit.difficulty_sd[extreme].min() > others.median()
    assert fit.difficulty[list(fit.items_all_correct)].max() < fit.difficulty.median()
    assert fit.difficulty[list(fit.items_all_wrong)].min() > fit.difficulty.median()


@pytest.mark.slow
def test_two_seeds_agree(recovery_fits):
    """Difficulties of two SVI seeds correlate at r >= 0.995 (measured 0.998)."""
    responses, *_, fit = recovery_fits[0]
    other = fit_1pl(responses, epochs=1000, lr=LR, seed=2)
    assert np.corrcoef(fit.difficulty, other.difficulty)[0, 1] >= 0.995
    assert np.abs(fit.ability - other.ability).max() < 0.1


@pytest.mark.slow
def test_warm_start_equals_cold_fit_within_seed_noise(recovery_fits):
    """Adding a twelfth model: a fit warm-started from the 11-model fit equals the
    cold 12-model fit as closely as two cold seeds equal each other.

    Measured: RMS difficulty gap 0.034 warm vs cold against 0.05 between cold
    seeds; warm stops after 150 steps instead of 275.
    """
    responses, *_, cold = recovery_fits[0]
    previous = fit_1pl(responses.iloc[:11], epochs=1000, lr=LR, seed=1)
    # Identified by centring on the items: the eleven shared models keep their
    # abilities when a twelfth is added (measured gap 0.02; the old uncentred fit
    # moved them by ~0.9 logit between such fits).
    shared = previous.ability.index
    assert np.abs(previous.ability - cold.ability.loc[shared]).max() < 0.1
    warm = fit_1pl(responses, epochs=1000, lr=LR, seed=1, warm_start=previous.to_frame())
    assert warm.warm_started == 11 + 1145 and warm.converged
    assert warm.epochs_used < cold.epochs_used
    rms = np.sqrt(np.mean((warm.difficulty - cold.difficulty) ** 2))
    assert rms < 0.06
    assert np.abs(warm.ability - cold.ability).max() < 0.06


@pytest.fixture(scope="module")
def small_matrix() -> pd.DataFrame:
    """10 models x 80 items with integer labels, a missing cell and two extreme items."""
    responses, *_ = simulate_rasch(10, 80, seed=2)
    responses.index = [100 + i for i in range(10)][::-1]  # non-string, non-sorted labels
    responses.iloc[3, 5] = np.nan
    responses.iloc[:, 0] = 1.0  # every model passes
    responses.iloc[:, 1] = 0.0  # every model fails
    return responses


@pytest.mark.slow
def test_fit_is_bit_identical_keeps_labels_and_rng_state(small_matrix):
    one, two = (fit_1pl(small_matrix, epochs=300, lr=LR, seed=7) for _ in range(2))
    assert one.ability.to_numpy().tobytes() == two.ability.to_numpy().tobytes()
    assert one.difficulty.to_numpy().tobytes() == two.difficulty.to_numpy().tobytes()
    assert one.ability.index.equals(small_matrix.index)
    assert one.difficulty.index.equals(small_matrix.columns)
    seen = small_matrix.notna().sum()
    assert one.items_all_correct == tuple(small_matrix.columns[small_matrix.sum() == seen])
    assert one.items_all_wrong == tuple(small_matrix.columns[small_matrix.sum() == 0])
    assert "item_0000" in one.items_all_correct and "item_0001" in one.items_all_wrong
    assert one.n_observed == 10 * 80 - 1
    assert np.isfinite(one.difficulty).all() and (one.difficulty_sd > 0).all()
    settings = one.settings()
    assert settings["seed"] == 7 and settings["torch_threads"] == 1
    assert settings["epochs_used"] == one.epochs_used <= 300
    # pyro.set_rng_seed reseeds the legacy global numpy RNG; fit_1pl must restore it.
    state = np.random.get_state()[1].copy()  # noqa: NPY002
    fit_1pl(small_matrix.iloc[:3, :10], epochs=5, lr=LR, seed=1)
    assert np.array_equal(np.random.get_state()[1], state)  # noqa: NPY002


def test_diverged_run_is_retried_with_a_derived_seed(monkeypatch):
    """A NaN divergence is retried deterministically; the seed used is recorded."""
    import rederive.stats.irt as irt

    calls = []

    def fake_run(data, shape, priors, start, lr, lr_decay, rule, seed, fractional=False):
        calls.append(seed)
        if len(calls) == 1:
            raise irt._Diverged("Expected parameter concentration ... nan")
        n_models, n_items = shape
        return {
            "loc_ability": np.zeros(n_models),
            "scale_ability": np.ones(n_models),
            "loc_diff": np.zeros(n_items),
            "scale_diff": np.ones(n_items),
            "epochs_used": 100,
            "final_change": 0.001,
            "converged": True,
            "seconds": 0.1,
        }

    monkeypatch.setattr(irt, "_run_svi", fake_run)
    with pytest.warns(RuntimeWarning, match="diverged"):
        fit = fit_1pl(GOOD, epochs=10, lr=LR, seed=5)
    assert calls[0] == 5 and calls[1] != 5
    assert (fit.seed, fit.seed_used, fit.attempts) == (5, calls[1], 2)
    assert fit.settings()["attempts"] == 2
    calls.clear()
    with pytest.warns(RuntimeWarning):
        again = fit_1pl(GOOD, epochs=10, lr=LR, seed=5)
    assert again.seed_used == fit.seed_used

    monkeypatch.setattr(
        irt, "_run_svi", lambda *a, **k: (_ for _ in ()).throw(irt._Diverged("nan"))
    )
    with pytest.raises(RuntimeError, match="all 1 attempt"):
        fit_1pl(GOOD, epochs=10, lr=LR, seed=5, max_attempts=1)


def test_fit_does_not_import_torch_dynamo():
    """The Optimizer guard's lazy ``torch._dynamo`` import (2.5 s a job) stays skipped.

    In a fresh interpreter, because this session may already have imported it.
    """
    import subprocess
    import sys
    from pathlib import Path

    code = (
        "import sys, numpy as np, pandas as pd\n"
        "from rederive.stats.irt import fit_1pl\n"
        "rng = np.random.default_rng(0)\n"
        "y = (rng.random((6, 40)) < 0.5).astype(float)\n"
        "fit_1pl(pd.DataFrame(y), epochs=200, lr=0.1, seed=1)\n"
        "print('torch._dynamo' in sys.modules)\n"
    )
    scripts = Path(__file__).resolve().parents[2] / "scripts"
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(scripts), "PATH": "/usr/bin:/bin"},
        check=True,
    )
    assert done.stdout.strip().splitlines()[-1] == "False"
