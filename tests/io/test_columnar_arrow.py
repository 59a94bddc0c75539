"""The Arrow path of the long reader writes the row reader's labelled Parquet: the same
columns, types, values and pandas metadata read back by pyarrow, pandas and DuckDB
(not the same bytes: it writes its dictionaries as they are, without statistics)."""

import sys

import duckdb
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from rederive.io import columnar, tabular
from rederive.io.accounting import Accounting, write_ingested
from rederive.studies.benchmark import ingest

# Varied clean files: every optional column present or absent, epochs given or
# numbered from repeats, blank tasks and categories, names that look like
# numbers or missing values (they stay text), whitespace at the edges.
FILES = {
    "minimal": "model,item_id,correct\nm,1,1\nm,2,0\n",
    "all columns": (
        "model,item_id,task,category,correct,epoch,response\n"
        "m,q1,t1,c1,1,1,yes\nm,q1,t1,c1,0,2,no\nm,q2,t2,,0.25,1,\n"
    ),
    "numeric-looking names": (
        "model,item_id,task,category,correct\n1000,NA,2,nan,1\n1000,1e3,2,None,0\n"
        "NA,007,2,1,1\nnull,0x1,2,1,\n"
    ),
    "tasks and default task": "model,item_id,task,correct\nm,1,a,1\nm,1,b,0\nm,1,,1\nm,2, ,0\n",
    "repeats numbered": "model,item_id,correct,category\nm,1,1,c\nm,1,0,c\nm, 1 ,1, \nn,1,1,c\n",
    "missing scores and blank rows": "model,item_id,correct\nm,1,\n\nm,2,NA\n,,\nm,3,true\n",
    "several models": "model,item_id,correct\na,1,1\nb,1,0\na,2,0\nb,2,1\n",
    "whitespace": "model,item_id,correct,response\n m ,\u00a0q1\u2003,1,\u3000 two words \x1f\n",
}


def row_reader_frame(path, accounting):
    """What the row reader gives (the reference: today's labelled output)."""
    name = str(path)
    if path.suffix == ".csv":
        rows = tabular._iter_long_csv(path, name)
    else:
        rows = tabular._iter_long_table(pq.read_table(path), name)
    return tabular._graded_frame(rows, name=name, default_task=path.stem, accounting=accounting)


def parquet_copy(csv_path):
    """The CSV's rows as a Parquet long file (text columns, as a harness would write)."""
    frame = pd.read_csv(csv_path, dtype=str, keep_default_na=False)
    frame.columns = [c.strip() for c in frame.columns]
    target = csv_path.with_suffix(".parquet")
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), target)
    return target


def accounting():
    return Accounting(study="s", run="r", file="f", sha256="")


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
@pytest.mark.parametrize("case", sorted(FILES))
def test_arrow_path_writes_the_row_readers_file(tmp_path, case, suffix):
    path = tmp_path / "run.csv"
    path.write_bytes(FILES[case].encode())
    if suffix == ".parquet":
        path = parquet_copy(path)
    fast_acct, slow_acct = accounting(), accounting()
    table = tabular.read_long_table(path, task=path.stem, accounting=fast_acct)
    assert isinstance(table, pa.Table), "the columnar path should take this file"
    assert columnar.plain(table).schema == columnar.TABLE_SCHEMA
    frame = row_reader_frame(path, slow_acct)
    assert fast_acct.to_dict() == slow_acct.to_dict()
    pd.testing.assert_frame_equal(columnar.to_frame(table), frame)

    fast_file, slow_file = tmp_path / "fast.parquet", tmp_path / "slow.parquet"
    write_ingested(ingest.label_table(table, "run-1", "long"), fast_acct, fast_file, tmp_path / "a")
    write_ingested(ingest.label(frame, "run-1", "long"), slow_acct, slow_file, tmp_path / "b")
    assert_same_labelled_file(fast_file, slow_file)


def assert_same_labelled_file(fast_file, slow_file):
    """Both files read back the same by pyarrow (schema with metadata, values), by
    pandas (dtypes included) and by DuckDB (the warehouse's reader)."""
    fast, slow = pq.read_table(fast_file), pq.read_table(slow_file)
    assert fast.schema.remove_metadata() == slow.schema.remove_metadata()
    assert fast.schema.pandas_metadata == slow.schema.pandas_metadata
    assert fast.equals(slow)
    pd.testing.assert_frame_equal(pd.read_parquet(fast_file), pd.read_parquet(slow_file))
    query = "SELECT * FROM read_parquet(?)"
    with duckdb.connect() as con:
        assert (
            con.execute(query, [str(fast_file)]).fetchall()
            == con.execute(query, [str(slow_file)]).fetchall()
        )
        assert (
            con.execute(f"DESCRIBE {query}", [str(fast_file)]).fetchall()
            == con.execute(f"DESCRIBE {query}", [str(slow_file)]).fetchall()
        )


