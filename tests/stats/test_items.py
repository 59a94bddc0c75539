"""Item analysis (rederive.stats.items) against eRm and on planted faulty items.

Reference values: ``fixtures/items/erm_itemfit.csv`` and ``erm_persons.csv``,
made by ``fixtures/items/make_erm.R`` (R 4.2.2, eRm 1.0.2) from ``matrix.csv``.
"""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

from rederive.simulate.faulty_items import detection, faulty_matrix
from rederive.stats.items import (
    FLAGS,
    ItemThresholds,
    epoch_flips,
    item_analysis,
    item_difficulty_given_ability,
    item_rest_correlation,
    rasch_item_fit,
    suspect_items,
)

FIXTURES = Path(__file__).parent / "fixtures" / "items"
# eRm's and our formulas are the same arithmetic on the same inputs: agreement to
# rounding of the 15-digit CSV, with room for the order of summation.
TOL_ERM = 1e-9


@pytest.fixture(scope="module")
def erm():
    y = pd.read_csv(FIXTURES / "matrix.csv", index_col=0)
    persons = pd.read_csv(FIXTURES / "erm_persons.csv", index_col=0)["theta"]
    items = pd.read_csv(FIXTURES / "erm_itemfit.csv", index_col=0)
    return y, persons, items


def test_infit_outfit_and_zstd_equal_erm(erm):
    y, theta, ref = erm
    fit = rasch_item_fit(y.to_numpy(float), theta.to_numpy(), ref["difficulty"].to_numpy())
    for column in ("outfit_mnsq", "outfit_zstd", "infit_mnsq", "infit_zstd"):
        np.testing.assert_allclose(fit[column], ref[column], rtol=0, atol=TOL_ERM, err_msg=column)
    # Three persons with a perfect or zero score have no ML ability and take no part.
    assert (fit["n_fit"] == len(y) - theta.isna().sum()).all()
    assert theta.isna().sum() == 3


def test_item_rest_correlation_equals_r_cor(erm):
    y, theta, ref = erm
    r = item_rest_correlation(y[theta.notna()].to_numpy(float))
    np.testing.assert_allclose(r, ref["item_rest_r"], rtol=0, atol=1e-12)


def test_planted_items_of_the_erm_matrix_are_the_misfits(erm):
    y, theta, ref = erm
    # i00006 is random, i00008 mis-keyed: the only items with outfit ZSTD near 2.
    assert set(ref.index[ref["outfit_zstd"] > 1.9]) == {"i00006", "i00008"}
    assert set(ref.index[ref["item_rest_r"] < 0]) == {"i00006", "i00008"}


def test_item_ml_difficulty_makes_residuals_sum_to_zero():
    y, _ = faulty_matrix(n_models=15, n_items=300, seed=3)
    theta = np.linspace(-1.5, 1.5, 15)
    b = item_difficulty_given_ability(y.to_numpy(float), theta)
    values = y.to_numpy(float)
    finite = np.isfinite(b)
    resid = values[:, finite] - expit(theta[:, None] - b[finite])
    assert np.abs(resid.sum(axis=0)).max() < 1e-8
    # Solved by all: -inf; by none: +inf.
    assert np.all(b[values.sum(axis=0) == 15] == -np.inf)
    assert np.all(b[values.sum(axis=0) == 0] == np.inf)


def test_recall_and_precision_on_planted_faults():
    """ChemBench shape (22 models, 2,000 items), 3% mis-keyed + 3% random items.

    Measured at the default thresholds over 20 draws (bench/item_analysis.py):
    recall of mis-keyed items 0.84 (0.70-0.95), of random items 0.52 (0.40-0.65),
    precision of either flag 0.55 (0.23-0.77). This draw: 0.83, 0.47, 0.57; the
    minimums below are the stated floor of the method on this draw.
    """
    y, truth = faulty_matrix(seed=20250107)
    table = detection(item_analysis(y), truth).set_index("flag")
    assert table.loc["either", "recall_miskeyed"] >= 0.8
    assert table.loc["either", "recall_random"] >= 0.4
    assert table.loc["either", "precision"] >= 0.5
    assert table.loc["misfit", "precision"] >= 0.65
    # A planted item is found far more often than an ordinary one is flagged.
    ordinary = (truth == "ok").sum()
    assert (
        table.loc["either", "n_flagged"] * (1 - table.loc["either", "precision"])
    ) / ordinary < 0.05


