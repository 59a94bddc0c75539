"""The audit on real AlpacaEval leaderboards: a weighted win rate is a mean, not k/N;
an SE column is an error bar, not a proportion; a win rate counts a draw half.

Fixtures (tests/audit/fixtures/README.md, tests/preference/fixtures/README.md): rows
of AlpacaEval 2.0's and 1's published leaderboards, verbatim. Before these column
roles the audit read every SE and weighted win rate as a proportion over 805 items
and called the exactly reproduced AlpacaEval 2.0 leaderboard hundreds of errors.
"""

from pathlib import Path

import pytest
from workflow_utils import REPO

from rederive.audit.__main__ import main as audit_main
from rederive.audit.cells import number
from rederive.audit.columns import Options, infer
from rederive.audit.grim import grim
from rederive.audit.report import audit_file
from rederive.audit.tables import read_table

FIXTURES = Path(__file__).parent / "fixtures"
AE2 = FIXTURES / "alpaca_eval_2_leaderboard.csv"
AE1 = FIXTURES / "alpaca_eval_1_chatgpt_fn_leaderboard.csv"
PREFERENCE = REPO / "tests" / "preference" / "fixtures" / "alpaca_eval" / "published"


def roles(path, **options) -> dict[str, tuple[str, str | None]]:
    layout = infer(read_table(path), Options(**options))
    names = {c.index: c.name for c in layout.columns}
    return {c.name: (c.role, names.get(c.target)) for c in layout.columns}


def errors(result) -> list:
    return [f for f in result.findings if f.severity == "error"]


def test_alpacaeval_2_columns_get_their_roles():
    got = roles(AE2)
    assert got["win_rate"] == ("mean", None)
    assert got["standard_error"] == ("se", "win_rate")
    assert got["n_total"] == ("n", None)
    assert {got[c][0] for c in ("n_wins", "n_wins_base", "n_draws")} == {"other"}
    assert got["discrete_win_rate"] == ("score", None)
    assert got["lc_standard_error"][0] == "other"  # the error of a model's prediction
    layout = infer(read_table(AE2), Options())
    (discrete,) = [c for c in layout.columns if c.name == "discrete_win_rate"]
    assert discrete.halves


@pytest.mark.parametrize("path", [AE2, AE1, PREFERENCE / "leaderboard.csv"], ids=lambda p: p.name)
def test_a_reproduced_leaderboard_has_no_inconsistent_cell(path):
    result = audit_file(path, Options())
    assert not errors(result), [f.possible for f in errors(result)]


def test_the_discrete_win_rates_are_still_tested_as_counts():
    result = audit_file(AE2, Options())
    # Every full-precision discrete win rate is testable; the baseline's "50.0" (one
    # decimal, steps of 1/1610) is not.
    assert "10 cells testable, 0 inconsistent" in result.grim


def test_a_changed_discrete_win_rate_is_found(tmp_path):
    text = AE2.read_text().replace(",8.395522388059701,", ",8.405522388059701,")
    path = tmp_path / "leaderboard.csv"
    path.write_text(text)
    (finding,) = errors(audit_file(path, Options()))
    assert finding.column == "discrete_win_rate" and finding.check == "GRIM"
    assert "k in halves" in finding.possible


def test_an_se_no_mean_can_have_is_found(tmp_path):
    # Storm-7B: 50.27 % over 805 items has an SE of at most 1.7632 (values at 0 and 1).
    text = AE2.read_text().replace(",1.4728176780737183,", ",1.9728176780737183,")
    path = tmp_path / "leaderboard.csv"
    path.write_text(text)
    (finding,) = errors(audit_file(path, Options()))
    assert (finding.row.split(" / ")[0], finding.check) == ("Storm-7B", "error bar: SE of a mean")


def test_a_mean_outside_0_100_is_found(tmp_path):
    text = AE2.read_text().replace("NullModel,76.91979180386511,", "NullModel,176.91979180386511,")
    path = tmp_path / "leaderboard.csv"
    path.write_text(text)
    found = errors(audit_file(path, Options()))
    assert [(f.column, f.check) for f in found] == [("win_rate", "GRIM")]


def test_a_win_rate_with_draws_may_have_a_smaller_se_than_k_over_n(tmp_path):
    # gpt4's 12 draws: its SE is below the binomial one, above the floor the draws allow.
    assert not errors(audit_file(AE1, Options()))
    text = AE1.read_text().replace(",1.5359801545073597,", ",0.5359801545073597,")
    path = tmp_path / "leaderboard.csv"
    path.write_text(text)
    (finding,) = errors(audit_file(path, Options()))
    assert (finding.row.split(" / ")[0], finding.check) == ("gpt4", "error bar: SE")


def test_means_names_a_weighted_column(tmp_path):
    path = tmp_path / "board.csv"
    path.write_text(
        "model,win_rate,standard_error,n_total\na,76.91979180386511,0.9090102449662572,805\n"
    )
    assert roles(path)["win_rate"][0] == "score"
    assert errors(audit_file(path, Options()))  # as k/N it is impossible
    assert roles(path, means=("win_rate",))["win_rate"][0] == "mean"
    assert not errors(audit_file(path, Options(means=("win_rate",))))
    assert audit_main([str(path), "--means", "win_rate"]) == 0


def test_full_precision_prints_allow_the_float_error_of_the_division():
    # 621/805 computed as (621 + 0/2) / 805 * 100 and printed with 15 digits.
    assert grim(number("77.1428571428572"), 805, 100).consistent
    assert grim(number("77.1428571428572"), 805, 100).modes == ("float",)
    # Beyond a few units in the last place it is no k/805.
    assert not grim(number("77.1428571428580"), 805, 100).consistent
