"""Data quality: rows read/used/excluded per run and reason, and how answers were found.

``data_quality.csv`` is the accounting of every ingest job (nothing dropped
silently); ``answer_extraction.csv`` counts, per model × condition, which
extraction rule produced the final answer — unparseable responses are kept and
scored incorrect, so their number belongs next to the rates.
"""

import pandas as pd

from rederive.io.warehouse import query
from rederive.studies.bias_awareness.extract import METHODS
from rederive.studies.bias_awareness.output import write_csv


def extraction_counts(db_path) -> pd.DataFrame:
    counts = query(
        db_path,
        "SELECT model, bias, method, count(*) AS rows, sum(CAST(correct_b AS INTEGER)) AS correct "
        "FROM trials GROUP BY ALL",
    )
    full = pd.MultiIndex.from_product(
        [sorted(counts["model"].unique()), ["none", "B4", "B5", "B6"], list(METHODS)],
        names=["model", "bias", "method"],
    )
    counts = counts.set_index(["model", "bias", "method"]).reindex(full, fill_value=0).reset_index()
    counts[["rows", "correct"]] = counts[["rows", "correct"]].astype(int)
    totals = counts.groupby(["model", "bias"])["rows"].transform("sum")
    counts["share_percent"] = (100 * counts["rows"] / totals.where(totals > 0)).round(1)
    return counts


def main(snakemake):
    accounting = query(
        snakemake.input.db, "SELECT * FROM accounting ORDER BY run, reason = 'used' DESC, reason"
    )
    write_csv(accounting, snakemake.output.quality)
    write_csv(extraction_counts(snakemake.input.db), snakemake.output.extraction)


if __name__ == "__main__" and "snakemake" in globals():
    from rederive.runner import run

    run(main, snakemake)  # noqa: F821
