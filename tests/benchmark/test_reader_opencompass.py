"""The OpenCompass reader on a work dir written by opencompass 0.5.4.

tests/benchmark/fixtures/opencompass/ (README.md there): two guessing models on
an 8-question dataset, once plainly (``parity``) and once with ``n=2``
replicas (``parity_rep``), graded by OpenCompass's EMEvaluator.
"""

import json
import shutil
from pathlib import Path

import pytest
from format_fixtures import other_formats_paths, truncated_copy

from rederive.errors import InputError
from rederive.io.accounting import Accounting
from rederive.io.formats import opencompass

FIXTURES = Path(__file__).parent / "fixtures" / "opencompass"
OUTPUTS = FIXTURES / "outputs"
(WORK,) = sorted(p for p in OUTPUTS.iterdir() if p.is_dir())
RESULTS = WORK / "results"
RUNS = sorted(RESULTS.glob("*/*.json"))
PLAIN = RESULTS / "guesser-a" / "parity.json"
REPEATED = RESULTS / "guesser-a" / "parity_rep.json"


def _read(path, params=None):
    accounting = Accounting(study="t", run="r", file=str(path), sha256="")
    frame = opencompass.read(path, params=params or {}, accounting=accounting)
    accounting.check_balance()
    return frame, accounting


def _summary() -> dict[tuple[str, str], float]:
    """OpenCompass's own summary table: (model, dataset) -> score in percent."""
    (csv,) = (WORK / "summary").glob("*.csv")
    lines = csv.read_text().splitlines()
    header = lines[0].split(",")
    scores = {}
    for line in lines[1:]:
        cells = line.split(",")
        for model, value in zip(header[4:], cells[4:], strict=True):
            scores[(model, cells[0])] = float(value)
    return scores


def test_fixtures_come_from_the_recorded_release():
    assert (FIXTURES / "VERSION").read_text().strip() == "Version: 0.5.4"
    assert len(RUNS) == 4


@pytest.mark.parametrize("path", RUNS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_accuracy_equals_opencompass_score_and_reported(path):
    frame, accounting = _read(path)
    model, task = path.parent.name, path.stem
    assert set(frame["model"]) == {model} and set(frame["task"]) == {task}
    ours = frame.groupby("item_id")["correct"].mean().mean()
    assert round(100 * ours, 2) == _summary()[(model, task)]
    scores = opencompass.reported(path, params={})
    assert len(scores) == 1
    assert scores["value"].iloc[0] == pytest.approx(ours, abs=1e-12)
    assert scores["value"].iloc[0] * 100 == json.loads(path.read_text())[scores["metric"].iloc[0]]
    n = 2 if task == "parity_rep" else 1
    assert accounting.rows_read == accounting.rows_used == 8 * n
    assert sorted(set(frame["epoch"])) == list(range(1, n + 1))


def test_replicas_are_epochs_with_their_predictions():
    frame, _ = _read(REPEATED)
    record = json.loads(REPEATED.read_text())
    first = record["details"][0]
    rows = frame[frame["item_id"] == first["example_abbr"]].sort_values("epoch")
    assert rows["correct"].tolist() == [float(c) for c in first["correct"]]
    assert rows["response"].tolist() == first["pred"]
    assert set(frame["metric"]) == {"correct"}
    assert opencompass.reported(REPEATED, params={})["metric"].tolist() == [
        "score (2 runs average)"
    ]


def test_find_runs_from_outputs_work_dir_and_results():
    expected = [(f"{p.parent.name}/{p.stem}", p) for p in RUNS]
    assert opencompass.find_runs(WORK) == expected
    assert opencompass.find_runs(RESULTS) == expected
    assert opencompass.find_runs(OUTPUTS) == expected
    assert opencompass.files(PLAIN) == [PLAIN]


def test_two_work_dirs_are_told_apart_and_a_stray_file_is_named(tmp_path):
    shutil.copytree(WORK, tmp_path / "outputs" / "first")
    shutil.copytree(WORK, tmp_path / "outputs" / "second")
    names = [name for name, _ in opencompass.find_runs(tmp_path / "outputs")]
    assert names[0] == "first/guesser-a/parity" and len(names) == 8
    (tmp_path / "outputs" / "first" / "notes.txt").write_text("x\n")
    with pytest.raises(InputError, match="not an OpenCompass") as error:
        opencompass.find_runs(tmp_path / "outputs")
    assert error.value.file.endswith("notes.txt")


def test_detect():
    for path in RUNS:
        assert opencompass.detect(path)
    assert not opencompass.detect(WORK / "predictions" / "guesser-a" / "parity.json")
    assert not opencompass.detect(RESULTS / "guesser-a")
    for path in other_formats_paths("opencompass"):
        assert not opencompass.detect(path), path


def _edited(tmp_path, edit) -> Path:
    path = tmp_path / "results" / "guesser-a" / "parity_rep.json"
    path.parent.mkdir(parents=True)
    record = json.loads(REPEATED.read_text())
    edit(record)
    path.write_text(json.dumps(record, indent=4))
    return path


def test_truncated_file_is_an_input_error_naming_it(tmp_path):
    cut = truncated_copy(REPEATED, tmp_path / "results" / "guesser-a" / "parity_rep.json")
    assert opencompass.detect(cut)
    with pytest.raises(InputError, match="malformed JSON") as error:
        _read(cut)
    assert error.value.file.endswith("parity_rep.json")


@pytest.mark.parametrize(
    ("edit", "field", "message"),
    [
        (lambda r: r.pop("details"), "details", "--dump-eval-details"),
        (lambda r: r["details"][2].pop("example_abbr"), "details[2].example_abbr", "missing"),
        (
            lambda r: r["details"][3].update(example_abbr=r["details"][0]["example_abbr"]),
            "details[3].example_abbr",
            "already appears",
        ),
        (
            lambda r: r["details"][1]["correct"].__setitem__(1, "yes"),
            "details[1].correct[1]",
            "not",
        ),
        (lambda r: r["details"][4].pop("correct"), "details[4].correct", "grade missing"),
        (
            lambda r: r.update(details={"type": "GEN", "0": {"predictions": "even"}}),
            "details",
            "format_details",
        ),
        (
            lambda r: [d.pop("correct") for d in r["details"]],
            "details",
            "none of",
        ),
    ],
)
def test_broken_results_are_input_errors_naming_the_field(tmp_path, edit, field, message):
    path = _edited(tmp_path, edit)
    with pytest.raises(InputError, match=message) as error:
        _read(path)
    assert error.value.field == field
    assert error.value.file.endswith("parity_rep.json")


def test_null_grade_is_a_counted_exclusion(tmp_path):
    path = _edited(tmp_path, lambda r: r["details"][5]["correct"].__setitem__(0, None))
    frame, accounting = _read(path)
    assert dict(accounting.excluded) == {"missing grade (correct is null)": 1}
    assert accounting.rows_read == 16 and len(frame) == 15


def test_correct_field_and_metric_options(tmp_path):
    def rename(record):
        for entry in record["details"]:
            entry["is_correct"] = entry.pop("correct")
        record["accuracy"] = record.pop("score (2 runs average)")

    path = _edited(tmp_path, rename)
    frame, _ = _read(path)
    assert set(frame["metric"]) == {"is_correct"}
    assert opencompass.reported(path, params={})["metric"].tolist() == ["accuracy"]
    with pytest.raises(InputError, match="none of"):
        _read(path, {"opencompass": {"correct_field": "cascade_correct"}})
    assert opencompass.reported(path, params={"opencompass": {"metric": "f1"}}).empty
