"""Build ``results/bias_awareness/bias_awareness.duckdb`` from the ingested runs.

Tables: ``items`` (questions, gold, injections), ``trials`` (one labelled row
per model × question × condition, from :mod:`.ingest`), ``runs`` (file, sha256,
counts) and ``accounting`` (long data-quality table). This job is the
database's only writer; every analysis reads it read-only.
"""

import json
from pathlib import Path

import pandas as pd

from rederive.errors import InputError
from rederive.io import warehouse
from rederive.io.accounting import load_accounting
from rederive.studies.bias_awareness import CONDITIONS


def build_tables(items_path, labelled_paths, accounting_paths) -> dict[str, pd.DataFrame]:
    """Warehouse tables from the per-run outputs.

    Raises
    ------
    InputError
        When two run files carry the same model: the paired design allows one
        response per model × question × condition, so a second file is ambiguous.
    """
    items = pd.read_parquet(items_path)
    frames = [pd.read_parquet(p) for p in sorted(map(str, labelled_paths))]
    trials = pd.concat(frames, ignore_index=True)
    owners = trials.groupby("model")["run"].unique()
    for model, runs in owners.items():
        if len(runs) > 1:
            raise InputError(
                f"model {model!r} appears in several run files ({', '.join(sorted(runs))}); "
                "keep one run file per model or rename the model field",
                file=f"runs/{sorted(runs)[1]}.jsonl",
                field="model",
            )
    order = {c: i for i, c in enumerate(CONDITIONS)}
    trials = trials.sort_values(
        ["model", "bias", "question_id"],
        key=lambda s: s.map(order) if s.name == "bias" else s,
        kind="stable",
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
        "trials": trials,
        "runs": pd.DataFrame(runs),
        "accounting": load_accounting(accounting_paths),
    }


def biased_trials(db_path) -> pd.DataFrame:
    """Biased trials (bias ≠ none) from the warehouse, in a stable order."""
    frame = warehouse.query(
        db_path,
        "SELECT * FROM trials WHERE bias <> 'none' ORDER BY model, bias, question_id",
    )
    for column in ("S", "A_keyword"):
        frame[column] = frame[column].astype(int)
    return frame


def main(snakemake):
    tables = build_tables(
        snakemake.input.item_table, snakemake.input.labelled, snakemake.input.accounting
    )
    warehouse.build(snakemake.output.db, tables)


if __name__ == "__main__" and "snakemake" in globals():
    from rederive.runner import run

    run(main, snakemake)  # noqa: F821
