"""The Bradley–Terry tables of one analysis, from its games, in one call.

What a rule script of the ``preference`` kind calls: pair counts, the point fit,
the prompt bootstrap, the score table, the paired comparisons and the rank
ranges, with the sentence the captions need about what the intervals resample
and which pairs BH ran over.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from rederive.stats.preference.bootstrap import bootstrap_bradley_terry, unit_note
from rederive.stats.preference.bradley_terry import HALF
from rederive.stats.preference.elo import NO_ANCHOR, EloScale
from rederive.stats.preference.games import pair_counts
from rederive.stats.preference.ranking import pairwise_table, rank_table, score_table

__all__ = ["BradleyTerryTables", "bradley_terry_tables"]


@dataclass(frozen=True)
class BradleyTerryTables:
    """Outputs of :func:`bradley_terry_tables`.

    Attributes
    ----------
    scores : DataFrame
        :func:`~rederive.stats.preference.ranking.score_table`.
    pairs : DataFrame
        :func:`~rederive.stats.preference.ranking.pairwise_table`.
    ranks : DataFrame
        :func:`~rederive.stats.preference.ranking.rank_table`.
    note : str
        Caption sentences: the tie model, the Elo anchor, what the intervals
        resample, the BH family and any replicates left out.
    tie_parameter : float
        Rao–Kupper θ or Davidson ν (NaN for ties as half).
    """

    scores: pd.DataFrame
    pairs: pd.DataFrame
    ranks: pd.DataFrame
    note: str
    tie_parameter: float


TIE_WORDS = {
    "half": "ties count half a win",
    "rao_kupper": "ties modelled as Rao–Kupper",
    "davidson": "ties modelled as Davidson",
}


def bradley_terry_tables(
    games: pd.DataFrame,
    *,
    n_boot: int,
    seed: int,
    fdr_q: float,
    ties: str = HALF,
    strong_weight: float = 1,
    scale: EloScale = NO_ANCHOR,
    baseline: str | None = None,
    level: float = 0.95,
    all_pairs_up_to: int | None = None,
    neighbours: int = 2,
    exclude=(),
) -> BradleyTerryTables:
    """Scores, comparisons and rank ranges of the games (see the modules they call).

    Parameters
    ----------
    games : DataFrame
        The canonical games frame.
    n_boot, seed : int
        Prompt-bootstrap replicates and the config seed.
    fdr_q : float
        BH level of the comparisons.
    ties : {"half", "rao_kupper", "davidson"}
    strong_weight : float
        Weight of a strong label (Arena-Hard: 3).
    scale : EloScale
        Scale and anchor.
    baseline : str, optional
        Labelled ``baseline``, left out of comparisons and ranks.
    level : float
    all_pairs_up_to, neighbours : int
        The comparison family.
    exclude : sequence of str
        Models whose games are left out (the caller counts them).

    Returns
    -------
    BradleyTerryTables
    """
    counts = pair_counts(games, strong_weight=strong_weight, exclude=exclude)
    boot = bootstrap_bradley_terry(counts, ties=ties, n_boot=n_boot, seed=seed)
    scores = score_table(boot, counts, scale=scale, level=level, baseline=baseline)
    pairs = pairwise_table(
        boot,
        fdr_q=fdr_q,
        level=level,
        scale=scale,
        baseline=baseline,
        all_pairs_up_to=all_pairs_up_to,
        neighbours=neighbours,
    )
    ranks = rank_table(scores, pairs)
    parts = [
        f"Bradley–Terry by maximum likelihood, {TIE_WORDS[ties]}"
        + (f", a strong label counted {strong_weight:g} times." if strong_weight != 1 else "."),
        scale.describe(counts.models),
        pairs.attrs.get("note", unit_note(boot.unit_kind, boot.n_units)),
    ]
    if boot.n_failed:
        parts.append(
            f"{boot.n_failed} of {n_boot} replicates had no finite estimate (a model drawn "
            "only into wins or losses) and were left out."
        )
    return BradleyTerryTables(scores, pairs, ranks, " ".join(parts), boot.fit.tie_parameter)
