"""The lighteval reader on details and results written by lighteval 0.13.0.

tests/benchmark/fixtures/lighteval/ (README.md there): the dummy model, seeds 1
and 2, on a 12-item multiple-choice task (``acc``) and an 8-item generation
task (``em``), saved with ``save_details=True``.
"""

import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from format_fixtures import other_formats_paths, truncated_copy

from rederive.errors import InputError
from rederive.io.accounting import Accounting
from rederive.io.formats import lighteval

FIXTURES = Path(__file__).parent / "fixtures" / "lighteval"
OUT = FIXTURES / "out"
RUNS = sorted(p for p in (OUT / "details").glob("*/*") if p.is_dir())


def _read(path, params=None):
    accounting = Accounting(study="t", run="r", file=str(path), sha256="")
    frame = lighteval.read(path, params=params or {}, accounting=accounting)
    accounting.check_balance()
    return frame, accounting


def _results(run: Path) -> dict:
    return json.loads((OUT / "results" / run.parent.name / f"results_{run.name}.json").read_text())


def test_fixtures_come_from_the_recorded_release():
    assert (FIXTURES / "VERSION").read_text().strip() == "Version: 0.13.0"
    assert [run.parent.name for run in RUNS] == ["dummy-a", "dummy-b"]


@pytest.mark.parametrize("run", RUNS, ids=lambda p: p.parent.name)
def test_accuracy_equals_lightevals_results_and_reported(run):
    frame, accounting = _read(run)
    results = _results(run)["results"]
    assert frame.groupby("task")["metric"].unique().map(list).to_dict() == {
        "tiny_gen|0": ["em"],
        "tiny_mc|0": ["acc"],
    }
    ours = frame.groupby("task")["correct"].mean()
    assert ours["tiny_mc|0"] == pytest.approx(results["tiny_mc|0"]["acc"], abs=1e-12)
    assert ours["tiny_gen|0"] == pytest.approx(results["tiny_gen|0"]["em"], abs=1e-12)
    assert accounting.rows_read == accounting.rows_used == 20
    scores = lighteval.reported(run, params={})
    assert scores[["task", "metric"]].values.tolist() == [
        ["tiny_gen|0", "em"],
        ["tiny_mc|0", "acc"],
    ]
    for row in scores.itertuples():
        assert row.value == results[row.task][row.metric]
        assert row.model == run.parent.name


def test_item_key_is_doc_id_and_the_documents_match_across_models():
    a, _ = _read(RUNS[0])
    b, _ = _read(RUNS[1])
    assert sorted(a.loc[a["task"] == "tiny_mc|0", "item_id"], key=int) == [
        str(i) for i in range(12)
    ]
    keys = ["task", "item_id"]
    merged = a[[*keys, "doc_hash"]].merge(b[[*keys, "doc_hash"]], on=keys)
    assert len(merged) == 20 and (merged["doc_hash_x"] == merged["doc_hash_y"]).all()
    generated = a[a["task"] == "tiny_gen|0"]
    assert set(generated["response"]) == {"random baseline"}
    assert a.loc[a["task"] == "tiny_mc|0", "response"].isna().all()
    # The line is the row of the parquet file.
    table = pq.read_table(next(RUNS[0].glob("details_tiny_mc*"))).to_pylist()
    first = a[(a["task"] == "tiny_mc|0") & (a["line"] == 1)]
    assert first["item_id"].tolist() == [table[0]["doc"]["id"]]


def test_find_runs_and_files():
    assert lighteval.find_runs(OUT) == [(f"{r.parent.name}/{r.name}", r) for r in RUNS]
    assert lighteval.find_runs(OUT / "details") == lighteval.find_runs(OUT)
    names = [p.name for p in lighteval.files(RUNS[0])]
    assert names[-1] == f"results_{RUNS[0].name}.json" and len(names) == 3


def test_find_runs_names_a_results_file_without_details_and_a_stray_file(tmp_path):
    shutil.copytree(OUT, tmp_path / "out")
    shutil.rmtree(tmp_path / "out" / "details" / "dummy-b")
    with pytest.raises(InputError, match="without their details") as error:
        lighteval.find_runs(tmp_path / "out")
    assert "dummy-b" in error.value.file
    shutil.rmtree(tmp_path / "out" / "results" / "dummy-b")
    (tmp_path / "out" / "details" / "dummy-a" / "notes.txt").write_text("x\n")
    with pytest.raises(InputError, match="not a lighteval"):
        lighteval.find_runs(tmp_path / "out")


