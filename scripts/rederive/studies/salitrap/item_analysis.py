"""Rule ``analyse_salitrap_items``: item analysis of the control pass/fail matrix.

The matrix is the one the 1PL is fitted to (:mod:`.irt_fit`): an item is passed
when its control label is in the TAR numerator (Strict Pass), failed on any
other valid label, unobserved without a valid row; models left out of the
shared item set (small n or partial runs, :func:`.common.shared_item_set`) stay
out here too, so they cannot shape another item's statistics. Per item
(:func:`rederive.stats.items.item_analysis`): share passed, item-rest
correlation, Rasch infit/outfit mean-squares and ZSTD against the marginal-ML
abilities, and the flags. SaliTrap runs have one reply per (model, item), so
flips across epochs never flag.

Writes ``item_analysis.csv`` (every item), ``suspect_items.csv`` (the flagged
ones, most suspect first) and ``suspect_items.md`` (the first ``n_listed``).
"""

import pandas as pd

from rederive.report.items import with_items, write_item_tables
from rederive.runner import run
from rederive.stats.items import (
    ItemThresholds,
    item_analysis,
    statistics_note,
    suspect_items,
)
from rederive.studies.salitrap.common import CONTROL, load, shared_item_set
from rederive.studies.salitrap.irt_fit import binary_responses
from rederive.studies.salitrap.metrics import label_matrix, metrics_from_config

ITEM_COLUMNS = ["item_id", "seed_id", "dimension"]


def analyse(items: pd.DataFrame, labels: pd.DataFrame, p) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(every item, the suspect items), each led by the item's id, seed and dimension.

    ``p`` carries the job's ``metrics``, ``settings`` (the ``item_analysis``
    block) and the shared-item-set params (``min_n``, ``partial_share``,
    ``shared_items``).
    """
    matrix = label_matrix(labels, items, CONTROL)
    responses = binary_responses(matrix, metrics_from_config(p.metrics)["TAR"].numerator)
    responses = responses.loc[shared_item_set(matrix, p).kept]
    stats = item_analysis(responses, thresholds=ItemThresholds.from_config(p.settings))
    columns = items[ITEM_COLUMNS]
    return with_items(columns, stats, "item_id"), with_items(
        columns, suspect_items(stats), "item_id"
    )


def main(snakemake):
    p = snakemake.params
    items, labels = load(snakemake.input.db, CONTROL)
    every, suspects = analyse(items, labels, p)
    write_item_tables(
        every,
        suspects,
        snakemake.output,
        label_columns=["dimension", "item_id"],
        n_listed=p.settings["n_listed"],
        note=p.data_note,
        statistics_note=statistics_note(every, ItemThresholds.from_config(p.settings)),
    )


if __name__ == "__main__" and "snakemake" in globals():
    run(main, snakemake)  # noqa: F821
