"""The Bradley–Terry tables of one analysis, from its games, in one call.

What a rule script of the ``preference`` kind calls: pair counts, the point fit,
the prompt bootstrap, the score table, the paired comparisons and the rank
ranges, with the sentence the captions need about what the intervals resample
and which pairs BH ran over.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from rederive.stats.preference.bootstrap import bootstrap_bradley_terry, unit_note
from rederive.stats.preference.bradley_terry import HALF
from rederive.stats.preference.elo import NO_ANCHOR, EloScale
from rederive.stats.preference.games import as_independent_games, pair_counts
from rederive.stats.preference.ranking import CI_METHOD, pairwise_table, rank_table, score_table

__all__ = ["RESAMPLE", "BradleyTerryTables", "bradley_terry_tables"]

#: What a bootstrap replicate draws: prompts with all their games, or each game.
RESAMPLE = ("prompts", "games")


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


def _strong_words(strong_weight, resample: str) -> str:
    """The caption's words on strong labels (nothing when they count once)."""
    weights = np.unique(np.asarray(strong_weight, dtype=float))
    if weights.size == 1 and weights[0] == 1:
        return ""
    how = f"{weights[0]:g} times" if weights.size == 1 else "as its source's strong_weight says"
    return f", a strong label counted {how}" + (
        " (as that many games)" if resample == "games" else ""
    )


def bradley_terry_tables(
    games: pd.DataFrame,
    *,
    n_boot: int,
    seed: int,
    fdr_q: float,
    ties: str = HALF,
    strong_weight=1,
    scale: EloScale = NO_ANCHOR,
    baseline: str | None = None,
    level: float = 0.95,
    all_pairs_up_to: int | None = None,
    neighbours: int = 2,
    exclude=(),
    not_ranked=None,
    resample: str = "prompts",
    win_interval: str = "replicates",
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
    strong_weight : float or array
        Weight of a strong label (Arena-Hard: 3), or one per game.
    scale : EloScale
        Scale and anchor.
    baseline : str, optional
        Labelled ``baseline``, left out of comparisons and ranks.
    level : float
    all_pairs_up_to, neighbours : int
        The comparison family.
    exclude : sequence of str
        Models whose games are left out (the caller counts them).
    not_ranked : mapping of str to str, optional
        Models fitted but not ranked, with their role (``small_n``): out of the
        comparisons and the ranks, as the baseline.
    resample : {"prompts", "games"}
        What a replicate draws: items with all their games, or each game on its
        own with a strong label repeated ``strong_weight`` times
        (:func:`~rederive.stats.preference.games.as_independent_games`, as the arena
        notebooks and Arena-Hard's ``show_result.py`` do: intervals too narrow
        when prompts matter).
    win_interval : {"replicates", "elo_bounds"}
        :func:`~rederive.stats.preference.ranking.score_table`'s.

    Returns
    -------
    BradleyTerryTables
    """
    if resample not in RESAMPLE:
        raise ValueError(f"resample must be one of {RESAMPLE}")
    not_ranked = dict(not_ranked or {})
    ci_method = CI_METHOD
    strong = _strong_words(strong_weight, resample)
    if resample == "games":
        keep = ~(games["model_a"].isin(exclude) | games["model_b"].isin(exclude)).to_numpy()
        weight = np.broadcast_to(np.asarray(strong_weight, dtype=float), (len(games),))
        games = as_independent_games(games[keep], weight[keep])
        strong_weight, exclude = 1, ()
        ci_method = "game bootstrap, percentile"
    counts = pair_counts(games, strong_weight=strong_weight, exclude=exclude)
    boot = bootstrap_bradley_terry(counts, ties=ties, n_boot=n_boot, seed=seed)
    scores = score_table(
        boot,
        counts,
        scale=scale,
        level=level,
        baseline=baseline,
        not_ranked=not_ranked,
        win_interval=win_interval,
        ci_method=ci_method,
    )
    pairs = pairwise_table(
        boot,
        fdr_q=fdr_q,
        level=level,
        scale=scale,
        baseline=baseline,
        all_pairs_up_to=all_pairs_up_to,
        neighbours=neighbours,
        not_ranked=list(not_ranked),
    )
    ranks = rank_table(scores, pairs)
    unit = pairs.attrs.get("note", unit_note(boot.unit_kind, boot.n_units))
    if resample == "games":
        unit = unit.replace(
            "The games carry no item id, so each",
            "Resampling games (resample: games), each",
        )
    parts = [
        f"Bradley–Terry by maximum likelihood, {TIE_WORDS[ties]}{strong}.",
        scale.describe(counts.models),
        unit,
    ]
    if boot.n_failed:
        parts.append(
            f"{boot.n_failed} of {n_boot} replicates had no finite estimate (a model drawn "
            "only into wins or losses) and were left out."
        )
    return BradleyTerryTables(scores, pairs, ranks, " ".join(parts), boot.fit.tie_parameter)
