"""Item-bootstrap intervals for 1PL abilities fitted by the shared step
:func:`rederive.stats.irt.fit_1pl` (py-irt reports point estimates only).

A py-irt refit per replicate costs seconds on SaliTrap's 12 × 1,145 matrix, so
the bootstrap here re-solves abilities with the fitted difficulties held fixed
(conditional bootstrap, vectorised; see :func:`bootstrap_ability`).

References
----------
Rasch, G. (1960). *Probabilistic Models for Some Intelligence and Attainment Tests*.
Lalor, J. P. & Rodriguez, P. (2023). py-irt: A scalable item response theory library
    for Python. *INFORMS Journal on Computing* 35(1), 5–13.
"""

import numpy as np
import pandas as pd


def _conditional_map(y0, observed, b, weights, prior_sd, iterations):
    """MAP abilities given difficulties, for each row of item ``weights`` (B × items)."""
    theta = np.zeros((weights.shape[0], y0.shape[0]))
    ow = observed.astype(float)
    for _ in range(iterations):  # Newton steps, each vectorised over replicates × models
        p = 1.0 / (1.0 + np.exp(-(theta[:, :, None] - b[None, None, :])))
        grad = np.einsum("bi,mi,bmi->bm", weights, ow, y0[None] - p, optimize=True)
        grad -= theta / prior_sd**2
        hess = -np.einsum("bi,mi,bmi->bm", weights, ow, p * (1 - p), optimize=True)
        hess -= 1.0 / prior_sd**2
        theta = theta - grad / hess
    return theta


def bootstrap_ability(
    responses: pd.DataFrame,
    result,
    *,
    clusters,
    n_boot: int,
    rng: np.random.Generator,
    level: float = 0.95,
    prior_sd: float = 1.0,
    iterations: int = 25,
) -> pd.DataFrame:
    """Item-bootstrap intervals of abilities with the item difficulties held fixed.

    ``result`` is a fit with ``ability`` and ``difficulty`` Series
    (:class:`rederive.stats.irt.IrtFit`).

    A full py-irt refit per replicate costs seconds, so each replicate instead
    resamples clusters of items (:func:`rederive.stats.bootstrap.resample_weights`)
    and re-solves every model's ability given the fitted difficulties — the MAP
    of the weighted Rasch log-likelihood with an N(0, ``prior_sd``²) prior, by
    Newton's method vectorised over replicates × models (no loop over
    replicates). The replicate shifts ``θ*_b − θ̂`` (θ̂: the same solver on the
    unweighted data) are added to py-irt's ability, so the interval is anchored on
    the reported estimate. It reflects which items a model met, not the
    uncertainty of the difficulties (a conditional bootstrap).
    """
    from rederive.stats.bootstrap import percentile_ci, resample_weights

    y = responses.to_numpy(dtype=float)
    b = result.difficulty.reindex(responses.columns).to_numpy(dtype=float)
    observed = ~np.isnan(y) & ~np.isnan(b)[None, :]
    y0 = np.where(observed, y, 0.0)
    _, inverse = np.unique(np.asarray(clusters), return_inverse=True)
    weights = resample_weights(inverse.max() + 1, n_boot, rng).astype(float)[:, inverse]
    full = _conditional_map(y0, observed, b, np.ones((1, y.shape[1])), prior_sd, iterations)
    shifts = _conditional_map(y0, observed, b, weights, prior_sd, iterations) - full
    lo, hi = percentile_ci(shifts, level)
    ability = result.ability.reindex(responses.index).to_numpy(dtype=float)
    return pd.DataFrame({"model": responses.index, "ci_low": ability + lo, "ci_high": ability + hi})
