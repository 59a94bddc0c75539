"""Rule ``tabulate_benchmark_quality``: what was read, used and excluded, per run
and reason, plus the scores dropped to align item sets (``item_sets:
intersection``) or left out with their model (``shared_items``), the per-model
item overlap and which models entered the shared item set.

Notes (rows 0, nothing excluded; :mod:`rederive.io.shared_quality`): two models
whose graded rows are identical item by item (and vary: not both right on
everything) - AlpacaEval 1's falcon-7b-instruct is falcon-40b-instruct's file
under another name -, and the missing grades ``item_sets: zero`` counted as 0.
(Two input files with the same bytes are refused when the warehouse is built.)

With ``sampling:`` set, the items a model leaves out of ``sampling.csv`` at a
``k`` (fewer than ``k`` samples) are one row per model and ``k`` (rows 0: they
stay in every other table; :mod:`rederive.studies.benchmark.sampling`)."""

import pandas as pd

from rederive.io.accounting import load_accounting, load_formats
from rederive.io.batches import per_run_files
from rederive.io.shared_quality import (
    NOTE,
    digest_sql,
    identical_results_notes,
    reason_text,
    with_notes,
)
from rederive.io.warehouse import query, read_only
from rederive.runner import run
from rederive.stats.shared_items import from_frame
from rederive.studies.benchmark.common import write_csv
from rederive.studies.benchmark.sampling import sampling_notes

ALIGN_REASON = "item not graded for every model (item_sets: intersection)"

#: What a model left out of the shared item set misses (data_quality.csv reason).
SHARED_SCOPE = "every table; item_sets: intersection"


def data_quality(
    accounting_paths, dropped: pd.DataFrame, left_out: dict[str, str] | None = None
) -> pd.DataFrame:
    """Rows read, used and excluded per run and reason; every run reconciles.

    Columns: ``study, run, format, file, sha256, rows_read, reason, rows,
    example_lines``; ``format`` is the input format the run was read as.

    ``dropped`` (warehouse table: run, model, rows) holds the rows whose scores
    ``item_sets: intersection`` left out. The ingest step had counted them as used;
    here they move from ``used`` to one alignment reason per model, so
    ``rows_read = used + every excluded reason`` holds for each run. ``left_out``
    maps each model left out of the shared item set (``shared_items``) to why:
    its rows get that reason instead.
    """
    left_out = left_out or {}
    table = load_accounting(accounting_paths)
    dropped = dropped[dropped["rows"] > 0]
    if not dropped.empty:
        files = table.drop_duplicates("run").set_index("run")
        extra = pd.DataFrame(
            {
                "study": dropped["run"].map(files["study"]),
                "run": dropped["run"],
                "file": dropped["run"].map(files["file"]),
                "sha256": dropped["run"].map(files["sha256"]),
                "rows_read": dropped["run"].map(files["rows_read"]),
                "reason": [
                    reason_text(m, left_out[m], SHARED_SCOPE)
                    if m in left_out
                    else f"{ALIGN_REASON} [{m}]"
                    for m in dropped["model"]
                ],
                "rows": dropped["rows"],
                "example_lines": "",
            }
        )
        moved = table["run"].map(dropped.groupby("run")["rows"].sum()).fillna(0).astype(int)
        used = table["reason"] == "used"
        table.loc[used, "rows"] = table.loc[used, "rows"] - moved[used]
        table = pd.concat([table, extra], ignore_index=True)
    check_reconciles(table)
    # The format each file was read as: the one named under inputs:, or the one
    # inputs.auto detected.
    table.insert(
        table.columns.get_loc("run") + 1, "format", table["run"].map(load_formats(accounting_paths))
    )
    return table.sort_values(["run", "reason"], kind="stable").reset_index(drop=True)


def check_reconciles(table: pd.DataFrame) -> None:
    """Fail loudly when a run's used + excluded rows differ from its rows read."""
    totals = table.groupby("run").agg(read=("rows_read", "first"), accounted=("rows", "sum"))
    bad = totals[totals["read"] != totals["accounted"]]
    if not bad.empty:
        run_, row = next(iter(bad.iterrows()))
        raise AssertionError(
            f"data_quality does not reconcile for run {run_}: read {row['read']}, "
            f"used + excluded {row['accounted']}"
        )


