"""Build ``results/tag_sycophancy/tag_sycophancy.duckdb`` (the study's only writer).

Tables: ``items``, ``models`` (models.csv plus every model seen), ``runs`` (file,
sha256, counts), ``replies`` (one labelled reply per row, failed ones included)
and ``accounting`` (long data-quality table).
"""

from pathlib import Path

import pandas as pd

from rederive.errors import InputError
from rederive.io import warehouse
from rederive.io.accounting import load_accounting, load_runs
from rederive.io.batches import per_run_files
from rederive.studies.tag_sycophancy.inputs import read_items, read_models


def build_tables(
    items_path, labelled_paths, accounting_paths, models_path=None
) -> dict[str, pd.DataFrame]:
    items = read_items(items_path)
    runs_dir = str(Path(items_path).parent / "runs")
    labelled_paths = list(labelled_paths)
    if not labelled_paths:
        raise InputError("no run files found (expected runs/<model>.jsonl)", file=runs_dir)
    replies = warehouse.read_labelled(labelled_paths)
    warehouse.check_one_run_per_model(
        replies,
        advice="keep one file per model (rename the model in a replicate run)",
        file=runs_dir,
    )
    replies = replies.sort_values(
        ["model", "item_id", "option", "arm", "sample"], kind="stable"
    ).reset_index(drop=True)
    return {
        "items": items,
        "models": read_models(models_path, sorted(replies["model"].unique())),
        "runs": load_runs(accounting_paths),
        "replies": replies,
        "accounting": load_accounting(accounting_paths),
    }


def main(snakemake):
    models = list(snakemake.input.get("models") or [])  # [] when models.csv is absent
    models_path = models[0] if models else None
    tables = build_tables(
        snakemake.input.item_file,
        per_run_files(snakemake.input.ingested, "labelled"),
        per_run_files(snakemake.input.ingested, "accounting"),
        models_path,
    )
    warehouse.build(snakemake.output.db, tables)


if __name__ == "__main__" and "snakemake" in globals():
    from rederive.runner import run

    run(main, snakemake)  # noqa: F821
