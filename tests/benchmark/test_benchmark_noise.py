"""noise.csv through the real Snakefile: Inspect (2 epochs) and evalplus (3 samples)
fixtures written by the tools have within-item parts; single-epoch runs say why not."""

import shutil

import numpy as np
import pandas as pd
import pytest
from benchmark_formats import chembench_slice, write_lm_eval
from workflow_utils import REPO, run_workflow

from rederive.io.names import read_csv
from rederive.stats.noise import ONE_EPOCH, ONE_EPOCH_PAIR
from rederive.studies.benchmark.noise import epochs_used

FIXTURES = REPO / "tests" / "benchmark" / "fixtures"


def _noise(tmp_path, raw, **settings) -> pd.DataFrame:
    overrides = {
        "build": ["bench"],
        "analyses": {"bench": {"kind": "benchmark", "raw_dir": str(raw), **settings}},
    }
    run_workflow(tmp_path, overrides, targets=["results/bench/tables/noise.csv"])
    table = read_csv(
        tmp_path / "results" / "bench" / "tables" / "noise.csv", text=["model_b", "within_note"]
    )
    # An empty cell reads as missing; the table writes "" for "no reason, estimated".
    return table.fillna({"model_b": "", "within_note": ""})


@pytest.mark.slow
def test_inspect_epochs_give_within_parts(tmp_path):
    raw = tmp_path / "raw" / "inspect"
    raw.mkdir(parents=True)
    shutil.copy(FIXTURES / "inspect" / "0.3.285" / "mean.eval", raw)
    table = _noise(tmp_path, tmp_path / "raw", inspect={"scorer": "match"})
    row = table.iloc[0]
    assert list(table["level"]) == ["model"] and row["mean_epochs"] == 2
    assert np.isfinite(row["var_within"]) and row["within_note"] == ""
    assert row["var_mean_between"] + row["var_mean_within"] == pytest.approx(
        row["se_total"] ** 2, rel=1e-4
    )


@pytest.mark.slow
def test_evalplus_samples_give_within_parts_for_models_and_pair(tmp_path):
    raw = tmp_path / "raw" / "evalplus"
    shutil.copytree(FIXTURES / "evalplus" / "0.4.0.dev44", raw)
    table = _noise(tmp_path, tmp_path / "raw", evalplus={"tests": ["base"]})
    assert list(table["level"]) == ["model", "model", "pair"]
    assert (table["mean_epochs"] == 3).all() and (table["n_items_repeated"] == 4).all()
    assert np.isfinite(table["var_within"]).all() and (table["within_note"] == "").all()


@pytest.mark.slow
def test_single_epoch_runs_have_a_table_that_says_so(tmp_path):
    data = chembench_slice(30, ["o1", "GPT-4o"])
    write_lm_eval(tmp_path / "raw" / "lm_eval", data)
    table = _noise(tmp_path, tmp_path / "raw")
    assert len(table) == 3 and table["var_within"].isna().all()
    assert list(table["within_note"]) == [ONE_EPOCH, ONE_EPOCH, ONE_EPOCH_PAIR]
    accuracy = data.groupby("model")["correct"].agg(["mean", "std", "size"])
    models = table[table["level"] == "model"].set_index("model")
    se = accuracy["std"] / np.sqrt(accuracy["size"])
    assert np.allclose(models.loc[se.index, "se_total"], se, rtol=1e-5)


def test_epochs_used_keeps_only_the_scored_model_items():
    responses = pd.DataFrame(
        {
            "model": ["a", "a", "a", "b"],
            "item_key": ["t:1", "t:1", "t:2", "t:1"],
            "epoch": [1, 2, 1, 1],
            "correct": [1.0, 0.0, 1.0, 1.0],
        }
    )
    scores = pd.DataFrame({"model": ["a", "b"], "item_key": ["t:1", "t:1"]})
    used = epochs_used(responses, scores)
    assert list(used.columns) == ["model", "item", "epoch", "correct"]
    assert sorted(zip(used["model"], used["item"], used["epoch"], strict=True)) == [
        ("a", "t:1", 1),
        ("a", "t:1", 2),
        ("b", "t:1", 1),
    ]
