"""REML variance components of rederive.stats.noise against lme4 and metafor.

Fixtures: tests/stats/fixtures/noise_reml/ (R 4.2.2, lme4 1.1.31, metafor 3.8.1;
make_reml.R): five models × 60 items of simulated 0/1 grades, four with unbalanced
epochs (one of them at REML's boundary: lme4's fit is singular) and one balanced.
Tolerance 1e-6 absolute on the components (the brief's 1e-5 with margin; the
difference measured is 1.5e-9, lme4's bobyqa run to rhoend 1e-12).
"""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from rederive.stats.noise import (
    ESTIMATOR_TEXT,
    ONE_EPOCH,
    item_summary,
    model_components,
    noise_table,
    reml_known_variances,
    reml_one_way,
)

FIXTURES = Path(__file__).parent / "fixtures" / "noise_reml"
TOL = 1e-6


@pytest.fixture(scope="module")
def epochs():
    return pd.read_csv(FIXTURES / "epochs.csv", dtype={"item": str})


@pytest.fixture(scope="module")
def reference():
    return (
        pd.read_csv(FIXTURES / "models.csv").set_index("model"),
        pd.read_csv(FIXTURES / "pairs.csv"),
        pd.read_csv(FIXTURES / "pair_items.csv"),
    )


def test_model_rows_equal_lmer_reml(epochs, reference):
    models, _, _ = reference
    table = noise_table(epochs, estimator="REML").set_index("level").loc["model"]
    table = table.set_index("model")
    for model, row in models.iterrows():
        assert table.loc[model, "var_between"] == pytest.approx(row["var_between"], abs=TOL)
        assert table.loc[model, "var_within"] == pytest.approx(row["var_within"], abs=TOL)
        assert table.loc[model, "estimator"] == ESTIMATOR_TEXT["REML"]
    # The singular fit is REML's boundary: between exactly 0, not negative.
    assert bool(models.loc["halves", "singular"]) and table.loc["halves", "var_between"] == 0.0
    moments = model_components(item_summary(epochs), "halves", estimator="moments")
    assert moments.var_between < 0


def model_row(table, model):
    rows = table[(table["level"] == "model") & (table["model"] == model)]
    assert len(rows) == 1
    return rows.iloc[0]


def test_reml_from_sufficient_statistics_equals_lmer(epochs, reference):
    models, _, _ = reference
    for model, row in models.iterrows():
        rows = epochs[epochs["model"] == model]
        grouped = rows.groupby("item")["correct"]
        means, k = grouped.mean().to_numpy(), grouped.size().to_numpy()
        ssw = grouped.apply(lambda g: float(((g - g.mean()) ** 2).sum())).to_numpy()
        between, within = reml_one_way(means, ssw, k)
        assert (between, within) == pytest.approx((row["var_between"], row["var_within"]), abs=TOL)


def test_meta_analytic_reml_equals_metafor(reference):
    _, pairs, items = reference
    for pair in pairs.itertuples(index=False):
        sub = items[(items["a"] == pair.a) & (items["b"] == pair.b)]
        assert reml_known_variances(sub["d"], sub["v"]) == pytest.approx(pair.tau2, abs=1e-10)


def test_pair_rows_equal_metafor_on_the_lmer_within_parts(epochs, reference):
    models, pairs, _ = reference
    table = noise_table(epochs, estimator="REML")
    rows = table[table["level"] == "pair"].set_index(["model", "model_b"])
    for pair in pairs.itertuples(index=False):
        row = rows.loc[(pair.a, pair.b)]
        assert row["n_items"] == pair.n_items
        assert row["var_between"] == pytest.approx(pair.tau2, abs=TOL)
        within = models.loc[pair.a, "var_within"] + models.loc[pair.b, "var_within"]
        assert row["var_within"] == pytest.approx(within, abs=2 * TOL)


def test_balanced_moments_equal_reml_and_are_kept(epochs, reference):
    # The balanced model (4 epochs on every item): the moments are REML when positive.
    models, _, _ = reference
    auto = model_row(noise_table(epochs), "balanced")
    assert auto["estimator"] == ESTIMATOR_TEXT["moments"]
    assert auto["var_between"] == pytest.approx(models.loc["balanced", "var_between"], abs=TOL)
    assert auto["var_within"] == pytest.approx(models.loc["balanced", "var_within"], abs=TOL)
    # The unbalanced ones get REML by default.
    spread = model_row(noise_table(epochs), "spread")
    assert spread["estimator"] == ESTIMATOR_TEXT["REML"]


def test_reml_parts_add_to_the_model_variance_and_keep_the_total(epochs):
    row = model_row(noise_table(epochs, estimator="REML"), "spread")
    rows = epochs[epochs["model"] == "spread"].groupby("item")["correct"]
    means, k = rows.mean(), rows.size()
    n = len(means)
    # se_total stays the empirical SE of the mean of item means (the accuracy's).
    assert row["se_total"] == pytest.approx(means.std(ddof=1) / np.sqrt(n), rel=1e-12)
    assert row["var_mean_within"] == pytest.approx(row["var_within"] * (1 / k).mean() / n)
    assert row["var_mean_between"] == pytest.approx(row["var_between"] / n)
    share = row["var_mean_within"] / (row["var_mean_within"] + row["var_mean_between"])
    assert row["share_within"] == pytest.approx(share)
    assert row["effective_epochs"] == pytest.approx(1 / (1 / k).mean())


def test_one_epoch_model_stays_not_estimable_under_reml():
    long = pd.DataFrame({"model": "m", "item": ["i1", "i2", "i3"], "correct": [1.0, 0.0, 1.0]})
    row = noise_table(long, estimator="REML").iloc[0]
    assert row["within_note"] == ONE_EPOCH and np.isnan(row["var_between"])
    assert row["estimator"] == ""
    with pytest.raises(ValueError, match="estimator must be"):
        noise_table(long, estimator="ML")


def test_reml_is_the_boundary_when_the_criterion_rises_from_zero():
    # Equal item means: no between-item spread at all.
    means = np.array([0.5, 0.5, 0.5, 0.5])
    ssw = np.array([0.5, 1.0, 1.5, 0.5])
    k = np.array([2, 4, 6, 2])
    between, within = reml_one_way(means, ssw, k)
    assert between == 0.0 and within == pytest.approx(ssw.sum() / (k.sum() - 1))
    assert reml_known_variances([0.1, 0.1, 0.1], [0.2, 0.3, 0.4]) == 0.0
