"""Prediction noise vs data noise (rederive.stats.noise) and the epochs-or-items planner.

Truth is known in the simulations: items with latent p_i ~ Beta(2, 3), K Bernoulli
epochs each, so σ²_between = Var(p) = ab / ((a+b)²(a+b+1)) = 0.04 and
σ²_within = E[p(1 − p)] = ab / ((a+b)(a+b+1)) = 0.2.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from rederive.stats.noise import (
    COLUMNS,
    ESTIMATOR_TEXT,
    ONE_EPOCH,
    ONE_EPOCH_PAIR,
    TOO_FEW_ITEMS,
    decompose,
    item_summary,
    model_components,
    noise_table,
    pair_components,
)
from rederive.stats.power import (
    cheapest_design,
    design_cost,
    design_mde,
    detectable_effect,
    epochs_needed,
    items_needed,
    mde,
)

A, B = 2.0, 3.0
TRUE_BETWEEN = A * B / ((A + B) ** 2 * (A + B + 1))
TRUE_WITHIN = A * B / ((A + B) * (A + B + 1))
Z95 = norm.isf(0.025)


def _long(scores: dict[str, dict[str, list[float]]]) -> pd.DataFrame:
    rows = [
        (model, item, k, y)
        for model, items in scores.items()
        for item, ys in items.items()
        for k, y in enumerate(ys)
    ]
    return pd.DataFrame(rows, columns=["model", "item", "epoch", "correct"])


def _simulate(rng, n_items: int, epochs: int, p=None):
    p = rng.beta(A, B, n_items) if p is None else p
    y = (rng.random((n_items, epochs)) < p[:, None]).astype(float)
    return p, y


def _components(y: np.ndarray):
    k = y.shape[1]
    var = y.var(axis=1, ddof=1)
    return decompose(y.mean(axis=1), var, var / k, np.full(y.shape[0], float(k)), n_repeated=len(y))


# --- the estimators, by hand -------------------------------------------------------


def test_unequal_epochs_and_a_single_epoch_item_by_hand():
    # The moments by hand (with unequal epochs the default is REML: test_noise_reml.py).
    long = _long({"m": {"i1": [1, 0, 1], "i2": [1, 1], "i3": [0, 1, 0, 0], "i4": [1]}})
    c = model_components(item_summary(long), "m", estimator="moments")
    means = np.array([2 / 3, 1.0, 1 / 4, 1.0])
    s2 = np.array([1 / 3, 0.0, 1 / 4])  # ddof = 1: K/(K-1) * ybar (1 - ybar)
    pooled = s2.mean()
    within_mean = np.array([s2[0] / 3, s2[1] / 2, s2[2] / 4, pooled / 1]).mean()
    assert c.n_items == 4 and c.n_items_repeated == 3
    assert c.mean_epochs == pytest.approx(2.5)
    assert c.estimate == pytest.approx(means.mean())
    assert c.var_total == pytest.approx(np.var(means, ddof=1) / 4)
    assert c.var_within == pytest.approx(pooled)
    assert c.var_mean_within == pytest.approx(within_mean / 4)
    assert c.var_between == pytest.approx(np.var(means, ddof=1) - within_mean)
    assert c.var_mean_between + c.var_mean_within == pytest.approx(c.var_total)
    assert c.share_within == pytest.approx(within_mean / np.var(means, ddof=1))
    assert c.effective_epochs == pytest.approx(pooled / within_mean)
    assert c.note == ""


def test_equal_epochs_effective_is_k():
    rng = np.random.default_rng(3)
    _, y = _simulate(rng, 50, 4)
    assert _components(y).effective_epochs == pytest.approx(4.0)


def test_pair_over_shared_items_sums_the_two_within_parts():
    long = _long(
        {
            "a": {"i1": [1, 0], "i2": [1, 1], "i3": [0, 0, 1], "i9": [1, 0]},
            "b": {"i1": [0, 0, 1], "i2": [1, 0], "i3": [0, 1]},
        }
    )
    summary = item_summary(long)
    c = pair_components(summary, "a", "b", estimator="moments")
    a_s2 = np.array([0.5, 0.0, 1 / 3])  # i9 is not shared but pools into a's mean
    b_s2 = np.array([1 / 3, 0.5, 0.5])
    d = np.array([0.5 - 1 / 3, 1 - 0.5, 1 / 3 - 0.5])
    w = (a_s2 / [2, 2, 3] + b_s2 / [3, 2, 2]).mean()
    assert c.n_items == 3
    assert c.estimate == pytest.approx(d.mean())
    assert c.var_within == pytest.approx((a_s2 + b_s2).mean())
    assert c.var_mean_within == pytest.approx(w / 3)
    assert c.var_between == pytest.approx(np.var(d, ddof=1) - w)
    assert c.mean_epochs == pytest.approx(np.mean([2.5, 2, 2.5]))


def test_one_epoch_model_has_no_within_part_and_says_why():
    long = _long(
        {
            "one": {"i1": [1], "i2": [0], "i3": [1]},
            "rep": {"i1": [1, 0], "i2": [0, 0], "i3": [1, 1]},
        }
    )
    table = noise_table(long)
    one = table[(table["level"] == "model") & (table["model"] == "one")].iloc[0]
    assert one["within_note"] == ONE_EPOCH
    for column in ("var_between", "var_within", "var_mean_within", "share_within"):
        assert math.isnan(one[column])
    assert one["se_total"] == pytest.approx(np.std([1, 0, 1], ddof=1) / np.sqrt(3))
    rep = table[(table["level"] == "model") & (table["model"] == "rep")].iloc[0]
    assert rep["within_note"] == "" and np.isfinite(rep["var_within"])
    pair = table[table["level"] == "pair"].iloc[0]
    assert (pair["model"], pair["model_b"]) == ("one", "rep")
    assert pair["within_note"] == ONE_EPOCH_PAIR and math.isnan(pair["var_mean_within"])
    assert np.isfinite(pair["se_total"])


def test_one_item_is_no_variance():
    c = model_components(item_summary(_long({"m": {"i1": [1, 0, 1]}})), "m")
    assert (
        c.note == TOO_FEW_ITEMS and math.isnan(c.var_total) and c.estimate == pytest.approx(2 / 3)
    )


def test_table_columns_and_order():
    long = _long({m: {"i1": [1, 0], "i2": [0, 1], "i3": [1, 1]} for m in ("c", "a", "b")})
    table = noise_table(long)
    assert list(table["level"]) == ["model"] * 3 + ["pair"] * 3
    assert list(table["model"]) == ["a", "b", "c", "a", "a", "b"]
    assert list(table["model_b"]) == ["", "", "", "b", "c", "c"]
    assert list(table.columns) == COLUMNS and COLUMNS[-1] == "estimator"
    assert set(table["estimator"]) == {ESTIMATOR_TEXT["moments"]}  # balanced: the moments


# --- against the truth ------------------------------------------------------------


def test_components_are_unbiased_in_simulation():
    # 200 seeds of 500 items x 5 epochs. MC standard errors of the means, relative
    # to the truth: 0.9% (between) and 0.2% (within); tolerances are ~3.5 of them.
    est = np.array(
        [
            (c.var_between, c.var_within)
            for c in (
                _components(_simulate(np.random.default_rng(s), 500, 5)[1]) for s in range(200)
            )
        ]
    )
    between, within = est.mean(axis=0)
    assert between == pytest.approx(TRUE_BETWEEN, rel=0.03)
    assert within == pytest.approx(TRUE_WITHIN, rel=0.01)


def test_components_through_the_table_match_the_truth():
    # The public path (long rows -> noise_table), unequal epochs (2 to 6 per item),
    # one simulated pair: 60 seeds of 400 items; tolerance 10% of the truth.
    rows = []
    for seed in range(60):
        rng = np.random.default_rng(1000 + seed)
        p = rng.beta(A, B, 400)
        q = np.clip(p + rng.normal(0, 0.25, 400), 0, 1)
        frames = []
        for model, probs in (("a", p), ("b", q)):
            k = rng.integers(2, 7, 400)
            item = np.repeat(np.arange(400), k)
            y = (rng.random(item.size) < probs[item]).astype(float)
            frames.append(pd.DataFrame({"model": model, "item": item, "correct": y}))
        table = noise_table(pd.concat(frames)).set_index("level")
        rows.append(table.loc["pair", ["var_between", "var_within"]].to_numpy(float))
        rows[-1] = np.concatenate([rows[-1], [table.loc["model"].iloc[0]["var_between"]]])
    between_pair, within_pair, between_a = np.mean(rows, axis=0)
    # Truth of the pair by Monte Carlo over the items' p (1e6 draws).
    rng = np.random.default_rng(7)
    p = rng.beta(A, B, 1_000_000)
    q = np.clip(p + rng.normal(0, 0.25, p.size), 0, 1)
    assert between_pair == pytest.approx(np.var(p - q), rel=0.1)
    assert within_pair == pytest.approx(np.mean(p * (1 - p) + q * (1 - q)), rel=0.1)
    assert between_a == pytest.approx(TRUE_BETWEEN, rel=0.1)


def test_total_se_covers_the_population_mean():
    # Items and epochs drawn afresh: theta_hat +- 1.96 se_total covers E[p] = a/(a+b).
    # 4,000 seeds, MC error of the coverage +-0.0034.
    hits = [
        abs(c.estimate - A / (A + B)) <= Z95 * c.se_total
        for c in (_components(_simulate(np.random.default_rng(s), 500, 5)[1]) for s in range(4000))
    ]
    assert np.mean(hits) >= 0.94


def test_within_part_covers_the_fixed_items_mean():
    # Items fixed, only the epochs redrawn: the prediction-noise part alone is the
    # variance of theta_hat around the items' own mean p-bar.
    p = np.random.default_rng(11).beta(A, B, 500)
    hits = []
    for s in range(4000):
        c = _components(_simulate(np.random.default_rng(50_000 + s), 500, 5, p=p)[1])
        hits.append(abs(c.estimate - p.mean()) <= Z95 * math.sqrt(c.var_mean_within))
    assert np.mean(hits) >= 0.94


def test_balanced_case_equals_statsmodels_mixedlm_reml():
    # One-way random-effects model y_ik = mu + u_i + e_ik: REML on balanced data is
    # the ANOVA (moment) estimate when it is positive. Tolerance 1e-4 relative
    # (the optimiser's convergence, not the estimators, limits it).
    sm = pytest.importorskip("statsmodels.formula.api")
    _, y = _simulate(np.random.default_rng(5), 200, 5)
    c = _components(y)
    frame = pd.DataFrame({"y": y.ravel(), "item": np.repeat(np.arange(200), 5)})
    fit = sm.mixedlm("y ~ 1", frame, groups=frame["item"]).fit(reml=True)
    assert c.var_between == pytest.approx(float(fit.cov_re.iloc[0, 0]), rel=1e-4)
    assert c.var_within == pytest.approx(float(fit.scale), rel=1e-4)


# --- planning: more epochs or more items? -------------------------------------------


def test_design_mde_is_the_miller_formula():
    # Several epochs give fractional item means, compared by the paired t test (499 df);
    # one epoch gives 0/1 scores, compared by McNemar (the z form).
    k_t = detectable_effect(0.05, 0.8, df=499)
    assert design_mde(0.04, 0.2, 500, 5) == pytest.approx(k_t * math.sqrt((0.04 + 0.2 / 5) / 500))
    k_z = detectable_effect(0.05, 0.8)
    assert design_mde(0.04, 0.2, 500, 1) == pytest.approx(k_z * math.sqrt((0.04 + 0.2) / 500))
    assert design_mde(0.04, 0.2, 500, math.inf) == pytest.approx(
        mde(math.sqrt(0.04), 500, test="t")
    )
    assert design_mde(-0.01, 0.2, 500, 5) == design_mde(0.0, 0.2, 500, 5)


def test_epochs_and_items_needed_are_the_smallest_that_reach_the_target():
    vb, vw, target = 0.005, 0.4, 0.02
    k = epochs_needed(vb, vw, 500, target)
    assert design_mde(vb, vw, 500, k) <= target < design_mde(vb, vw, 500, k - 1)
    n = items_needed(vb, vw, 5, target)
    assert design_mde(vb, vw, n, 5) <= target < design_mde(vb, vw, n - 1, 5)
    # The data-noise floor of 90 items is above 0.02: no number of epochs helps.
    assert design_mde(vb, vw, 90, math.inf) > target
    assert epochs_needed(vb, vw, 90, target) == math.inf


def test_cheapest_design_matches_brute_force_and_cochrans_optimum():
    vb, vw, target = 0.005, 0.4, 0.02
    assert cheapest_design(vb, vw, target, item_cost=0) == (items_needed(vb, vw, 1, target), 1)
    for cost in (5.0, 20.0):
        n, k = cheapest_design(vb, vw, target, item_cost=cost)
        brute = min(
            (design_cost(items_needed(vb, vw, kk, target), kk, cost), kk) for kk in range(1, 200)
        )
        assert (design_cost(n, k, cost), k) == brute
        assert design_mde(vb, vw, n, k) <= target
        # Integer n and K move the optimum by at most a few epochs from Cochran's K*.
        assert abs(k - math.sqrt(cost * vw / vb)) <= 3
