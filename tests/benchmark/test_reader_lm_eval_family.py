"""The lm-eval family: the Open LLM Leaderboard's acc_norm shape, its ``.json`` samples
files, ifeval's prompt-level metric, lmms-eval's date-first names, and the default
metric precedence. Every fixture was written by the real tool (fixtures/lm_eval_family/
README.md):

- leaderboard/: lm_eval 0.4.13 (make_fixtures.sh), the dummy model on
  ``leaderboard_tiny_mc`` (multiple_choice, acc_norm only, as the leaderboard's bbh,
  gpqa and musr) and ``tiny_gen`` (exact_match).
- leaderboard_json/: lm-evaluation-harness at commit 793469e05 (June 2024, the
  leaderboard's time; make_leaderboard_json.sh), ``samples_leaderboard_tiny_mc_<ts>.json``.
- ifeval/: lm_eval 0.4.13 (make_ifeval.sh), lm-eval's ifeval scorer on 8 local prompts.
- lmms_eval/: lmms-eval 0.7.3 (make_lmms_eval.sh), its dummy model answering "A" / "B"
  on a text-only exact_match task.
"""

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from rederive.errors import InputError
from rederive.io import formats
from rederive.io import lm_eval as reader
from rederive.io.accounting import ensure_accounting
from rederive.io.formats import lm_eval

FAMILY = Path(__file__).parent / "fixtures" / "lm_eval_family"
FIXTURES = FAMILY / "leaderboard"
FOLDERS = sorted(p for p in FIXTURES.iterdir() if p.is_dir())
LEADERBOARD_JSON = sorted(p for p in (FAMILY / "leaderboard_json").iterdir() if p.is_dir())
IFEVAL = sorted(p for p in (FAMILY / "ifeval").iterdir() if p.is_dir())
LMMS = sorted(p for p in (FAMILY / "lmms_eval").iterdir() if p.is_dir())
PARAMS = {"lm_eval": {"filter": None, "metrics": reader.DEFAULT_METRICS}}


def _record(folder):
    (path,) = folder.glob("*results*.json")
    return json.loads(path.read_text())


def _results(folder):
    return _record(folder)["results"]


def _lines(folder):
    (path,) = (p for p in folder.iterdir() if reader.samples_match(p.name))
    return path, [json.loads(x) for x in path.read_text().splitlines()]


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


# --- Open LLM Leaderboard v2 .json samples (lm-eval at 793469e05, June 2024) --------------


@pytest.mark.parametrize("folder", LEADERBOARD_JSON, ids=lambda p: p.name)
def test_leaderboard_json_samples_are_read_as_the_harness_scored_them(folder):
    path, lines = _lines(folder)
    assert path.name.startswith("samples_leaderboard_tiny_mc_") and path.suffix == ".json"
    # This lm-eval logs neither "filter" nor "metrics" on a line: acc_norm only.
    assert all("filter" not in x and "metrics" not in x for x in lines)
    assert formats.detected(folder) == ["lm_eval"]
    frame = lm_eval.read(folder, params=PARAMS, accounting=None)
    record = _record(folder)
    assert set(frame["model"]) == {record["model_name"]} == {f"fixtures/{folder.name[10:]}"}
    assert list(frame["item_id"]) == [str(x["doc_id"]) for x in lines]
    assert set(frame["metric"]) == {"acc_norm"}
    # acc_norm recomputed from the logged log-likelihoods (lm-eval: argmax of the
    # log-likelihood per character of each choice) is the item's score.
    for x, correct in zip(lines, frame["correct"], strict=True):
        lls = np.array([float(ll) for ll, _ in x["filtered_resps"]])
        lengths = np.array([len(c) for c in x["doc"]["choices"]], dtype=float)
        assert correct == float(np.argmax(lls / lengths) == x["target"]) == x["acc_norm"]
    # Log-likelihoods (written as strings by this version) are not a response text.
    assert frame["response"].isna().all()
    ours = frame["correct"].mean()
    assert ours == pytest.approx(record["results"]["leaderboard_tiny_mc"]["acc_norm,none"])
    reported = lm_eval.reported(folder, params=PARAMS)
    assert reported[["task", "metric", "filter"]].values.tolist() == [
        ["leaderboard_tiny_mc", "acc_norm", "none"]
    ]
    assert reported["value"].iloc[0] == pytest.approx(ours, abs=1e-12)


def test_leaderboard_json_runs_are_found_under_the_output_path():
    root = FAMILY / "leaderboard_json"
    assert lm_eval.find_runs(root) == [(p.name, p) for p in LEADERBOARD_JSON]
    means = {
        p.name: lm_eval.read(p, params=PARAMS, accounting=None)["correct"].mean()
        for p in LEADERBOARD_JSON
    }
    assert means == {
        p.name: pytest.approx(_results(p)["leaderboard_tiny_mc"]["acc_norm,none"])
        for p in LEADERBOARD_JSON
    }


