"""The kind ``preference`` end to end: the readers' native files in, the workflow's tables,
figures and published check out (issue 36's done-when, on the committed fixtures).

* AlpacaEval 2.0: the annotations of six models (``inputs.alpaca_eval_folder``: real
  preferences) give each model's win rate and SE equal to the published leaderboard
  to 1e-9, the baseline labelled and never ranked, the published check passing;
  with AlpacaEval's stand-in length-control inputs, its GLM's values
  (``lc_reference.csv``, written by AlpacaEval's own code) to 1e-6.
* Arena-Hard: the judgments of five models (``inputs.arena_hard_folder``) give scores
  equal to arena-hard-auto's ``show_result.py`` (``reference_point.csv``): the win rate
  against the baseline to 1e-6 (as a fraction), the Elo to 1e-3 (its solver stops
  at tol 1e-8); its published score and Elo pass the check; configured as
  ``show_result.py`` resamples (``resample: games``, ``win_rate_interval:
  elo_bounds``) the intervals fall within its own seed-to-seed spread
  (``reference_bootstrap.csv``: 20 seeds, min − 2 sd to max + 2 sd); a position-bias
  table; two builds give the same bytes.
* The 58 models of AlpacaEval 2.0 the mirror of tatsu-lab/alpaca_eval holds (skipped
  without it): every win rate and SE equal to the published leaderboard.
"""

import subprocess
from pathlib import Path

import pandas as pd
import pytest
from preference_inputs import (
    ALPACA_BASELINE,
    ARENA_HARD_BASELINE,
    LEADERBOARD,
    STATS,
    alpaca_eval_difficulty,
    alpaca_eval_folder,
    alpaca_eval_gamed,
    arena_hard_folder,
)
from workflow_utils import run_workflow

from rederive.io.names import read_csv

pytestmark = pytest.mark.slow

TOL = 1e-9
TEXT = ("judge", "role", "rank", "tied_with", "lc_glm", "status", "note")
MIRROR = Path("/work/.mirror/tatsu-lab+alpaca_eval/repo")
MIRROR_BOARD = (
    "src/alpaca_eval/leaderboards/data_AlpacaEval_2/weighted_alpaca_eval_gpt4_turbo_leaderboard.csv"
)


def table(workdir: Path, analysis: str, name: str) -> pd.DataFrame:
    return read_csv(workdir / "results" / analysis / name, text=TEXT)


def check_statuses(workdir: Path, analysis: str) -> pd.DataFrame:
    return table(workdir, analysis, "check/published_check.csv")


def assert_win_rates_equal(rates: pd.DataFrame, board: pd.DataFrame, models) -> None:
    rates = rates.set_index("model")
    for model in models:
        for column in ("win_rate", "standard_error", "discrete_win_rate"):
            assert rates.loc[model, column] == pytest.approx(board.loc[model, column], abs=TOL), (
                model,
                column,
            )
        for column in ("n_wins", "n_wins_base", "n_draws", "n_total"):
            assert rates.loc[model, column] == board.loc[model, column], (model, column)


@pytest.fixture(scope="module")
def alpaca(tmp_path_factory):
    root = tmp_path_factory.mktemp("alpaca")
    raw = alpaca_eval_folder(root / "raw")
    analyses = {
        "ae": {
            "kind": "preference",
            "label": "AlpacaEval 2.0 fixture",
            "raw_dir": str(raw),
            "alpaca_eval": {"model_name": "folder"},
            "bootstrap": {"n_boot": 200},
        },
        "ae_lc": {
            "kind": "preference",
            "label": "AlpacaEval 2.0 fixture, stand-in length control",
            "raw_dir": str(raw),
            "alpaca_eval": {"model_name": "folder"},
            "bootstrap": {"n_boot": 200},
            "length_control": {
                "instruction_difficulty": str(alpaca_eval_difficulty(root / "difficulty.csv")),
                "gamed": str(alpaca_eval_gamed()),
            },
        },
    }
    workdir = root / "work"
    workdir.mkdir()
    run_workflow(workdir, {"analyses": analyses, "build": list(analyses)})
    return workdir


def test_alpaca_eval_win_rates_and_se_equal_the_leaderboard(alpaca):
    board = pd.read_csv(STATS / "alpaca_eval" / "leaderboard.csv", index_col=0)
    rates = table(alpaca, "ae", "tables/win_rates.csv")
    assert set(rates["judge"]) == {"weighted_alpaca_eval_gpt4_turbo"}
    assert_win_rates_equal(rates, board, board.index)
    roles = rates.set_index("model")["role"]
    assert roles[ALPACA_BASELINE] == "baseline" and (roles == "baseline").sum() == 1
    assert "NullModel" in roles.index and "example" not in roles.index  # model_name: folder


