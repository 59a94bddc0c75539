"""Readers of the benchmark study on real-format fixtures (see benchmark_formats.py)."""

import json
import zipfile

import numpy as np
import pandas as pd
import pytest
from benchmark_formats import chembench_slice, write_inspect, write_lm_eval, write_matrix

from rederive.errors import InputError
from rederive.io.accounting import Accounting
from rederive.io.inspect_log import read_eval_log
from rederive.io.lm_eval import read_lm_eval_model_dir
from rederive.io.tabular import COLUMNS, read_long, read_matrix_csv


def _acc(name="run"):
    return Accounting(study="benchmark", run=name, file=name, sha256="0")


def _scores(frame):
    return frame.groupby(["model", "item_id"])["correct"].mean().sort_index()


@pytest.fixture(scope="module")
def long_slice():
    return chembench_slice(30)


# --- matrix CSV -------------------------------------------------------------------


def test_matrix_reads_every_cell_with_file_and_line(tmp_path, long_slice):
    path = write_matrix(tmp_path / "m.csv", long_slice)
    acc = _acc()
    frame = read_matrix_csv(path, accounting=acc)
    assert list(frame.columns) == COLUMNS
    assert len(frame) == len(long_slice) == acc.rows_used == acc.rows_read
    expected = long_slice.set_index(["model", "item_id"])["correct"].sort_index()
    assert _scores(frame).to_dict() == expected.to_dict()
    row = frame[(frame["model"] == "o1") & (frame["item_id"] == "3")].iloc[0]
    assert row["line"] == 5 and row["task"] == "m"