def test_without_results_the_model_is_the_folder_and_nothing_is_reported(tmp_path):
    run = tmp_path / "details" / "org" / "my-model" / RUNS[0].name
    shutil.copytree(RUNS[0], run)
    frame, accounting = _read(run)
    assert set(frame["model"]) == {"org/my-model"}
    assert any("no results_" in note for note in accounting.notes)
    assert lighteval.reported(run, params={}).empty


def test_detect():
    for run in RUNS:
        assert lighteval.detect(run)
    assert not lighteval.detect(OUT) and not lighteval.detect(RUNS[0].parent)
    assert not lighteval.detect(next(RUNS[0].glob("*.parquet")))
    for path in other_formats_paths("lighteval"):
        assert not lighteval.detect(path), path


def _copy_run(tmp_path) -> tuple[Path, Path]:
    out = tmp_path / "out"
    shutil.copytree(OUT, out)
    run = out / "details" / "dummy-a" / RUNS[0].name
    return run, next(run.glob("details_tiny_mc*"))


def test_truncated_parquet_is_an_input_error_naming_it(tmp_path):
    run, detail = _copy_run(tmp_path)
    truncated_copy(RUNS[0] / detail.name, detail)
    with pytest.raises(InputError, match="cannot read the parquet file") as error:
        _read(run)
    assert error.value.file.endswith(detail.name)


def _rewrite(path: Path, edit) -> None:
    rows = pq.read_table(path).to_pylist()
    edit(rows)
    pq.write_table(pa.Table.from_pylist(rows), path)


@pytest.mark.parametrize(
    ("edit", "line", "field", "message"),
    [
        (lambda rows: rows[3]["metric"].update(acc=2), 4, "metric.acc", "outside"),
        (
            lambda rows: rows[2]["doc"].update(id=rows[0]["doc"]["id"]),
            3,
            "doc.id",
            "already on row 1",
        ),
        (lambda rows: rows[1]["doc"].update(id=""), 2, "doc.id", "empty"),
    ],
)
def test_broken_rows_are_input_errors_naming_file_row_and_field(
    tmp_path, edit, line, field, message
):
    run, detail = _copy_run(tmp_path)
    _rewrite(detail, edit)
    with pytest.raises(InputError, match=message) as error:
        _read(run)
    assert error.value.file.endswith(detail.name)
    assert (error.value.line, error.value.field) == (line, field)


def test_old_layout_without_doc_column_is_refused(tmp_path):
    run, detail = _copy_run(tmp_path)
    pq.write_table(pa.table({"example": ["q"], "metrics": [json.dumps({"acc": 1})]}), detail)
    with pytest.raises(InputError, match="not the details layout") as error:
        _read(run)
    assert error.value.field == "doc"


def test_null_score_is_a_counted_exclusion(tmp_path):
    run, detail = _copy_run(tmp_path)
    _rewrite(detail, lambda rows: rows[4]["metric"].update(acc=None))
    frame, accounting = _read(run)
    assert dict(accounting.excluded) == {"missing score (acc is null)": 1}
    assert accounting.example_lines["missing score (acc is null)"] == [5]
    assert accounting.rows_read == 20 and len(frame) == 19


def test_metrics_option_and_several_metrics(tmp_path):
    run, detail = _copy_run(tmp_path)
    _rewrite(
        detail, lambda rows: [row["metric"].update(acc_norm=row["metric"]["acc"]) for row in rows]
    )
    with pytest.raises(InputError, match="logs 2 metrics") as error:
        _read(run)
    assert error.value.field == "metric"
    frame, _ = _read(run, {"lighteval": {"metrics": ["acc_norm", "em"]}})
    assert frame.groupby("task")["metric"].first().to_dict() == {
        "tiny_gen|0": "em",
        "tiny_mc|0": "acc_norm",
    }
    with pytest.raises(InputError, match="none of the metrics"):
        _read(run, {"lighteval": {"metrics": ["f1"]}})
