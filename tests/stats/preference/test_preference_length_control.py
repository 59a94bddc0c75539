"""AlpacaEval 2's length-controlled win rate against AlpacaEval's own GLM code.

``fixtures/alpaca_eval/lc_reference.csv`` comes from AlpacaEval's
``glm_winrate.get_length_controlled_winrate`` (``make_lc_reference.py`` there) on the
fixture's real annotations, with a stand-in instruction difficulty and stand-in
gamed-baseline rows (AlpacaEval publishes the real ones on the Hugging Face Hub
only, so the published LC column is not checkable here). Both sides run
scikit-learn 1.9.1; the LC win rate, its SE and the three GLM weights are asserted
to 1e-8.
"""

import pandas as pd
import pytest

from rederive.stats.preference.length_control import GLM_FEATURES, length_controlled_win_rate

FIXTURES = pd.io.common.Path(__file__).parent / "fixtures" / "alpaca_eval"
BASELINE = "gpt4_1106_preview"
TOL = 1e-8


@pytest.fixture(scope="module")
def inputs():
    annotations = pd.read_csv(FIXTURES / "annotations.csv")
    difficulty = pd.read_csv(FIXTURES / "lc_standin_difficulty.csv").set_index("index")
    gamed = pd.read_csv(FIXTURES / "lc_standin_gamed.csv")
    reference = pd.read_csv(FIXTURES / "lc_reference.csv").set_index(["model", "glm"])
    return annotations, difficulty["instruction_difficulty"], gamed, reference


@pytest.mark.parametrize("glm", ["length_controlled_v1", "length_controlled_noreg"])
def test_lc_win_rate_equals_alpaca_eval_glm(inputs, glm):
    annotations, difficulty, gamed, reference = inputs
    for model in sorted(set(annotations["model"]) - {BASELINE}):
        a = annotations[annotations["model"] == model].sort_values("index")
        out = length_controlled_win_rate(
            a["preference"].to_numpy() - 1,
            a["len_2"],
            a["len_1"],
            difficulty.loc[a["index"]].to_numpy(),
            gamed=gamed if glm == "length_controlled_v1" else None,
        )
        ref = reference.loc[(model, glm)]
        assert out["glm"] == glm
        assert out["length_controlled_winrate"] == pytest.approx(
            ref["length_controlled_winrate"], abs=TOL
        )
        assert out["lc_standard_error"] == pytest.approx(ref["lc_standard_error"], abs=TOL)
        for feature in GLM_FEATURES:
            column = (
                feature if feature != "not_gamed_baseline" else ("not_gamed_baseline.astype(float)")
            )
            assert out["weights"][feature] == pytest.approx(ref[column], abs=TOL)
