"""Position bias of a judge: does the verdict follow the order the answers were shown in?

When one judge sees the same pair on the same item in both orders (Arena-Hard's two
games; MT-bench's swapped judgments), a judge without position bias names the
same winner both times. For every such *swapped pair* of games the verdicts,
read as "the side shown first won", "the side shown second won" or "tie", fall
into:

- ``consistent``: the same model wins both times, or both are ties;
- ``follows_first``: the first-shown side wins both times (the winner changes
  with the order, toward the first position);
- ``follows_second``: the second-shown side wins both times;
- ``one_tie``: a tie in one order and a win in the other.

The table gives the share of swapped pairs whose verdict follows the position
(``follows_first + follows_second``) with a Wilson interval, and tests whether
those flips lean to one position: an exact two-sided binomial test of
``follows_first`` out of ``follows_first + follows_second`` against ½ with its
Clopper–Pearson interval. It also gives the share of all decisive verdicts in
swapped pairs that went to the first-shown side (exact binomial test against
½): with every pair shown both ways, a judge without position preference
gives the first side exactly half of them in expectation.

Games whose side shown first is unknown (``first`` empty) or that were judged in
one order only are counted (``unpaired``), never silently left out. A graded
preference counts for the side it leans to (ties at exactly ½).

References
----------
Zheng, L. et al. (2023). Judging LLM-as-a-judge with MT-Bench and Chatbot Arena.
    NeurIPS 2023 Datasets and Benchmarks (§3.3, position bias, "consistency").
Wang, P. et al. (2024). Large language models are not fair evaluators. ACL 2024.
Clopper, C. J. & Pearson, E. S. (1934). The use of confidence or fiducial limits
    illustrated in the case of the binomial. *Biometrika*, 26(4), 404–413.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from rederive.stats.preference.games import check_games
from rederive.stats.rates import wilson_interval

__all__ = ["position_bias_table", "swapped_pairs"]

FIRST, SECOND, TIE = "first", "second", "tie"


def _shown(games: pd.DataFrame) -> pd.DataFrame:
    """Per game: the models shown first and second, and which position won."""
    first = games["first"].fillna("").astype(str).to_numpy()
    a, b = games["model_a"].astype(str).to_numpy(), games["model_b"].astype(str).to_numpy()
    outcome = games["outcome"].to_numpy(dtype=float)
    pref_first = np.where(first == "a", outcome, 1.0 - outcome)
    won = np.where(pref_first > 0.5, FIRST, np.where(pref_first < 0.5, SECOND, TIE))
    return pd.DataFrame(
        {
            "item_id": games["item_id"].astype(str).to_numpy(),
            "judge": (games["judge"].fillna("").astype(str).to_numpy() if "judge" in games else ""),
            "shown_first": np.where(first == "a", a, b),
            "shown_second": np.where(first == "a", b, a),
            "known": np.isin(first, ("a", "b")),
            "won": won,
        }
    )


def swapped_pairs(games: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Match the games a judge saw in both orders.

    Returns
    -------
    pairs : DataFrame
        One row per swapped pair: ``judge, item_id, model_x, model_y`` (the model
        shown first in the first game, and the other), ``won_1, won_2``
        (``first``/``second``/``tie`` in each order) and ``kind`` (``consistent``,
        ``follows_first``, ``follows_second``, ``one_tie``).
    unpaired : DataFrame
        ``judge, reason, games``: games with no swapped partner, by reason.
    """
    check_games(games)
    if "item_id" not in games.columns or "first" not in games.columns:
        raise ValueError("position bias needs item_id and first (which side was shown first)")
    shown = _shown(games)
    unknown = shown[~shown["known"]]
    shown = shown[shown["known"]]
    first_key = shown["judge"] + "\x1f" + shown["item_id"] + "\x1f" + shown["shown_first"]
    second_key = shown["judge"] + "\x1f" + shown["item_id"] + "\x1f" + shown["shown_second"]
    shown = shown.assign(key=first_key + "\x1f" + shown["shown_second"])
    swapped_key = second_key + "\x1f" + shown["shown_first"]
    counts = shown["key"].value_counts()
    duplicated = shown["key"].map(counts) > 1
    partner = swapped_key.map(counts).fillna(0).to_numpy() == 1
    usable = shown[~duplicated.to_numpy() & partner]
    # Each swapped pair once: keep the game whose first-shown model sorts first.
    one = usable[usable["shown_first"] < usable["shown_second"]]
    other = usable.set_index("key")["won"]
    won_2 = other.reindex(
        one["judge"]
        + "\x1f"
        + one["item_id"]
        + "\x1f"
        + one["shown_second"]
        + "\x1f"
        + one["shown_first"]
    ).to_numpy()
    won_1 = one["won"].to_numpy()
    same_model = ((won_1 == FIRST) & (won_2 == SECOND)) | ((won_1 == SECOND) & (won_2 == FIRST))
    kind = np.select(
        [
            same_model | ((won_1 == TIE) & (won_2 == TIE)),
            (won_1 == FIRST) & (won_2 == FIRST),
            (won_1 == SECOND) & (won_2 == SECOND),
        ],
        ["consistent", "follows_first", "follows_second"],
        default="one_tie",
    )
    pairs = pd.DataFrame(
        {
            "judge": one["judge"].to_numpy(),
            "item_id": one["item_id"].to_numpy(),
            "model_x": one["shown_first"].to_numpy(),
            "model_y": one["shown_second"].to_numpy(),
            "won_1": won_1,
            "won_2": won_2,
            "kind": kind,
        }
    )
    reasons = [
        ("side shown first unknown", unknown["judge"]),
        ("same order judged more than once", shown.loc[duplicated.to_numpy(), "judge"]),
        ("judged in one order only", shown.loc[~duplicated.to_numpy() & ~partner, "judge"]),
    ]
    unpaired = pd.DataFrame(
        [
            {"judge": judge, "reason": reason, "games": int(n)}
            for reason, judges in reasons
            for judge, n in judges.value_counts().sort_index().items()
        ],
        columns=["judge", "reason", "games"],
    )
    return pairs, unpaired


