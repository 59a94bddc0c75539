"""A clean Parquet long file copied as its labelled file gives the warehouse the same
``responses`` table as the rewritten labelled file: same rows, values, types and
order, same accounting; a file the cleaning would change is rewritten, and a bad
file raises the reader's error either way."""

import json
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from rederive.errors import InputError
from rederive.io import batches, verbatim, warehouse
from rederive.io.accounting import load_copies, write_ingested
from rederive.studies.benchmark import ingest
from rederive.studies.benchmark import warehouse as wh

NAMES = ["NA", "1000", "null", "模型 α", "émoji 🤖", "עברית", "a$b|c", "line\nbreak", "x\u200by"]


def table(**columns) -> pa.Table:
    return pa.table(columns)


def sim_like(n=40, model="sim-model-1"):
    return table(
        model=[model] * n,
        item_id=[f"q{i:05d}" for i in range(n)],
        task=["simtask"] * n,
        category=[f"cat{i % 3}" for i in range(n)],
        correct=pa.array([i % 2 for i in range(n)], pa.int8()),
        response=[f"The answer is {'ABCD'[i % 4]}." for i in range(n)],
    )


# name -> (table or a function writing the file, whether it is copied verbatim)
CLEAN = {
    "sim_like": sim_like(),
    "minimal": table(model=["m", "m"], item_id=["1", "2"], correct=[1.0, 0.0]),
    "missing_scores": table(
        model=["m"] * 6,
        item_id=list("abcdef"),
        correct=pa.array([1.0, None, float("nan"), 0.25, None, 0.0]),
        epoch=pa.array([1, None, 7, 1, None, 1]),
    ),
    "epochs": table(
        model=["m"] * 4,
        item_id=["a", "a", "b", "b"],
        epoch=pa.array([1, 2, 2, 1], pa.int32()),
        correct=[1, 0, 1, 1],
    ),
    "integer_ids": table(
        model=pa.array([5, 5, 5], pa.int64()),
        item_id=pa.array([3, -1, 10**15], pa.int64()),
        correct=[True, False, True],
        category=pa.array([1, 2, None], pa.uint8()),
    ),
    "float32_scores": table(
        model=["m"] * 3, item_id=["1", "2", "3"], correct=pa.array([0.1, 0.7, 1.0], pa.float32())
    ),
    "tasks_and_default": table(
        model=["m"] * 4,
        item_id=["1", "1", "2", "3"],
        task=["a", None, "b", "tasks_and_default"],
        correct=[1, 0, 1, 1],
    ),
    "unicode_names": table(
        model=NAMES,
        item_id=[f"{n}/{i}" for i, n in enumerate(NAMES)],
        task=NAMES,
        correct=[1] * len(NAMES),
        response=NAMES,
    ),
    "several_models": table(
        model=["b", "a", "b", "a"], item_id=["1", "1", "2", "2"], correct=[1, 0, 0, 1]
    ),
    "extra_columns": table(
        model=["m", "m"],
        item_id=["1", "2"],
        correct=[1, 0],
        prompt=["long prompt", "other"],
        tokens=[12, 40],
    ),
    # Edge bytes that whitespace characters also have, in non-space characters:
    # 0xE2/0xE3 lead bytes, 0x80/0xA0/0x85 last bytes.
    "edge_bytes_of_non_spaces": table(
        model=["–m™", "–m™", "–m™", "–m™"],
        item_id=["ツ", "…", "À", "Ġ"],
        correct=[1, 0, 1, 0],
        response=["\u2026ok\u3042", None, "Å", "xÀ"],
    ),
    # The extracted answer (maj@k votes with it): text, or integers read as their text.
    "answers": table(
        model=["m"] * 4,
        item_id=["1", "1", "2", "2"],
        epoch=[1, 2, 1, 2],
        correct=[1, 0, 1, 1],
        answer=["42", "41", None, "B"],
    ),
    "integer_answers": table(
        model=["m"] * 3,
        item_id=["1", "2", "3"],
        correct=[1, 0, 1],
        answer=pa.array([7, -1, None], pa.int64()),
    ),
    "large_strings": table(
        model=pa.array(["m", "m"], pa.large_string()),
        item_id=pa.array(["1", "2"], pa.large_string()),
        correct=[1, 0],
    ),
    "sliced_arrays": sim_like(60).slice(10, 30),
    "null_columns": table(
        model=["m", "m"],
        item_id=["1", "2"],
        correct=[1, 0],
        category=pa.nulls(2),
        task=pa.nulls(2, pa.string()),
        epoch=pa.nulls(2),
    ),
}
REWRITTEN = {
    "edge_whitespace": table(model=["m", "m"], item_id=[" 1", "2"], correct=[1, 0]),
    "blank_task": table(model=["m", "m"], item_id=["1", "2"], correct=[1, 0], task=["", "t"]),
    "padded_task": table(
        model=["m", "m"], item_id=["1", "2"], correct=[1, 0], task=["t\u3000", "t"]
    ),
    "padded_model": table(model=["m", "m "], item_id=["1", "2"], correct=[1, 0]),
    "large_string_padded": table(
        model=pa.array(["m", "m"], pa.large_string()),
        item_id=pa.array(["1", "2\t"], pa.large_string()),
        correct=[1, 0],
    ),
    "blank_category": table(
        model=["m", "m"], item_id=["1", "2"], correct=[1, 0], category=["", "c"]
    ),
    "padded_answer": table(
        model=["m", "m"], item_id=["1", "2"], correct=[1, 0], answer=[" 42", "41"]
    ),
    "blank_answer": table(model=["m", "m"], item_id=["1", "2"], correct=[1, 0], answer=["", "B"]),
    "nbsp_response": table(
        model=["m", "m"], item_id=["1", "2"], correct=[1, 0], response=["ok\u00a0", "fine"]
    ),
    "repeats_numbered": table(model=["m"] * 3, item_id=["1", "1", "2"], correct=[1, 0, 1]),
    # A blank task is the default task: (m, default, 1) twice, numbered 1, 2.
    "default_task_repeated": table(
        model=["m"] * 2, item_id=["1", "1"], task=[None, "default_task_repeated"], correct=[1, 0]
    ),
    "text_epochs": table(model=["m"] * 2, item_id=["1", "1"], epoch=["1", "2"], correct=[1, 0]),
    "text_scores": table(model=["m"] * 2, item_id=["1", "2"], correct=["true", "0.5"]),
    "case_clash": table(model=["m"] * 2, item_id=["1", "2"], correct=[1, 0], Task=["a", "b"]),
    "virtual_name": table(model=["m"] * 2, item_id=["1", "2"], correct=[1, 0], filename=["a", "b"]),
    "nested_extra": table(
        model=["m"] * 2, item_id=["1", "2"], correct=[1, 0], tokens=[[1, 2], [3]]
    ),
    "no_scores": table(model=["m"] * 2, item_id=["1", "2"], correct=pa.nulls(2, pa.float64())),
    "all_blank_row": table(model=["m", None], item_id=["1", None], correct=[1, None]),
}
BAD = {
    # pandas writes an integer column with a gap as floats: ids "1.0" would not
    # match another run's "1".
    "float_ids": table(model=["m"] * 2, item_id=[1.0, 2.0], correct=[1, 0]),
    "list_models": table(model=[["m"], ["m"]], item_id=["1", "2"], correct=[1, 0]),
    "score_out_of_range": table(model=["m"] * 2, item_id=["1", "2"], correct=[1, 2]),
    "null_model": table(model=["m", None], item_id=["1", "2"], correct=[1, 0]),
    "epoch_on_some_rows": table(
        model=["m"] * 2, item_id=["1", "1"], epoch=pa.array([1, None]), correct=[1, 0]
    ),
    "repeated_epoch": table(
        model=["m"] * 2, item_id=["1", "1"], epoch=pa.array([1, 1]), correct=[1, 0]
    ),
}


