"""Self-preference: does a judge that is also a contestant favour itself?

For a judge ``J`` that appears as a side in games, take the games where ``J``
plays and judges, and the same games — same item, same two sides, same order
(``game``) — judged by the other judges. ``J``'s win rate by its own verdicts
against its win rate by the others' verdicts on exactly those games is the
self-preference gap (a tie half a win, a graded preference its value). The
others' verdicts on one game are averaged first, so each game counts once.

The gap is a paired mean over games clustered by item (games of one item share
its difficulty): its SE, interval and test are the cluster-robust ones of
:mod:`rederive.stats.clustered` (``C/(C−1)`` correction, t with ``C − 1`` df),
with each item its own cluster.

References
----------
Panickssery, A., Bowman, S. R. & Feng, S. (2024). LLM evaluators recognize and
    favor their own generations. NeurIPS 2024 (arXiv:2404.13076).
Zheng, L. et al. (2023). Judging LLM-as-a-judge with MT-Bench and Chatbot Arena,
    §3.3 (self-enhancement bias).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rederive.stats.clustered import T_METHOD, clustered_ratio, t_interval, t_pvalue
from rederive.stats.preference.games import check_games

__all__ = ["self_preference_table"]


def _value_for(games: pd.DataFrame, model: str) -> np.ndarray:
    """``model``'s preference in each game (a tie ½, a graded preference its value)."""
    outcome = games["outcome"].to_numpy(dtype=float)
    return np.where(games["model_a"].to_numpy() == model, outcome, 1.0 - outcome)


def self_preference_table(games: pd.DataFrame, *, level: float = 0.95) -> pd.DataFrame:
    """Self-preference of every judge that is also a contestant.

    Returns
    -------
    DataFrame
        ``judge, games, items, win_rate_self_pct, win_rate_others_pct,
        gap_pct, ci_low_pct, ci_high_pct, p_value, method``; one row per judge
        with at least one game it played that other judges also judged. Empty
        when no judge is a contestant.
    """
    check_games(games)
    if "judge" not in games.columns:
        raise ValueError("self-preference needs a judge column")
    frame = games.assign(
        item_id=games["item_id"].astype(str) if "item_id" in games else "",
        game=games["game"].astype(str) if "game" in games else "",
        judge=games["judge"].astype(str),
    )
    models = set(frame["model_a"]) | set(frame["model_b"])
    key = ["item_id", "model_a", "model_b", "game"]
    rows = []
    for judge in sorted(set(frame["judge"]) & models):
        plays = (frame["model_a"] == judge) | (frame["model_b"] == judge)
        own = frame[plays & (frame["judge"] == judge)]
        others = frame[plays & (frame["judge"] != judge)]
        others = others.assign(v=_value_for(others, judge)).groupby(key, as_index=False)["v"].mean()
        paired = own.assign(v_self=_value_for(own, judge)).merge(others, on=key, how="inner")
        if paired.empty:
            continue
        diff = (paired["v_self"] - paired["v"]).to_numpy()
        fit = clustered_ratio(diff, np.ones_like(diff), clusters=paired["item_id"].to_numpy())
        lo, hi = t_interval(fit.estimate, fit.se, fit.n_clusters, level)
        rows.append(
            {
                "judge": judge,
                "games": len(paired),
                "items": int(fit.n_clusters[0]),
                "win_rate_self_pct": 100 * paired["v_self"].mean(),
                "win_rate_others_pct": 100 * paired["v"].mean(),
                "gap_pct": 100 * float(fit.estimate[0]),
                "ci_low_pct": 100 * float(lo[0]),
                "ci_high_pct": 100 * float(hi[0]),
                "p_value": float(t_pvalue(fit.estimate, fit.se, fit.n_clusters)[0]),
                "method": T_METHOD,
            }
        )
    columns = [
        "judge",
        "games",
        "items",
        "win_rate_self_pct",
        "win_rate_others_pct",
        "gap_pct",
        "ci_low_pct",
        "ci_high_pct",
        "p_value",
        "method",
    ]
    return pd.DataFrame(rows, columns=columns)
