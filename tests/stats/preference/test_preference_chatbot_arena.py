"""Chatbot Arena's ratings (FastChat ``compute_bt``: ties half, mixtral at 1114) reproduced.

Fixture ``fixtures/chatbot_arena`` (README there): synthetic battles in the
``clean_battle`` format, and the ratings FastChat's own code gives them.
"""

import numpy as np
import pandas as pd
import pytest
from preference_fixtures import FIXTURES

from rederive.stats.preference.bradley_terry import fit_bradley_terry
from rederive.stats.preference.elo import ARENA, to_elo
from rederive.stats.preference.games import pair_counts

HERE = FIXTURES / "chatbot_arena"


def games_from_battles(battles: pd.DataFrame) -> pd.DataFrame:
    """Test scaffolding for the Chatbot Arena reader: ``winner`` to the games frame."""
    verdict = battles["winner"].map(
        {"model_a": "a", "model_b": "b", "tie": "tie", "tie (bothbad)": "both_bad"}
    )
    return pd.DataFrame(
        {
            "model_a": battles["model_a"],
            "model_b": battles["model_b"],
            "outcome": verdict.map({"a": 1.0, "b": 0.0, "tie": 0.5, "both_bad": 0.5}),
            "verdict": verdict,
            "label": battles["winner"],
        }
    )


def test_ratings_equal_fastchat_compute_bt():
    battles = pd.read_csv(HERE / "battles.csv")
    fit = fit_bradley_terry(pair_counts(games_from_battles(battles)))
    rating = pd.Series(to_elo(fit.beta, fit.models, ARENA), index=fit.models)
    reference = pd.read_csv(HERE / "reference_ratings.csv").set_index("model")
    assert rating["mixtral-8x7b-instruct-v0.1"] == pytest.approx(1114.0, abs=1e-12)
    np.testing.assert_allclose(rating[reference.index], reference["rating_tol_1e-12"], atol=1e-6)
    np.testing.assert_allclose(rating[reference.index], reference["rating_default_tol"], atol=1e-3)