def test_a_miskeyed_item_ranks_first_and_degenerate_items_are_flagged():
    rng = np.random.default_rng(5)
    theta = np.linspace(-2, 2, 20)
    y = (rng.random((20, 200)) < expit(theta[:, None] - rng.normal(0, 1, 200))).astype(float)
    y[:, 0] = (theta < 0).astype(float)  # only the weaker half "passes": wrong key
    y[:, 1] = 0.0
    y[:, 2] = 1.0
    frame = pd.DataFrame(
        y, index=[f"m{i}" for i in range(20)], columns=[f"q{j}" for j in range(200)]
    )
    frame.iloc[3, 5] = np.nan  # a missing cell is left out, not a failure
    table = item_analysis(frame)
    assert table.loc["q0", "negative_discrimination"] and table.loc["q0", "misfit"]
    assert table.loc["q1", "flags"] == "solved_by_none"
    assert table.loc["q2", "flags"] == "solved_by_all"
    assert np.isnan(table.loc["q1", "outfit_mnsq"]) and np.isnan(table.loc["q2", "item_rest_r"])
    assert table.loc["q5", "n_models"] == 19
    ranked = suspect_items(table)
    assert ranked.index[0] == "q0" and ranked["rank"].tolist() == list(range(1, len(ranked) + 1))
    assert (ranked["n_flags"] > 0).all()
    assert set(ranked.index) == set(table.index[table["n_flags"] > 0])


def test_epoch_flips_flag_items_whose_outcome_changes():
    long = pd.DataFrame(
        {
            "model": ["a", "a", "b", "b", "c", "a", "a", "b", "b"],
            "item": ["x", "x", "x", "x", "x", "y", "y", "y", "y"],
            "epoch": [1, 2, 1, 2, 1, 1, 2, 1, 2],
            "correct": [1.0, 0.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.4, 0.0],
        }
    )
    flips = epoch_flips(long)
    assert flips.loc["x"].tolist() == [2, 2]  # c ran once: not counted
    assert flips.loc["y"].tolist() == [2, 0]  # 0.4 and 0.0 are both fails
    y = pd.DataFrame(
        [[1.0, 1.0], [0.0, 0.0], [1.0, 0.0]], index=["a", "b", "c"], columns=["x", "y"]
    )
    table = item_analysis(y, flips=flips)
    assert table.loc["x", "flip_share"] == 1.0 and table.loc["x", "flips_across_epochs"]
    assert table.loc["y", "flip_share"] == 0.0 and not table.loc["y", "flips_across_epochs"]
    # Too few models for a correlation or fit: NaN, never a flag.
    assert np.isnan(table["item_rest_r"]).all() and not table["misfit"].any()


def test_thresholds_come_from_config_and_move_the_flags():
    y, _ = faulty_matrix(n_models=22, n_items=400, seed=9)
    strict = item_analysis(y, thresholds=ItemThresholds.from_config({"discrimination_below": -0.3}))
    loose = item_analysis(y, thresholds=ItemThresholds.from_config({"discrimination_below": 0.1}))
    assert strict["negative_discrimination"].sum() < loose["negative_discrimination"].sum()
    assert ItemThresholds.from_config({"n_listed": 3}) == ItemThresholds()
    assert list(FLAGS)[0] == "negative_discrimination"


def test_given_abilities_are_used_and_extreme_models_left_out():
    y, _ = faulty_matrix(n_models=10, n_items=100, seed=4)
    y.iloc[0] = 1.0  # a perfect score carries no information about any item
    theta = pd.Series(np.linspace(-1, 1, 10), index=y.index)
    table = item_analysis(y, ability=theta)
    finite = table["difficulty_ml"].notna()
    assert (table.loc[finite, "n_fit"] == 9).all()
    # Solved only by the left-out model: no finite difficulty, no fit statistics.
    assert (table.loc[~finite, "n_fit"] == 0).all() and table.loc[
        ~finite, "outfit_mnsq"
    ].isna().all()
    with pytest.raises(ValueError, match="0/1"):
        item_analysis(y.replace(1.0, 2.0))
