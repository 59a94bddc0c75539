"""AlpacaEval, the real case of issue 37, through the real Snakefile.

Fixture: ``fixtures/alpaca_eval/`` (tatsu-lab/alpaca_eval annotations converted to
the long format, ``correct = preference - 1``; README there). AlpacaEval 2's
baseline gpt4_1106_preview is judged against itself: 0.5 on every item. AlpacaEval
1 has scattered missing grades, and falcon-7b-instruct's annotations are
falcon-40b-instruct's file. The published scores are the leaderboards' win rates
as fractions.
"""

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from workflow_utils import run_workflow

from rederive.stats.fractional import ScoreRule
from rederive.studies.benchmark import irt as bench_irt
from rederive.studies.benchmark import similarity as bench_similarity

FIXTURE = Path(__file__).parent / "fixtures" / "alpaca_eval"
BASELINE = "gpt4_1106_preview"


def long_rows(ae: str) -> pd.DataFrame:
    return pd.concat(
        [pd.read_csv(p) for p in sorted((FIXTURE / ae / "long").glob("*.csv"))], ignore_index=True
    )


def leaderboard(ae: str) -> pd.DataFrame:
    return pd.read_csv(FIXTURE / f"{ae}_leaderboard.csv", index_col=0)


def build(workdir: Path, ae: str, long: Path | None = None, **settings) -> Path:
    """Build analysis ``ae`` from the fixture (or the long files in ``long``);
    returns results/<ae>/."""
    raw = workdir / "raw" / ae
    shutil.copytree(long or FIXTURE / ae / "long", raw / "long")
    (raw / "published").mkdir()
    # The leaderboard's win rate in percent, as a fraction (the check's unit).
    scores = (leaderboard(ae)["win_rate"] / 100).rename("score").rename_axis("model")
    scores.to_csv(raw / "published" / "leaderboard.csv", lineterminator="\n")
    options = {
        "kind": "benchmark",
        "label": f"AlpacaEval {ae[-1]} (real data)",
        "raw_dir": str(raw),
        "bootstrap": {"n_boot": 200},
        "irt": {"epochs": 300},
        **settings,
    }
    run_workflow(workdir, {"build": [ae], "analyses": {ae: options}})
    return workdir / "results" / ae


@pytest.fixture(scope="module")
def ae2(tmp_path_factory):
    return build(tmp_path_factory.mktemp("ae2"), "ae2", item_sets="intersection")


@pytest.fixture(scope="module")
def ae1(tmp_path_factory):
    return build(tmp_path_factory.mktemp("ae1"), "ae1", item_sets="intersection")


def every_text(folder: Path) -> str:
    return "\n".join(
        p.read_text() for sub in ("tables", "check") for p in sorted((folder / sub).glob("*.*"))
    )


# --------------------------------------------------------------------------------------
# AlpacaEval 2: the baseline tied on every item, fractional preferences
# --------------------------------------------------------------------------------------


@pytest.mark.slow
def test_tied_baseline_has_a_finite_ability_named_no_variation(ae2):
    ability = pd.read_csv(ae2 / "tables" / "irt_ability.csv").set_index("model")
    row = ability.loc[BASELINE]
    assert np.isfinite(row["ability_ml"]) and pd.notna(row["rank"])
    assert row["ability_note"].startswith("no variation: every score 0.5 (802 items)")
    # Never a perfect score, never an infinite ability, anywhere.
    text = every_text(ae2)
    assert "perfect score (" not in text and "inf" not in ability.to_csv().replace("info", "")
    # Its ability is where its expected score is one half: above every model that
    # loses to the baseline on most items.
    assert (ability.drop(index=BASELINE)["ability_ml"] < row["ability_ml"]).all()


@pytest.mark.slow
def test_fractional_rule_is_named_in_the_tables(ae2):
    rows = long_rows("ae2")
    # The items every model was judged on (item_sets: intersection).
    judged = rows.dropna(subset=["correct"]).pivot(
        index="item_id", columns="model", values="correct"
    )
    shared = judged.dropna()
    n_fractional = int(((shared > 0) & (shared < 1)).to_numpy().sum())
    fit = pd.read_csv(ae2 / "tables" / "irt_fit.csv").iloc[0]
    assert fit["fractional_scores"].startswith("fractional scores taken as they are")
    assert fit["n_cells_fractional"] == n_fractional
    assert fit["n_cells_dichotomised"] == 0 and fit["n_cells_tied_left_out"] == 0
    items = pd.read_csv(ae2 / "tables" / "item_analysis.csv")
    assert (items["fractional_scores"] == ScoreRule().label()).all()
    # n_correct is the sum of the scores (a draw is one half), not a count at >= 0.5.
    np.testing.assert_allclose(
        np.sort(items["n_correct"].to_numpy()), np.sort(shared.sum(axis=1).to_numpy()), atol=1e-3
    )
    leaves = pd.read_csv(ae2 / "tables" / "failure_leaves.csv").set_index("model")
    failed = (shared < 0.5).sum(axis=0)
    assert (leaves["n_failed"] == failed.reindex(leaves.index)).all()
    assert leaves.loc[BASELINE, "n_failed"] == 0
    assert leaves.loc[BASELINE, "note"].startswith("no variation: every score 0.5")
    assert (leaves["failure_set"] == "score is below 0.5").all()
    assert (
        "Scores: fractional scores taken as they are"
        in (ae2 / "tables" / "suspect_items.md").read_text()
    )


