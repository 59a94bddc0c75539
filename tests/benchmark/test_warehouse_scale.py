"""The warehouse's large-input paths give what the pandas paths gave."""

import duckdb
import numpy as np
import pandas as pd

from rederive.io import warehouse
from rederive.studies.benchmark import warehouse as wh


def test_answered_from_cells_is_the_crosstab():
    rng = np.random.default_rng(1)
    cells = pd.DataFrame(
        {"ki": rng.integers(0, 30, 300), "mi": rng.integers(0, 7, 300)}, dtype="int32"
    ).drop_duplicates()
    con = duckdb.connect()
    con.register("_frame", cells)
    con.execute("CREATE TEMP TABLE _cells AS SELECT * FROM _frame")
    models = [f"m{i}" for i in range(7)]
    expected = pd.crosstab(cells["ki"], cells["mi"]).astype(bool)
    expected = expected.reindex(index=range(30), columns=range(7), fill_value=False)
    answered = wh.answered_from_cells(con, 30, models)
    assert list(answered.columns) == models
    np.testing.assert_array_equal(answered.to_numpy(), expected.to_numpy())


def test_responses_from_parquet_equal_the_pandas_table(tmp_path):
    frames = [
        pd.DataFrame(
            {
                "run": pd.array(["r1"] * 3, dtype="string"),
                "model": pd.array(["a"] * 3, dtype="string"),
                "task": pd.array(["t"] * 3, dtype="string"),
                "item_id": pd.array(["2", "10", "x"], dtype="string"),
                "correct": [1.0, 0.0, 0.5],
                "line": pd.array([2, None, 4], dtype="Int64"),
                "response": pd.array(["p", None, "q"], dtype="string"),
            }
        ),
        pd.DataFrame(
            {
                "run": pd.array(["r0"] * 2, dtype="string"),
                "model": pd.array(["b"] * 2, dtype="string"),
                "task": pd.array(["t"] * 2, dtype="string"),
                "item_id": pd.array(["2", "10"], dtype="string"),
                "correct": [0.0, 1.0],
                "line": pd.array([1, 2], dtype="Int64"),
                "filter": pd.array(["none", "none"], dtype="string"),
                "response": pd.array(["r", "s"], dtype="string"),
            }
        ),
    ]
    paths = []
    for name, frame in zip(["r1", "r0"], frames, strict=True):
        paths.append(str(tmp_path / f"{name}.parquet"))
        frame.to_parquet(paths[-1])
    stacked = warehouse.read_labelled(paths)
    stacked["item_key"] = stacked["task"] + wh.ITEM_KEY_SEP + stacked["item_id"]
    warehouse.build(tmp_path / "old.duckdb", {"responses": stacked})
    warehouse.build(tmp_path / "new.duckdb", {}, {"responses": wh.responses_sql(paths)})
    con = duckdb.connect()
    con.execute(f"ATTACH '{tmp_path / 'old.duckdb'}' AS o; ATTACH '{tmp_path / 'new.duckdb'}' AS n")
    assert (
        con.execute("DESCRIBE o.responses").fetchall()
        == con.execute("DESCRIBE n.responses").fetchall()
    )
    old = con.execute("SELECT * FROM o.responses").df()
    new = con.execute("SELECT * FROM n.responses").df()
    pd.testing.assert_frame_equal(old, new)
