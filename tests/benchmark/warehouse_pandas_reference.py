"""The pandas warehouse of commit de08ba0 (one pandas row per graded cell), kept as
the reference the SQL warehouse (:mod:`rederive.studies.benchmark.warehouse`) is
tested against: the same tables and the same error messages on varied inputs.

Only the table building is kept (no ``main``); not used by the workflow. The item
sort key, which both builds share unchanged, is imported from the SQL module
rather than copied; ``items.csv`` comes in as a frame (its reader is not compared).
"""

from pathlib import Path

import numpy as np
import pandas as pd

from rederive.errors import InputError
from rederive.stats.shared_items import SharedItems, decide
from rederive.studies.benchmark.warehouse import item_sort_key

ITEM_KEY_SEP = ":"


def check_one_run_per_model(responses: pd.DataFrame) -> None:
    runs = responses.groupby(["model", "task"], sort=True)["run"].unique()
    for (model, task), names in runs.items():
        if len(names) > 1:
            files = sorted(
                responses.loc[responses["run"].isin(names), "source_file"]
                .str.split("!")
                .str[0]
                .unique()
            )
            raise InputError(
                f"model {model!r} has task {task!r} in several runs ({', '.join(sorted(names))}); "
                "keep one run per model and task, or rename the model in one of them",
                file=files[0],
                field="model",
            )


def check_doc_hashes(responses: pd.DataFrame) -> None:
    """Refuse items whose lm-eval ``doc_hash`` differs between models."""
    hashed = responses.dropna(subset=["doc_hash"])
    if hashed.empty:
        return
    distinct = hashed.groupby(["task", "item_id"], sort=True)["doc_hash"].nunique()
    bad = distinct[distinct > 1]
    if bad.empty:
        return
    task, item = bad.index[0]
    rows = hashed[(hashed["task"] == task) & (hashed["item_id"] == item)]
    first = rows.iloc[0]
    other = rows[rows["doc_hash"] != first["doc_hash"]].iloc[0]
    raise InputError(
        f"doc_hash of task {task!r} doc_id {item} differs between models: {first['model']} "
        f"({first['source_file']}:{first['line']}) has {first['doc_hash'][:12]}…, {other['model']} has "
        f"{other['doc_hash'][:12]}…; the runs used different documents under the same id "
        f"({len(bad)} item(s) affected). Re-run on the same dataset version",
        file=other["source_file"],
        line=int(other["line"]) if pd.notna(other["line"]) else None,
        field="doc_hash",
    )


def check_tasks_from_file_names(responses: pd.DataFrame) -> None:
    """Refuse long files that split one benchmark into per-file tasks.

    A long file without a ``task`` column gets its file name as task. With one
    file per model (MMLU-Pro's public outputs, say), every model then has its own
    task and no two models share an item, which would only surface as "0 of N
    items are shared". The fingerprint: several long files whose only task is
    their file name, different models in each, and the same ``item_id`` values
    under different tasks.
    """
    long = responses.loc[
        responses["format"] == "long", ["run", "task", "model", "item_id", "source_file"]
    ]
    if long.empty:
        return
    # Per run rather than per row: splitting 4 M file names doubled the peak memory.
    suspects = []
    for run_id, rows in long.groupby("run", sort=True):
        tasks = rows["task"].unique()
        file = rows["source_file"].iloc[0].split("!")[0]
        if len(tasks) == 1 and tasks[0] == Path(file).stem:
            suspects.append((run_id, file, tasks[0], rows))
    if len(suspects) < 2:
        return
    models = [set(rows["model"].unique()) for *_, rows in suspects]
    if any(models[i] & models[j] for i in range(len(models)) for j in range(i)):
        return  # the same model graded under several file tasks: several benchmarks
    ids = pd.concat([rows[["task", "item_id"]] for *_, rows in suspects]).drop_duplicates()
    repeated = ids.groupby("item_id")["task"].nunique()
    repeated = repeated[repeated > 1]
    if repeated.empty:
        return
    listed = "; ".join(
        f"{Path(file).name}: {', '.join(sorted(rows['model'].unique()))} "
        f"({rows['item_id'].nunique():,} items, task {task!r})"
        for _, file, task, rows in suspects[:5]
    )
    more = f"; … {len(suspects) - 5} more files" if len(suspects) > 5 else ""
    example = repeated.index[0]
    raise InputError(
        f"{len(suspects)} long files have no 'task' column, so each file's name became its "
        f"task and no two of their models can share an item ({listed}{more}). Yet "
        f"{len(repeated):,} item_id values appear in several of these files (e.g. "
        f"{example!r} in {int(repeated.iloc[0])} files): they look like one benchmark split "
        "one file per model. Add a 'task' column with the benchmark's name (the same in every "
        "file), e.g. task=mmlu_pro",
        file=suspects[0][1],
        field="task",
    )