@pytest.mark.slow
def test_rules_are_named_in_the_captions_on_the_site(ae2):
    page = (ae2.parent / "site" / "ae2" / "index.html").read_text()
    assert "(fractional_scores: fractional)" in page  # IRT and item-analysis captions
    assert "A model fails an item when its score is below 0.5" in page  # failure sets
    assert "Missing grades (item_sets: intersection) are excluded" in page


@pytest.mark.slow
def test_basis_is_labelled_and_the_check_compares_own_items(ae2):
    board = leaderboard("ae2")
    ranking = pd.read_csv(ae2 / "tables" / "ranking.csv").set_index("model")
    assert (ranking["n_items"] == 802).all()
    assert ranking["basis"].str.startswith("the 802 items every model was graded on").all()
    assert (ranking["n_items_own"] == board["n_total"].reindex(ranking.index)).all()
    accuracy = pd.read_csv(ae2 / "tables" / "accuracy.csv").set_index("model")
    expected = board["win_rate"].reindex(accuracy.index) / 100
    assert (accuracy["accuracy_own"] - expected).abs().max() < 1e-12
    check = pd.read_csv(ae2 / "check" / "published_check.csv")
    cells = check[check["table"] == "leaderboard"]
    assert len(cells) == 6 and (cells["status"] == "pass").all()
    assert cells["note"].str.contains("over all .* items the model answered").all()


# --------------------------------------------------------------------------------------
# AlpacaEval 1: scattered missing grades, a copied run
# --------------------------------------------------------------------------------------


@pytest.mark.slow
def test_copied_run_is_a_data_quality_note_naming_both(ae1):
    quality = pd.read_csv(ae1 / "tables" / "data_quality.csv")
    notes = quality[quality["reason"].str.startswith("note (nothing excluded)")]
    assert len(notes) == 2 and (notes["rows"] == 0).all()
    for reason in notes["reason"]:
        assert "falcon-40b-instruct" in reason and "falcon-7b-instruct" in reason
        assert "identical per-item results" in reason and "805 items" in reason
    # Every run still reconciles: read = used + excluded.
    per_run = quality.groupby("run").agg(read=("rows_read", "first"), rows=("rows", "sum"))
    assert (per_run["read"] == per_run["rows"]).all()
    assert "one run under two names?" in (ae1 / "check" / "published_check.md").read_text()


@pytest.mark.slow
def test_headline_and_check_bases_are_both_shown(ae1):
    board = leaderboard("ae1")
    rows = long_rows("ae1")
    graded = rows.dropna(subset=["correct"])
    n_shared = int((graded.groupby("item_id")["model"].nunique() == rows["model"].nunique()).sum())
    accuracy = pd.read_csv(ae1 / "tables" / "accuracy.csv").set_index("model")
    assert (accuracy["n_items"] == n_shared).all() and n_shared < 805
    assert (accuracy["n_items_own"] == board["n_total"].reindex(accuracy.index)).all()
    own = board["win_rate"].reindex(accuracy.index) / 100
    assert (accuracy["accuracy_own"] - own).abs().max() < 1e-12
    # The headline moved off the leaderboard; the label says why.
    assert (accuracy["accuracy"] - own).abs().max() > 1e-3
    assert accuracy["basis"].str.contains(f"the {n_shared} items every model was graded on").all()
    check = pd.read_csv(ae1 / "check" / "published_check.csv")
    cells = check[check["table"] == "leaderboard"]
    assert len(cells) == 8 and (cells["status"] == "pass").all()
    text = (ae1 / "check" / "published_check.md").read_text()
    assert "is not the published quantity and is not compared; it is labelled there" in text
    tex = (ae1 / "tables" / "ranking.tex").read_text()
    assert f"Accuracy over the {n_shared} items every model was graded on" in tex


# --------------------------------------------------------------------------------------
# item_sets: zero, a threshold: smaller cuts, and the rule scripts directly
# --------------------------------------------------------------------------------------


