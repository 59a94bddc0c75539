"""Rule ``decompose_benchmark_noise``: prediction noise vs data noise over epochs.

From the warehouse's per-epoch ``responses`` (one row per graded epoch), limited
to the (model, item) scores the statistics use, every model's score and every
compared pair's paired difference (the family of ``pairwise.csv``: all pairs,
or rank neighbours and the top beyond ``comparisons.all_pairs_up_to``) is split into the between-item variance (data noise)
and the within-item variance over epochs (prediction noise)
(:func:`rederive.stats.noise.noise_table`; Miller 2024 §3, Wang 2025): by the
one-way ANOVA moments where a model's (or a pair's) epochs are balanced, where
they equal REML when positive, and by exact REML where they are not; the
``estimator`` column names which. A run with one epoch per item keeps its rows,
the within parts NaN and ``within_note`` saying why.

Writes ``noise.csv``.
"""

import pandas as pd

from rederive.io.names import read_csv
from rederive.runner import run
from rederive.stats.noise import item_matrices_from_codes, noise_table, table_from_matrices
from rederive.studies.benchmark.common import Epochs, load_epochs, write_csv


def epochs_used(responses: pd.DataFrame, scores: pd.DataFrame) -> pd.DataFrame:
    """The epochs behind the scores: rows of (model, item) pairs ``scores`` keeps.

    Items dropped by ``item_sets`` and models left out of the shared item set
    are not in the accuracy, so they are not in its variance either.
    """
    kept = scores[["model", "item_key"]].drop_duplicates()
    used = responses.merge(kept, on=["model", "item_key"], how="inner")
    return used.rename(columns={"item_key": "item"})[["model", "item", "epoch", "correct"]]


def family_pairs(pairwise: pd.DataFrame) -> list[tuple[str, str]] | None:
    """The pairs noise.csv decomposes: those ``pairwise.csv`` tested.

    ``None`` (every pair, in name order, as :func:`noise_table` does by default)
    when all pairs were tested; the neighbour family's pairs, oriented and
    ordered as in ``pairwise.csv``, when it has a ``family`` column.
    """
    if "family" not in pairwise:
        return None
    return list(zip(pairwise["a"].astype(str), pairwise["b"].astype(str), strict=True))


#: Above this many graded epochs the per-cell summary is summed from integer
#: codes (:func:`item_matrices_from_codes`): the grouped long frame of 150 M
#: epochs took over 20 GB. Below it (every bundled analysis) the grouped frame's
#: numbers are kept byte for byte; the two agree to 1e-12 (tested).
LONG_FRAME_ROWS = 20_000_000


def noise_from_epochs(epochs: Epochs, pairs: list[tuple[str, str]] | None) -> pd.DataFrame:
    """noise.csv from the scored epochs, by the grouped frame or (large) from codes."""
    if len(epochs.model) <= LONG_FRAME_ROWS:
        return noise_table(epochs.frame(item_column="item"), pairs)
    mats = item_matrices_from_codes(
        epochs.model, epochs.item, epochs.correct, list(epochs.models), epochs.items
    )
    return table_from_matrices(mats, pairs)


def main(snakemake):
    # The rows epochs_used keeps, selected on integer codes (load_epochs).
    epochs = load_epochs(snakemake.input.db, scored_only=True)
    pairs = family_pairs(read_csv(snakemake.input.pairwise))
    table = noise_from_epochs(epochs, pairs)
    write_csv(table, snakemake.output.noise, float_format="%.6g")


if __name__ == "__main__" and "snakemake" in globals():
    run(main, snakemake)  # noqa: F821