def item_table(responses: pd.DataFrame, metadata: pd.DataFrame | None) -> pd.DataFrame:
    """One row per (task, item_id) with its category and resampling group."""
    cats = (
        responses.dropna(subset=["category"])
        .groupby(["task", "item_id"], sort=True)["category"]
        .unique()
    )
    conflicts = cats[cats.map(len) > 1]
    if not conflicts.empty:
        (task, item), values = conflicts.index[0], conflicts.iloc[0]
        row = responses[(responses["task"] == task) & (responses["item_id"] == item)].iloc[0]
        raise InputError(
            f"item {task}/{item} has different categories across runs: {sorted(values)}",
            file=row["source_file"],
            field="category",
        )
    items = responses[["task", "item_id"]].drop_duplicates().copy()
    items["category"] = [
        cats.get((t, i), [pd.NA])[0] for t, i in zip(items["task"], items["item_id"], strict=True)
    ]
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


def answered_matrix(scores: pd.DataFrame) -> pd.DataFrame:
    """Items × models, True where the model has a score for the item (both sorted).

    What ``pd.crosstab(item_key, model).astype(bool)`` gives, set from codes:
    crosstab aggregated each of the 4 M (item, model) cells in Python (6 minutes
    of the warehouse step at 200 × 20,000).
    """
    items, item_ids = pd.factorize(scores["item_key"], sort=True)
    models, model_names = pd.factorize(scores["model"], sort=True)
    values = np.zeros((len(item_ids), len(model_names)), dtype=bool)
    values[items, models] = True
    return pd.DataFrame(
        values,
        index=pd.Index(item_ids, name="item_key"),
        columns=pd.Index(model_names.astype(object), name="model"),
    )


def shared_item_models(scores: pd.DataFrame, shared_items: dict | None) -> SharedItems:
    """Which models enter the shared item set (all of them without settings)."""
    answered = answered_matrix(scores)
    settings = shared_items or {"min_n": 1, "partial_share": 0.0, "mode": "intersection"}
    # partial_share 0 would flag nobody; the schema bounds it above 0 for users.
    return decide(answered, **settings)