def model_digests(db_path) -> pd.DataFrame:
    """Per model: its first run, whether its scores vary, a digest of its graded rows
    (item, epoch, score) that two models share exactly when their rows are the same
    multiset, and the number of items of the models that share one.

    The digest is the count, sum and XOR of 64-bit row hashes
    (:func:`rederive.io.shared_quality.digest_sql`): one aggregate pass (30 M
    rows: 1.1 s). Distinct items are counted only for the models with a twin (the
    count over every row took 22 s at 30 M rows); the others keep their row count.
    """
    with read_only(db_path) as con:
        columns = {row[0] for row in con.execute("DESCRIBE responses").fetchall()}
        epoch = "CAST(epoch AS BIGINT)" if "epoch" in columns else "CAST(NULL AS BIGINT)"
        digest = digest_sql(f"item_key, {epoch}, CAST(correct AS DOUBLE)")
        models = con.execute(
            f"""
            SELECT model, arg_min(run, rowid) AS run, count(*) AS n_items,
                   min(correct) < max(correct) AS varies, {digest} AS digest
            FROM responses WHERE model IS NOT NULL GROUP BY model ORDER BY model
            """
        ).df()
        twins = models[models["varies"] & models.duplicated("digest", keep=False)]
        if not twins.empty:
            items = dict(
                con.execute(
                    "SELECT model, count(DISTINCT item_key) FROM responses "
                    "WHERE list_contains($models, model) GROUP BY model",
                    {"models": twins["model"].tolist()},
                ).fetchall()
            )
            at = models["model"].isin(items)
            models.loc[at, "n_items"] = models.loc[at, "model"].map(items)
    return models


def zero_notes(overlap: pd.DataFrame, models: pd.DataFrame) -> pd.DataFrame:
    """Notes on the missing grades ``item_sets: zero`` counted as 0, per model."""
    if "n_missing_as_zero" not in overlap:
        return pd.DataFrame(columns=["run", "reason"])
    run_of = models.set_index("model")["run"]
    rows = overlap[overlap["n_missing_as_zero"] > 0]
    return pd.DataFrame(
        {
            "run": rows["model"].map(run_of).to_numpy(),
            "reason": [
                f"{NOTE}: {int(n):,} missing grade(s) counted as 0 (item_sets: zero) [{m}]"
                for m, n in zip(rows["model"], rows["n_missing_as_zero"], strict=True)
            ],
        }
    )


def quality_notes(db_path, overlap, models) -> pd.DataFrame:
    """Every note of the benchmark's data-quality table (``run, reason``)."""
    return pd.concat(
        [identical_results_notes(model_digests(db_path)), zero_notes(overlap, models)],
        ignore_index=True,
    )


def main(snakemake):
    overlap = query(snakemake.input.db, "SELECT * FROM overlap ORDER BY model")
    models = query(snakemake.input.db, "SELECT * FROM models ORDER BY model")
    dropped = query(snakemake.input.db, "SELECT * FROM dropped ORDER BY run, model")
    shared = from_frame(query(snakemake.input.db, "SELECT * FROM shared_items ORDER BY model"))
    left = shared.excluded
    left_out = dict(zip(left["model"], left["reason"], strict=True))
    accounting = per_run_files(snakemake.input.ingested, "accounting")
    quality = data_quality(accounting, dropped, left_out)
    notes = quality_notes(snakemake.input.db, overlap, models)
    # Items with fewer than k samples, left out of sampling.csv at k.
    excluded = sampling_notes(snakemake.input.db, snakemake.params.sampling)
    if len(excluded):
        notes = pd.concat([notes, excluded], ignore_index=True)
    quality = with_notes(quality, notes)
    write_csv(quality, snakemake.output.quality)
    write_csv(shared.table, snakemake.output.shared_items, float_format="%.10g")
    write_csv(overlap.merge(models, on="model", how="left"), snakemake.output.overlap)


if __name__ == "__main__" and "snakemake" in globals():
    run(main, snakemake)  # noqa: F821
