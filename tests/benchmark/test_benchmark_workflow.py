"""The benchmark study end to end through the real Snakefile, on a ChemBench slice
written as lm-evaluation-harness folders (3 models) and Inspect logs (2 models)."""

import shutil
from pathlib import Path

import pandas as pd
import pytest
from benchmark_formats import chembench_slice, write_inspect, write_lm_eval
from workflow_utils import run_workflow

MODELS = ["o1", "GPT-4o", "Claude-3.5 (Sonnet)", "Gemma-1.1-7B-it", "Galatica-120b"]


def _raw(tmp_path, data):
    raw = tmp_path / "raw"
    write_lm_eval(raw / "lm_eval", data[data["model"].isin(MODELS[:3])])
    for model in MODELS[3:]:
        write_inspect(raw / "inspect" / f"{model}.eval", data, model=model, task="chembench")
    published = data.groupby("model")["correct"].mean().rename("score")
    (raw / "published").mkdir()
    published.to_csv(raw / "published" / "slice_scores.csv", lineterminator="\n")
    return raw


def _overrides(raw, **extra):
    settings = {"raw_dir": str(raw), "bootstrap": {"n_boot": 200}, "irt": {"epochs": 100}}
    settings.update(extra)
    return {"build": ["benchmark"], "analyses": {"benchmark": settings}}


@pytest.mark.slow
def test_workflow_on_lm_eval_and_inspect(tmp_path):
    data = chembench_slice(40, MODELS)
    raw = _raw(tmp_path, data)
    run_workflow(tmp_path, _overrides(raw))
    tables = tmp_path / "results" / "benchmark" / "tables"
    accuracy = pd.read_csv(tables / "accuracy.csv").set_index("model")
    expected = data.groupby("model")["correct"].mean()
    assert sorted(accuracy.index) == sorted(MODELS)
    assert (accuracy.loc[expected.index, "accuracy"] - expected).abs().max() < 1e-9
    check = pd.read_csv(tmp_path / "results" / "benchmark" / "check" / "published_check.csv")
    # The power row may fail by design: 40 items cannot separate the top two models.
    assert (check.loc[check["kind"] != "power", "status"] == "pass").all()
    assert (check["kind"] == "power").sum() == 1
    assert (check["table"] == "slice_scores").sum() == 5
    # lm-eval's results_*.json and Inspect's header.json numbers, recomputed.
    assert (check["table"] == "harness-reported").sum() == 5
    quality = pd.read_csv(tables / "data_quality.csv")
    assert sorted(quality["run"].unique()) == sorted(
        [
            "lm_eval-o1",
            "lm_eval-GPT-4o",
            "lm_eval-Claude-3.5__Sonnet",
            "inspect-Gemma-1.1-7B-it",
            "inspect-Galatica-120b",
        ]
    )
    assert quality.loc[quality["reason"] == "used", "rows"].sum() == len(data)
    pairs = pd.read_csv(tables / "pairwise.csv")
    assert len(pairs) == 10 and pairs["q_value"].between(0, 1).all()
    ranking = pd.read_csv(tables / "ranking.csv")
    assert ranking["model"].iloc[-1] == "Galatica-120b"
    failed = pd.read_csv(tables / "failed_by_all.csv")
    truly = data.groupby("item_id")["correct"].max()
    assert sorted(failed["item_id"].astype(str)) == sorted(truly[truly == 0].index)
    ability = pd.read_csv(tables / "irt_ability.csv")
    assert ability["model"].iloc[0] in {"o1", "Claude-3.5 (Sonnet)", "GPT-4o"}
    analysis = pd.read_csv(tables / "item_analysis.csv", dtype={"item_id": str})
    assert len(analysis) == data["item_id"].nunique()
    assert sorted(analysis.loc[analysis["solved_by_none"], "item_id"]) == sorted(
        failed["item_id"].astype(str)
    )
    suspects = pd.read_csv(tables / "suspect_items.csv")
    assert len(suspects) == (analysis["n_flags"] > 0).sum()
    assert (tables / "suspect_items.md").read_text().startswith("# Suspect items")
    for name in (
        "accuracy",
        "pairwise_q",
        "irt_difficulty",
        "irt_ability",
        "failure_dendrogram",
        "suspect_items",
    ):
        assert (
            tmp_path / "results" / "benchmark" / "figures" / f"{name}.png"
        ).stat().st_size > 1000


@pytest.mark.slow
def test_workflow_refuses_different_item_sets(tmp_path):
    data = chembench_slice(20, MODELS)
    data = data[~((data["model"] == "Galatica-120b") & (data["item_id"] == "7"))]
    raw = _raw(tmp_path, data)
    target = ["results/benchmark/benchmark.duckdb"]
    proc = run_workflow(tmp_path, _overrides(raw), targets=target, check=False)
    assert proc.returncode != 0
    assert "not graded on the same items: 19 of 20 items" in proc.stderr
    assert "Traceback" not in proc.stderr.split("rederive: input error")[-1]
    run_workflow(tmp_path, _overrides(raw, item_sets="intersection"), targets=target)


@pytest.mark.slow
def test_workflow_on_real_inspect_logs(tmp_path):
    """Logs written by inspect-ai itself: a .json log (0.3.285, reducer mean) and a
    deflate .eval (0.3.205, reducer at_least_1); Inspect's own accuracies must match."""
    fixtures = Path(__file__).parent / "fixtures" / "inspect"
    raw = tmp_path / "raw"
    (raw / "inspect").mkdir(parents=True)
    shutil.copy(fixtures / "0.3.285" / "mean.json", raw / "inspect" / "alpha.json")
    shutil.copy(fixtures / "0.3.205" / "at_least_1.eval", raw / "inspect" / "beta.eval")
    targets = [
        "results/benchmark/tables/accuracy.csv",
        "results/benchmark/tables/data_quality.csv",
        "results/benchmark/check/published_check.csv",
    ]
    run_workflow(tmp_path, _overrides(raw, inspect={"scorer": "match"}), targets=targets)
    results = tmp_path / "results" / "benchmark"
    accuracy = pd.read_csv(results / "tables" / "accuracy.csv").set_index("model")["accuracy"]
    # alpha: q1 right twice, q2 never, q3 once -> mean 0.5; beta: at_least_1 -> 2/3.
    assert accuracy.to_dict() == pytest.approx({"mockllm/alpha": 0.5, "mockllm/beta": 2 / 3})
    check = pd.read_csv(results / "check" / "published_check.csv")
    assert (check["table"] == "harness-reported").sum() == 2
    # The power row fails by design: 3 items cannot separate two models.
    assert (check.loc[check["kind"] != "power", "status"] == "pass").all()
    quality = pd.read_csv(results / "tables" / "data_quality.csv")
    assert quality.loc[quality["reason"] == "used", "rows"].tolist() == [6, 6]