# --- ifeval (lm_eval 0.4.13, lm-eval's own IFEval scorer) -------------------------------


@pytest.mark.parametrize("folder", IFEVAL, ids=lambda p: p.name)
def test_ifeval_is_scored_per_prompt_by_prompt_level_strict_acc(folder):
    path, lines = _lines(folder)
    frame = lm_eval.read(folder, params=PARAMS, accounting=None)
    record = _record(folder)
    assert set(frame["model"]) == {record["model_name"]}
    assert set(frame["metric"]) == {"prompt_level_strict_acc"}
    assert list(frame["item_id"]) == [str(x["doc_id"]) for x in lines]
    # One item per prompt: correct when every instruction of it was followed (strict).
    assert list(frame["correct"]) == [float(all(x["inst_level_strict_acc"])) for x in lines]
    assert 0 < frame["correct"].mean() < 1
    assert set(frame["response"]) == {"lol"}
    harness = record["results"]["leaderboard_ifeval_tiny"]
    assert frame["correct"].mean() == pytest.approx(harness["prompt_level_strict_acc,none"])
    reported = lm_eval.reported(folder, params=PARAMS)
    assert reported["metric"].tolist() == ["prompt_level_strict_acc"]
    assert reported["value"].iloc[0] == pytest.approx(frame["correct"].mean(), abs=1e-12)


def test_ifeval_instruction_level_lists_are_refused_as_item_scores():
    with pytest.raises(InputError, match="is a list here") as error:
        reader.read_lm_eval_model_dir(IFEVAL[0], metrics=["inst_level_strict_acc"])
    assert error.value.field == "inst_level_strict_acc" and error.value.line == 1


# --- lmms-eval 0.7.3 (date-first names) --------------------------------------------------


@pytest.mark.parametrize("folder", LMMS, ids=lambda p: p.name)
def test_lmms_eval_runs_are_read_as_the_harness_scored_them(folder):
    results, samples = reader.find_files(folder)
    ((stamp, results_path),) = results.items()
    assert results_path.name == f"{stamp}_results.json" and len(stamp) == 15
    assert [(t, s) for t, s, _ in samples] == [("lmms_tiny_letter", stamp)]
    assert formats.detected(folder) == ["lm_eval"]
    path, lines = _lines(folder)
    assert all("filter" not in x and "metrics" not in x for x in lines)
    accounting = ensure_accounting(None, file=str(folder))
    frame = lm_eval.read(folder, params=PARAMS, accounting=accounting)
    record = _record(folder)
    assert set(frame["model"]) == {record["model_name"]} == {f"fixtures/{folder.name[10:]}"}
    assert set(frame["metric"]) == {"exact_match"}
    answer = record["config"]["model_args"].rsplit("response=", 1)[1]
    assert set(frame["response"]) == {answer}
    # exact_match: the dummy model's fixed answer against each line's target.
    assert list(frame["correct"]) == [float(x["target"] == answer) for x in lines]
    ours = frame["correct"].mean()
    assert ours == pytest.approx(record["results"]["lmms_tiny_letter"]["exact_match,none"])
    reported = lm_eval.reported(folder, params=PARAMS)
    assert reported[["metric", "filter"]].values.tolist() == [["exact_match", "none"]]
    assert reported["value"].iloc[0] == pytest.approx(ours, abs=1e-12)
    # lmms-eval's doc_hash is SHA-256 of "null" on every line: not kept, and said so.
    assert {x["doc_hash"] for x in lines} == {reader.NULL_DOC_HASH}
    assert frame["doc_hash"].isna().all()
    assert any("SHA-256 of 'null' on 10 lines" in n for n in accounting.notes)
    assert any(n.startswith(f"{results_path.name}: lmms_eval_version=") for n in accounting.notes)


def test_lmms_eval_models_differ_where_their_answers_do():
    frames = [lm_eval.read(p, params=PARAMS, accounting=None) for p in LMMS]
    a, b = (f.set_index("item_id")["correct"] for f in frames)
    assert (a + b).max() == 1 and a.mean() != b.mean()
    assert lm_eval.find_runs(FAMILY / "lmms_eval") == [(p.name, p) for p in LMMS]


def test_lmms_eval_repeated_doc_ids_name_the_missing_filter(tmp_path):
    # Additional case built from the real file: lmms-eval writes one line per filter
    # without a "filter" field, so a task with two filters repeats each doc_id.
    target = tmp_path / LMMS[0].name
    shutil.copytree(LMMS[0], target)
    path, _ = _lines(target)
    path.write_text(path.read_text() + path.read_text().splitlines(keepends=True)[0])
    with pytest.raises(InputError, match="carry no 'filter' field") as error:
        lm_eval.read(target, params=PARAMS, accounting=None)
    assert error.value.line == 11 and error.value.field == "doc_id"
