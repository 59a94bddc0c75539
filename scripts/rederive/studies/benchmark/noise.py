"""Rule ``decompose_benchmark_noise``: prediction noise vs data noise over epochs.

From the warehouse's per-epoch ``responses`` (one row per graded epoch), limited
to the (model, item) scores the statistics use, every model's score and every
pair's paired difference is split into the between-item variance (data noise)
and the within-item variance over epochs (prediction noise)
(:func:`rederive.stats.noise.noise_table`; Miller 2024 §3, Wang 2025). A run with
one epoch per item keeps its rows, the within parts NaN and ``within_note``
saying why.

Writes ``noise.csv``.
"""

import pandas as pd

from rederive.runner import run
from rederive.stats.noise import noise_table
from rederive.studies.benchmark.common import load_epochs, write_csv


def epochs_used(responses: pd.DataFrame, scores: pd.DataFrame) -> pd.DataFrame:
    """The epochs behind the scores: rows of (model, item) pairs ``scores`` keeps.

    Items dropped by ``item_sets`` and models left out of the shared item set
    are not in the accuracy, so they are not in its variance either.
    """
    kept = scores[["model", "item_key"]].drop_duplicates()
    used = responses.merge(kept, on=["model", "item_key"], how="inner")
    return used.rename(columns={"item_key": "item"})[["model", "item", "epoch", "correct"]]


def main(snakemake):
    # The rows epochs_used keeps, selected on integer codes (load_epochs).
    used = load_epochs(snakemake.input.db, scored_only=True).frame(item_column="item")
    table = noise_table(used)
    write_csv(table, snakemake.output.noise, float_format="%.6g")


if __name__ == "__main__" and "snakemake" in globals():
    run(main, snakemake)  # noqa: F821
