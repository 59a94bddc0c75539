"""The lm-eval family: the Open LLM Leaderboard's acc_norm shape, its ``.json`` samples
files, lmms-eval's date-first names, and the default metric precedence.

fixtures/lm_eval_family/leaderboard/ was written by lm_eval 0.4.13 (make_fixtures.sh):
the dummy model on ``leaderboard_tiny_mc`` (multiple_choice, metric_list acc_norm only,
as the leaderboard's bbh, gpqa and musr) and ``tiny_gen`` (exact_match).
"""

import json
import shutil
from pathlib import Path

import pytest

from rederive.io import lm_eval as reader
from rederive.io.formats import lm_eval

FIXTURES = Path(__file__).parent / "fixtures" / "lm_eval_family" / "leaderboard"
FOLDERS = sorted(p for p in FIXTURES.iterdir() if p.is_dir())
PARAMS = {"lm_eval": {"filter": None, "metrics": reader.DEFAULT_METRICS}}


def _results(folder):
    (path,) = folder.glob("*results*.json")
    return json.loads(path.read_text())["results"]


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.name)
def test_default_metrics_score_acc_norm_tasks_as_the_harness(folder):
    frame = lm_eval.read(folder, params=PARAMS, accounting=None)
    metrics = frame.groupby("task")["metric"].unique().map(list).to_dict()
    assert metrics == {"leaderboard_tiny_mc": ["acc_norm"], "tiny_gen": ["exact_match"]}
    results = _results(folder)
    ours = frame.groupby("task")["correct"].mean()
    assert ours["leaderboard_tiny_mc"] == pytest.approx(
        results["leaderboard_tiny_mc"]["acc_norm,none"], abs=1e-12
    )
    reported = lm_eval.reported(folder, params=PARAMS).set_index("task")
    assert reported.loc["leaderboard_tiny_mc", "metric"] == "acc_norm"
    assert reported.loc["tiny_gen", "value"] == pytest.approx(ours["tiny_gen"], abs=1e-12)


def test_the_old_acc_exact_match_default_refuses_acc_norm_tasks():
    with pytest.raises(Exception, match="none of the configured metrics"):
        reader.read_lm_eval_model_dir(FOLDERS[0], metrics=["acc", "exact_match"])


def test_acc_comes_before_acc_norm_when_both_are_logged():
    assert reader.DEFAULT_METRICS.index("acc") < reader.DEFAULT_METRICS.index("acc_norm")


def _renamed(tmp_path, folder, rename):
    target = tmp_path / folder.name
    target.mkdir()
    for path in folder.iterdir():
        shutil.copy(path, target / rename(path.name))
    return target


def test_leaderboard_json_samples_are_json_lines(tmp_path):
    # lm-eval <= 0.4.2 (and so the leaderboard's details) wrote the same lines under
    # .json: commit 3850e21a (PR #1930) changed only the extension.
    folder = _renamed(tmp_path, FOLDERS[0], lambda n: n.replace(".jsonl", ".json"))
    assert any(
        p.name.startswith("samples_leaderboard_") and p.suffix == ".json" for p in folder.iterdir()
    )
    assert lm_eval.detect(folder)
    assert lm_eval.find_runs(tmp_path) == [(folder.name, folder)]
    ours = lm_eval.read(folder, params=PARAMS, accounting=None)
    assert ours.drop(columns="source_file").equals(
        lm_eval.read(FOLDERS[0], params=PARAMS, accounting=None).drop(columns="source_file")
    )


def test_lmms_eval_names_put_the_datetime_first(tmp_path):
    # lmms_eval/loggers/evaluation_tracker.py: <YYYYMMDD_HHMMSS>_results.json and
    # <YYYYMMDD_HHMMSS>_samples_<task>.jsonl.
    def lmms(name):
        if name.startswith("results_"):
            return "20261203_110517_results.json"
        task = reader.samples_match(name)["task"]
        return f"20261203_110517_samples_{task}.jsonl"

    folder = _renamed(tmp_path, FOLDERS[0], lmms)
    results, samples = reader.find_files(folder)
    assert list(results) == ["20261203_110517"]
    assert sorted(task for task, _, _ in samples) == ["leaderboard_tiny_mc", "tiny_gen"]
    assert len(lm_eval.read(folder, params=PARAMS, accounting=None)) == 30


def test_lines_without_a_filter_field_are_one_filter(tmp_path):
    # lmms-eval's sample lines carry no "filter"; its results keys use "none".
    folder = _renamed(tmp_path, FOLDERS[0], lambda n: n)
    for path in folder.glob("samples_*.jsonl"):
        lines = [json.loads(x) for x in path.read_text().splitlines()]
        path.write_text(
            "".join(json.dumps({k: v for k, v in x.items() if k != "filter"}) + "\n" for x in lines)
        )
    frame = lm_eval.read(folder, params=PARAMS, accounting=None)
    assert len(frame) == 30
    assert set(lm_eval.reported(folder, params=PARAMS)["filter"]) == {"none"}