def test_alpaca_eval_baseline_is_labelled_and_never_ranked(alpaca):
    ranking = table(alpaca, "ae", "tables/ranking.csv")
    assert list(ranking["model"])[-1] == ALPACA_BASELINE
    assert list(ranking["rank"])[-1] == "baseline"
    pairs = table(alpaca, "ae", "tables/pairwise.csv")
    assert ALPACA_BASELINE not in set(pairs["a"]) | set(pairs["b"])
    assert len(pairs) == 10  # the five contestants' pairs
    scores = table(alpaca, "ae", "tables/scores.csv").set_index("model")
    assert scores.loc[ALPACA_BASELINE, "rating"] == pytest.approx(1000)  # the anchor
    assert scores.loc[ALPACA_BASELINE, "role"] == "baseline"


def test_alpaca_eval_published_check_passes(alpaca):
    check = check_statuses(alpaca, "ae")
    cells = check[check["kind"] == "cell"]
    assert not (check["status"] == "FAIL").any(), check[check["status"] == "FAIL"]
    compared = cells[cells["quantity"].isin(["win_rate", "standard_error"])]
    assert len(compared) == 12 and (compared["status"] == "pass").all()
    # Without length-control inputs the LC cells are n/a, saying why.
    lc = cells[cells["quantity"] == "length_controlled_winrate"]
    assert (lc["status"] == "n/a").all()
    assert lc["note"].str.contains("instruction_difficulty is not set").all() and len(lc) == 6
    md = (alpaca / "results" / "ae" / "check" / "published_check.md").read_text()
    assert f"published/{LEADERBOARD}: not compared: mode, avg_length" in md


def test_alpaca_eval_length_control_is_alpaca_evals_glm(alpaca):
    reference = pd.read_csv(STATS / "alpaca_eval" / "lc_reference.csv")
    reference = reference[reference["glm"] == "length_controlled_v1"].set_index("model")
    rates = table(alpaca, "ae_lc", "tables/win_rates.csv").set_index("model")
    for model, row in reference.iterrows():
        got = rates.loc[model]
        assert got["lc_glm"] == "length_controlled_v1"
        assert got["length_controlled_winrate"] == pytest.approx(
            row["length_controlled_winrate"], abs=1e-6
        )
        assert got["lc_standard_error"] == pytest.approx(row["lc_standard_error"], abs=1e-6)
    assert rates.loc[ALPACA_BASELINE, "length_controlled_winrate"] == 50
    # The stand-in difficulties are not AlpacaEval's: the published LC does not follow.
    check = check_statuses(alpaca, "ae_lc")
    lc = check[check["quantity"] == "length_controlled_winrate"].set_index("item")
    assert lc.loc[ALPACA_BASELINE, "status"] == "pass"
    assert (lc.drop(index=ALPACA_BASELINE)["status"] == "FAIL").all()


def test_alpaca_eval_figures_and_quality(alpaca):
    results = alpaca / "results" / "ae"
    for name in ("elo", "win_rates"):
        assert (results / "figures" / f"{name}.png").stat().st_size > 0
    quality = table(alpaca, "ae", "tables/data_quality.csv")
    own = quality[quality["run"].str.contains(ALPACA_BASELINE)]
    assert set(own["reason"]) >= {
        "used",
        "same model on both sides (not a game between two contestants)",
    }
    notes = quality[quality["reason"].str.startswith("note (nothing excluded)")]
    assert notes["reason"].str.contains("its annotations' generator_2 is example").any()
    site = alpaca / "results" / "site" / "ae" / "index.html"
    assert "NullModel" in site.read_text()


@pytest.fixture(scope="module")
def arena_hard(tmp_path_factory):
    root = tmp_path_factory.mktemp("arena_hard")
    raw = arena_hard_folder(root / "raw")
    common = {
        "kind": "preference",
        "raw_dir": str(raw),
        "arena_hard": {"baseline": ARENA_HARD_BASELINE},
    }
    analyses = {
        "ah": {**common, "label": "Arena-Hard fixture", "bootstrap": {"n_boot": 300}},
        "ah_source": {
            **common,
            "label": "Arena-Hard fixture, resampled as show_result.py",
            "resample": "games",
            "win_rate_interval": "elo_bounds",
            "bootstrap": {"n_boot": 1000},
        },
    }
    workdirs = []
    for name in ("one", "two"):
        workdir = root / name
        workdir.mkdir()
        run_workflow(workdir, {"analyses": analyses, "build": list(analyses)})
        workdirs.append(workdir)
    return workdirs


def test_arena_hard_scores_equal_show_result(arena_hard):
    reference = pd.read_csv(STATS / "arena_hard" / "reference_point.csv").set_index("model")
    scores = table(arena_hard[0], "ah", "tables/scores.csv").set_index("model")
    for model, row in reference.iterrows():
        assert scores.loc[model, "win_rate_pct"] / 100 == pytest.approx(
            row["win_rate_pct"] / 100, abs=1e-6
        )
        assert scores.loc[model, "rating"] == pytest.approx(row["elo"], abs=1e-3)
    assert scores.loc[ARENA_HARD_BASELINE, "role"] == "baseline"
    assert "a strong label counted 3 times" in scores["note"].iloc[0]
    check = check_statuses(arena_hard[0], "ah")
    cells = check[check["kind"] == "cell"]
    assert set(cells["quantity"]) == {"score", "elo_score"}
    assert len(cells) == 12 and (cells["status"] == "pass").all()


