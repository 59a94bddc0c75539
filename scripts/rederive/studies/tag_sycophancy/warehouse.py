"""Build ``results/tag_sycophancy/tag_sycophancy.duckdb`` (the study's only writer).

Tables: ``items``, ``models`` (models.csv plus every model seen), ``runs`` (file,
sha256, counts), ``replies`` (one labelled reply per row, failed ones included)
and ``accounting`` (long data-quality table).
"""

import json
from pathlib import Path

import pandas as pd

from rederive.errors import InputError
from rederive.io import warehouse
from rederive.io.accounting import load_accounting
from rederive.studies.tag_sycophancy.inputs import read_items, read_models


def build_tables(
    items_path, labelled_paths, accounting_paths, models_path=None
) -> dict[str, pd.DataFrame]:
    items = read_items(items_path)
    frames = [pd.read_parquet(p) for p in sorted(map(str, labelled_paths))]
    if not frames:
        raise InputError(
            "no run files found (expected runs/<model>.jsonl)",
            file=str(Path(items_path).parent / "runs"),
        )
    replies = pd.concat(frames, ignore_index=True)
    owners = replies.groupby("model")["run"].unique()
    for model, runs in owners.items():
        if len(runs) > 1:
            raise InputError(
                f"model {model!r} appears in several run files ({', '.join(sorted(runs))}); "
                "keep one file per model (rename the model in a replicate run)",
                file=str(Path(items_path).parent / "runs"),
            )
    replies = replies.sort_values(
        ["model", "item_id", "option", "arm", "sample"], kind="stable"
    ).reset_index(drop=True)
    runs = []
    for path in sorted(map(str, accounting_paths)):
        record = json.loads(Path(path).read_text())
        runs.append(
            {
                k: record[k]
                for k in ("run", "file", "sha256", "rows_read", "rows_used", "rows_excluded")
            }
        )
    return {
        "items": items,
        "models": read_models(models_path, sorted(replies["model"].unique())),
        "runs": pd.DataFrame(runs),
        "replies": replies,
        "accounting": load_accounting(accounting_paths),
    }


def main(snakemake):
    models = list(snakemake.input.get("models") or [])  # [] when models.csv is absent
    models_path = models[0] if models else None
    tables = build_tables(
        snakemake.input.item_file, snakemake.input.labelled, snakemake.input.accounting, models_path
    )
    warehouse.build(snakemake.output.db, tables)


if __name__ == "__main__" and "snakemake" in globals():
    from rederive.runner import run

    run(main, snakemake)  # noqa: F821
