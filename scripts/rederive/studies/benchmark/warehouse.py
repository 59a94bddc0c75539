"""Rule ``build_benchmark_warehouse``: join the runs, check that they are comparable,
and write ``results/benchmark/benchmark.duckdb``.

Checks, each an :class:`~rederive.errors.InputError` naming the files at fault:

* a (model, task) comes from one run only (two runs of one model would otherwise
  be silently pooled as repeats);
* lm-eval ``doc_hash`` agrees across models for each ``(task, doc_id)``: same key,
  different document means the runs used different dataset versions;
* every model answered the same items. ``item_sets`` says how a missing grade
  counts: ``require_equal`` refuses it; ``intersection`` excludes it, and the
  comparison uses the items every model was graded on, every dropped score
  counted in the ``alignment`` table (shown in ``data_quality.csv``); ``zero``
  counts it as 0 on every item another kept model was graded on (a ``scores``
  cell with ``n_rows = 0``, counted per model in ``overlap.n_missing_as_zero``).
  Before the intersection (or the zeros),
  ``shared_items`` (:mod:`rederive.stats.shared_items`) decides which models enter
  it: by default a small-n or partial model is left out (its rows counted in
  ``data_quality.csv``, the decision in the ``shared_items`` table), so one short
  run cannot shrink every other model's item set.

Repeats/epochs are averaged within (model, item) here, before any error bar, so a
model run with 5 epochs does not get 5× the weight of the items.

Everything that reads the graded rows runs in DuckDB SQL on the warehouse's own
``responses`` table (copied from the labelled Parquet files): the checks take
one aggregate per (model, task, run, format) and one per (task, item_id,
metric), the scores one per (model, item) held as integer codes, so at 150 M
graded cells no row becomes a Python object. Only tables of models, runs and
items reach pandas. "First" (a model's run, a file named in an error) is the
first row in run order, as the stacked pandas frame had it (DuckDB's ``rowid``).
"""

from pathlib import Path

import duckdb
import numpy as np
import pandas as pd

from rederive.errors import InputError, relpath
from rederive.io import formats, warehouse
from rederive.io.accounting import load_copies, load_runs
from rederive.io.batches import per_run_files
from rederive.io.names import read_csv
from rederive.io.source import read_csv_frame
from rederive.runner import run
from rederive.stats.shared_items import SharedItems, decide

ITEM_KEY_SEP = ":"


def item_sort_key(item_ids: pd.Series) -> pd.Series:
    """Numeric ids sort as numbers (2 < 10), others as text after them.

    Returns float keys: the number, or +inf for a text id (ties are then broken
    by the id itself). The ids are converted as plain objects: on a string dtype
    ``pd.to_numeric`` gives a nullable Int64 that cannot hold inf, which broke
    on ids mixing ``"0"`` and ``"q0"``.
    """
    numeric = pd.to_numeric(item_ids.astype(object), errors="coerce").astype(float)
    return numeric.fillna(float("inf"))


# Labelled columns the checks read; a run file without one (older labelled
# files, hand-made frames) reads as NULL there, as the stacked frame had NaN.
CHECKED_TYPES = {
    "run": "VARCHAR",
    "format": "VARCHAR",
    "model": "VARCHAR",
    "task": "VARCHAR",
    "item_id": "VARCHAR",
    "category": "VARCHAR",
    "correct": "DOUBLE",
    "epoch": "BIGINT",
    "source_file": "VARCHAR",
    "line": "BIGINT",
    "doc_hash": "VARCHAR",
    "metric": "VARCHAR",
    "item_key": "VARCHAR",
}


def checked_view(con: duckdb.DuckDBPyConnection) -> None:
    """The temporary view ``_r`` over ``responses``: the checked columns and ``_row``.

    ``_row`` is the row's position in run order (the table's ``rowid``); a column
    no run has is a typed NULL.
    """
    present = {row[0] for row in con.execute("DESCRIBE responses").fetchall()}
    columns = [
        f'"{name}"' if name in present else f'CAST(NULL AS {kind}) AS "{name}"'
        for name, kind in CHECKED_TYPES.items()
    ]
    con.execute(
        f"CREATE OR REPLACE TEMP VIEW _r AS SELECT rowid AS _row, {', '.join(columns)} "
        "FROM responses"
    )


