"""Rule ``tabulate_benchmark_quality``: what was read, used and excluded, per run
and reason, plus the scores dropped to align item sets (``item_sets:
intersection``), and the per-model item overlap."""

import pandas as pd

from rederive.io.accounting import load_accounting
from rederive.io.warehouse import query
from rederive.runner import run
from rederive.studies.benchmark.common import write_csv

ALIGN_REASON = "item not graded for every model (item_sets: intersection)"


def data_quality(accounting_paths, overlap: pd.DataFrame, models: pd.DataFrame) -> pd.DataFrame:
    table = load_accounting(accounting_paths)
    dropped = overlap[overlap["n_dropped"] > 0].merge(
        models[["model", "run"]], on="model", how="left"
    )
    if not dropped.empty:
        files = table.drop_duplicates("run").set_index("run")
        extra = pd.DataFrame(
            {
                "study": "benchmark",
                "run": dropped["run"],
                "file": dropped["run"].map(files["file"]),
                "sha256": dropped["run"].map(files["sha256"]),
                "rows_read": dropped["run"].map(files["rows_read"]),
                "reason": ALIGN_REASON + " [" + dropped["model"] + "]",
                "rows": dropped["n_dropped"],
                "example_lines": "",
            }
        )
        table = pd.concat([table, extra], ignore_index=True)
    return table.sort_values(["run", "reason"], kind="stable").reset_index(drop=True)


def main(snakemake):
    overlap = query(snakemake.input.db, "SELECT * FROM overlap ORDER BY model")
    models = query(snakemake.input.db, "SELECT * FROM models ORDER BY model")
    write_csv(data_quality(snakemake.input.accounting, overlap, models), snakemake.output.quality)
    write_csv(overlap.merge(models, on="model", how="left"), snakemake.output.overlap)


if __name__ == "__main__" and "snakemake" in globals():
    run(main, snakemake)  # noqa: F821
