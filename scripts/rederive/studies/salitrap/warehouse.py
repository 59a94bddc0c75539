"""Build ``results/salitrap/salitrap.duckdb`` from the ingested runs.

Tables: ``items``, ``models``, ``runs`` (file, sha256, counts), ``labels`` (one
usable row per model × item × condition) and ``accounting`` (long data-quality
table). This job is the database's only writer.

When two run files give rows for the same (model_id, item, condition) — a
replicate run, or an edited copy — they are kept apart as separate models named
``"<model_id> [<run>]"`` (the run whose file stem equals the model id, else the
first in sorted order, keeps the plain name) and a note is added to the
data-quality table, instead of silently doubling or dropping rows. Two files
with identical bytes are refused (:func:`rederive.io.accounting.load_runs`).
"""

from pathlib import Path

import pandas as pd

from rederive.errors import InputError, relpath
from rederive.io import warehouse
from rederive.io.accounting import load_accounting, load_runs, require_usable_rows
from rederive.io.batches import in_run_order, per_run_files
from rederive.io.source import read_csv_frame

MODEL_COLUMNS = ["model", "family", "vendor", "display_order"]


def resolve_model_names(labels: pd.DataFrame) -> tuple[pd.DataFrame, list[dict]]:
    """Give overlapping runs of one model_id distinct model names.

    Returns the labels with a ``model`` column and a list of notes
    (``run``, ``reason``, ``rows``) for the data-quality table.
    """
    labels = labels.copy()
    labels["model"] = labels["model_id"]
    notes = []
    for model_id, group in labels.groupby("model_id", sort=True):
        runs = sorted(group["run"].unique())
        if len(runs) < 2:
            continue
        keys = group.groupby("run")[["item_id", "condition"]].apply(
            lambda g: set(zip(g.item_id, g.condition, strict=True))
        )
        keeper = model_id if model_id in runs else runs[0]
        taken = set(keys[keeper])
        for run in runs:
            if run == keeper:
                continue
            if taken & keys[run]:
                new_name = f"{model_id} [{run}]"
                labels.loc[labels["run"] == run, "model"] = new_name
                notes.append(
                    {
                        "run": run,
                        "reason": f"overlaps run {keeper} for model {model_id}; reported as '{new_name}'",
                        "rows": int((labels["run"] == run).sum()),
                    }
                )
            else:
                taken |= keys[run]
    return labels, notes


def read_models(path: Path | None, models_seen: list[str]) -> pd.DataFrame:
    """Optional models.csv; models without a row still get every statistic."""
    if path is None or not Path(path).exists():
        frame = pd.DataFrame(columns=MODEL_COLUMNS)
    else:
        frame = read_csv_frame(path, dtype={"model": str})
        missing = [c for c in ("model",) if c not in frame.columns]
        if missing:
            raise InputError(
                "models.csv needs a 'model' column", file=relpath(path), line=1, field="model"
            )
        for column in MODEL_COLUMNS:
            if column not in frame.columns:
                frame[column] = pd.NA
        frame = frame[MODEL_COLUMNS].copy()
        # Trimmed as the run files' model ids are (a trailing space from a
        # spreadsheet would otherwise make a second, metadata-less model).
        blank = frame.index[frame["model"].isna() | (frame["model"].str.strip() == "")]
        if len(blank):
            raise InputError(
                "model is blank", file=relpath(path), line=int(blank[0]) + 2, field="model"
            )
        frame["model"] = frame["model"].str.strip()
    extra = sorted(set(models_seen) - set(frame["model"]))
    if extra:
        frame = pd.concat([frame, pd.DataFrame({"model": extra})], ignore_index=True)
    return frame.sort_values(["model"], kind="stable").reset_index(drop=True)


def build_tables(
    items_path, labelled_paths, accounting_paths, models_path=None
) -> dict[str, pd.DataFrame]:
    accounting = load_accounting(accounting_paths)
    require_usable_rows(accounting, what="labelled row")
    items = pd.read_parquet(items_path)
    frames = [pd.read_parquet(p) for p in in_run_order(labelled_paths)]
    labels = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    labels, notes = resolve_model_names(labels)
    labels = labels.sort_values(["model", "condition", "item_id"], kind="stable").reset_index(
        drop=True
    )
    if notes:
        note_rows = pd.DataFrame(notes)
        note_rows["study"] = "salitrap"
        accounting = pd.concat([accounting, note_rows], ignore_index=True)
    runs = load_runs(accounting_paths)
    models = read_models(models_path, sorted(labels["model"].unique()))
    return {
        "items": items,
        "models": models,
        "runs": runs,
        "labels": labels,
        "accounting": accounting,
    }


def main(snakemake):
    models = list(snakemake.input.models)  # empty when raw/salitrap has no models.csv
    tables = build_tables(
        snakemake.input.item_table,
        per_run_files(snakemake.input.ingested, "labelled"),
        per_run_files(snakemake.input.ingested, "accounting"),
        models[0] if models else None,
    )
    warehouse.build(snakemake.output.db, tables)


if __name__ == "__main__" and "snakemake" in globals():
    from rederive.runner import run

    run(main, snakemake)  # noqa: F821
