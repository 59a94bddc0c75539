"""Intervals for Bradley–Terry scores by a bootstrap over items (prompts), never games.

Games on one prompt share its difficulty, its topic and often its judge's mood, so
they are not independent; a bootstrap that resamples games (the arena notebooks,
Arena-Hard's ``show_result.py``) treats them as if they were and gives intervals
too narrow. Here a replicate draws prompts with replacement — multinomial counts
from :func:`rederive.stats.bootstrap.resample_weights`, seeded with
:func:`rederive.stats.bootstrap.rng_for` — and takes each drawn prompt with all
its games. Its pair counts are one matrix product of the draw counts with the
per-prompt pair counts (:class:`~rederive.stats.preference.games.PairCounts`), and
its fit starts from the point estimate: for ties as half, with the point
estimate's Hessian held fixed (the chord method,
:func:`~rederive.stats.preference.bradley_terry.fit_half_chord`, at most ~8 steps
at arena scale); for the tie models, L-BFGS and a Newton polish one replicate at a
time. Without items each game is its own unit (said in the note the tables
carry), drawn as a multinomial over the distinct games.

A replicate whose comparison graph is not strongly connected (a model drawn
only into wins) has no finite estimate; it is left out (NaN row) and counted in
``n_failed``, which the tables report.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rederive.stats.bootstrap import _product_operand, rng_for, weight_chunks
from rederive.stats.preference.bradley_terry import (
    HALF,
    TIE_MODELS,
    BradleyTerryFit,
    comparison_components,
    fit_bradley_terry,
    fit_half_chord,
    fit_tie_model,
    half_information,
    half_scores,
)
from rederive.stats.preference.games import LOSSES, TIE_COUNTS, WINS, PairCounts

__all__ = ["PreferenceBootstrap", "bootstrap_bradley_terry", "draw_weights", "unit_note"]

#: Replicates fitted together (a (rows, M, M) Laplacian stack per Newton step).
BATCH = 125


@dataclass(frozen=True)
class PreferenceBootstrap:
    """Point estimate and prompt-bootstrap replicates of Bradley–Terry strengths.

    Attributes
    ----------
    fit : BradleyTerryFit
        The point estimate.
    replicates : ndarray, shape (n_boot, M)
        ``β`` per replicate (``Σ β = 0``); NaN rows for replicates without a finite
        estimate.
    tie_replicates : ndarray, shape (n_boot,)
        The tie parameter per replicate (NaN for the half model).
    n_units : int
        Units resampled (items, or games when items are unknown).
    unit_kind : str
        ``"item"``, ``"game"`` or ``"item+game"``.
    n_boot, seed : int
    n_failed : int
        Replicates left out (no finite estimate).
    """

    fit: BradleyTerryFit
    replicates: np.ndarray
    tie_replicates: np.ndarray
    n_units: int
    unit_kind: str
    n_boot: int
    seed: int
    n_failed: int


def unit_note(unit_kind: str, n_units: int) -> str:
    """The sentence a table says about what its intervals resample."""
    if unit_kind == "item":
        return f"Intervals resample the {n_units:,} items (prompts) with all their games."
    if unit_kind == "game":
        return (
            f"The games carry no item id, so each of the {n_units:,} games is its own "
            "resampling unit; intervals ignore games sharing a prompt and may be too narrow."
        )
    return (
        f"Intervals resample {n_units:,} units: items with all their games, and each game "
        "without an item id on its own."
    )


def draw_weights(counts: PairCounts, n_boot: int, rng: np.random.Generator):
    """Blocks of bootstrap draw counts over the rows of ``counts.counts``.

    Yields arrays of shape (rows, U). Rows standing for ``m`` identical units are
    drawn as a multinomial over rows with probabilities ``m / n_units``, which
    is the distribution of drawing the units themselves.
    """
    rows = counts.counts.shape[0]
    if (counts.multiplicity == 1).all():
        yield from weight_chunks(rows, n_boot, rng)
        return
    probs = counts.multiplicity / counts.multiplicity.sum()
    step = max(1, 2**24 // max(rows, 1))
    for start in range(0, n_boot, step):
        yield rng.multinomial(counts.n_units, probs, size=min(step, n_boot - start))


def _operand(counts: PairCounts):
    """The right operand of ``weights @ counts``: dense when that is cheaper.

    Integer counts below 2**24 in total multiply exactly in float32 (the same
    argument as :func:`rederive.stats.bootstrap._product_operand`), at twice the
    BLAS speed of float64. Returns ``(operand, dtype)``; a sparse operand has
    dtype None.
    """
    matrix = counts.counts
    density = matrix.nnz / max(matrix.shape[0] * matrix.shape[1], 1)
    if density > 0.02 and matrix.shape[0] * matrix.shape[1] <= 2**26:
        return _product_operand(matrix.toarray(), counts.n_units)
    return matrix, None


def _aggregate(counts: PairCounts, operand, dtype, weights: np.ndarray) -> np.ndarray:
    """Replicate totals (rows, K, P) from draw counts (rows, U)."""
    k = operand.shape[1] // counts.n_pairs
    if dtype is None:
        flat = np.asarray((operand.T @ weights.T.astype(float)).T)
    else:
        flat = (weights.astype(dtype) @ operand).astype(float)
    return flat.reshape(weights.shape[0], k, counts.n_pairs)


def bootstrap_bradley_terry(
    counts: PairCounts,
    *,
    ties: str = HALF,
    n_boot: int,
    seed: int,
    key: tuple = ("preference", "bradley_terry"),
    fit: BradleyTerryFit | None = None,
) -> PreferenceBootstrap:
    """Bradley–Terry with intervals from a bootstrap over items.

    Parameters
    ----------
    counts : PairCounts
    ties : {"half", "rao_kupper", "davidson"}
    n_boot : int
    seed : int
        From config; the stream is ``rng_for(seed, *key)``.
    key : tuple of str
        Names the stream, so that other tables' draws are independent.
    fit : BradleyTerryFit, optional
        The point estimate, when already computed.

    Returns
    -------
    PreferenceBootstrap
    """
    if ties not in TIE_MODELS:
        raise ValueError(f"ties must be one of {TIE_MODELS}")
    if n_boot < 1:
        raise ValueError("n_boot must be at least 1")
    fit = fit or fit_bradley_terry(counts, ties=ties)
    m = len(counts.models)
    rng = rng_for(seed, *key)
    reps, tie_reps = [], []
    start = np.concatenate([fit.beta, [0.0]])
    if ties != HALF:
        eta = np.log(fit.tie_parameter) if ties == "rao_kupper" else fit.tie_parameter
        start[-1] = np.log(eta) if eta > 0 else -20.0
    operand, dtype = _operand(counts)
    information = None
    if ties == HALF:
        _, point_total = half_scores(counts.totals(), counts.graded)
        information = half_information(fit.beta, counts.ia, counts.ib, point_total)
    for block in draw_weights(counts, n_boot, rng):
        for lo in range(0, block.shape[0], BATCH):
            totals = _aggregate(counts, operand, dtype, block[lo : lo + BATCH])
            beta, tie = _fit_block(counts, totals, ties, fit, start, m, information)
            reps.append(beta)
            tie_reps.append(tie)
    replicates = np.concatenate(reps)
    return PreferenceBootstrap(
        fit=fit,
        replicates=replicates,
        tie_replicates=np.concatenate(tie_reps),
        n_units=counts.n_units,
        unit_kind=counts.unit_kind,
        n_boot=n_boot,
        seed=seed,
        n_failed=int(np.isnan(replicates).any(axis=1).sum()),
    )


def _fit_block(counts, totals, ties, fit, start, m, information):
    """Fit one block of replicate totals; NaN rows where no finite MLE exists."""
    score, total = half_scores(totals, counts.graded)
    ok = np.array(
        [
            np.unique(comparison_components(counts.ia, counts.ib, s, t - s, m)).size == 1
            for s, t in zip(score, total, strict=True)
        ]
    )
    beta = np.full((totals.shape[0], m), np.nan)
    tie = np.full(totals.shape[0], np.nan)
    if ties == HALF:
        if ok.any():
            beta[ok], _ = fit_half_chord(
                counts.ia, counts.ib, score[ok], total[ok], fit.beta, information
            )
        return beta, tie
    for r in np.flatnonzero(ok):
        beta[r], tie[r], _, _ = fit_tie_model(
            counts.ia,
            counts.ib,
            totals[r, WINS],
            totals[r, LOSSES],
            totals[r, TIE_COUNTS],
            m,
            ties,
            start=start,
        )
    return beta, tie
