"""The columnar long reader gives the row reader's frame, counts and errors."""

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from rederive.errors import InputError
from rederive.io import columnar, tabular
from rederive.io.accounting import Accounting

CLEAN = {
    "plain": "model,item_id,correct\nm,1,1\nm,2,0\n",
    "crlf, bom, no final newline": "\ufeffmodel,item_id,task,correct\r\nm,1,t,1\r\nm,2,t,0.5",
    "missing scores and blank rows": "model,item_id,correct\nm,1,\n\nm,2,NA\n,,\nm,3,true\n",
    "quoted fields over lines": (
        'model,item_id,correct,response\nm,1,1,"a, b\nsecond ""line"""\nm,2,0,""\nm,3,1,x\n'
    ),
    "repeats without epoch": "model,item_id,correct,category\nm,1,1,c\nm,1,0,c\nm, 1 ,1, \n",
    "epochs": "model,item_id,correct,epoch\nm,1,1,1\nm,1,0,2\nm,2,,x\nm,2,1, 3\n",
    "whitespace kept inside, stripped at edges": (
        "model,item_id,correct,response\n m ,\u00a0q1\u2003,1,\u3000 two words \x1f\n"
    ),
    "extra column and padding": "model , item_id,correct,extra\nm,1,  1.0 ,z\nm,2,FALSE,\n",
}
# Files the columnar path leaves to the row reader: errors, and the odd quoting
# Python's csv module reads its own way.
NOT_FAST = {
    "bad score": "model,item_id,correct\nm,1,1\nm,2,yes\n",
    "blank model": "model,item_id,correct\nm,1,1\n ,2,0\n",
    "repeated epoch": "model,item_id,correct,epoch\nm,1,1,1\nm,1,0,1\n",
    "epoch on some rows": "model,item_id,correct,epoch\nm,1,1,\nm,2,0,2\n",
    "too many cells": "model,item_id,correct\nm,1,1\nm,2,0,9\n",
    "stray quote": 'model,item_id,correct\nm,1 "x,1\nm,2,0\n',
    "unclosed quote": 'model,item_id,correct\nm,"1,1\nm,2,0\n',
    "no rows": "model,item_id,correct\n\n",
    "missing column": "model,item,correct\nm,1,1\n",
}


def row_reader(path):
    accounting = Accounting(study="s", run="r", file="f", sha256="")
    rows = tabular._iter_long_csv(path, str(path))
    frame = tabular._graded_frame(rows, name=str(path), default_task="t0", accounting=accounting)
    return frame, accounting


def fast_reader(path):
    accounting = Accounting(study="s", run="r", file="f", sha256="")
    frame = columnar.read_csv_long(path, name=str(path), default_task="t0", accounting=accounting)
    return frame, accounting


@pytest.mark.parametrize("case", sorted(CLEAN))
def test_clean_files_read_the_same(tmp_path, case):
    path = tmp_path / "run.csv"
    path.write_bytes(CLEAN[case].encode())
    fast, fast_acct = fast_reader(path)
    assert fast is not None, "the columnar path should take this file"
    slow, slow_acct = row_reader(path)
    pd.testing.assert_frame_equal(fast, slow)
    assert fast_acct.to_dict() == slow_acct.to_dict()


@pytest.mark.parametrize("case", sorted(NOT_FAST))
def test_other_files_go_to_the_row_reader(tmp_path, case):
    path = tmp_path / "run.csv"
    path.write_bytes(NOT_FAST[case].encode())
    accounting = Accounting(study="s", run="r", file="f", sha256="")
    assert columnar.read_csv_long(path, name="x", default_task="t", accounting=accounting) is None
    assert accounting.rows_read == 0  # nothing counted twice
    try:
        expected = row_reader(path)[0]
    except InputError as error:
        with pytest.raises(InputError) as raised:
            tabular.read_long(path, task="t0")
        assert (raised.value.line, raised.value.field) == (error.line, error.field)
        assert str(raised.value).replace(str(path), "") == str(error).replace(str(path), "")
    else:
        pd.testing.assert_frame_equal(
            tabular.read_long(path, task="t0").drop(columns="source_file"),
            expected.drop(columns="source_file"),
        )


def test_quote_parity_gives_start_lines():
    lines, empty = columnar.csv_records(b'h\n"a\nb"\n\n"c"\n')
    assert list(lines) == [1, 2, 4, 5] and list(empty) == [False, False, True, False]


def test_parquet_long_file(tmp_path):
    table = pa.table(
        {
            "model": ["m", "m", "m"],
            "item_id": pa.array([1, 2, 3]),
            "correct": pa.array([True, None, False]),
            "response": ["a", None, " b "],
        }
    )
    pq.write_table(table, tmp_path / "run.parquet")
    accounting = Accounting(study="s", run="r", file="f", sha256="")
    frame = tabular.read_long(tmp_path / "run.parquet", accounting=accounting)
    assert list(frame["item_id"]) == ["1", "3"] and list(frame["line"]) == [1, 3]
    assert list(frame["response"]) == ["a", "b"] and list(frame["task"]) == ["run", "run"]
    assert dict(accounting.excluded) == {"missing score": 1} and accounting.rows_used == 2


def test_parquet_bad_score_names_its_row(tmp_path):
    pq.write_table(
        pa.table({"model": ["m", "m"], "item_id": ["a", "b"], "correct": [0.5, 2.0]}),
        tmp_path / "r.parquet",
    )
    with pytest.raises(InputError) as error:
        tabular.read_long(tmp_path / "r.parquet")
    assert error.value.line == 2 and error.value.field == "correct"