def write(folder: Path, name: str, data: pa.Table, **options) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.parquet"
    pq.write_table(data, path, **options)
    return path


def ingest_runs(out: Path, paths: list[Path], *, copy: bool):
    """Ingest the runs as the rule does (``copy``) or always rewriting them."""
    runs = [p.name for p in paths]
    batches.prepare(out, ("labelled", "accounting"), runs)
    for run, path in zip(runs, paths, strict=True):
        labelled, accounting = ingest.ingest(run, "long", path, [path], {}, arrow=True, copy=copy)
        write_ingested(
            labelled,
            accounting,
            batches.run_file(out, "labelled", run),
            batches.run_file(out, "accounting", run),
        )
    return batches.per_run_files([out], "labelled"), batches.per_run_files([out], "accounting")


def responses(labelled, accounting):
    con = duckdb.connect()
    copies = load_copies(accounting)
    warehouse.create_stacked(con, "responses", wh.responses_sql(labelled, copies))
    described = con.execute("DESCRIBE responses").fetchall()
    frame = con.execute("SELECT * FROM responses ORDER BY rowid").df()
    return described, frame, copies


def accounting_records(paths):
    records = [json.loads(Path(p).read_text()) for p in paths]
    for record in records:
        record.pop("verbatim", None)
    return records


