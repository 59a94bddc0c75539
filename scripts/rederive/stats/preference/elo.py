"""The Elo scale of Bradley–Terry strengths, and win probabilities on it.

A strength ``β`` (natural log-odds) becomes a rating ``R = scale · β / ln(base)
+ c``: a gap of ``scale`` points means odds of ``base`` to 1. The constant ``c``
is the *anchor*: a named model fixed at a rating, or, with no anchor, the mean
rating at ``init_rating``.

How the sources set it (scale 400, base 10 everywhere):

- Chatbot Arena (FastChat ``rating_systems.scale_and_offset``): ``R = 400 β' +
  1000`` with ``β'`` fitted with logits ``ln(10)·(β'_a − β'_b)``, then shifted so
  that ``mixtral-8x7b-instruct-v0.1`` is 1114 when it is in the data; its
  optimiser starts at 0 and keeps ``Σ β' = 0``, so without the anchor the mean
  is 1000.
- Arena-Hard v0.1 (``utils_math.compute_mle_elo``): ``R = 400·coef + 1000`` from a
  logistic regression on ``±ln 10`` features, shifted so the baseline
  ``gpt-4-0314`` is 1000; its leaderboard then prints each model's predicted
  win rate against that baseline, ``100 / (1 + 10^((R_base − R)/400))``
  (:func:`win_rate_against`), rounded to 2 decimals.
- AlpacaEval has no Elo: its score is a win rate against one baseline
  (:mod:`.winrate`).

References
----------
Elo, A. E. (1978). *The Rating of Chessplayers, Past and Present*. Arco.
Chiang, W.-L. et al. (2024). Chatbot Arena. arXiv:2403.04132, §5.
Li, T. et al. (2024). From crowdsourced data to high-quality benchmarks: Arena-Hard
    and BenchBuilder pipeline. arXiv:2406.11939.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rederive.stats.bootstrap import percentile_ci

__all__ = [
    "ARENA",
    "ARENA_HARD_V01",
    "NO_ANCHOR",
    "EloScale",
    "elo_bound_win_rates",
    "to_elo",
    "win_probability",
    "win_rate_against",
]


@dataclass(frozen=True)
class EloScale:
    """Scale, base and anchor of an Elo rating.

    Attributes
    ----------
    scale : float
        Points per factor ``base`` of odds (400).
    base : float
        10.
    init_rating : float
        Mean rating when no anchor applies (1000).
    anchor : str or None
        Model fixed at ``anchor_rating`` when present in the data.
    anchor_rating : float
    """

    scale: float = 400.0
    base: float = 10.0
    init_rating: float = 1000.0
    anchor: str | None = None
    anchor_rating: float = 1000.0

    def describe(self, models) -> str:
        """One sentence for captions: which anchor applied."""
        where = (
            f"{self.anchor} fixed at {self.anchor_rating:g}"
            if self.anchor is not None and self.anchor in list(models)
            else f"mean rating {self.init_rating:g}"
        )
        return f"Elo scale {self.scale:g} points per factor {self.base:g} of odds; {where}."


#: No anchor: mean rating 1000.
NO_ANCHOR = EloScale()
#: Chatbot Arena's leaderboard anchor (FastChat ``scale_and_offset``).
ARENA = EloScale(anchor="mixtral-8x7b-instruct-v0.1", anchor_rating=1114.0)
#: Arena-Hard v0.1's anchor (``compute_mle_elo``: the baseline at 1000).
ARENA_HARD_V01 = EloScale(anchor="gpt-4-0314", anchor_rating=1000.0)


def to_elo(beta, models, scale: EloScale = NO_ANCHOR) -> np.ndarray:
    """Ratings from strengths ``β`` (natural log-odds; rows are replicates).

    Parameters
    ----------
    beta : ndarray, shape (M,) or (B, M)
    models : sequence of str
    scale : EloScale

    Returns
    -------
    ndarray, same shape as ``beta``
        With the anchor in ``models``, its column equals ``anchor_rating`` in
        every row; otherwise every row has mean ``init_rating``.
    """
    beta = np.asarray(beta, dtype=float)
    points = scale.scale / np.log(scale.base) * beta
    models = list(models)
    if scale.anchor is not None and scale.anchor in models:
        k = models.index(scale.anchor)
        return points - points[..., [k]] + scale.anchor_rating
    return points - np.nanmean(points, axis=-1, keepdims=True) + scale.init_rating


def win_probability(rating_a, rating_b, scale: EloScale = NO_ANCHOR):
    """``P(a beats b) = 1 / (1 + base^((R_b − R_a)/scale))`` (a tie counted half)."""
    diff = (np.asarray(rating_b, dtype=float) - np.asarray(rating_a, dtype=float)) / scale.scale
    return 1.0 / (1.0 + np.power(scale.base, diff))


def win_rate_against(ratings, models, baseline: str, scale: EloScale = NO_ANCHOR):
    """Predicted win rate (percent) of every model against ``baseline``.

    Arena-Hard v0.1's score (``get_win_rate_column``, before its rounding to two
    decimals); the baseline's own entry is 50.
    """
    models = list(models)
    ratings = np.asarray(ratings, dtype=float)
    base = ratings[..., [models.index(baseline)]]
    return 100.0 * win_probability(ratings, base, scale)


def elo_bound_win_rates(replicates, models, baseline: str, scale: EloScale, level: float = 0.95):
    """Arena-Hard v0.1's interval of the win rate against ``baseline`` (percent).

    ``show_result.py`` (``get_win_rate_column`` on the bootstrap's quantiles): the
    percentile bounds of each model's Elo over replicates centred on a mean of
    ``init_rating`` (no anchor), then the win rate of the model's lower bound
    against the baseline's lower bound, and of the upper against the upper. It
    ignores that a model's and the baseline's ratings move together, and is far
    narrower than the percentiles of the win rate itself (bench/README.md); it
    serves to reproduce the intervals Arena-Hard publishes.

    Parameters
    ----------
    replicates : ndarray, shape (B, M)
        Strengths ``β`` per replicate (NaN rows are left out).
    models : sequence of str
    baseline : str
    scale : EloScale
        Its scale, base and ``init_rating``; the anchor is not used.
    level : float

    Returns
    -------
    low, high : ndarray, shape (M,)
    """
    centred = EloScale(scale=scale.scale, base=scale.base, init_rating=scale.init_rating)
    lo, hi = percentile_ci(to_elo(replicates, models, centred), level)
    return win_rate_against(lo, models, baseline, scale), win_rate_against(
        hi, models, baseline, scale
    )
