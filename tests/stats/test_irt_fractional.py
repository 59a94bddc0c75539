"""The 1PL on fractional scores (AlpacaEval preferences) against lme4::glmer, and the
score rule of :mod:`rederive.stats.fractional`.

Reference: ``fixtures/glmer_fractional/`` (``make_glmer.R``, R 4.2.2, lme4 1.1-31):
``glmer(correct ~ 0 + model + (1 | item), family = binomial, nAGQ = 25)`` with
``correct`` = AlpacaEval preference - 1, a response in [0, 1]: the fractional
(quasi-binomial) likelihood ``rasch_mml(fractional=True)`` integrates over the items.
"""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from rederive.stats.fractional import (
    ScoreRule,
    constant_score,
    no_variation_note,
    threshold_extreme_note,
)
from rederive.stats.irt_mml import bootstrap_mml_ability, rasch_mml
from rederive.stats.items import item_analysis

FIXTURES = Path(__file__).parent / "fixtures" / "glmer_fractional"
# 41 fixed Gauss-Hermite nodes against glmer's 25 adaptive ones: measured 9.5e-5
# logit on AlpacaEval 2 (item SD at its boundary, 0) and 2e-5 on AlpacaEval 1.
TOL_ABILITY = 2e-4


def _subset(stem: str):
    responses = pd.read_csv(FIXTURES / f"{stem}.csv", index_col=0).T
    reference = pd.read_csv(FIXTURES / f"glmer_{stem}.csv").set_index("model")
    return responses, reference


@pytest.mark.parametrize("stem", ["alpaca_eval1_subset", "alpaca_eval2_subset"])
def test_fractional_marginal_ml_equals_glmer(stem):
    responses, ref = _subset(stem)
    values = responses.to_numpy()
    assert ((values > 0) & (values < 1)).any()  # the data really are fractional
    fit = rasch_mml(responses, random="items", fractional=True)
    raw = (fit.ability + fit.shift).reindex(ref.index)
    np.testing.assert_allclose(raw, ref["ability"], rtol=0, atol=TOL_ABILITY)
    assert abs(fit.sigma - ref["sigma"].iloc[0]) < 2e-3
    # The model that draws on every item (AlpacaEval 2's baseline) has a finite
    # ability, exactly where glmer puts it.
    if "gpt4_1106_preview" in ref.index and stem.endswith("2_subset"):
        assert np.isfinite(fit.ability["gpt4_1106_preview"])


def test_the_binary_path_refuses_fractional_scores_without_the_flag():
    responses, _ = _subset("alpaca_eval1_subset")
    with pytest.raises(ValueError, match="must be 0/1"):
        rasch_mml(responses)
    bad = responses.copy()
    bad.iloc[0, 0] = 1.5
    with pytest.raises(ValueError, match=r"in \[0, 1\]"):
        rasch_mml(bad, fractional=True)


def test_zero_one_data_fit_identically_with_the_flag():
    binary = pd.read_csv(
        Path(__file__).parent / "fixtures" / "glmer" / "chembench_subset.csv", index_col=0
    ).T
    a = rasch_mml(binary, random="items")
    b = rasch_mml(binary, random="items", fractional=True)
    np.testing.assert_array_equal(a.ability.to_numpy(), b.ability.to_numpy())
    np.testing.assert_array_equal(a.difficulty.to_numpy(), b.difficulty.to_numpy())


def test_fractional_bootstrap_dense_and_large_paths_agree():
    responses, _ = _subset("alpaca_eval1_subset")
    fit = rasch_mml(responses, random="items", fractional=True)
    args = dict(n_boot=200, seed=3, fractional=True)
    dense = bootstrap_mml_ability(responses, fit, large=False, **args)
    large = bootstrap_mml_ability(responses, fit, large=True, **args)
    assert dense.hessian == large.hessian == "observed"
    # Central differences against the closed form (as for 0/1 data), and the
    # large path's float64 product of fractional scores.
    np.testing.assert_allclose(large.replicates, dense.replicates, rtol=0, atol=1e-6)
    assert (dense.table["se_boot"] > 0).all()


def test_pyirt_refinement_runs_on_fractional_scores_and_restores_validation():
    from pyro.infer.util import is_validation_enabled

    from rederive.stats.irt import fit_1pl

    responses, _ = _subset("alpaca_eval2_subset")
    before = is_validation_enabled()
    fit = fit_1pl(responses, epochs=300, lr=0.02, seed=1, mml_random="items", fractional=True)
    assert is_validation_enabled() == before
    assert np.isfinite(fit.ability).all() and fit.epochs_used > 0
    # py-irt's posterior orders the models as the marginal-ML fit does.
    order = fit.ability.sort_values().index
    assert list(order) == list(fit.mml.ability.sort_values().index)