def both_ways(tmp_path, paths):
    copied = ingest_runs(tmp_path / "copied", paths, copy=True)
    rewritten = ingest_runs(tmp_path / "rewritten", paths, copy=False)
    described_c, frame_c, copies = responses(*copied)
    described_r, frame_r, none = responses(*rewritten)
    assert not none
    assert described_c == described_r
    pd.testing.assert_frame_equal(frame_c, frame_r)
    assert accounting_records(copied[1]) == accounting_records(rewritten[1])
    return frame_c, copies, copied


@pytest.mark.parametrize("name", sorted(CLEAN))
def test_a_clean_file_is_copied_and_reads_as_the_rewritten_one(tmp_path, name):
    path = write(tmp_path / "long", name, CLEAN[name])
    frame, copies, (labelled, _) = both_ways(tmp_path, [path])
    assert set(copies) == {path.name}
    # The labelled file is the raw file, byte for byte.
    assert Path(labelled[0]).read_bytes() == path.read_bytes()
    assert len(frame)


@pytest.mark.parametrize("name", sorted(REWRITTEN))
def test_a_file_the_cleaning_changes_is_rewritten(tmp_path, name):
    path = write(tmp_path / "long", name, REWRITTEN[name])
    _, copies, _ = both_ways(tmp_path, [path])
    assert copies == {}


@pytest.mark.parametrize("field", ["item_id", "response"])
@pytest.mark.parametrize("where", ["start", "end"])
def test_every_whitespace_character_at_an_edge_is_left_to_the_cleaning(tmp_path, field, where):
    from rederive.io.columnar import PY_SPACE

    assert len(PY_SPACE) == 29
    folder = tmp_path / "long"
    paths = []
    for i, space in enumerate(PY_SPACE):
        cell = f"{space}x{i}" if where == "start" else f"x{i}{space}"
        values = {"item_id": [cell, "y"], "response": [cell, "r"]}
        data = table(
            model=["m", "m"],
            item_id=values["item_id"] if field == "item_id" else ["a", "b"],
            correct=[1, 0],
            response=values["response"] if field == "response" else ["r", "s"],
        )
        paths.append(write(folder, f"space{i:02d}", data))
    _, copies, _ = both_ways(tmp_path, paths)
    assert copies == {}


@pytest.mark.parametrize("name", sorted(BAD))
def test_a_bad_file_raises_the_readers_error_either_way(tmp_path, name):
    path = write(tmp_path / "long", name, BAD[name])
    errors = []
    for copy in (True, False):
        with pytest.raises(InputError) as caught:
            ingest.ingest(path.name, "long", path, [path], {}, arrow=True, copy=copy)
        errors.append(str(caught.value))
    assert errors[0] == errors[1]