def align_items(
    scores: pd.DataFrame,
    policy: str,
    files: dict[str, str] | None = None,
    shared_items: dict | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Keep items answered by every model, or refuse when item sets differ.

    Parameters
    ----------
    shared_items : dict, optional
        ``min_n``, ``partial_share`` and ``mode`` of
        :func:`rederive.stats.shared_items.decide`; under ``item_sets:
        intersection`` the models it leaves out are dropped before the
        intersection (every model is kept without it).

    Returns
    -------
    kept : DataFrame
        ``scores`` restricted to the shared items (and the models kept).
    overlap : DataFrame
        Per model: items answered, shared by the kept models, dropped
        (``n_dropped``: every item of a model left out).
    decision : DataFrame
        The ``shared_items`` table, one row per model.
    """
    models = sorted(scores["model"].unique())
    per_item = scores.groupby("item_key")["model"].nunique()
    answered = scores.groupby("model")["item_key"].nunique()
    n_union = per_item.size
    equal = bool((per_item == len(models)).all())
    if equal or policy != "intersection":
        # Equal item sets leave nobody out; require_equal refuses unequal ones below.
        decision = shared_item_models(scores, None)
    else:
        decision = shared_item_models(scores, shared_items)
    kept_models = set(decision.kept)
    if len(kept_models) < len(models):
        scores_kept = scores[scores["model"].isin(kept_models)]
        per_kept = scores_kept.groupby("item_key")["model"].nunique()
        shared = set(per_kept[per_kept == len(kept_models)].index)
    else:
        scores_kept = scores
        shared = set(per_item[per_item == len(models)].index)
    overlap = pd.DataFrame(
        {
            "model": models,
            "n_items_answered": [int(answered[m]) for m in models],
            "n_items_union": n_union,
            "n_items_shared": len(shared),
        }
    )
    overlap["n_dropped"] = overlap["n_items_answered"] - overlap["n_items_shared"]
    left = ~overlap["model"].isin(kept_models)
    overlap.loc[left, "n_dropped"] = overlap.loc[left, "n_items_answered"]
    if equal:
        return scores, overlap, decision.table
    if policy != "intersection":
        lines = []
        first_file = None
        for model in models:
            have = set(scores.loc[scores["model"] == model, "item_key"])
            missing = sorted(set(per_item.index) - have)
            if missing:
                first_file = first_file or (files or {}).get(model)
                lines.append(f"{model}: {len(missing)} missing, e.g. {', '.join(missing[:3])}")
        raise InputError(
            f"the models were not graded on the same items: {len(shared)} of {n_union} items are shared "
            f"by all {len(models)} models ({'; '.join(lines[:6])}{' …' if len(lines) > 6 else ''}). "
            "Fix the runs, or set analyses.<name>.item_sets: intersection to compare on the shared items only",
            file=first_file,
            field="item_id",
        )
    if not shared:
        counts = "; ".join(f"{m}: {int(answered[m]):,} items" for m in models[:8])
        raise InputError(
            f"the models share no item at all ({n_union:,} items in total; {counts}"
            f"{' …' if len(models) > 8 else ''}): nothing to compare. Items are matched on "
            "(task, item_id): check that every run names the task the same way",
            file=next(iter((files or {}).values()), None),
            field="item_id",
        )
    kept = scores_kept[scores_kept["item_key"].isin(shared)].reset_index(drop=True)
    return kept, overlap, decision.table


def task_metrics(responses: pd.DataFrame, items: pd.DataFrame) -> pd.DataFrame:
    """Per task: the metric(s) that scored it and its number of (kept) items.

    ``metric`` is what the reader recorded (lm-eval: ``acc``, ``exact_match``, …;
    formats without one: ``correct``); several are joined with ``+``.
    """
    metric = (
        responses["metric"].astype("string").fillna("correct")
        if "metric" in responses.columns
        else pd.Series("correct", index=responses.index, dtype="string")
    )
    kept = responses.assign(_metric=metric)[responses["item_key"].isin(set(items["item_key"]))]
    tasks = (
        kept.groupby("task", sort=True)
        .agg(
            metric=("_metric", lambda m: "+".join(sorted(set(m)))),
            n_items=("item_key", "nunique"),
        )
        .reset_index()
    )
    return tasks.astype({"task": "string", "metric": "string", "n_items": "int64"})


def build_tables(
    responses: pd.DataFrame,
    metadata: pd.DataFrame | None,
    policy: str,
    shared_items: dict | None = None,
) -> dict[str, pd.DataFrame]:
    if responses.empty:
        raise InputError("no graded answers were read: every run is empty or fully excluded")
    check_one_run_per_model(responses)
    check_tasks_from_file_names(responses)
    check_doc_hashes(responses)
    items = item_table(responses, metadata)
    responses = responses.merge(
        items[["task", "item_id", "item_key"]], on=["task", "item_id"], how="left"
    )
    scores = (
        responses.groupby(["model", "item_key"], sort=True)
        .agg(score=("correct", "mean"), n_epochs=("epoch", "nunique"), n_rows=("correct", "size"))
        .reset_index()
    )
    files = responses.groupby("model")["source_file"].first().str.split("!").str[0].to_dict()
    kept, overlap, decision = align_items(scores, policy, files, shared_items)
    item_index = pd.Series(range(len(items)), index=items["item_key"])
    kept = (
        kept.assign(_i=kept["item_key"].map(item_index))
        .sort_values(["model", "_i"])
        .drop(columns="_i")
    )
    items = items[items["item_key"].isin(set(kept["item_key"]))].reset_index(drop=True)
    models = (
        responses.groupby("model", sort=True)
        .agg(run=("run", "first"), format=("format", "first"), n_rows=("correct", "size"))
        .reset_index()
    )
    # Rows behind each dropped score, per run and model: data_quality.csv moves
    # exactly these from "used" to the alignment exclusion.
    lost = responses[
        ~responses["item_key"].isin(set(kept["item_key"]))
        | ~responses["model"].isin(set(kept["model"]))
    ]
    dropped = (
        lost.groupby(["run", "model"], sort=True)
        .size()
        .rename("rows")
        .reset_index()
        .astype({"rows": "int64"})
    )
    return {
        "responses": responses,
        "scores": kept.reset_index(drop=True),
        "dropped": dropped,
        "tasks": task_metrics(responses, items),
        "items": items,
        "models": models,
        "overlap": overlap,
        "shared_items": decision,
    }
