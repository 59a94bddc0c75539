"""The SQL warehouse gives the pandas warehouse's tables and errors, in bounded memory.

The reference is the pandas build of commit de08ba0
(``warehouse_pandas_reference``, one pandas row per graded cell).
"""

import tracemalloc

import duckdb
import numpy as np
import pandas as pd
import pytest
import warehouse_pandas_reference as reference

from rederive.errors import InputError
from rederive.io import warehouse
from rederive.studies.benchmark import check, noise
from rederive.studies.benchmark import warehouse as wh
from rederive.studies.benchmark.common import load_epochs, load_scores

SHARED = {"min_n": 5, "partial_share": 0.9, "mode": "exclude_partial"}


def labelled(
    models,
    n_items,
    *,
    epochs=1,
    seed=0,
    fractional=False,
    missing=None,
    task="quiz",
    doc_hash=False,
    categories=None,
):
    """A stacked labelled frame: one run per model, ``missing`` = {model: item indices}."""
    rng = np.random.default_rng(seed)
    frames = []
    for m, model in enumerate(models):
        skip = set((missing or {}).get(model, ()))
        ids = [str(i) if i % 7 else f"q{i}" for i in range(n_items) if i not in skip]
        rows = [(i, e) for i in ids for e in range(epochs)]
        n = len(rows)
        correct = rng.integers(0, 8, n) / 7 if fractional else rng.integers(0, 2, n).astype(float)
        frames.append(
            pd.DataFrame(
                {
                    "run": [f"run{m:02d}"] * n,
                    "format": ["long"] * n,
                    "model": pd.array([model] * n, dtype="string"),
                    "task": pd.array([task] * n, dtype="string"),
                    "item_id": pd.array([i for i, _ in rows], dtype="string"),
                    "category": pd.array(
                        [(categories or {}).get(i, "c" + i[-1]) for i, _ in rows], dtype="string"
                    ),
                    "correct": correct,
                    "epoch": [e for _, e in rows],
                    "source_file": pd.array([f"runs/{model}.csv"] * n, dtype="string"),
                    "line": pd.array(range(2, n + 2), dtype="Int64"),
                    "doc_hash": pd.array(
                        [f"h{i}" if doc_hash else None for i, _ in rows], dtype="string"
                    ),
                    "response": pd.array(["x"] * n, dtype="string"),
                    "metric": pd.array(["acc"] * n, dtype="string"),
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def as_stored(tables, tmp_path, name):
    """Every table as DuckDB stores it: (column types, rows as a frame)."""
    path = tmp_path / f"{name}.duckdb"
    frames = {k: v for k, v in tables.items() if k != "responses"}
    warehouse.build(path, frames)
    with warehouse.read_only(path) as con:
        return {
            k: (con.execute(f'DESCRIBE "{k}"').fetchall(), con.execute(f'SELECT * FROM "{k}"').df())
            for k in frames
        }


def assert_same_tables(frame, tmp_path, policy, shared=None, metadata=None):
    old = reference.build_tables(frame.copy(), metadata, policy, shared)
    new = wh.build_tables(frame.copy(), metadata, policy, shared)
    assert sorted(old) == sorted(new)
    old_stored, new_stored = as_stored(old, tmp_path, "old"), as_stored(new, tmp_path, "new")
    for name, (types, rows) in old_stored.items():
        assert new_stored[name][0] == types, name
        pd.testing.assert_frame_equal(new_stored[name][1], rows, obj=name)
    return new


CASES = {
    "equal, one epoch": (lambda: labelled(["b", "a", "c"], 40), "require_equal", None),
    "epochs, partial credit": (
        lambda: labelled(["m1", "m2"], 30, epochs=3, fractional=True, seed=3),
        "require_equal",
        None,
    ),
    "five epochs, 0/1": (lambda: labelled(["x", "y"], 25, epochs=5), "require_equal", None),
    "gap, intersection": (
        lambda: labelled(["a", "b", "c"], 30, missing={"b": [3, 4, 20]}),
        "intersection",
        SHARED,
    ),
    "partial run left out": (
        lambda: labelled(["a", "b", "c", "d"], 40, missing={"d": range(10, 40)}, epochs=2),
        "intersection",
        SHARED,
    ),
    "small run left out": (
        lambda: labelled(["a", "b", "c"], 30, missing={"c": range(2, 30)}),
        "intersection",
        SHARED,
    ),
    "partial run kept (shared_items: intersection)": (
        lambda: labelled(["a", "b", "c", "d"], 40, missing={"d": range(10, 40)}),
        "intersection",
        {**SHARED, "mode": "intersection"},
    ),
    "doc hashes agree": (lambda: labelled(["a", "b"], 20, doc_hash=True), "require_equal", None),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_sql_tables_equal_the_pandas_tables(case, tmp_path):
    make, policy, shared = CASES[case]
    assert_same_tables(make(), tmp_path, policy, shared)


def test_item_metadata_gives_the_same_item_table(tmp_path):
    meta = pd.DataFrame(
        {
            "task": pd.array(["quiz", None], dtype=object),
            "item_id": ["3", "5"],
            "category": ["organic", pd.NA],
            "group": ["g1", "g2"],
        }
    ).replace({None: pd.NA})
    assert_same_tables(labelled(["a", "b"], 12), tmp_path, "require_equal", metadata=meta)


def errors_of(frame, policy, shared=None):
    found = []
    for build in (reference.build_tables, wh.build_tables):
        with pytest.raises(InputError) as info:
            build(frame.copy(), None, policy, shared)
        found.append((info.value.message, info.value.file, info.value.line, info.value.field))
    return found


def test_same_errors_duplicate_run_of_a_model():
    frame = labelled(["a", "b"], 10)
    again = frame[frame["model"] == "a"].assign(run="run09", source_file="runs/a-again.csv")
    old, new = errors_of(pd.concat([frame, again], ignore_index=True), "require_equal")
    assert new == old and "several runs" in new[0]


def test_same_errors_unequal_item_sets():
    old, new = errors_of(labelled(list("abcdefgh"), 12, missing={"c": [1], "h": [2, 5]}), "x")
    assert new == old and "not graded on the same items" in new[0]


def test_same_errors_no_shared_item():
    frame = pd.concat(
        [labelled(["a"], 5, task="t1"), labelled(["b"], 5, task="t2").assign(run="run01")]
    )
    old, new = errors_of(frame.reset_index(drop=True), "intersection")
    assert new == old and "share no item" in new[0]


def test_same_errors_doc_hash_and_category_conflicts():
    frame = labelled(["a", "b"], 10, doc_hash=True)
    bad = frame.copy()
    bad.loc[(bad["model"] == "b") & (bad["item_id"] == "3"), "doc_hash"] = "other"
    old, new = errors_of(bad, "require_equal")
    assert new == old and new[3] == "doc_hash"
    bad = frame.copy()
    bad.loc[(bad["model"] == "b") & (bad["item_id"] == "4"), "category"] = "zzz"
    old, new = errors_of(bad, "require_equal")
    assert new == old and new[3] == "category"


def test_same_errors_tasks_from_file_names():
    frames = [
        labelled([m], 8, task=m).assign(run=f"run{i}", source_file=f"long/{m}.csv")
        for i, m in enumerate(["m1", "m2", "m3"])
    ]
    old, new = errors_of(pd.concat(frames, ignore_index=True), "intersection")
    assert new == old and new[3] == "task"


def write_runs(frame, folder):
    """One labelled Parquet file per run, as the ingest writes them."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for run_id, rows in frame.groupby("run", sort=True):
        paths.append(str(folder / f"{run_id}.parquet"))
        rows.reset_index(drop=True).to_parquet(paths[-1])
    return paths


def build_db(paths, path, policy="require_equal", shared=None):
    with warehouse.building(path) as con:
        warehouse.create_stacked(con, "responses", wh.responses_sql(paths))
        warehouse.write_frames(con, wh.build_in(con, None, policy, shared))


def test_readers_of_the_warehouse_equal_the_pandas_reads(tmp_path):
    frame = labelled(["b", "a", "c", "d"], 30, epochs=3, fractional=True, missing={"d": [1]})
    db = tmp_path / "w.duckdb"
    build_db(write_runs(frame, tmp_path / "labelled"), db, "intersection", SHARED)
    with warehouse.read_only(db) as con:
        scores = con.execute("SELECT model, item_key, score FROM scores").df()
        items = con.execute("SELECT * FROM items").df()
        long = con.execute("SELECT model, item_key, epoch, correct FROM responses").df()
        kept = con.execute("SELECT model, item_key FROM scores").df()
        rows = con.execute("SELECT model, task, item_id, correct FROM responses").df()
    pivot = scores.pivot(index="item_key", columns="model", values="score")
    pivot = pivot.reindex(index=items["item_key"], columns=sorted(pivot.columns))
    matrix, items_read = load_scores(db)
    pd.testing.assert_frame_equal(matrix, pivot)
    pd.testing.assert_frame_equal(items_read, items)
    pd.testing.assert_frame_equal(load_epochs(db).frame(), long)
    pd.testing.assert_frame_equal(
        load_epochs(db, scored_only=True).frame(item_column="item"), noise.epochs_used(long, kept)
    )
    own, per_task = check.item_accuracy(db)
    pd.testing.assert_frame_equal(own, check.own_item_accuracy(rows))
    pd.testing.assert_frame_equal(per_task, check.task_accuracy(rows))


def traced_build_peak(n_models: int, n_items: int, folder) -> int:
    frame = labelled([f"m{i:03d}" for i in range(n_models)], n_items, seed=1)
    paths = write_runs(frame, folder / "labelled")
    del frame
    tracemalloc.start()
    try:
        build_db(paths, folder / "w.duckdb")
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_the_build_holds_no_python_row_per_cell(tmp_path):
    """From 100 x 1,000 to 200 x 2,000 cells (+300,000) the traced Python peak grows < 4 MB.

    One pandas frame row per cell costs at least its score, counts and two
    object pointers (40 bytes: +12 MB here), the pandas build ~0.5 GB; the SQL
    build keeps per-model and per-item tables and the answered matrix (1 byte a
    cell). The difference of two builds, the smaller one first, leaves out what
    does not grow with the cells (imports, caches, whatever earlier tests left:
    the absolute peak was 1.9 MiB alone and 9.2 MiB inside the full suite).
    """
    (tmp_path / "small").mkdir()
    (tmp_path / "large").mkdir()
    small = traced_build_peak(100, 1000, tmp_path / "small")
    large = traced_build_peak(200, 2000, tmp_path / "large")
    assert large - small < 4 * 2**20, f"{(large - small) / 2**20:.1f} MiB more traced"
    tmp_path = tmp_path / "large"
    con = duckdb.connect(str(tmp_path / "w.duckdb"), read_only=True)
    assert con.execute("SELECT count(*) FROM scores").fetchone() == (400_000,)
    con.close()
