"""Chatbot Arena's ratings (FastChat ``compute_bt``: ties half, mixtral at 1114) reproduced.

Fixture ``fixtures/chatbot_arena`` (README there): synthetic battles in the
``clean_battle`` format, and the ratings FastChat's own code gives them. FastChat's
L-BFGS-B stops on its default relative decrease of the loss (``ftol`` ≈ 2.2e-9)
before its ``gtol``, so its ratings sit up to 2.1e-3 Elo from the optimum (the
same at ``tol=1e-6`` and ``1e-12``); the fit is asserted within 5e-3 Elo of them
and at least as likely (it is the maximum; its gradient is checked elsewhere).
"""

import numpy as np
import pandas as pd
import pytest
from preference_fixtures import FIXTURES
from scipy.special import log_expit

from rederive.stats.preference.bradley_terry import fit_bradley_terry, half_scores
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
    counts = pair_counts(games_from_battles(battles))
    fit = fit_bradley_terry(counts)
    rating = pd.Series(to_elo(fit.beta, fit.models, ARENA), index=fit.models)
    reference = pd.read_csv(HERE / "reference_ratings.csv").set_index("model")
    assert rating["mixtral-8x7b-instruct-v0.1"] == pytest.approx(1114.0, abs=1e-12)
    for column in ("rating_default_tol", "rating_tol_1e-12"):
        np.testing.assert_allclose(rating[reference.index], reference[column], atol=5e-3)
    # Their ratings back on the log-odds scale: a likelihood no higher than the fit's.
    theirs = reference.loc[fit.models, "rating_tol_1e-12"].to_numpy() * np.log(10) / 400
    score, total = half_scores(counts.totals(), counts.graded)

    def loglik(beta):
        d = beta[counts.ia] - beta[counts.ib]
        return (score * log_expit(d) + (total - score) * log_expit(-d)).sum()

    assert loglik(fit.beta) >= loglik(theirs)
    assert loglik(fit.beta) == pytest.approx(fit.loglik, abs=1e-9)