def position_bias_table(games: pd.DataFrame, level: float = 0.95) -> pd.DataFrame:
    """Position bias per judge (``judge`` '' when the games name none).

    Returns
    -------
    DataFrame
        ``judge, swapped_pairs, consistent, follows_first, follows_second,
        one_tie, follows_position_pct, ci_low_pct, ci_high_pct, flips_first_pct,
        flips_ci_low_pct, flips_ci_high_pct, flips_p_value, decisive,
        first_wins, first_win_pct, first_p_value, unpaired_games``.
        ``follows_position_pct`` is the share of swapped pairs whose winner
        changed with the order (Wilson interval); ``flips_first_pct`` the share of
        those flips toward the first position (Clopper–Pearson interval, exact
        binomial p against ½); ``first_win_pct`` the share of decisive verdicts
        in swapped pairs that went to the side shown first (exact binomial p).
    """
    pairs, unpaired = swapped_pairs(games)
    judges = sorted(set(pairs["judge"]) | set(unpaired["judge"]))
    rows = []
    for judge in judges:
        mine = pairs[pairs["judge"] == judge]
        n = len(mine)
        k = mine["kind"].value_counts()
        ff, fs = int(k.get("follows_first", 0)), int(k.get("follows_second", 0))
        lo, hi = (float(x[0]) for x in wilson_interval(ff + fs, n, level))
        flips = ff + fs
        if flips:
            test = stats.binomtest(ff, flips, 0.5)
            ci = test.proportion_ci(level, method="exact")
            flip_row = (100 * ff / flips, 100 * ci.low, 100 * ci.high, test.pvalue)
        else:
            flip_row = (np.nan, np.nan, np.nan, np.nan)
        verdicts = np.concatenate([mine["won_1"].to_numpy(), mine["won_2"].to_numpy()])
        decisive = int((verdicts != TIE).sum())
        first_wins = int((verdicts == FIRST).sum())
        first_p = stats.binomtest(first_wins, decisive, 0.5).pvalue if decisive else np.nan
        rows.append(
            {
                "judge": judge,
                "swapped_pairs": n,
                "consistent": int(k.get("consistent", 0)),
                "follows_first": ff,
                "follows_second": fs,
                "one_tie": int(k.get("one_tie", 0)),
                "follows_position_pct": 100 * flips / n if n else np.nan,
                "ci_low_pct": 100 * lo,
                "ci_high_pct": 100 * hi,
                "flips_first_pct": flip_row[0],
                "flips_ci_low_pct": flip_row[1],
                "flips_ci_high_pct": flip_row[2],
                "flips_p_value": flip_row[3],
                "decisive": decisive,
                "first_wins": first_wins,
                "first_win_pct": 100 * first_wins / decisive if decisive else np.nan,
                "first_p_value": first_p,
                "unpaired_games": int(unpaired.loc[unpaired["judge"] == judge, "games"].sum()),
            }
        )
    return pd.DataFrame(rows)