def test_matrix_blank_cell_is_a_counted_exclusion(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text(",A,B\n0,1,\n1,0,1\n")
    acc = _acc()
    frame = read_matrix_csv(path, accounting=acc)
    assert len(frame) == 3
    assert acc.excluded == {"missing score (blank cell)": 1}
    assert acc.example_lines["missing score (blank cell)"] == [2]
    acc.check_balance()


@pytest.mark.parametrize(
    ("text", "line", "field", "message"),
    [
        (",A,B\n0,1,2\n", 2, "B", "outside [0, 1]"),
        (",A,B\n0,1,yes-ish\n", 2, "B", "not a number"),
        (",A,B\n0,1,0\n0,1,1\n", 3, "column 1", "already used on line 2"),
        (",A,B\n0,1\n", 2, None, "row has 2 cells"),
        (",A,A\n0,1,0\n", 1, None, "appear twice"),
    ],
)
def test_matrix_bad_cells_name_file_line_field(tmp_path, text, line, field, message):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(InputError) as info:
        read_matrix_csv(path)
    assert info.value.line == line and info.value.field == field
    assert message in info.value.message
    assert info.value.file.endswith("bad.csv")


# --- long CSV / JSONL ---------------------------------------------------------------


def test_long_csv_repeats_become_epochs(tmp_path):
    path = tmp_path / "long.csv"
    path.write_text(
        "model,item_id,correct,category\nA,q1,1,x\nA,q1,0,x\nA,q2,true,y\nB,q1,0.5,x\nB,q2,,y\n"
    )
    acc = _acc()
    frame = read_long(path, accounting=acc)
    assert frame.loc[frame["item_id"] == "q1", "epoch"].tolist() == [1, 2, 1]
    assert _scores(frame).to_dict() == {("A", "q1"): 0.5, ("A", "q2"): 1.0, ("B", "q1"): 0.5}
    assert acc.excluded == {"missing score": 1} and acc.rows_read == 5


def test_long_jsonl_with_epochs_and_duplicate_epoch_error(tmp_path):
    path = tmp_path / "long.jsonl"
    rows = [
        {"model": "A", "item_id": 1, "correct": 1, "epoch": 1, "task": "t"},
        {"model": "A", "item_id": 1, "correct": 0, "epoch": 2, "task": "t"},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    frame = read_long(path)
    assert frame["epoch"].tolist() == [1, 2] and set(frame["task"]) == {"t"}
    path.write_text("".join(json.dumps(r) + "\n" for r in [rows[0], rows[0]]))
    with pytest.raises(InputError) as info:
        read_long(path)
    assert (info.value.line, info.value.field) == (2, "epoch")


def test_long_missing_column_and_bad_score(tmp_path):
    path = tmp_path / "long.csv"
    path.write_text("model,item,correct\nA,1,1\n")
    with pytest.raises(InputError) as info:
        read_long(path)
    assert (info.value.line, info.value.field) == (1, "item_id")
    path.write_text("model,item_id,correct\nA,1,1\nA,2,maybe\n")
    with pytest.raises(InputError) as info:
        read_long(path)
    assert (info.value.line, info.value.field) == (3, "correct")


# --- lm-evaluation-harness ----------------------------------------------------------


def test_lm_eval_folder_matches_the_matrix(tmp_path, long_slice):
    out = write_lm_eval(tmp_path / "out", long_slice)
    folder = out / "o1"
    acc = _acc()
    frame = read_lm_eval_model_dir(folder, accounting=acc)
    expected = long_slice[long_slice["model"] == "o1"].set_index(["model", "item_id"])["correct"]
    assert _scores(frame).to_dict() == expected.sort_index().to_dict()
    assert frame["doc_hash"].str.len().eq(64).all()
    assert set(frame["task"]) == {"chembench"} and frame["line"].min() == 1
    assert any("lm_eval_version=0.4.8" in note and "fewshot_seed" in note for note in acc.notes)


def test_lm_eval_several_filters_need_a_choice(tmp_path, long_slice):
    out = write_lm_eval(
        tmp_path / "out",
        long_slice,
        metric="exact_match",
        filters=("strict-match", "flexible-extract"),
    )
    with pytest.raises(InputError) as info:
        read_lm_eval_model_dir(out / "o1")
    assert info.value.field == "filter" and "flexible-extract" in info.value.message
    acc = _acc()
    frame = read_lm_eval_model_dir(out / "o1", filter_name="strict-match", accounting=acc)
    assert len(frame) == 30
    assert acc.excluded == {"other lm-eval filter (flexible-extract)": 30}
    acc.check_balance()
    with pytest.raises(InputError, match="not in this file"):
        read_lm_eval_model_dir(out / "o1", filter_name="none")


def test_lm_eval_missing_results_file_and_metric(tmp_path, long_slice):
    out = write_lm_eval(tmp_path / "out", long_slice)
    with pytest.raises(InputError) as info:
        read_lm_eval_model_dir(out / "o1", metrics=["exact_match"])
    assert info.value.field == "metrics" and info.value.line == 1
    for path in (out / "o1").glob("results_*.json"):
        path.unlink()
    with pytest.raises(InputError, match="no sibling results_"):
        read_lm_eval_model_dir(out / "o1")


def test_lm_eval_duplicate_doc_id_and_bad_json(tmp_path, long_slice):
    out = write_lm_eval(tmp_path / "out", long_slice)
    samples = next((out / "o1").glob("samples_*.jsonl"))
    lines = samples.read_text().splitlines()
    samples.write_text("\n".join([*lines, lines[0]]) + "\n")
    with pytest.raises(InputError) as info:
        read_lm_eval_model_dir(out / "o1")
    assert (info.value.line, info.value.field) == (31, "doc_id")
    samples.write_text("\n".join([*lines[:4], "{not json", *lines[5:]]) + "\n")
    with pytest.raises(InputError) as info:
        read_lm_eval_model_dir(out / "o1")
    assert info.value.line == 5 and "malformed JSON" in info.value.message


# --- Inspect ------------------------------------------------------------------------


def test_inspect_log_matches_the_matrix(tmp_path, long_slice):
    path = write_inspect(tmp_path / "o1.eval", long_slice, model="o1")
    acc = _acc()
    frame = read_eval_log(path, accounting=acc)
    expected = long_slice[long_slice["model"] == "o1"].set_index(["model", "item_id"])["correct"]
    assert _scores(frame).to_dict() == expected.sort_index().to_dict()
    assert (
        frame["source_file"].iloc[0].startswith(str(path.name))
        or "!samples/" in frame["source_file"].iloc[0]
    )
    assert acc.rows_used == 30 and "status=success" in acc.notes[0]


def test_inspect_epochs_partial_credit_and_errors(tmp_path):
    frame = pd.DataFrame(
        {
            "model": "m",
            "task": "t",
            "item_id": ["1", "1", "2", "2", "3"],
            "correct": [1.0, 0.0, 0.5, 0.5, 1.0],
            "epoch": [1, 2, 1, 2, 1],
            "category": ["x", "x", "y", "y", "y"],
        }
    )
    path = write_inspect(tmp_path / "m.eval", frame, model="m", errors=(("3", 1),))
    acc = _acc()
    out = read_eval_log(path, category_field="category", accounting=acc)
    assert _scores(out).to_dict() == {("m", "1"): 0.5, ("m", "2"): 0.5}
    assert acc.excluded == {"sample error (no grade)": 1}
    assert set(out["category"]) == {"x", "y"}


def test_inspect_malformed_zip(tmp_path):
    path = tmp_path / "broken.eval"
    path.write_bytes(b"PK\x03\x04 this is not really a zip archive")
    with pytest.raises(InputError) as info:
        read_eval_log(path)
    assert "not a readable zip" in info.value.message and info.value.file.endswith("broken.eval")


def test_inspect_truncated_zip(tmp_path, long_slice):
    path = write_inspect(tmp_path / "o1.eval", long_slice, model="o1")
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputError):
        read_eval_log(path)


def test_inspect_missing_sample(tmp_path, long_slice):
    path = write_inspect(tmp_path / "o1.eval", long_slice, model="o1", drop_sample=("7", 1))
    with pytest.raises(InputError) as info:
        read_eval_log(path)
    assert "samples/7_epoch_1.json is missing" in info.value.message


def test_inspect_unfinished_log_and_several_scorers(tmp_path, long_slice):
    path = tmp_path / "started.eval"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("_journal/start.json", "{}")
    with pytest.raises(InputError, match="did not finish"):
        read_eval_log(path)
    path = write_inspect(tmp_path / "two.eval", long_slice, model="o1", scorers=("match", "choice"))
    with pytest.raises(InputError) as info:
        read_eval_log(path)
    assert info.value.field == "results.scores" and "choice" in info.value.message
    assert len(read_eval_log(path, scorer="choice")) == 30


def test_inspect_bad_score_value(tmp_path, long_slice):
    path = write_inspect(tmp_path / "o1.eval", long_slice, model="o1")
    with zipfile.ZipFile(path) as archive:
        members = {n: archive.read(n) for n in archive.namelist()}
    sample = json.loads(members["samples/2_epoch_1.json"])
    sample["scores"]["match"]["value"] = "X"
    members["samples/2_epoch_1.json"] = json.dumps(sample).encode()
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    with pytest.raises(InputError) as info:
        read_eval_log(path)
    assert info.value.field == "scores.match.value" and info.value.file.endswith(
        "samples/2_epoch_1.json"
    )


def test_three_formats_agree(tmp_path, long_slice):
    matrix = read_matrix_csv(write_matrix(tmp_path / "chembench.csv", long_slice))
    out = write_lm_eval(tmp_path / "out", long_slice)
    lm = pd.concat([read_lm_eval_model_dir(p) for p in sorted(out.iterdir())])
    inspect = pd.concat(
        [
            read_eval_log(write_inspect(tmp_path / f"{i}.eval", long_slice, model=m))
            for i, m in enumerate(sorted(long_slice["model"].unique()))
        ]
    )
    a, b, c = _scores(matrix), _scores(lm), _scores(inspect)
    np.testing.assert_array_equal(a.to_numpy(), b.to_numpy())
    np.testing.assert_array_equal(a.to_numpy(), c.to_numpy())
    assert list(a.index) == list(b.index) == list(c.index)


def test_reported_scores_are_the_harness_aggregates(tmp_path, long_slice):
    from rederive.io import inspect_log, lm_eval

    out = write_lm_eval(tmp_path / "out", long_slice)
    reported = lm_eval.reported_scores(out / "o1", filter_name=None, metrics=["acc", "exact_match"])
    expected = long_slice.loc[long_slice["model"] == "o1", "correct"].mean()
    assert reported[["model", "task", "metric", "filter"]].values.tolist() == [
        ["o1", "chembench", "acc", "none"]
    ]
    assert reported["value"].item() == pytest.approx(expected)
    log = write_inspect(tmp_path / "g.eval", long_slice, model="GPT-4o")
    reported = inspect_log.reported_scores(log, scorer=None)
    assert reported["value"].item() == pytest.approx(
        long_slice.loc[long_slice["model"] == "GPT-4o", "correct"].mean()
    )
