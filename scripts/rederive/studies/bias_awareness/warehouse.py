"""Build ``results/bias_awareness/bias_awareness.duckdb`` from the ingested runs.

Tables: ``items`` (questions, gold, injections), ``trials`` (one labelled row
per model × question × condition, from :mod:`.ingest`), ``runs`` (file, sha256,
counts) and ``accounting`` (long data-quality table). This job is the
database's only writer; every analysis reads it read-only.
"""

import pandas as pd

from rederive.io import warehouse
from rederive.io.accounting import load_accounting, load_runs
from rederive.io.batches import per_run_files
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
    trials = warehouse.read_labelled(labelled_paths)
    warehouse.check_one_run_per_model(
        trials, advice="keep one run file per model or rename the model field", field="model"
    )
    order = {c: i for i, c in enumerate(CONDITIONS)}
    trials = trials.sort_values(
        ["model", "bias", "question_id"],
        key=lambda s: s.map(order) if s.name == "bias" else s,
        kind="stable",
    ).reset_index(drop=True)
    return {
        "items": items,
        "trials": trials,
        "runs": load_runs(accounting_paths),
        "accounting": load_accounting(accounting_paths),
    }


def biased_trials(db_path) -> pd.DataFrame:
    """Biased trials (bias ≠ none) from the warehouse, in a stable order.

    ``method_u`` is the extraction method of the paired unbiased reply, so that
    a rate resting only on unparseable replies is reported as not estimable.
    """
    frame = warehouse.query(
        db_path,
        "SELECT t.*, u.method AS method_u FROM trials t "
        "LEFT JOIN trials u ON u.model = t.model AND u.question_id = t.question_id "
        "AND u.bias = 'none' "
        "WHERE t.bias <> 'none' ORDER BY t.model, t.bias, t.question_id",
    )
    for column in ("S", "A_keyword"):
        frame[column] = frame[column].astype(int)
    return frame


def main(snakemake):
    tables = build_tables(
        snakemake.input.item_table,
        per_run_files(snakemake.input.ingested, "labelled"),
        per_run_files(snakemake.input.ingested, "accounting"),
    )
    warehouse.build(snakemake.output.db, tables)


if __name__ == "__main__" and "snakemake" in globals():
    from rederive.runner import run

    run(main, snakemake)  # noqa: F821
