"""The evalplus reader on results written by evalplus's own evaluator.

tests/benchmark/fixtures/evalplus/ (README.md there): four HumanEval+-format
problems, three solutions each, graded by evalplus 0.3.1 (no pass@k in the file)
and by evalplus 0.4.0.dev44 (``pass_at_k`` in the file), once with --base-only.
"""

import json
import re
import shutil
from pathlib import Path

import pytest
from format_fixtures import other_formats_paths, truncated_copy

from rederive.errors import InputError
from rederive.io.accounting import Accounting
from rederive.io.formats import evalplus

FIXTURES = Path(__file__).parent / "fixtures" / "evalplus"
OLD = FIXTURES / "0.3.1" / "tiny-coder_openai_temp_0.8_eval_results.json"
NEW = FIXTURES / "0.4.0.dev44" / "tiny-coder_openai_temp_0.8.eval_results.json"
BASE_ONLY = FIXTURES / "0.4.0.dev44" / "base-coder_openai_temp_0.8.eval_results.json"


def _read(path, params=None):
    accounting = Accounting(study="t", run="r", file=str(path), sha256="")
    frame = evalplus.read(path, params=params or {}, accounting=accounting)
    accounting.check_balance()
    return frame, accounting


def _printed(log: Path) -> dict[str, float]:
    """The pass@1 evalplus printed: ``{"humaneval": …, "humaneval+": …}``."""
    text = log.read_text()
    scores = {}
    for name, value in re.findall(r"^(humaneval\+?) \(.*?\)\n\s*pass@1:\s+([0-9.]+)", text, re.M):
        scores[name] = float(value)
    return scores


@pytest.mark.parametrize("path", [OLD, NEW], ids=["0.3.1", "0.4.0.dev44"])
def test_accuracy_equals_the_pass_at_1_evalplus_printed(path):
    frame, accounting = _read(path)
    ours = frame.groupby("task")["correct"].mean()
    printed = _printed(FIXTURES / "stdout" / f"{path.parent.name}_tiny-coder_openai_temp_0.8.log")
    assert set(printed) == {"humaneval", "humaneval+"}
    for task, value in printed.items():
        assert round(ours[task], 3) == value
    # 4 tasks x 3 samples, each read against base and plus.
    assert accounting.rows_read == accounting.rows_used == 24
    assert set(frame["epoch"]) == {1, 2, 3}
    assert frame.groupby(["task", "item_id"]).size().eq(3).all()
    assert set(frame["model"]) == {"tiny-coder_openai_temp_0.8"}


def test_plus_is_base_and_plus_status_as_evalplus_counts_it():
    frame, _ = _read(NEW)
    record = json.loads(NEW.read_text())
    for task_id, samples in record["eval"].items():
        for epoch, sample in enumerate(samples, start=1):
            both = sample["base_status"] == sample["plus_status"] == "pass"
            row = frame[
                (frame["task"] == "humaneval+")
                & (frame["item_id"] == task_id)
                & (frame["epoch"] == epoch)
            ]
            assert row["correct"].tolist() == [float(both)]
            assert row["response"].tolist() == [sample["solution"]]


def test_reported_is_the_pass_at_k_in_the_file():
    frame, _ = _read(NEW)
    scores = evalplus.reported(NEW, params={})
    record = json.loads(NEW.read_text())["pass_at_k"]
    assert scores[["task", "metric", "filter"]].values.tolist() == [
        ["humaneval", "pass@1", "base"],
        ["humaneval+", "pass@1", "plus"],
    ]
    assert scores["value"].tolist() == [record["base"]["pass@1"], record["plus"]["pass@1"]]
    ours = frame.groupby(["task", "item_id"])["correct"].mean().groupby("task").mean()
    for row in scores.itertuples():
        assert ours[row.task] == pytest.approx(row.value, abs=1e-12)


def test_reported_is_empty_for_0_3_1_which_writes_no_pass_at_k():
    scores = evalplus.reported(OLD, params={})
    assert scores.empty
    assert list(scores.columns) == ["model", "task", "metric", "filter", "value", "file"]


def test_base_only_run_has_no_plus_task_and_says_so():
    frame, accounting = _read(BASE_ONLY)
    assert set(frame["task"]) == {"humaneval"}
    assert accounting.rows_read == 12
    assert any("base-only" in note for note in accounting.notes)
    assert evalplus.reported(BASE_ONLY, params={})["task"].tolist() == ["humaneval"]


def test_tests_option_keeps_only_the_chosen_test_set():
    frame, accounting = _read(NEW, {"evalplus": {"tests": ["plus"]}})
    assert set(frame["task"]) == {"humaneval+"}
    assert accounting.rows_read == 12
    with pytest.raises(ValueError, match="unknown test sets"):
        _read(NEW, {"evalplus": {"tests": ["extra"]}})