def run_groups(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """One row per (model, task, run, format) present: rows, first rows, files.

    ``first_row`` is the group's first row; ``first_file`` that row's
    ``source_file``; ``file``/``file_row`` the group's first non-missing
    ``source_file`` and its row; ``min_file`` the smallest file name (the part
    before ``!``).
    """
    con.execute(
        """
        CREATE OR REPLACE TEMP TABLE _groups AS
        SELECT model, task, run, format, count(*) AS n_rows, min(_row) AS first_row,
               arg_min_null(source_file, _row) AS first_file,
               arg_min(source_file, _row) AS file,
               min(_row) FILTER (WHERE source_file IS NOT NULL) AS file_row,
               min(split_part(source_file, '!', 1)) AS min_file
        FROM _r GROUP BY model, task, run, format
        """
    )
    return con.execute("SELECT * FROM _groups ORDER BY first_row").df()


def check_one_run_per_model(groups: pd.DataFrame) -> None:
    """Refuse a (model, task) whose rows come from several runs (first in sorted order)."""
    runs = groups.groupby(["model", "task"], sort=True)["run"].unique()
    for (model, task), names in runs.items():
        names = [n for n in names if isinstance(n, str)]
        if len(names) > 1:
            files = groups.loc[groups["run"].isin(names), "min_file"].dropna()
            raise InputError(
                f"model {model!r} has task {task!r} in several runs ({', '.join(sorted(names))}); "
                "keep one run per model and task, or rename the model in one of them",
                file=min(files) if len(files) else None,
                field="model",
            )


def check_tasks_from_file_names(con: duckdb.DuckDBPyConnection, groups: pd.DataFrame) -> None:
    """Refuse long files that split one benchmark into per-file tasks.

    A long file without a ``task`` column gets its file name as task. With one
    file per model (MMLU-Pro's public outputs, say), every model then has its own
    task and no two models share an item, which would only surface as "0 of N
    items are shared". The fingerprint: several long files whose only task is
    their file name, different models in each, and the same ``item_id`` values
    under different tasks.
    """
    long = groups[groups["format"] == "long"]
    if long.empty:
        return
    suspects = []
    for run_id, rows in long.groupby("run", sort=True):
        tasks = rows["task"].unique()
        first = rows.loc[rows["first_row"].idxmin(), "first_file"]
        file = first.split("!")[0]
        if len(tasks) == 1 and tasks[0] == Path(file).stem:
            suspects.append((run_id, file, tasks[0], set(rows["model"].dropna())))
    if len(suspects) < 2:
        return
    models = [names for *_, names in suspects]
    if any(models[i] & models[j] for i in range(len(models)) for j in range(i)):
        return  # the same model graded under several file tasks: several benchmarks
    runs = [run_id for run_id, *_ in suspects]
    n_repeated, example, n_files = con.execute(
        """
        SELECT count(*), min(item_id), arg_min(n, item_id) FROM (
            SELECT item_id, count(DISTINCT task) AS n FROM _r
            WHERE format = 'long' AND list_contains($runs, run) AND item_id IS NOT NULL
            GROUP BY item_id HAVING count(DISTINCT task) > 1)
        """,
        {"runs": runs},
    ).fetchall()[0]
    if not n_repeated:
        return
    n_items = dict(
        con.execute(
            "SELECT run, count(DISTINCT item_id) FROM _r "
            "WHERE format = 'long' AND list_contains($runs, run) GROUP BY run",
            {"runs": runs[:5]},
        ).fetchall()
    )
    listed = "; ".join(
        f"{Path(file).name}: {', '.join(sorted(names))} "
        f"({n_items.get(run_id, 0):,} items, task {task!r})"
        for run_id, file, task, names in suspects[:5]
    )
    more = f"; … {len(suspects) - 5} more files" if len(suspects) > 5 else ""
    raise InputError(
        f"{len(suspects)} long files have no 'task' column, so each file's name became its "
        f"task and no two of their models can share an item ({listed}{more}). Yet "
        f"{n_repeated:,} item_id values appear in several of these files (e.g. "
        f"{example!r} in {int(n_files)} files): they look like one benchmark split "
        "one file per model. Add a 'task' column with the benchmark's name (the same in every "
        "file), e.g. task=mmlu_pro",
        file=suspects[0][1],
        field="task",
    )


def item_facts(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """One row per (task, item_id): first row, categories, doc hashes (min/max).

    Also leaves ``_item_metric`` (one row per item and metric) for the task
    table. Two distinct values show as min ≠ max, so no DISTINCT aggregate runs
    over the rows.
    """
    con.execute(
        """
        CREATE OR REPLACE TEMP TABLE _item_metric AS
        SELECT task, item_id, coalesce(metric, 'correct') AS metric, min(_row) AS first_row,
               min(category) AS category_min, max(category) AS category_max,
               arg_min(category, _row) AS category,
               min(_row) FILTER (WHERE category IS NOT NULL) AS category_row,
               min(doc_hash) AS hash_min, max(doc_hash) AS hash_max
        FROM _r GROUP BY task, item_id, coalesce(metric, 'correct')
        """
    )
    return con.execute(
        """
        SELECT task, item_id, min(first_row) AS first_row,
               min(category_min) AS category_min, max(category_max) AS category_max,
               arg_min(category, category_row) AS category,
               min(hash_min) AS hash_min, max(hash_max) AS hash_max
        FROM _item_metric GROUP BY task, item_id ORDER BY first_row
        """
    ).df()


def conflicting_items(facts: pd.DataFrame, field: str) -> pd.DataFrame:
    """The items whose ``<field>_min`` and ``<field>_max`` differ, by (task, item_id).

    :func:`item_facts` keeps each item's smallest and largest non-missing value
    of a field that must agree across models: they differ exactly when it does not.
    """
    low, high = facts[f"{field}_min"], facts[f"{field}_max"]
    return facts[low.notna() & (low != high)].sort_values(["task", "item_id"])


def check_doc_hashes(con: duckdb.DuckDBPyConnection, facts: pd.DataFrame) -> None:
    """Refuse items whose lm-eval ``doc_hash`` differs between models."""
    bad = conflicting_items(facts, "hash")
    if bad.empty:
        return
    task, item = bad.iloc[0][["task", "item_id"]]
    rows = con.execute(
        "SELECT model, source_file, line, doc_hash FROM _r "
        "WHERE task = $task AND item_id = $item AND doc_hash IS NOT NULL ORDER BY _row",
        {"task": task, "item": item},
    ).fetchall()
    first = rows[0]
    other = next(row for row in rows if row[3] != first[3])
    # The labelled ``line`` is a nullable integer: a missing one printed as <NA>.
    line = "<NA>" if first[2] is None else first[2]
    raise InputError(
        f"doc_hash of task {task!r} doc_id {item} differs between models: {first[0]} "
        f"({first[1]}:{line}) has {first[3][:12]}…, {other[0]} has "
        f"{other[3][:12]}…; the runs used different documents under the same id "
        f"({len(bad)} item(s) affected). Re-run on the same dataset version",
        file=other[1],
        line=None if other[2] is None else int(other[2]),
        field="doc_hash",
    )


def read_item_metadata(path: Path | None) -> pd.DataFrame | None:
    """Optional ``items.csv``: ``item_id`` (+ ``task``), ``category``, ``group``."""
    if path is None or not path.exists():
        return None
    name = relpath(path)
    frame = read_csv_frame(path, dtype=str, keep_default_na=False)
    if "item_id" not in frame.columns:
        raise InputError("required column is missing", file=name, line=1, field="item_id")
    for column in ("task", "category", "group"):
        if column not in frame.columns:
            frame[column] = ""
    frame = frame[["task", "item_id", "category", "group"]].apply(lambda s: s.str.strip())
    dup = frame.duplicated(["task", "item_id"], keep="first")
    if dup.any():
        line = int(dup.to_numpy().nonzero()[0][0]) + 2
        raise InputError("item listed twice", file=name, line=line, field="item_id")
    return frame.replace("", pd.NA)


def item_table(
    con: duckdb.DuckDBPyConnection, facts: pd.DataFrame, metadata: pd.DataFrame | None
) -> pd.DataFrame:
    """One row per (task, item_id) with its category and resampling group.

    ``facts`` is :func:`item_facts`; a conflict of categories is refused naming
    the item's first file.
    """
    conflicts = conflicting_items(facts, "category")
    if not conflicts.empty:
        task, item = conflicts.iloc[0][["task", "item_id"]]
        values = con.execute(
            "SELECT DISTINCT category FROM _r "
            "WHERE task = $task AND item_id = $item AND category IS NOT NULL",
            {"task": task, "item": item},
        ).fetchall()
        (file,) = con.execute(
            "SELECT arg_min_null(source_file, _row) FROM _r WHERE task = $task AND item_id = $item",
            {"task": task, "item": item},
        ).fetchall()[0]
        raise InputError(
            f"item {task}/{item} has different categories across runs: "
            f"{sorted(v for (v,) in values)}",
            file=file,
            field="category",
        )
    items = pd.DataFrame(
        {
            "task": pd.array(facts["task"], dtype="string"),
            "item_id": pd.array(facts["item_id"], dtype="string"),
            "category": pd.Series(
                [pd.NA if v is None or v is pd.NA else v for v in facts["category"]], dtype=object
            ),
        }
    )
    items["group"] = pd.NA
    if metadata is not None:
        by_task = metadata.dropna(subset=["task"])
        any_task = metadata[metadata["task"].isna()].drop(columns="task")
        merged = items.merge(by_task, on=["task", "item_id"], how="left", suffixes=("", "_meta"))
        merged = merged.merge(any_task, on="item_id", how="left", suffixes=("", "_any"))
        for column in ("category", "group"):
            meta = merged[f"{column}_meta"].combine_first(merged[f"{column}_any"])
            merged[column] = meta.combine_first(merged[column])
        items = merged[["task", "item_id", "category", "group"]].copy()
    items["category"] = items["category"].fillna(items["task"]).astype("string")
    items["group"] = items["group"].astype("string")
    items["item_key"] = items["task"] + ITEM_KEY_SEP + items["item_id"]
    items["_order"] = item_sort_key(items["item_id"])
    items = (
        items.sort_values(["task", "_order", "item_id"])
        .drop(columns="_order")
        .reset_index(drop=True)
    )
    return items[["item_key", "task", "item_id", "category", "group"]]


def shared_item_models(answered: pd.DataFrame, shared_items: dict | None) -> SharedItems:
    """Which models enter the shared item set (all of them without settings).

    ``answered`` is the items × models matrix of :func:`answered_from_cells`
    (models sorted by name).
    """
    settings = shared_items or {"min_n": 1, "partial_share": 0.0, "mode": "intersection"}
    # partial_share 0 would flag nobody; the schema bounds it above 0 for users.
    return decide(answered, **settings)


# Rows per fetched batch of integer codes (two int32 columns: 8 MB).
_BATCH_ROWS = 1 << 20


def answered_from_cells(
    con: duckdb.DuckDBPyConnection, n_items: int, models: list[str]
) -> pd.DataFrame:
    """Items (in ``_keys`` order) × models: True where ``_cells`` has the score.

    Filled from the cells' integer codes, fetched in batches: the booleans
    (n_items × n_models bytes, 150 MB at 30,000 × 5,000) are the only full-size
    object.
    """
    values = np.zeros((n_items, len(models)), dtype=bool)
    reader = con.sql("SELECT ki, mi FROM _cells").to_arrow_reader(_BATCH_ROWS)
    for batch in reader:
        values[batch.column(0).to_numpy(), batch.column(1).to_numpy()] = True
    return pd.DataFrame(values, columns=pd.Index(models, dtype=object, name="model"))


def align_items(
    answered: pd.DataFrame,
    keys: np.ndarray,
    policy: str,
    files: dict[str, str] | None = None,
    shared_items: dict | None = None,
) -> tuple[np.ndarray, np.ndarray, pd.DataFrame, pd.DataFrame]:
    """Keep items answered by every model, count missing grades as 0, or refuse
    when item sets differ (``policy``: ``intersection``, ``zero``, ``require_equal``).

    Parameters
    ----------
    answered : DataFrame
        Items × models booleans (columns: models sorted by name).
    keys : ndarray
        The item key of each row of ``answered``.
    shared_items : dict, optional
        ``min_n``, ``partial_share`` and ``mode`` of
        :func:`rederive.stats.shared_items.decide`; under ``item_sets:
        intersection`` the models it leaves out are dropped before the
        intersection (every model is kept without it).

    Returns
    -------
    kept_items, kept_models : ndarray of bool
        The rows and columns of ``answered`` the scores keep. Under ``zero`` the
        kept items are those any kept model was graded on.
    overlap : DataFrame
        Per model: items answered, shared by the kept models (under ``zero``:
        the items scored, with the zeros), dropped (``n_dropped``: every item of
        a model left out); under ``zero`` also ``n_missing_as_zero``.
    decision : DataFrame
        The ``shared_items`` table, one row per model.
    """
    values = answered.to_numpy(dtype=bool)
    models = list(answered.columns)
    per_item = values.sum(axis=1)
    n_answered = values.sum(axis=0)
    present = per_item > 0
    n_union = int(present.sum())
    equal = bool((per_item[present] == len(models)).all())
    if equal or policy not in ("intersection", "zero"):
        # Equal item sets leave nobody out; require_equal refuses unequal ones below.
        decision = shared_item_models(answered, None)
    else:
        decision = shared_item_models(answered, shared_items)
    kept_models = np.isin(np.asarray(models, dtype=object), decision.kept)
    # No model kept shares nothing (not every item, as all() over no column says).
    kept_values = values[:, kept_models]
    if policy == "zero" and not equal:
        # Every item a kept model was graded on; the others' missing grades are 0.
        shared = present & kept_values.any(axis=1)
    else:
        shared = present & kept_values.all(axis=1) & bool(kept_models.any())
    overlap = pd.DataFrame(
        {
            "model": models,
            "n_items_answered": n_answered.astype("int64"),
            "n_items_union": n_union,
            "n_items_shared": int(shared.sum()),
        }
    )
    answered_kept = (values & shared[:, None]).sum(axis=0)
    overlap["n_dropped"] = overlap["n_items_answered"] - answered_kept
    left = ~overlap["model"].isin(set(decision.kept))
    overlap.loc[left, "n_dropped"] = overlap.loc[left, "n_items_answered"]
    if equal:
        return present, kept_models, overlap, decision.table
    if policy == "zero":
        zeros = np.where(kept_models, (shared[:, None] & ~values).sum(axis=0), 0)
        overlap["n_missing_as_zero"] = zeros.astype("int64")
    if policy not in ("intersection", "zero"):
        lines = []
        first_file = None
        n_missing = (present[:, None] & ~values).sum(axis=0)
        for j, model in enumerate(models):
            if n_missing[j]:
                first_file = first_file or (files or {}).get(model)
                if len(lines) <= 6:
                    missing = sorted(keys[present & ~values[:, j]])
                    lines.append(f"{model}: {len(missing)} missing, e.g. {', '.join(missing[:3])}")
                else:
                    lines.append(model)
        raise InputError(
            f"the models were not graded on the same items: {int(shared.sum())} of {n_union} items "
            f"are shared by all {len(models)} models ({'; '.join(lines[:6])}"
            f"{' …' if len(lines) > 6 else ''}). Fix the runs, or set "
            "analyses.<name>.item_sets: intersection to compare on the shared items only",
            file=first_file,
            field="item_id",
        )
    if not shared.any():
        counts = "; ".join(
            f"{m}: {int(n):,} items" for m, n in zip(models[:8], n_answered, strict=False)
        )
        raise InputError(
            f"the models share no item at all ({n_union:,} items in total; {counts}"
            f"{' …' if len(models) > 8 else ''}): nothing to compare. Items are matched on "
            "(task, item_id): check that every run names the task the same way",
            file=next(iter((files or {}).values()), None),
            field="item_id",
        )
    return shared, kept_models, overlap, decision.table


def task_metrics(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Per task: the metric(s) that scored it and its number of (kept) items.

    ``metric`` is what the reader recorded (lm-eval: ``acc``, ``exact_match``, …;
    formats without one: ``correct``); several are joined with ``+``. Read from
    ``_item_metric`` on the kept items (``_keys.kept``).
    """
    rows = con.execute(
        """
        SELECT f.task, list(DISTINCT f.metric), count(DISTINCT k.ki)
        FROM _item_metric f JOIN _keys k ON k.item_key = f.task || $sep || f.item_id
        WHERE k.kept GROUP BY f.task ORDER BY f.task
        """,
        {"sep": ITEM_KEY_SEP},
    ).fetchall()
    tasks = pd.DataFrame(
        {
            "task": [task for task, _, _ in rows],
            "metric": ["+".join(sorted(metrics)) for _, metrics, _ in rows],
            "n_items": [n for _, _, n in rows],
        }
    )
    return tasks.astype({"task": "string", "metric": "string", "n_items": "int64"})


def build_in(
    con: duckdb.DuckDBPyConnection,
    metadata: pd.DataFrame | None,
    policy: str,
    shared_items: dict | None = None,
) -> dict[str, pd.DataFrame]:
    """Check the ``responses`` table on ``con`` and write its ``scores`` table there.

    ``responses`` holds every labelled row in run order with its ``item_key``.
    Creates the table ``scores`` (kept (model, item) epoch means, sorted by
    model then item order) on ``con`` and returns the other tables (dropped,
    tasks, items, models, overlap, shared_items) as DataFrames.
    """
    checked_view(con)
    groups = run_groups(con)
    if groups.empty:
        raise InputError("no graded answers were read: every run is empty or fully excluded")
    check_one_run_per_model(groups)
    check_tasks_from_file_names(con, groups)
    facts = item_facts(con)
    check_doc_hashes(con, facts)
    items = item_table(con, facts, metadata)
    models = sorted(groups["model"].dropna().unique())
    runs = sorted(groups["run"].dropna().unique())
    con.register(
        "_models_frame",
        pd.DataFrame({"model": models, "mi": np.arange(len(models), dtype="int32")}),
    )
    con.register(
        "_keys_frame",
        pd.DataFrame({"item_key": items["item_key"], "ki": np.arange(len(items), dtype="int32")}),
    )
    con.register(
        "_runs_frame", pd.DataFrame({"run": runs, "ri": np.arange(len(runs), dtype="int32")})
    )
    con.execute(
        "CREATE OR REPLACE TEMP TABLE _models AS SELECT *, true AS kept FROM _models_frame;"
        "CREATE OR REPLACE TEMP TABLE _keys AS SELECT *, true AS kept FROM _keys_frame;"
        "CREATE OR REPLACE TEMP TABLE _runs AS SELECT * FROM _runs_frame"
    )
    for name in ("_models_frame", "_keys_frame", "_runs_frame"):
        con.unregister(name)
    # Epoch means as pandas' groupby mean gives them: Kahan summation in row
    # order. DuckDB's fsum is that summation, but unordered it combines partial
    # sums in any order; that is exact only for one row or integer scores, so
    # the other cells are summed again in row order. The run is one per cell
    # (one run per model and task).
    con.execute(
        """
        CREATE OR REPLACE TEMP TABLE _cells AS
        SELECT m.mi, k.ki, min(u.ri) AS ri,
               fsum(CAST(r.correct AS DOUBLE)) / count(r.correct) AS score,
               CAST(count(DISTINCT r.epoch) AS INTEGER) AS n_epochs,
               CAST(count(*) AS INTEGER) AS n_rows,
               coalesce(bool_and(r.correct = 0 OR r.correct = 1), true) AS whole
        FROM _r r JOIN _models m ON r.model = m.model JOIN _keys k ON r.item_key = k.item_key
             LEFT JOIN _runs u ON r.run = u.run
        GROUP BY m.mi, k.ki
        """
    )
    (n_inexact,) = con.execute(
        "SELECT count(*) FROM _cells WHERE n_rows > 1 AND NOT whole"
    ).fetchall()[0]
    if n_inexact:
        con.execute(
            """
            UPDATE _cells SET score = f.score FROM (
                SELECT m.mi, k.ki,
                       fsum(CAST(r.correct AS DOUBLE) ORDER BY r._row) / count(r.correct) AS score
                FROM _r r JOIN _models m ON r.model = m.model
                     JOIN _keys k ON r.item_key = k.item_key
                     JOIN (SELECT mi, ki FROM _cells WHERE n_rows > 1 AND NOT whole) x
                       ON x.mi = m.mi AND x.ki = k.ki
                GROUP BY m.mi, k.ki
            ) f WHERE _cells.mi = f.mi AND _cells.ki = f.ki
            """
        )
    files = {
        model: file.split("!")[0]
        for model, file in con.execute(
            "SELECT model, arg_min(file, file_row) FROM _groups "
            "WHERE model IS NOT NULL GROUP BY model HAVING count(file) > 0"
        ).fetchall()
    }
    answered = answered_from_cells(con, len(items), models)
    keys = items["item_key"].to_numpy(dtype=object)
    kept_items, kept_models, overlap, decision = align_items(
        answered, keys, policy, files, shared_items
    )
    del answered
    con.execute(
        "UPDATE _models SET kept = list_contains($kept, mi)",
        {"kept": np.flatnonzero(kept_models).tolist()},
    )
    con.execute(
        "UPDATE _keys SET kept = list_contains($kept, ki)",
        {"kept": np.flatnonzero(kept_items).tolist()},
    )
    # Under item_sets: zero a kept model's missing grade on a kept item is a
    # cell of its own: score 0, no epoch, no row behind it.
    zeros = (
        "UNION ALL SELECT m.mi, k.ki, 0.0, 0, 0 FROM _models m CROSS JOIN _keys k "
        "WHERE m.kept AND k.kept AND NOT EXISTS "
        "(SELECT 1 FROM _cells x WHERE x.mi = m.mi AND x.ki = k.ki)"
        if "n_missing_as_zero" in overlap
        else ""
    )
    con.execute(
        f"""
        CREATE TABLE scores AS
        SELECT m.model, k.item_key, c.score, CAST(c.n_epochs AS BIGINT) AS n_epochs,
               CAST(c.n_rows AS BIGINT) AS n_rows
        FROM (SELECT mi, ki, score, n_epochs, n_rows FROM _cells {zeros}) c
             JOIN _models m ON c.mi = m.mi JOIN _keys k ON c.ki = k.ki
        WHERE m.kept AND k.kept ORDER BY c.mi, c.ki
        """
    )
    # Rows behind each dropped score, per run and model: data_quality.csv moves
    # exactly these from "used" to the alignment exclusion.
    dropped = con.execute(
        """
        SELECT u.run, m.model, CAST(sum(c.n_rows) AS BIGINT) AS rows
        FROM _cells c JOIN _models m ON c.mi = m.mi JOIN _keys k ON c.ki = k.ki
             JOIN _runs u ON c.ri = u.ri
        WHERE NOT (m.kept AND k.kept) GROUP BY u.run, m.model ORDER BY u.run, m.model
        """
    ).df()
    if dropped.empty:
        # The pandas build's empty table (its run column had no type).
        dropped = pd.DataFrame(
            {
                "run": pd.Series([], dtype=object),
                "model": pd.array([], dtype="string"),
                "rows": pd.Series([], dtype="int64"),
            }
        )
    model_table = con.execute(
        """
        SELECT model, arg_min(run, first_row) AS run, arg_min(format, first_row) AS format,
               CAST(sum(n_rows) AS BIGINT) AS n_rows
        FROM _groups WHERE model IS NOT NULL GROUP BY model ORDER BY model
        """
    ).df()
    tasks = task_metrics(con)
    items = items[kept_items].reset_index(drop=True)
    for name in ("_cells", "_keys", "_models", "_runs", "_groups", "_item_metric"):
        con.execute(f"DROP TABLE IF EXISTS {name}")
    con.execute("DROP VIEW IF EXISTS _r")
    return {
        "dropped": dropped,
        "tasks": tasks,
        "items": items,
        "models": model_table,
        "overlap": overlap,
        "shared_items": decision,
    }


def build_tables(
    responses: pd.DataFrame,
    metadata: pd.DataFrame | None,
    policy: str,
    shared_items: dict | None = None,
) -> dict[str, pd.DataFrame]:
    """:func:`build_in` on a stacked labelled frame, every table as a DataFrame.

    For tests and small inputs: the frame (with ``item_key`` added) is the
    ``responses`` table of an in-memory DuckDB; returns it as ``responses`` and
    the ``scores`` table as a DataFrame, next to :func:`build_in`'s tables.
    """
    if responses.empty:
        raise InputError("no graded answers were read: every run is empty or fully excluded")
    responses = responses.assign(item_key=responses["task"] + ITEM_KEY_SEP + responses["item_id"])
    con = duckdb.connect()
    try:
        con.register("_frame", responses)
        con.execute("CREATE TABLE responses AS SELECT * FROM _frame")
        con.unregister("_frame")
        tables = build_in(con, metadata, policy, shared_items)
        scores = con.execute("SELECT * FROM scores").df()
    finally:
        con.close()
    return {"responses": responses, "scores": scores, **tables}


def responses_sql(labelled: list[str], copies: dict | None = None) -> list[tuple[str, dict]]:
    """The ``responses`` table (every labelled row and its ``item_key``) as SELECTs
    for :func:`rederive.io.warehouse.create_stacked`.

    The labelled rows in run order (:func:`rederive.io.warehouse.stacked_statements`:
    labelled tables and verbatim copies of raw files alike), with ``item_key`` =
    ``task:item_id``, without the rows in pandas.
    """
    extra = f", task || '{ITEM_KEY_SEP}' || item_id AS item_key"
    return warehouse.stacked_statements(labelled, copies or {}, extra)


def empty_reported_frame() -> pd.DataFrame:
    """The ``reported`` table when no run has a harness aggregate (as the
    header-only CSV each such run once wrote reads)."""
    return pd.DataFrame({c: pd.Series(dtype=object) for c in ["run", *formats.REPORTED_COLUMNS]})


def main(snakemake):
    ingested = snakemake.input.ingested
    labelled = per_run_files(ingested, "labelled")
    items_path = Path(snakemake.params.items_file) if snakemake.params.items_file else None
    p = snakemake.params
    shared = {"min_n": p.min_n, "partial_share": p.partial_share, "mode": p.shared_items}
    metadata = read_item_metadata(items_path)
    reported = [
        read_csv(p, dtype={"model": str, "task": str}) for p in per_run_files(ingested, "reported")
    ]
    accounting = per_run_files(ingested, "accounting")
    with warehouse.building(snakemake.output.db) as con:
        warehouse.create_stacked(con, "responses", responses_sql(labelled, load_copies(accounting)))
        tables = build_in(con, metadata, p.item_sets, shared)
        tables["accounting"] = load_runs(accounting)
        tables["reported"] = (
            pd.concat(reported, ignore_index=True) if reported else empty_reported_frame()
        )
        warehouse.write_frames(con, tables)


if __name__ == "__main__" and "snakemake" in globals():
    run(main, snakemake)  # noqa: F821
