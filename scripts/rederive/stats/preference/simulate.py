"""Synthetic arenas with known strengths, for tests, calibration and benchmarks.

Games follow Bradley–Terry with Davidson-style ties and, optionally, a prompt
effect: each prompt shifts every pair's log-odds by ``prompt_sd · z_prompt · u_pair``
(``u`` a fixed ±1 per model), so that games on one prompt are correlated — the
dependence a bootstrap over prompts must carry and a game-level one ignores.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["simulate_arena"]


def simulate_arena(
    n_models: int,
    n_games: int,
    n_prompts: int,
    *,
    rng: np.random.Generator,
    spread: float = 1.0,
    tie_nu: float = 0.3,
    prompt_sd: float = 0.0,
    strengths=None,
    strong_share: float = 0.0,
):
    """Games of a random arena.

    Parameters
    ----------
    n_models, n_games, n_prompts : int
    rng : numpy.random.Generator
    spread : float
        Standard deviation of the true strengths (natural log-odds).
    tie_nu : float
        Davidson ``ν`` of the tie probability (0: no ties).
    prompt_sd : float
        Standard deviation of the per-prompt shift of each model's strength.
    strengths : array_like, optional
        True strengths (overrides ``spread``).
    strong_share : float
        Share of decisive games given ``strength`` 2.

    Returns
    -------
    games : DataFrame
        The canonical games frame (``model_a``, ``model_b``, ``outcome``,
        ``verdict``, ``strength``, ``item_id``).
    beta : ndarray
        True strengths, ``Σ β = 0``.
    """
    beta = (
        np.asarray(strengths, dtype=float)
        if strengths is not None
        else rng.normal(0.0, spread, n_models)
    )
    beta = beta - beta.mean()
    a = rng.integers(0, n_models, n_games)
    b = (a + rng.integers(1, n_models, n_games)) % n_models
    prompt = rng.integers(0, n_prompts, n_games)
    d = beta[a] - beta[b]
    if prompt_sd > 0:
        shift = rng.normal(0.0, prompt_sd, (n_prompts, n_models))
        d = d + shift[prompt, a] - shift[prompt, b]
    win = np.exp(d / 2)
    lose = np.exp(-d / 2)
    norm = win + lose + tie_nu
    u = rng.random(n_games)
    p_win, p_tie = win / norm, tie_nu / norm
    verdict = np.where(u < p_win, "a", np.where(u < p_win + p_tie, "tie", "b"))
    outcome = np.where(verdict == "a", 1.0, np.where(verdict == "b", 0.0, 0.5))
    strong = (verdict != "tie") & (rng.random(n_games) < strong_share)
    names = np.array([f"m{k:03d}" for k in range(n_models)])
    games = pd.DataFrame(
        {
            "model_a": names[a],
            "model_b": names[b],
            "outcome": outcome,
            "verdict": verdict,
            "strength": np.where(strong, 2, 1),
            "item_id": np.char.add("p", prompt.astype(str)),
        }
    )
    return games, beta