def test_arena_hard_intervals_within_show_results_noise(arena_hard):
    theirs = pd.read_csv(STATS / "arena_hard" / "reference_bootstrap.csv")
    spread = theirs.groupby("model").agg(["min", "max", "std"])
    scores = table(arena_hard[0], "ah_source", "tables/scores.csv").set_index("model")
    assert set(scores["ci_method"]) == {"game bootstrap, percentile"}
    for model in spread.index.drop(ARENA_HARD_BASELINE):
        for ours, column in (("win_ci_low_pct", "lower_pct"), ("win_ci_high_pct", "upper_pct")):
            band = spread.loc[model, column]
            low, high = band["min"] - 2 * band["std"], band["max"] + 2 * band["std"]
            assert low <= scores.loc[model, ours] <= high, (model, column)
    # The default, prompts resampled and the win rate's own percentiles, is wider.
    prompts = table(arena_hard[0], "ah", "tables/scores.csv").set_index("model")
    width = lambda s: s["win_ci_high_pct"] - s["win_ci_low_pct"]  # noqa: E731
    assert (
        width(prompts).drop(ARENA_HARD_BASELINE) > width(scores).drop(ARENA_HARD_BASELINE)
    ).all()


def test_arena_hard_position_bias_table(arena_hard):
    bias = table(arena_hard[0], "ah", "tables/position_bias.csv")
    (row,) = bias.itertuples(index=False)
    assert row.judge == "ensemble" and row.swapped_pairs == 2500 and row.unpaired_games == 0
    assert row.consistent + row.follows_first + row.follows_second + row.one_tie == 2500
    assert row.follows_position_pct == pytest.approx(
        100 * (row.follows_first + row.follows_second) / 2500
    )


def test_two_builds_give_the_same_bytes(arena_hard):
    one, two = arena_hard
    for analysis in ("ah", "ah_source"):
        for folder in ("tables", "check"):
            left = sorted((one / "results" / analysis / folder).iterdir())
            right = sorted((two / "results" / analysis / folder).iterdir())
            assert [p.name for p in left] == [p.name for p in right]
            for a, b in zip(left, right, strict=True):
                if a.suffix in (".csv", ".tex"):
                    assert a.read_bytes() == b.read_bytes(), a


@pytest.mark.skipif(not MIRROR.is_dir(), reason="no mirror of tatsu-lab/alpaca_eval here")
def test_alpaca_eval_2_58_models_from_the_mirror(tmp_path):
    """Every AlpacaEval 2.0 annotations.json the mirror holds (files of 4 MiB and more
    are absent from it), read natively: 57 models and the baseline."""
    git = ["git", f"--git-dir={MIRROR}"]
    listing = subprocess.run(
        [*git, "ls-tree", "-r", "HEAD", "results/"], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    raw = tmp_path / "raw"
    models = []
    for line in listing:
        path = line.split("\t")[1]
        parts = path.split("/")
        # results/<model>/<annotator>/annotations.json; the repository also holds a
        # copy of two vicuna files one folder deeper, which would be the same
        # judgments twice (the warehouse refuses them).
        if len(parts) != 4 or parts[2:] != ["weighted_alpaca_eval_gpt4_turbo", "annotations.json"]:
            continue
        blob = subprocess.run([*git, "show", f"HEAD:{path}"], capture_output=True)
        if blob.returncode != 0:
            continue  # a file of 4 MiB or more: listed, but not in the snapshot
        target = raw / "alpaca_eval" / Path(*parts[1:])
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(blob.stdout)
        models.append(parts[1])
    assert len(models) == 58 and ALPACA_BASELINE in models
    board_text = subprocess.run(
        [*git, "show", f"HEAD:{MIRROR_BOARD}"], capture_output=True, text=True, check=True
    ).stdout
    (raw / "published").mkdir()
    (raw / "published" / LEADERBOARD).write_text(board_text)
    analyses = {
        "ae58": {
            "kind": "preference",
            "raw_dir": str(raw),
            "alpaca_eval": {"model_name": "folder"},
            "bootstrap": {"n_boot": 100},
        }
    }
    workdir = tmp_path / "work"
    workdir.mkdir()
    run_workflow(workdir, {"analyses": analyses, "build": ["ae58"]})
    board = pd.read_csv(raw / "published" / LEADERBOARD, index_col=0)
    rates = table(workdir, "ae58", "tables/win_rates.csv")
    assert len(rates) == 58
    # text_davinci_003 has annotations but no row on the AlpacaEval 2.0 leaderboard.
    published = [m for m in models if m in board.index]
    assert sorted(set(models) - set(published)) == ["text_davinci_003"]
    assert_win_rates_equal(rates, board, published)
    check = check_statuses(workdir, "ae58")
    assert not (check["status"] == "FAIL").any()
    passed = check[(check["kind"] == "cell") & (check["status"] == "pass")]
    assert set(passed["item"]) == set(published)
    unlisted = check[check["note"] == "not in the published table"]
    assert list(unlisted["item"]) == ["text_davinci_003"]
    assert list(unlisted["status"]) == ["n/a"]
