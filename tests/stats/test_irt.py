"""1PL IRT: py-irt fit (recovery, published LSAT-6 fit, determinism) and the item bootstrap."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import minimize_scalar
from scipy.stats import spearmanr

from rederive.stats.irt import ability_given_difficulty, bootstrap_ability, fit_1pl

LR = 0.1  # py-irt's default learning rate


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
# py-irt fits (slow)
# --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small_matrix() -> pd.DataFrame:
    """10 models x 80 items with integer labels, a missing cell and two extreme items."""
    responses, *_ = simulate_rasch(10, 80, seed=2)
    responses.index = [100 + i for i in range(10)][::-1]  # non-string, non-sorted labels
    responses.iloc[3, 5] = np.nan
    responses.iloc[:, 0] = 1.0  # every model passes
    responses.iloc[:, 1] = 0.0  # every model fails
    return responses


@pytest.fixture(scope="module")
def small_fits(small_matrix):
    return [fit_1pl(small_matrix, epochs=250, lr=LR, seed=7) for _ in range(2)]


@pytest.mark.slow
def test_fit_is_bit_identical_for_same_seed(small_fits):
    one, two = small_fits
    assert one.ability.to_numpy().tobytes() == two.ability.to_numpy().tobytes()
    assert one.difficulty.to_numpy().tobytes() == two.difficulty.to_numpy().tobytes()


@pytest.mark.slow
def test_fit_keeps_labels_extremes_and_rng_state(small_matrix, small_fits):
    fit = small_fits[0]
    assert fit.ability.index.equals(small_matrix.index)
    assert fit.difficulty.index.equals(small_matrix.columns)
    seen = small_matrix.notna()
    all_correct = tuple(small_matrix.columns[(small_matrix == 1).sum() == seen.sum()])
    all_wrong = tuple(small_matrix.columns[(small_matrix == 0).sum() == seen.sum()])
    assert "item_0000" in all_correct and "item_0001" in all_wrong
    assert fit.items_all_correct == all_correct
    assert fit.items_all_wrong == all_wrong
    assert fit.n_items_all_correct == len(all_correct)
    # Extreme items are kept, beyond the informative items at either end of the scale.
    informative = fit.difficulty.drop(list(all_correct) + list(all_wrong))
    assert fit.difficulty[list(all_correct)].max() < informative.min()
    assert fit.difficulty[list(all_wrong)].min() > informative.max()
    assert fit.n_observed == 10 * 80 - 1
    # A model's rank by ability follows its raw score (Rasch: score is sufficient).
    score = small_matrix.mean(axis=1)
    assert spearmanr(score, fit.ability.loc[score.index])[0] > 0.95
    settings = fit.settings()
    assert settings["epochs"] == 250 and settings["seed"] == 7 and settings["torch_threads"] == 1
    assert fit.fit_seconds > 0

    # pyro.set_rng_seed reseeds the legacy global numpy RNG; fit_1pl must restore it.
    state = np.random.get_state()[1].copy()  # noqa: NPY002
    fit_1pl(small_matrix.iloc[:3, :10], epochs=5, lr=LR, seed=1)
    assert np.array_equal(np.random.get_state()[1], state)  # noqa: NPY002


@pytest.mark.slow
def test_parameter_recovery_on_simulated_rasch_data():
    """py-irt recovers a known Rasch model as well as the data allow.

    30 models x 400 items, abilities and difficulties ~ N(0, 1). The attainable
    correlation between an estimate and the truth is limited by the estimate's
    sampling error: with reliability var(true) / (var(true) + mean SE^2),
    E[r] ~ sqrt(reliability). The SEs are computed from the true parameters as
    1 / sqrt(Fisher information): SE(theta_i)^2 = 1 / sum_j p_ij (1 - p_ij) (~0.11
    with 400 items) and SE(b_j)^2 = 1 / sum_i p_ij (1 - p_ij) (~0.4 with 30
    models). For this draw that gives E[r] = 0.993 for abilities and 0.914 for
    difficulties. The thresholds sit 0.01 (abilities) and 0.04 (difficulties) below:
    about 4 sampling SDs of r (SD(r) ~ (1 - r^2) / sqrt(n), i.e. 0.0026 over 30
    models and 0.008 over 400 items), which also absorbs the SVI noise (~0.05
    logits) and the prior-driven placement of items no model (or every model)
    solves. Measured at 600 epochs, fit seed 0: r = 0.993 / 0.902 (Spearman 0.996 /
    0.919); over data seeds 100-102 the largest shortfall from E[r] was 0.002 / 0.022
    (Pearson) and 0.006 / 0.009 (Spearman).
    """
    responses, theta, b, p = simulate_rasch(30, 400, seed=100)
    info = p * (1 - p)
    expected_r_ability = np.sqrt(theta.var() / (theta.var() + np.mean(1 / info.sum(axis=1))))
    expected_r_difficulty = np.sqrt(b.var() / (b.var() + np.mean(1 / info.sum(axis=0))))
    assert expected_r_ability == pytest.approx(0.993, abs=0.002)
    assert expected_r_difficulty == pytest.approx(0.914, abs=0.005)

    fit = fit_1pl(responses, epochs=600, lr=LR, seed=0)
    r_ability = np.corrcoef(fit.ability.loc[theta.index], theta)[0, 1]
    r_difficulty = np.corrcoef(fit.difficulty.loc[b.index], b)[0, 1]
    assert r_ability > expected_r_ability - 0.01
    assert spearmanr(fit.ability.loc[theta.index], theta)[0] > expected_r_ability - 0.01
    assert r_difficulty > expected_r_difficulty - 0.04
    assert spearmanr(fit.difficulty.loc[b.index], b)[0] > expected_r_difficulty - 0.04


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

# Rizopoulos (2006), ltm, J. Stat. Softw. 17(5): summary(rasch(LSAT)) - marginal ML
# with a common discrimination estimated: difficulties (IRT parameterisation) and
# discrimination 0.7551, log-lik -2466.938. These are the values usually quoted as
# -3.615 ... -2.780. (The fit with the discrimination fixed at 1,
# rasch(LSAT, constraint = cbind(length(LSAT) + 1, 1)), gives -2.872, -1.063, -0.258,
# -1.388, -2.219 with the ability SD forced to 1; both were reproduced to 4 decimals
# with an independent Gauss-Hermite MML fit when this test was written.)
LSAT6_DIFFICULTY_MML = np.array([-3.6153, -1.3224, -0.3176, -1.7301, -2.7802])
LSAT6_DISCRIMINATION_MML = 0.7551


@pytest.mark.slow
def test_lsat6_against_published_rasch_fit():
    """py-irt's 1PL on LSAT-6 against ltm's marginal-ML Rasch fit.

    Which published fit to compare with: py-irt's 1PL is logit(p) = theta - b with
    the ability *spread free*, i.e. the unconstrained Rasch model. ltm reports it as
    logit(p) = a (z - b*) with z ~ N(0, 1), so on py-irt's scale the difficulties are
    a * b* (and the ability SD is a = 0.755). The location is arbitrary in both, so
    both sets are centred.

    What to expect: py-irt is a joint variational fit, not marginal ML. A joint fit
    of 5 items spreads the difficulties by about L / (L - 1) = 1.25 (Wright &
    Douglas 1977; a JML fit of these data, perfect scorers excluded, gives 1.27x),
    and py-irt keeps the 298 perfect scorers, whose abilities drift outward with
    more epochs and widen the scale further (measured slope 1.18-1.30 at 400
    epochs over 4 seeds, ~1.5 at 2,000). So the test checks the *shape*: identical
    order, Pearson r of the centred difficulties >= 0.998 (measured >= 0.9991), a
    spread ratio in [1.0, 1.6], and after dividing out that ratio every difficulty
    within 0.10 logit of the published one (measured at most 0.046 over 4 seeds,
    0.028 for seed 0). On this scale the published standard errors are 0.074 (item
    3) to 0.247 (item 1), so 0.10 is about 1.4 SE for the most precise item and
    under 1 SE for the others.
    """
    patterns = np.array(list(itertools.product([0, 1], repeat=5)))
    responses = pd.DataFrame(
        np.repeat(patterns, LSAT6_COUNTS, axis=0),
        columns=[f"Item {k}" for k in range(1, 6)],
    )
    assert len(responses) == 1000
    assert responses.sum().tolist() == [924, 709, 553, 763, 870]

    fit = fit_1pl(responses, epochs=400, lr=LR, seed=0)
    est = fit.difficulty.to_numpy()
    est = est - est.mean()
    pub = LSAT6_DIFFICULTY_MML * LSAT6_DISCRIMINATION_MML
    pub = pub - pub.mean()

    assert spearmanr(est, pub)[0] == pytest.approx(1.0)
    assert np.corrcoef(est, pub)[0, 1] >= 0.998
    spread = (est @ pub) / (pub @ pub)
    assert 1.0 <= spread <= 1.6
    np.testing.assert_allclose(est / spread, pub, rtol=0, atol=0.10)
    # 298 perfect scorers and 3 zero scores are legitimate and reported as such.
    assert fit.n_models == 1000 and fit.n_items_all_correct == 0
    assert len(fit.models_all_correct) == 298 and len(fit.models_all_wrong) == 3


def test_diverged_run_is_retried_with_a_derived_seed(monkeypatch):
    """A NaN divergence is retried deterministically; the seed used is recorded."""
    import rederive.stats.irt as irt

    calls = []

    def fake_run(dataset, config, epochs, seed):
        calls.append(seed)
        if len(calls) == 1:
            raise irt._Diverged("Expected parameter concentration ... nan")
        return {
            "ability": [0.0] * 3,
            "diff": [0.0] * 3,
            "subject_ids": {i: str(i) for i in range(3)},
            "item_ids": {j: str(j) for j in range(3)},
        }, 0.1

    monkeypatch.setattr(irt, "_run_trainer", fake_run)
    with pytest.warns(RuntimeWarning, match="diverged"):
        fit = fit_1pl(GOOD, epochs=10, lr=LR, seed=5)
    assert calls[0] == 5 and calls[1] != 5
    assert (fit.seed, fit.seed_used, fit.attempts) == (5, calls[1], 2)
    # Deterministic: the same derived seed every time.
    calls.clear()
    with pytest.warns(RuntimeWarning):
        again = fit_1pl(GOOD, epochs=10, lr=LR, seed=5)
    assert again.seed_used == fit.seed_used

    monkeypatch.setattr(
        irt, "_run_trainer", lambda *a, **k: (_ for _ in ()).throw(irt._Diverged("nan"))
    )
    with pytest.raises(RuntimeError, match="all 1 attempt"):
        fit_1pl(GOOD, epochs=10, lr=LR, seed=5, max_attempts=1)
