"""Rule ``analyse_benchmark_items``: item analysis of the models x items matrix.

Per item (:func:`rederive.stats.items.item_analysis`): share correct, item-rest
correlation, Rasch infit/outfit mean-squares and ZSTD against the marginal-ML
abilities, and the flags - negative discrimination, misfit, flips across epochs
(from the warehouse's per-epoch rows), solved by none or all. Scores that are
not 0/1 enter as ``fractional_scores`` says, as for the 1PL
(:mod:`rederive.stats.fractional`): by default the statistics are those of the
scores themselves (``n_correct`` a sum of scores); under ``method: threshold``
of the dichotomised scores. An epoch passes when its score is above the
threshold (a tie as ``ties`` says), for the flips. When some score is
fractional the tables gain a ``fractional_scores`` column naming the rule.

Writes ``item_analysis.csv`` (every item), ``suspect_items.csv`` (the flagged
ones, most suspect first) and ``suspect_items.md`` (the first ``n_listed``).
"""

import pandas as pd

from rederive.report.items import with_items, write_item_tables
from rederive.runner import run
from rederive.stats.fractional import ScoreRule
from rederive.stats.items import (
    ItemThresholds,
    epoch_flips_from_codes,
    item_analysis,
    statistics_note,
    suspect_items,
)
from rederive.studies.benchmark.common import Epochs, load_epochs, load_scores
from rederive.studies.benchmark.irt import score_responses

ITEM_COLUMNS = ["item_key", "task", "item_id", "category"]


def flips_of(epochs: Epochs, rule: ScoreRule | None = None) -> pd.DataFrame:
    """Per item, the models run in several epochs and those that flipped, from codes.

    The same counts as :func:`rederive.stats.items.epoch_flips` of the long frame
    (a missing score counts as not passed; a row without a model is left out, as
    groupby leaves out a missing key), without a Python object per epoch: at
    150 M epochs the long frame alone would take ~5 GB. An epoch passes when
    ``rule`` says so (:meth:`ScoreRule.passed`: above the threshold, 0.5 by
    default); a tie it leaves out is not counted.
    """
    passed, outcome = (rule or ScoreRule()).passed(epochs.correct)
    keep = (epochs.model >= 0) & outcome
    if keep.all():  # the usual case: no copy of 150 M codes
        keep = slice(None)
    return epoch_flips_from_codes(
        epochs.item[keep],
        epochs.model[keep],
        passed[keep],
        pd.Index(epochs.items),
        len(epochs.models),
    )


def analyse(
    matrix: pd.DataFrame,
    items: pd.DataFrame,
    flips: pd.DataFrame,
    settings: dict,
    rule: ScoreRule | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(every item, the suspect items), each with the item's task, id and category.

    With a fractional score in the matrix both tables end in a
    ``fractional_scores`` column naming ``rule``; 0/1 data keep the tables as
    they were.
    """
    rule = rule or ScoreRule()
    every_model, counts = score_responses(matrix, rule)
    # A model the rule left without a response (every score a tie left out) has
    # nothing to say about any item.
    answered = every_model.notna().any(axis=1)
    responses = every_model if answered.all() else every_model.loc[answered]
    stats = item_analysis(
        responses,
        flips=flips,
        thresholds=ItemThresholds.from_config(settings),
        fractional=rule.fractional and counts.n_fractional > 0,
    )
    columns = [c for c in ITEM_COLUMNS if c in items.columns]
    every = with_items(items[columns], stats, "item_key")
    suspects = with_items(items[columns], suspect_items(stats), "item_key")
    if counts.n_fractional:
        every["fractional_scores"] = rule.label()
        suspects["fractional_scores"] = rule.label()
    return every, suspects


def rule_note(matrix: pd.DataFrame, rule: ScoreRule) -> str:
    """The sentence suspect_items.md adds under fractional scores ("" for 0/1 data)."""
    values = matrix.to_numpy(dtype=float)
    if not ((values > 0.0) & (values < 1.0)).any():
        return ""
    return f"Scores: {rule.describe()}."


def main(snakemake):
    p = snakemake.params
    # The epochs first, freed before the matrix is loaded: both at once were
    # 11 GB at 5,000 x 30,000.
    rule = ScoreRule.from_config(p.fractional_scores)
    flips = flips_of(load_epochs(snakemake.input.db), rule)
    matrix, items = load_scores(snakemake.input.db)
    every, suspects = analyse(matrix, items, flips, p.settings, rule)
    write_item_tables(
        every,
        suspects,
        snakemake.output,
        label_columns=["task", "item_id"],
        n_listed=p.settings["n_listed"],
        note=" ".join(x for x in (p.data_note, rule_note(matrix, rule)) if x),
        statistics_note=statistics_note(every, ItemThresholds.from_config(p.settings)),
    )


if __name__ == "__main__" and "snakemake" in globals():
    run(main, snakemake)  # noqa: F821
