"""Win rate against a named baseline, with its standard error, as AlpacaEval defines it.

AlpacaEval's annotator returns a preference ``p`` in [1, 2] per instruction
(1: the baseline's output, ``output_1``, is better; 2: the model's; 1.5 or the
legacy 0: a draw; the weighted annotators give any value in between, the
probability-weighted preference). ``alpaca_eval.metrics.get_winrate``
(``helpers.BaseScoringRule.describe_head2head`` with the absolute scoring rule)
reports, over the annotations with a valid preference:

- ``win_rate = 100 · mean(p − 1)`` — a draw counts half, a graded preference its
  value: a *weighted* win rate, not a count of wins;
- ``standard_error = 100 · sem(p − 1)``, the sample standard deviation (``ddof=1``)
  over √n — the SE of that mean, treating instructions as independent;
- ``n_wins = #(p − 1 > ½)``, ``n_wins_base = #(p − 1 < ½)``, ``n_draws = #(p ∈ {0, 1.5})``,
  ``n_total``;
- ``discrete_win_rate``: each preference rounded to a win, loss or draw first
  (``ZeroOneScoringRule``), i.e. ``100 · (n_wins + n_draws/2) / n_total``.

In the games frame the baseline is one side and the model the other; the
model's value in a game is its preference (``outcome`` when it is ``model_a``,
``1 − outcome`` when it is ``model_b``), which is ``p − 1`` for AlpacaEval's
annotations read with ``outcome = 2 − p`` for ``model_a`` = the baseline. The
baseline gets a row labelled ``baseline`` with AlpacaEval's own entry for it —
the baseline judged against itself: every instruction a draw, win rate 50, SE 0
— and is never ranked.

References
----------
Li, X. et al. (2023). AlpacaEval: an automatic evaluator of instruction-following
    models. https://github.com/tatsu-lab/alpaca_eval (``src/alpaca_eval/metrics``).
Dubois, Y., Galambosi, B., Liang, P. & Hashimoto, T. B. (2024). Length-controlled
    AlpacaEval: a simple way to debias automatic evaluators. arXiv:2404.04475.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rederive.stats.preference.games import check_games
from rederive.stats.preference.ranking import BASELINE, CONTESTANT

__all__ = ["baseline_values", "describe_head2head", "win_rate_table"]


def describe_head2head(values) -> dict:
    """AlpacaEval's head-to-head summary of per-instruction values in [0, 1].

    Parameters
    ----------
    values : array_like
        The model's preference per annotation (``p − 1``); a value of exactly
        0.5 is a draw.

    Returns
    -------
    dict
        ``win_rate, standard_error, n_wins, n_wins_base, n_draws, n_total,
        discrete_win_rate`` (rates in percent).
    """
    v = np.asarray(values, dtype=float)
    n = v.size
    wins = int((v > 0.5).sum())
    losses = int((v < 0.5).sum())
    draws = int((v == 0.5).sum())
    return {
        "win_rate": 100.0 * v.mean() if n else np.nan,
        "standard_error": 100.0 * v.std(ddof=1) / np.sqrt(n) if n > 1 else np.nan,
        "n_wins": wins,
        "n_wins_base": losses,
        "n_draws": draws,
        "n_total": n,
        "discrete_win_rate": 100.0 * (wins + draws / 2) / n if n else np.nan,
    }


def baseline_values(games: pd.DataFrame, baseline: str) -> pd.DataFrame:
    """The games against ``baseline``, as the contestant's preference per game.

    Returns
    -------
    DataFrame
        ``model, value`` (+ ``item_id`` when present), one row per game with the
        baseline on one side, in the games' order.
    """
    check_games(games)
    a_is_base = (games["model_a"] == baseline).to_numpy()
    b_is_base = (games["model_b"] == baseline).to_numpy()
    against = a_is_base | b_is_base
    outcome = games["outcome"].to_numpy(dtype=float)
    out = pd.DataFrame(
        {
            "model": np.where(a_is_base, games["model_b"], games["model_a"])[against],
            "value": np.where(a_is_base, 1.0 - outcome, outcome)[against],
        }
    )
    if "item_id" in games.columns:
        out["item_id"] = games["item_id"].to_numpy()[against]
    return out


def win_rate_table(games: pd.DataFrame, baseline: str) -> pd.DataFrame:
    """Each model's win rate against ``baseline`` and its standard error (AlpacaEval).

    Parameters
    ----------
    games : DataFrame
        The canonical games frame; games without the baseline are ignored here
        (a win rate against a baseline uses only games against it).
    baseline : str

    Returns
    -------
    DataFrame
        ``model, role, win_rate, standard_error, n_wins, n_wins_base, n_draws,
        n_total, discrete_win_rate``, contestants by win rate (descending, ties
        by name), then the baseline row (``role = "baseline"``: AlpacaEval's
        entry for the baseline against itself, every one of its items a draw).
    """
    values = baseline_values(games, baseline)
    if values.empty:
        raise ValueError(f"no game has the baseline {baseline!r} on either side")
    rows = []
    for model, group in values.groupby("model", sort=True):
        rows.append({"model": model, "role": CONTESTANT, **describe_head2head(group["value"])})
    out = pd.DataFrame(rows)
    out = out.iloc[np.lexsort((out["model"].to_numpy(), -out["win_rate"].to_numpy()))]
    items = (
        values["item_id"].nunique()
        if "item_id" in values
        else int(values.groupby("model").size().max())
    )
    base = {"model": baseline, "role": BASELINE, **describe_head2head(np.full(items, 0.5))}
    base["standard_error"] = 0.0
    return pd.concat([out, pd.DataFrame([base])], ignore_index=True)
