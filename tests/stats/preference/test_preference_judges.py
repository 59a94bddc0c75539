"""Judge checks: position bias, agreement (against R psych and the krippendorff package),
self-preference."""

import numpy as np
import pandas as pd
import pytest
from preference_fixtures import FIXTURES, load_arena_hard, verdict_games
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

from rederive.stats.preference.agreement import agreement_table, krippendorff_alpha_nominal
from rederive.stats.preference.position_bias import position_bias_table, swapped_pairs
from rederive.stats.preference.self_preference import self_preference_table


def test_position_bias_on_real_arena_hard_judgments_counts_the_labels():
    judgments = pd.read_csv(FIXTURES / "arena_hard" / "judgments.csv")
    table = position_bias_table(load_arena_hard()).iloc[0]
    # Independent count from the labels: A is shown first in both games; game 1
    # has the baseline as A, game 2 the model. "A wins" in both = follows first.
    a1 = judgments["game_1"].str.startswith("A>")
    b1 = judgments["game_1"].str.startswith("B>")
    a2 = judgments["game_2"].str.startswith("A>")
    b2 = judgments["game_2"].str.startswith("B>")
    t1, t2 = judgments["game_1"] == "A=B", judgments["game_2"] == "A=B"
    assert table["swapped_pairs"] == len(judgments)
    assert table["follows_first"] == (a1 & a2).sum()
    assert table["follows_second"] == (b1 & b2).sum()
    assert table["consistent"] == ((a1 & b2) | (b1 & a2) | (t1 & t2)).sum()
    assert table["one_tie"] == (t1 ^ t2).sum()
    assert table["unpaired_games"] == 0
    decisive = (~t1).sum() + (~t2).sum()
    assert table["decisive"] == decisive
    assert table["first_wins"] == a1.sum() + a2.sum()


def test_unpaired_and_unknown_order_games_are_counted():
    games = pd.DataFrame(
        {
            "model_a": ["x", "y", "x", "x"],
            "model_b": ["y", "x", "y", "y"],
            "outcome": [1.0, 1.0, 1.0, 0.0],
            "verdict": ["a", "a", "a", "b"],
            "item_id": ["1", "1", "2", "3"],
            "judge": "j",
            "first": ["a", "a", "a", ""],
        }
    )
    pairs, unpaired = swapped_pairs(games)
    assert len(pairs) == 1 and pairs["kind"].iloc[0] == "follows_first"
    reasons = dict(zip(unpaired["reason"], unpaired["games"], strict=True))
    assert reasons == {"side shown first unknown": 1, "judged in one order only": 1}
    assert position_bias_table(games)["unpaired_games"].iloc[0] == 2


@pytest.fixture(scope="module")
def verdicts():
    return pd.read_csv(FIXTURES / "agreement" / "verdicts.csv", keep_default_na=False)


def test_cohen_kappa_equals_r_psych(verdicts):
    table = agreement_table(verdict_games(verdicts))
    reference = pd.read_csv(FIXTURES / "agreement" / "kappa_psych.csv")
    cohen = table[table["coefficient"] == "cohen_kappa"].set_index(["judge_1", "judge_2"])
    for row in reference.itertuples():
        got = cohen.loc[(row.judge_1, row.judge_2)]
        assert got["units"] == row.units
        assert got["value"] == pytest.approx(row.kappa, abs=1e-12)


def test_krippendorff_alpha_equals_the_krippendorff_package(verdicts):
    table = agreement_table(verdict_games(verdicts)).set_index("coefficient")
    reference = pd.read_csv(FIXTURES / "agreement" / "alpha_krippendorff.csv")
    assert table.loc["krippendorff_alpha", "value"] == pytest.approx(
        reference["alpha"].iloc[0], abs=1e-12
    )


def test_fleiss_kappa_uses_the_units_every_judge_judged(verdicts):
    table = agreement_table(verdict_games(verdicts)).set_index("coefficient")
    complete = verdicts.replace("", np.nan).dropna().drop(columns="unit")
    counts, _ = aggregate_raters(complete.to_numpy())
    assert table.loc["fleiss_kappa", "units"] == len(complete)
    assert table.loc["fleiss_kappa", "value"] == pytest.approx(fleiss_kappa(counts), abs=1e-12)


def test_alpha_of_perfect_agreement_is_one_and_of_independent_raters_near_zero():
    perfect = np.tile(np.arange(3), 10)[:, None].repeat(3, axis=1).astype(float)
    assert krippendorff_alpha_nominal(perfect)[0] == pytest.approx(1.0)
    rng = np.random.default_rng(0)
    noise = rng.integers(0, 3, (4000, 3)).astype(float)
    assert abs(krippendorff_alpha_nominal(noise)[0]) < 0.02


def test_self_preference_finds_a_judge_that_favours_itself():
    rng = np.random.default_rng(4)
    rows = []
    for item in range(300):
        for opponent in ("m1", "m2"):
            truth = rng.random() < 0.5  # J wins on the merits half the time
            for judge in ("J", "K", "L"):
                won = truth if judge != "J" else (truth or rng.random() < 0.4)
                rows.append(("J", opponent, 1.0 if won else 0.0, str(item), judge))
    games = pd.DataFrame(rows, columns=["model_a", "model_b", "outcome", "item_id", "judge"])
    games["verdict"] = np.where(games["outcome"] == 1, "a", "b")
    table = self_preference_table(games).set_index("judge")
    assert list(table.index) == ["J"]
    row = table.loc["J"]
    assert row["games"] == 600 and row["items"] == 300
    assert row["win_rate_others_pct"] == pytest.approx(
        100 * games[games.judge == "K"].outcome.mean()
    )
    assert 14 < row["gap_pct"] < 26  # 0.4 of the ~50 % losses flipped
    assert row["p_value"] < 1e-6 and row["ci_low_pct"] > 0