def test_find_runs_accepts_the_samples_beside_the_results():
    assert evalplus.find_runs(FIXTURES / "0.4.0.dev44") == [
        ("base-coder_openai_temp_0.8", BASE_ONLY),
        ("tiny-coder_openai_temp_0.8", NEW),
    ]
    assert [name for name, _ in evalplus.find_runs(FIXTURES / "0.3.1")] == [
        "tiny-coder_openai_temp_0.8"
    ]
    assert evalplus.files(NEW) == [NEW, NEW.with_name("tiny-coder_openai_temp_0.8.jsonl")]


def test_find_runs_names_a_stray_file_and_unevaluated_samples(tmp_path):
    shutil.copy(NEW, tmp_path / NEW.name)
    shutil.copy(NEW, tmp_path / (NEW.name + ".bak"))  # evalplus's own backup: known
    (tmp_path / "notes.txt").write_text("x\n")
    with pytest.raises(InputError, match="notes.txt"):
        evalplus.find_runs(tmp_path)
    (tmp_path / "notes.txt").unlink()
    (tmp_path / "other_model.jsonl").write_text("{}\n")
    with pytest.raises(InputError, match="samples without a results file") as error:
        evalplus.find_runs(tmp_path)
    assert error.value.file.endswith("other_model.jsonl")


def test_samples_folder_layout_names_the_run_by_its_folder(tmp_path):
    folder = tmp_path / "humaneval" / "my-model_vllm_temp_0.0"
    (folder / "HumanEval_0").mkdir(parents=True)
    (folder / "HumanEval_0" / "0.py").write_text("pass\n")
    shutil.copy(NEW, folder / "eval_results.json")
    assert evalplus.find_runs(tmp_path) == [
        ("humaneval/my-model_vllm_temp_0.0", folder / "eval_results.json")
    ]
    frame, _ = _read(folder / "eval_results.json")
    assert set(frame["model"]) == {"my-model_vllm_temp_0.0"}


def test_detect():
    assert evalplus.detect(OLD) and evalplus.detect(NEW) and evalplus.detect(BASE_ONLY)
    assert not evalplus.detect(OLD.with_name("tiny-coder_openai_temp_0.8.jsonl"))
    assert not evalplus.detect(FIXTURES / "0.3.1")
    for path in other_formats_paths("evalplus"):
        assert not evalplus.detect(path), path


def test_truncated_file_is_an_input_error_naming_it(tmp_path):
    cut = truncated_copy(NEW, tmp_path / NEW.name)
    assert evalplus.detect(cut)  # the head still looks right ...
    with pytest.raises(InputError, match="malformed JSON") as error:
        _read(cut)  # ... the reader refuses it
    assert error.value.file.endswith(NEW.name)


@pytest.mark.parametrize(
    ("edit", "field", "message"),
    [
        (
            lambda r: r["eval"]["HumanEval/1"][0].update(base_status="crashed"),
            "eval.HumanEval/1[0].base_status",
            "none of",
        ),
        (
            lambda r: r["eval"]["HumanEval/2"][1].pop("plus_status"),
            "eval.HumanEval/2[1].plus_status",
            "missing",
        ),
        (
            lambda r: r["eval"]["HumanEval/0"][0].update(base_status=None),
            "eval.HumanEval/0[0].base_status",
            "no status",
        ),
        (lambda r: r["eval"].update({"HumanEval/3": []}), "eval.HumanEval/3", "non-empty"),
        (
            lambda r: r["eval"].update({"HumanEval/3": {"nfiles": 1, "base": [], "plus": []}}),
            "eval.HumanEval/3",
            "pre-0.2",
        ),
        (lambda r: r["eval"].update({"Mbpp/2": r["eval"]["HumanEval/0"]}), "eval", "one dataset"),
        (lambda r: r.pop("eval"), "eval", "not an evalplus"),
    ],
)
def test_broken_fields_are_input_errors_naming_the_field(tmp_path, edit, field, message):
    record = json.loads(NEW.read_text())
    edit(record)
    path = tmp_path / NEW.name
    path.write_text(json.dumps(record))
    with pytest.raises(InputError, match=message) as error:
        _read(path)
    assert error.value.field == field
    assert error.value.file.endswith(NEW.name)


def test_a_null_plus_status_among_set_ones_is_a_counted_exclusion(tmp_path):
    record = json.loads(NEW.read_text())
    record["eval"]["HumanEval/2"][1]["plus_status"] = None
    path = tmp_path / NEW.name
    path.write_text(json.dumps(record))
    frame, accounting = _read(path)
    assert dict(accounting.excluded) == {"plus tests not run (plus_status null)": 1}
    assert accounting.rows_read == 24 and accounting.rows_used == 23
    assert len(frame[frame["task"] == "humaneval+"]) == 11