def test_numeric_looking_names_stay_text(tmp_path):
    path = tmp_path / "run.csv"
    path.write_bytes(FILES["numeric-looking names"].encode())
    table = tabular.read_long_table(path, accounting=accounting())
    assert table["model"].to_pylist() == ["1000", "1000", "NA"]
    assert table["model"].type.value_type == pa.string()
    assert table["item_id"].to_pylist() == ["NA", "1e3", "007"]
    assert table["category"].to_pylist() == ["nan", "None", "1"]


def test_integer_parquet_ids_read_as_the_row_reader_does(tmp_path):
    path = tmp_path / "ints.parquet"
    pq.write_table(
        pa.table(
            {"model": ["m", "m"], "item_id": [1000, 7], "correct": pa.array([1, 0], pa.int8())}
        ),
        path,
    )
    fast_acct, slow_acct = accounting(), accounting()
    table = tabular.read_long_table(path, accounting=fast_acct)
    assert isinstance(table, pa.Table)
    pd.testing.assert_frame_equal(columnar.to_frame(table), row_reader_frame(path, slow_acct))
    assert table["item_id"].to_pylist() == ["1000", "7"]


def test_an_all_excluded_run_keeps_pandas_types(tmp_path):
    # No row left: the labelled file is the pandas path's (its empty columns'
    # Parquet types are pandas' own), not the Arrow table's.
    path = tmp_path / "run.csv"
    path.write_bytes(b"model,item_id,correct\nm,1,\nm,2,NA\n")
    source = {"run": "r1", "format": "long", "path": str(path), "files": [str(path)]}
    frame, acct = ingest.ingest(source["run"], "long", path, [path], {}, arrow=True)
    assert isinstance(frame, pd.DataFrame) and frame.empty
    assert acct.excluded == {"missing score": 2}


def test_ingest_gives_an_arrow_table_for_a_clean_long_file(tmp_path):
    path = tmp_path / "run.csv"
    path.write_bytes(FILES["all columns"].encode())
    labelled, _ = ingest.ingest("r1", "long", path, [path], {}, arrow=True)
    assert isinstance(labelled, pa.Table)
    frame, _ = ingest.ingest("r1", "long", path, [path], {})
    pd.testing.assert_frame_equal(frame, columnar.plain(labelled).to_pandas())
    assert columnar.plain(labelled).schema.equals(ingest.labelled_schema(), check_metadata=True)


def test_python_whitespace_list_is_complete():
    computed = "".join(chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace())
    assert columnar.PY_SPACE == computed


def test_row_groups_with_their_own_dictionaries_read_as_the_row_reader_does(tmp_path):
    # Each row group has its own Parquet dictionary; " r1" and "r1" clean to one
    # value, and the repeated item must be found across row groups.
    path = tmp_path / "groups.parquet"
    table = pa.table(
        {
            "model": ["m"] * 6,
            "item_id": ["a", "b", "c", "d", "e", "a"],
            "correct": pa.array([1, 0, 1, 1, 0, 1], pa.int8()),
            "category": ["x", "y", "z", " x", "x", "q"],
            "response": ["r1", "r2", " r1", "r3", "r4", "r1 "],
        }
    )
    pq.write_table(table, path, row_group_size=2)
    fast_acct, slow_acct = accounting(), accounting()
    fast = tabular.read_long_table(path, accounting=fast_acct)
    assert isinstance(fast, pa.Table)
    frame = row_reader_frame(path, slow_acct)
    pd.testing.assert_frame_equal(columnar.to_frame(fast), frame)
    assert frame["epoch"].tolist() == [1, 1, 1, 1, 1, 2]
    fast_file, slow_file = tmp_path / "fast.parquet", tmp_path / "slow.parquet"
    write_ingested(ingest.label_table(fast, "r", "long"), fast_acct, fast_file, tmp_path / "a")
    write_ingested(ingest.label(frame, "r", "long"), slow_acct, slow_file, tmp_path / "b")
    assert_same_labelled_file(fast_file, slow_file)
