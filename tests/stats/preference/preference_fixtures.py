"""Test scaffolding: the committed source fixtures as canonical games frames.

These stand in for the kind's readers (written elsewhere) so that the statistics
can be tested on real files now; they follow the games-frame contract of
:mod:`rederive.stats.preference.games` and nothing more.
"""

from pathlib import Path

import numpy as np
import pandas as pd

FIXTURES = Path(__file__).parent / "fixtures"
ARENA_HARD_BASELINE = "claude-3.7-sonnet"

# Arena-Hard v0.1 labels: (verdict for the side in position A, strength).
LABELS = {
    "A>>B": ("a", 2),
    "A>B": ("a", 1),
    "A=B": ("tie", 1),
    "B>A": ("b", 1),
    "B>>A": ("b", 2),
}


def arena_hard_games(judgments: pd.DataFrame, baseline: str = ARENA_HARD_BASELINE):
    """Two games per judgment row: game 1 shows the baseline as A, game 2 the model as A."""
    parts = []
    for game, column in ((1, "game_1"), (2, "game_2")):
        label = judgments[column]
        verdict = label.map(lambda s: LABELS[s][0])
        side_a = judgments["model"] if game == 2 else pd.Series(baseline, index=judgments.index)
        side_b = pd.Series(baseline, index=judgments.index) if game == 2 else judgments["model"]
        parts.append(
            pd.DataFrame(
                {
                    "model_a": side_a,
                    "model_b": side_b,
                    "outcome": verdict.map({"a": 1.0, "b": 0.0, "tie": 0.5}),
                    "verdict": verdict,
                    "strength": label.map(lambda s: LABELS[s][1]),
                    "label": label,
                    "item_id": judgments["question_id"],
                    "judge": judgments["judge"],
                    "game": game,
                    "first": "a",
                }
            )
        )
    return pd.concat(parts, ignore_index=True)


def load_arena_hard():
    return arena_hard_games(pd.read_csv(FIXTURES / "arena_hard" / "judgments.csv"))


def verdict_games(verdicts: pd.DataFrame) -> pd.DataFrame:
    """Agreement fixture (unit × judge categories) as games of models ``x`` vs ``y``."""
    long = verdicts.melt(id_vars="unit", var_name="judge", value_name="v").dropna()
    long = long[long["v"] != ""]
    outcome = long["v"].map({"x": 1.0, "tie": 0.5, "y": 0.0}).to_numpy()
    return pd.DataFrame(
        {
            "model_a": "x",
            "model_b": "y",
            "outcome": outcome,
            "verdict": np.where(outcome == 1, "a", np.where(outcome == 0, "b", "tie")),
            "item_id": long["unit"].to_numpy(),
            "judge": long["judge"].to_numpy(),
        }
    )