def test_missing_scores_are_counted_with_their_rows(tmp_path):
    path = write(tmp_path / "long", "missing_scores", CLEAN["missing_scores"])
    _, accounting = ingest.ingest(path.name, "long", path, [path], {}, arrow=True, copy=True)
    assert accounting.verbatim is not None
    assert (accounting.rows_read, accounting.rows_used) == (6, 3)
    assert dict(accounting.excluded) == {"missing score": 3}
    assert accounting.example_lines["missing score"] == [2, 3, 5]


def test_row_groups_with_their_own_dictionaries_and_pandas_categoricals(tmp_path):
    frame = pd.DataFrame(
        {
            "model": pd.Categorical(["m"] * 50),
            "item_id": [f"i{i}" for i in range(50)],
            "task": pd.Categorical([f"t{i // 20}" for i in range(50)]),
            "correct": np.arange(50) % 2,
        }
    )
    folder = tmp_path / "long"
    folder.mkdir()
    grouped = folder / "row_groups.parquet"
    frame.to_parquet(grouped, row_group_size=7)
    assert pq.ParquetFile(grouped).metadata.num_row_groups == 8
    _, copies, _ = both_ways(tmp_path, [grouped])
    assert set(copies) == {grouped.name}


def test_copies_of_several_schemas_beside_rewritten_and_csv_runs_keep_run_order(tmp_path):
    folder = tmp_path / "long"
    paths = [
        write(folder, "a_sim", sim_like(model="a")),
        write(folder, "b_minimal", table(model=["b"] * 2, item_id=["q00001", "x"], correct=[1, 0])),
        write(folder, "c_sim", sim_like(model="c")),
        write(
            folder, "d_rewritten", table(model=["d"] * 2, item_id=[" q00001", "y"], correct=[1, 0])
        ),
        write(folder, "e_sim", sim_like(model="e")),
    ]
    csv = folder / "f_csv.csv"
    csv.write_text("model,item_id,correct,category\nf,q00001,1,c\nf,z,0,\n")
    frame, copies, _ = both_ways(tmp_path, [*paths, csv])
    assert set(copies) == {"a_sim.parquet", "b_minimal.parquet", "c_sim.parquet", "e_sim.parquet"}
    assert list(dict.fromkeys(frame["run"])) == [p.name for p in [*paths, csv]]
    # One statement per stretch of runs read alike: copies of two schemas
    # interleaved, then a rewritten run, a copy, and the CSV (rewritten).
    labelled, accounting = ingest_runs(tmp_path / "again", [*paths, csv], copy=True)
    assert len(wh.responses_sql(labelled, load_copies(accounting))) == 6


def test_the_whole_warehouse_is_the_same(tmp_path):
    """build_in's tables (scores, items, models, …) on copies equal those on rewrites."""
    folder = tmp_path / "long"
    paths = [write(folder, f"m{i}", sim_like(model=f"m{i}")) for i in range(3)]
    scores = pa.array([None if i % 7 == 3 else i % 2 / 2 for i in range(40)], pa.float64())
    paths.append(write(folder, "m3", sim_like(model="m3").set_column(4, "correct", scores)))
    tables = []
    for copy in (True, False):
        labelled, accounting = ingest_runs(tmp_path / str(copy), paths, copy=copy)
        with warehouse.building(tmp_path / f"{copy}.duckdb") as con:
            statements = wh.responses_sql(labelled, load_copies(accounting))
            warehouse.create_stacked(con, "responses", statements)
            built = wh.build_in(con, None, "intersection")
            built["scores"] = con.execute("SELECT * FROM scores").df()
        tables.append(built)
    assert tables[0].keys() == tables[1].keys()
    for name in tables[0]:
        pd.testing.assert_frame_equal(tables[0][name], tables[1][name], obj=name)


def test_select_sql_refuses_copies_of_two_schemas():
    infos = [
        {"columns": [["model", "string"]], "run": "a"},
        {"columns": [["model", "int64"]], "run": "b"},
    ]
    with pytest.raises(ValueError):
        verbatim.select_sql(["a", "b"], infos)