def test_item_statistics_on_fractional_scores():
    responses, _ = _subset("alpaca_eval1_subset")
    stats = item_analysis(responses, fractional=True)
    # n_correct is the sum of the scores, a draw counting one half.
    np.testing.assert_allclose(stats["n_correct"], responses.sum(axis=0).to_numpy())
    assert stats["n_correct"].dtype == float
    assert not stats["n_correct"].apply(float.is_integer).all()
    np.testing.assert_allclose(stats["share_correct"], responses.mean(axis=0).to_numpy())
    with pytest.raises(ValueError, match="must be 0/1"):
        item_analysis(responses)


# --------------------------------------------------------------------------------------
# The score rule
# --------------------------------------------------------------------------------------

VALUES = np.array([[0.0, 0.5, 1.0, 0.3, np.nan, 0.7]])


def test_fractional_rule_leaves_the_scores_as_they_are():
    out, counts = ScoreRule().responses(VALUES)
    assert out is VALUES
    assert (counts.n_fractional, counts.n_dichotomised, counts.n_tied_left_out) == (3, 0, 0)


@pytest.mark.parametrize(
    "ties, expected, left_out",
    [
        ("excluded", [0, np.nan, 1, 0, np.nan, 1], 1),
        ("correct", [0, 1, 1, 0, np.nan, 1], 0),
        ("incorrect", [0, 0, 1, 0, np.nan, 1], 0),
    ],
)
def test_threshold_rule_and_its_ties(ties, expected, left_out):
    out, counts = ScoreRule(method="threshold", ties=ties).responses(VALUES)
    np.testing.assert_array_equal(out[0], expected)
    assert counts.n_fractional == 3 and counts.n_tied_left_out == left_out
    assert counts.n_dichotomised == 3 - left_out


def test_zero_one_scores_are_never_changed():
    binary = np.array([[0.0, 1.0, np.nan, 1.0]])
    for rule in (ScoreRule(), ScoreRule(method="threshold", threshold=0.01, ties="correct")):
        out, counts = rule.responses(binary)
        np.testing.assert_array_equal(out, binary)
        assert counts.n_fractional == 0


def test_failures_and_epoch_passes():
    rule = ScoreRule()
    np.testing.assert_array_equal(rule.failed(VALUES)[0], [1, 0, 0, 1, 0, 0])
    incorrect = ScoreRule(ties="incorrect")
    np.testing.assert_array_equal(incorrect.failed(VALUES)[0], [1, 1, 0, 1, 0, 0])
    passed, keep = rule.passed(VALUES[0])
    np.testing.assert_array_equal(passed, [0, 0, 1, 0, 0, 1])
    np.testing.assert_array_equal(keep, [1, 0, 1, 1, 1, 1])
    passed, keep = ScoreRule(ties="correct").passed(VALUES[0])
    np.testing.assert_array_equal(passed, [0, 1, 1, 0, 0, 1])
    assert keep.all()


def test_settings_are_checked():
    for bad in (
        {"method": "round"},
        {"ties": "half"},
        {"threshold": 0.0},
        {"threshold": 1.0},
    ):
        with pytest.raises(ValueError, match="fractional_scores"):
            ScoreRule.from_config(bad)


def test_no_variation_is_named_never_a_perfect_score():
    values = np.array([[0.5, 1.0, 0.2], [0.5, 1.0, 0.2], [0.5, 1.0, 0.4]])
    np.testing.assert_array_equal(constant_score(values), [0.5, np.nan, np.nan])
    for rule in (
        ScoreRule(),
        ScoreRule(method="threshold"),
        ScoreRule(method="threshold", ties="correct"),
        ScoreRule(method="threshold", ties="incorrect"),
    ):
        note = no_variation_note(0.5, 805, rule)
        assert note.startswith("no variation: every score 0.5 (805 items)")
        assert "perfect score (" not in note
    assert "finite" in no_variation_note(0.5, 805, ScoreRule())
    assert "undefined" in no_variation_note(0.5, 805, ScoreRule(method="threshold"))
    note = threshold_extreme_note(0.73, 805, ScoreRule(method="threshold"), passed=True)
    assert "every score above the threshold 0.5" in note and "mean score 0.730" in note
