"""The lm-eval reader on files written by the real lm-evaluation-harness.

tests/benchmark/fixtures/lm_eval/ was made by make_fixtures.sh with lm_eval 0.4.13
(VERSION), its ``dummy`` model and two local JSONL tasks: ``tiny_mc``
(multiple_choice, scored by ``acc``) and ``tiny_gen`` (generate_until, scored by
``exact_match``; the dummy model always answers "lol"). ``rerun/dummy-a`` holds two
runs of one model (seeds 1 and 3) written into the same folder.
"""

import json
from pathlib import Path

import pandas as pd
import pytest

from rederive.errors import InputError
from rederive.io.lm_eval import read_lm_eval_model_dir, reported_scores
from rederive.studies.benchmark.accuracy import by_task, headline_aggregate, overall
from rederive.studies.benchmark.warehouse import build_tables

FIXTURES = Path(__file__).parent / "fixtures" / "lm_eval"
METRICS = ["acc", "exact_match"]


def _folders():
    return sorted(p for p in (FIXTURES / "out").iterdir() if p.is_dir())


def _results(folder: Path) -> dict:
    (path,) = folder.glob("results_*.json")
    return json.loads(path.read_text())


def test_fixtures_come_from_the_recorded_release():
    assert (FIXTURES / "VERSION").read_text().strip() == "lm_eval 0.4.13"
    for folder in _folders():
        assert _results(folder)["lm_eval_version"] == "0.4.13"


@pytest.mark.parametrize("folder", _folders(), ids=lambda p: p.name)
def test_per_task_accuracy_equals_the_harness_number(folder):
    frame = read_lm_eval_model_dir(folder, metrics=METRICS)
    results = _results(folder)["results"]
    assert set(frame["task"]) == {"tiny_mc", "tiny_gen"}
    assert frame.groupby("task")["metric"].unique().map(list).to_dict() == {
        "tiny_gen": ["exact_match"],
        "tiny_mc": ["acc"],
    }
    ours = frame.groupby("task")["correct"].mean()
    assert ours["tiny_mc"] == pytest.approx(results["tiny_mc"]["acc,none"], abs=1e-12)
    assert ours["tiny_gen"] == pytest.approx(results["tiny_gen"]["exact_match,none"], abs=1e-12)
    # The dummy model answers "lol": exactly the items whose answer is "lol" are right.
    gen = frame[frame["task"] == "tiny_gen"].set_index("item_id")
    (samples,) = folder.glob("samples_tiny_gen_*.jsonl")
    targets = {
        str(r["doc_id"]): r["target"] for r in map(json.loads, samples.read_text().splitlines())
    }
    assert set(gen["response"]) == {"lol"}
    assert gen["correct"].to_dict() == {k: float(v == "lol") for k, v in targets.items()}
    assert set(reported_scores(folder, filter_name=None, metrics=METRICS)["metric"]) == {
        "acc",
        "exact_match",
    }


def test_acc_only_is_refused_on_a_generation_task_naming_the_metric():
    with pytest.raises(InputError) as info:
        read_lm_eval_model_dir(_folders()[0], metrics=["acc"])
    assert "samples_tiny_gen_" in info.value.file and "exact_match" in info.value.message


def test_two_runs_in_one_folder_are_refused_naming_both():
    folder = FIXTURES / "rerun" / "dummy-a"
    samples = sorted(p.name for p in folder.glob("samples_*.jsonl"))
    results = sorted(p.name for p in folder.glob("results_*.json"))
    assert len(samples) == 2 and len(results) == 2
    with pytest.raises(InputError) as info:
        read_lm_eval_model_dir(folder, metrics=METRICS)
    message = info.value.message
    assert "task 'tiny_mc' was run 2 times" in message
    assert all(name in message for name in samples + results)
    assert "random_seed=1" in message and "random_seed=3" in message
    assert "not averaged as epochs" in message


def test_headline_names_the_pooled_metrics_and_gives_the_task_mean():
    frames = [
        read_lm_eval_model_dir(f, metrics=METRICS).assign(run=f"lm_eval-{f.name}", format="lm_eval")
        for f in _folders()
    ]
    tables = build_tables(pd.concat(frames, ignore_index=True), None, "require_equal")
    assert tables["tasks"].set_index("task")["metric"].to_dict() == {
        "tiny_gen": "exact_match",
        "tiny_mc": "acc",
    }
    items = tables["items"]
    matrix = tables["scores"].pivot(index="item_key", columns="model", values="score")
    matrix = matrix.reindex(index=items["item_key"], columns=sorted(matrix.columns))
    kwargs = dict(n_boot=200, seed=1, level=0.95, cluster_by="none")
    per_task = by_task(matrix, items, tables["tasks"], **kwargs)
    table = headline_aggregate(overall(matrix, items, **kwargs), per_task).set_index("model")
    for folder in _folders():
        results = _results(folder)["results"]
        model = _results(folder)["model_name"]
        row = per_task[per_task["model"] == model].set_index("task")
        assert row.loc["tiny_mc", "accuracy"] == pytest.approx(results["tiny_mc"]["acc,none"])
        assert row.loc["tiny_gen", "metric"] == "exact_match"
        micro = (
            20 * results["tiny_mc"]["acc,none"] + 10 * results["tiny_gen"]["exact_match,none"]
        ) / 30
        macro = (results["tiny_mc"]["acc,none"] + results["tiny_gen"]["exact_match,none"]) / 2
        assert table.loc[model, "accuracy"] == pytest.approx(micro)
        assert table.loc[model, "macro_accuracy"] == pytest.approx(macro)
    assert (table["metrics"] == "acc+exact_match").all() and (table["n_tasks"] == 2).all()
    assert (
        table["aggregate"]
        == "item-weighted mean over 2 tasks; pools metrics acc and exact_match (see accuracy_by_task.csv)"
    ).all()