@pytest.mark.slow
def test_missing_grades_counted_as_zero(tmp_path):
    models = ["ghost-7b-alpha", "gpt35_turbo_instruct", "phi-2", "alpaca-7b"]
    cut = tmp_path / "long"
    rows = long_rows("ae1")
    rows = rows[rows["model"].isin(models) & (rows["item_id"] < 300)]
    cut.mkdir()
    for model, part in rows.groupby("model"):
        part.to_csv(cut / f"{model}.csv", index=False, lineterminator="\n")
    missing = rows["correct"].isna().groupby(rows["model"]).sum()
    out = build(tmp_path / "work", "ae1", long=cut, item_sets="zero")
    accuracy = pd.read_csv(out / "tables" / "accuracy.csv").set_index("model")
    assert (accuracy["n_items"] == 300).all()
    # Every missing grade is a 0 over all 300 items; the own-items score beside it.
    sums = rows.groupby("model")["correct"].sum()
    np.testing.assert_allclose(accuracy["accuracy"], (sums / 300).reindex(accuracy.index))
    assert (accuracy["n_items_own"] == (300 - missing).reindex(accuracy.index)).all()
    assert accuracy["basis"].str.contains("a missing grade counted as 0").all()
    overlap = pd.read_csv(out / "tables" / "item_overlap.csv").set_index("model")
    assert (overlap["n_missing_as_zero"] == missing.reindex(overlap.index)).all()
    quality = pd.read_csv(out / "tables" / "data_quality.csv")
    zero_notes = quality[quality["reason"].str.contains("counted as 0 \\(item_sets: zero\\)")]
    assert len(zero_notes) == (missing > 0).sum()
    # noise.csv's variance is that of the score shown: the zeros are epochs too.
    noise = pd.read_csv(out / "tables" / "noise.csv")
    per_model = noise[noise["level"] == "model"].set_index("model")
    assert (per_model["n_items"] == 300).all()
    np.testing.assert_allclose(
        per_model["estimate"], accuracy["accuracy"].reindex(per_model.index), atol=1e-6
    )
    # The check compares the score with the zeros (the leaderboard, over 805 items,
    # is another quantity here: these are the first 300 items).
    check = pd.read_csv(out / "check" / "published_check.csv")
    cells = check[check["table"] == "leaderboard"]
    assert cells["note"].str.contains("item_sets: zero").sum() == (missing > 0).sum()
    np.testing.assert_allclose(
        cells.set_index("item")["ours"].astype(float).reindex(accuracy.index),
        accuracy["accuracy"],
        atol=1e-6,  # the check's CSV prints six significant digits
    )


def _matrix(ae: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    rows = long_rows(ae).dropna(subset=["correct"])
    rows["item_key"] = "alpaca_eval:" + rows["item_id"].astype(str)
    matrix = rows.pivot(index="item_key", columns="model", values="correct").dropna()
    items = pd.DataFrame(
        {
            "item_key": matrix.index,
            "task": "alpaca_eval",
            "item_id": matrix.index.str.split(":").str[1],
            "category": "alpaca_eval",
            "group": pd.NA,
        }
    )
    return matrix, items


def test_threshold_leaves_the_tied_baseline_undefined_never_perfect():
    matrix, items = _matrix("ae2")
    settings = dict(epochs=200, lr=0.02, priors="hierarchical", seed=1, n_boot=50, level=0.95)
    for ties in ("excluded", "correct"):
        rule = ScoreRule(method="threshold", ties=ties)
        ability, _, summary = bench_irt.fit(matrix, items, cluster_by="none", rule=rule, **settings)
        row = ability.set_index("model").loc[BASELINE]
        assert np.isnan(row["ability_ml"]) and pd.isna(row["rank"])
        assert row["ability_note"].startswith("no variation: every score 0.5")
        assert "perfect score (" not in row["ability_note"] and "undefined" in row["ability_note"]
        fit = summary.iloc[0]
        assert fit["fractional_scores"].startswith("fractional scores dichotomised")
        tied = int((matrix.to_numpy() == 0.5).sum())
        if ties == "excluded":
            assert fit["n_cells_tied_left_out"] == tied
            assert fit["n_models"] == matrix.shape[1] - 1  # the baseline has no 0/1 outcome
        else:
            assert fit["n_cells_tied_left_out"] == 0


def test_failure_sets_under_ties_incorrect_make_the_baseline_fail_everything():
    matrix, items = _matrix("ae2")
    rule = ScoreRule(ties="incorrect")
    out = bench_similarity.analyse(matrix, items, linkage="average", n_extreme_pairs=2, rule=rule)
    leaves = out["leaves"].set_index("model")
    assert leaves.loc[BASELINE, "n_failed"] == len(matrix)
    assert "failure set is every item" in leaves.loc[BASELINE, "note"]
    assert (leaves["failure_set"] == "score is below or equal to 0.5").all()


def test_item_analysis_under_a_threshold_leaves_the_tied_baseline_out():
    from rederive.studies.benchmark.items import analyse

    matrix, items = _matrix("ae2")
    settings = {"min_models": 3, "n_listed": 5}
    every, _ = analyse(matrix, items, None, settings, ScoreRule(method="threshold"))
    # Every tie (0.5) is left out: the baseline's 802 and the other models' draws.
    expected = (matrix != 0.5).sum(axis=1).to_numpy()
    assert (every["n_models"].to_numpy() == expected).all() and expected.max() == 5
    assert (every["fractional_scores"] == "threshold 0.5 (ties: excluded)").all()
    fractional, _ = analyse(matrix, items, None, settings, ScoreRule())
    assert (fractional["n_models"] == matrix.shape[1]).all()
    np.testing.assert_allclose(fractional["n_correct"], matrix.sum(axis=1).to_numpy())
