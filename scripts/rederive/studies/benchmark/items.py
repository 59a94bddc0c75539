"""Rule ``analyse_benchmark_items``: item analysis of the models x items matrix.

Per item (:func:`rederive.stats.items.item_analysis`): share correct, item-rest
correlation, Rasch infit/outfit mean-squares and ZSTD against the marginal-ML
abilities, and the flags - negative discrimination, misfit, flips across epochs
(from the warehouse's per-epoch rows), solved by none or all. Scores that are
not 0/1 are dichotomised at 0.5, as for the 1PL (:func:`..irt.dichotomise`).

Writes ``item_analysis.csv`` (every item), ``suspect_items.csv`` (the flagged
ones, most suspect first) and ``suspect_items.md`` (the first ``n_listed``).
"""

import pandas as pd

from rederive.report.items import with_items, write_item_tables
from rederive.runner import run
from rederive.stats.items import (
    ItemThresholds,
    epoch_flips_from_codes,
    item_analysis,
    statistics_note,
    suspect_items,
)
from rederive.studies.benchmark.common import Epochs, load_epochs, load_scores
from rederive.studies.benchmark.irt import dichotomise

ITEM_COLUMNS = ["item_key", "task", "item_id", "category"]


def flips_of(epochs: Epochs) -> pd.DataFrame:
    """Per item, the models run in several epochs and those that flipped, from codes.

    The same counts as :func:`rederive.stats.items.epoch_flips` of the long frame
    (a missing score counts as not passed; a row without a model is left out, as
    groupby leaves out a missing key), without a Python object per epoch: at
    150 M epochs the long frame alone would take ~5 GB.
    """
    keep = epochs.model >= 0
    if keep.all():  # the usual case: no copy of 150 M codes
        keep = slice(None)
    return epoch_flips_from_codes(
        epochs.item[keep],
        epochs.model[keep],
        epochs.correct[keep] >= 0.5,
        pd.Index(epochs.items),
        len(epochs.models),
    )


def analyse(
    matrix: pd.DataFrame, items: pd.DataFrame, flips: pd.DataFrame, settings: dict
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(every item, the suspect items), each with the item's task, id and category."""
    responses, _ = dichotomise(matrix)
    stats = item_analysis(responses, flips=flips, thresholds=ItemThresholds.from_config(settings))
    columns = [c for c in ITEM_COLUMNS if c in items.columns]
    return (
        with_items(items[columns], stats, "item_key"),
        with_items(items[columns], suspect_items(stats), "item_key"),
    )


def main(snakemake):
    p = snakemake.params
    # The epochs first, freed before the matrix is loaded: both at once were
    # 11 GB at 5,000 x 30,000.
    flips = flips_of(load_epochs(snakemake.input.db))
    matrix, items = load_scores(snakemake.input.db)
    every, suspects = analyse(matrix, items, flips, p.settings)
    write_item_tables(
        every,
        suspects,
        snakemake.output,
        label_columns=["task", "item_id"],
        n_listed=p.settings["n_listed"],
        note=p.data_note,
        statistics_note=statistics_note(every, ItemThresholds.from_config(p.settings)),
    )


if __name__ == "__main__" and "snakemake" in globals():
    run(main, snakemake)  # noqa: F821
