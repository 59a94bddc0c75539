"""Vectorised, optionally clustered, nonparametric bootstrap.

All resampling here is done with one weight matrix per call: row ``b`` holds how
many times each resampling unit (an item, or a cluster of items sharing a seed /
problem) is drawn in replicate ``b``. Statistics are then matrix products, so no
Python loop runs over replicates. Every quantity that shares a call shares the
same resamples, which makes differences between columns *paired* by construction.

References
----------
Efron, B. & Tibshirani, R. (1993). *An Introduction to the Bootstrap*. Chapman & Hall.
Davison, A. C. & Hinkley, D. V. (1997). *Bootstrap Methods and their Application*,
    §3.8 (cluster / two-stage resampling). Cambridge University Press.
Hall, P. & Wilson, S. R. (1991). Two guidelines for bootstrap hypothesis testing.
    *Biometrics*, 47(2), 757–762.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np
import pandas as pd


def rng_for(seed: int, *keys: str) -> np.random.Generator:
    """Independent, reproducible generator for one (seed, key…) combination.

    Keys are hashed with CRC-32 (stable across processes, unlike ``hash``), so that
    adding a model or a table never shifts the random stream of another.
    """
    entropy = [int(seed)] + [zlib.crc32(str(k).encode("utf-8")) for k in keys]
    return np.random.default_rng(np.random.SeedSequence(entropy))


def resample_weights(n_units: int, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """Draw-count matrix of an ordinary bootstrap over ``n_units`` units.

    Returns
    -------
    ndarray of shape (n_boot, n_units), int
        ``w[b, j]`` = number of times unit ``j`` is drawn in replicate ``b``;
        every row sums to ``n_units``.
    """
    if n_units < 1:
        raise ValueError("cannot bootstrap zero units")
    draws = rng.integers(0, n_units, size=(n_boot, n_units))
    offsets = (np.arange(n_boot) * n_units)[:, None]
    counts = np.bincount((draws + offsets).ravel(), minlength=n_boot * n_units)
    return counts.reshape(n_boot, n_units)


#: Most cells of one block of bootstrap weights (about 130 MB as int64). The full
#: (n_boot, n_units) matrix of a run with a million items is 16 GB at B = 2000.
MAX_WEIGHT_CELLS = 2**24


def weight_chunks(n_units: int, n_boot: int, rng: np.random.Generator, max_cells=None):
    """The rows of :func:`resample_weights` in blocks of at most ``max_cells`` cells.

    Blocks are drawn one after the other from ``rng``, which gives exactly the
    rows of one ``resample_weights(n_units, n_boot, rng)`` call (NumPy's
    ``integers`` stream does not depend on how the draws are split), so results
    are the same as unblocked, at a memory bounded whatever ``n_units``.

    Yields
    ------
    ndarray of shape (rows, n_units), int
        Consecutive blocks of replicates; ``rows`` sum to ``n_boot``.
    """
    step = max(1, (max_cells or MAX_WEIGHT_CELLS) // max(n_units, 1))
    for start in range(0, n_boot, step):
        yield resample_weights(n_units, min(step, n_boot - start), rng)


def sum_by_cluster(values: np.ndarray, clusters) -> tuple[np.ndarray, np.ndarray]:
    """Sum the rows of ``values`` within clusters.

    Parameters
    ----------
    values : array_like, shape (n_rows,) or (n_rows, k)
    clusters : array_like, shape (n_rows,)
        Cluster label per row; ``None`` makes every row its own cluster.

    Returns
    -------
    sums : ndarray, shape (n_clusters, k)
        Cluster sums, clusters in sorted label order.
    labels : ndarray, shape (n_clusters,)
    """
    values = np.asarray(values, dtype=float)
    if values.ndim == 1:
        values = values[:, None]
    if clusters is None:
        return values, np.arange(values.shape[0])
    labels, inverse = np.unique(np.asarray(clusters), return_inverse=True)
    sums = np.zeros((labels.size, values.shape[1]))
    np.add.at(sums, inverse, values)
    return sums, labels


#: float32 holds every integer up to 2**24 exactly.
FLOAT32_EXACT = 2**24


def _product_operand(values: np.ndarray, n_units: int) -> tuple[np.ndarray, type]:
    """``values`` as the right operand of ``weights @ values``, in float32 when exact.

    A replicate sum is ``Σ_j w_j x_j`` with integer draw counts ``w_j`` summing
    to ``n_units``. When every ``x_j`` is an integer (0/1 scores, counts, cluster
    sums of them) and ``n_units · max|x|`` stays below 2**24, every product and
    every partial sum is an integer float32 represents exactly, so single
    precision gives the float64 result bit for bit at half the memory and about
    twice the BLAS speed (bench/README.md, issue 24). Other values stay float64.
    """
    if values.size == 0:
        return values, np.float64
    bound = float(np.abs(values).max()) * n_units
    if bound < FLOAT32_EXACT and bool((values == np.round(values)).all()):
        return values.astype(np.float32), np.float32
    return values, np.float64


@dataclass(frozen=True)
class RatioBootstrap:
    """Point estimates and bootstrap replicates of one or more ratios.

    Attributes
    ----------
    estimate : ndarray, shape (k,)
        Ratio on the original data (``nan`` where the denominator is 0).
    replicates : ndarray, shape (n_boot, k)
        Ratio in each replicate (``nan`` where a replicate's denominator is 0).
    n_clusters : int
        Number of resampling units.
    """

    estimate: np.ndarray
    replicates: np.ndarray
    n_clusters: int


def bootstrap_ratio(
    numerator,
    denominator,
    *,
    clusters=None,
    n_boot: int,
    rng: np.random.Generator,
) -> RatioBootstrap:
    """Cluster bootstrap of ratio estimators sum(numerator) / sum(denominator).

    A rate such as TAR = Strict Pass / valid rows is a ratio of two sums over items;
    resampling whole clusters (items sharing a ``seed_id``, continuations of one
    problem) keeps within-cluster dependence, so the interval is honest when items
    are not independent. Columns share resamples, so column differences are paired.

    Parameters
    ----------
    numerator, denominator : array_like, shape (n_rows,) or (n_rows, k)
        Per-row contributions, e.g. 1/0 for "is Strict Pass" and 1/0 for "is valid".
        Columns are the quantities estimated together (models, arms, …).
    clusters : array_like, shape (n_rows,), optional
        Resampling unit of each row. Default: every row is its own unit.
    n_boot : int
        Number of bootstrap replicates.
    rng : numpy.random.Generator
        Source of randomness (see :func:`rng_for`).

    Returns
    -------
    RatioBootstrap
    """
    num = np.asarray(numerator, dtype=float)
    den = np.asarray(denominator, dtype=float)
    if num.shape != den.shape:
        raise ValueError(f"numerator shape {num.shape} != denominator shape {den.shape}")
    num_c, _ = sum_by_cluster(num, clusters)
    den_c, _ = sum_by_cluster(den, clusters)
    n_units = num_c.shape[0]
    with np.errstate(invalid="ignore", divide="ignore"):
        estimate = num_c.sum(axis=0) / den_c.sum(axis=0)
    num_w, num_dtype = _product_operand(num_c, n_units)
    # Every model answered every unit (no NaN): one denominator column serves all.
    shared_den = den_c.shape[1] > 1 and bool((den_c == den_c[:, :1]).all())
    den_w, den_dtype = _product_operand(den_c[:, :1] if shared_den else den_c, n_units)
    blocks = []
    for weights in weight_chunks(n_units, n_boot, rng):
        top = (weights.astype(num_dtype) @ num_w).astype(float)
        bottom = (weights.astype(den_dtype) @ den_w).astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            blocks.append(top / bottom)
    replicates = np.concatenate(blocks)
    estimate = np.where(den_c.sum(axis=0) > 0, estimate, np.nan)
    return RatioBootstrap(estimate=estimate, replicates=replicates, n_clusters=num_c.shape[0])


def bootstrap_mean(values, *, clusters=None, n_boot: int, rng: np.random.Generator):
    """Cluster bootstrap of column means (NaN cells are missing, not zero).

    Equivalent to :func:`bootstrap_ratio` with numerator = value and denominator =
    "value present", so items a model did not answer drop out of its mean only.
    """
    vals = np.asarray(values, dtype=float)
    present = ~np.isnan(vals)
    return bootstrap_ratio(
        np.where(present, vals, 0.0),
        present.astype(float),
        clusters=clusters,
        n_boot=n_boot,
        rng=rng,
    )


def percentile_ci(replicates: np.ndarray, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Percentile confidence interval per column, ignoring NaN replicates.

    Columns whose replicates are all NaN get a NaN interval.
    """
    alpha = (1.0 - level) / 2.0
    reps = np.atleast_2d(np.asarray(replicates, dtype=float))
    lo = np.full(reps.shape[1], np.nan)
    hi = np.full(reps.shape[1], np.nan)
    nan = np.isnan(reps)
    # Columns without a NaN replicate take the vectorised quantile (the same
    # numbers: nanquantile runs the same interpolation column by column, in a
    # Python loop that took most of the time of 15,000 pair columns).
    full = ~nan.any(axis=0)
    if full.any():
        lo[full], hi[full] = np.quantile(reps[:, full], [alpha, 1.0 - alpha], axis=0)
    partial = ~full & ~nan.all(axis=0)
    if partial.any():
        lo[partial] = np.nanquantile(reps[:, partial], alpha, axis=0)
        hi[partial] = np.nanquantile(reps[:, partial], 1.0 - alpha, axis=0)
    return lo, hi


def bootstrap_pvalue(estimate, replicates) -> np.ndarray:
    """Two-sided bootstrap p-value for H0: parameter = 0, per column.

    Uses the null-centred bootstrap distribution (Hall & Wilson 1991): the share of
    replicates whose deviation from the estimate is at least as large as the
    estimate itself, with the +1 correction so that p is never exactly 0:
    ``p = (1 + #{|θ*_b − θ̂| ≥ |θ̂|}) / (1 + B)``.
    """
    est = np.atleast_1d(np.asarray(estimate, dtype=float))
    reps = np.atleast_2d(np.asarray(replicates, dtype=float))
    valid = ~np.isnan(reps)
    exceed = (np.abs(reps - est) >= np.abs(est)) & valid
    n_valid = valid.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = (1.0 + exceed.sum(axis=0)) / (1.0 + n_valid)
    return np.where(np.isnan(est) | (n_valid == 0), np.nan, p)


def pairwise_differences(
    names, estimate, replicates, level: float = 0.95, pairs=None
) -> pd.DataFrame:
    """Unordered pairs (a, b) of columns: difference a − b with p-value.

    The columns must come from one bootstrap call (shared resamples), which makes
    the comparison paired by resampling unit. ``pairs`` (``(ia, ib)`` column
    positions) restricts the table to those pairs, in that order; default all
    pairs in ``numpy.triu_indices`` order. Memory is replicates × pairs.

    Returns
    -------
    DataFrame
        One row per pair: ``a, b, diff, ci_low, ci_high`` (percentile interval of
        the paired difference at ``level``) and ``p_value`` (:func:`bootstrap_pvalue`).
    """
    names = list(names)
    est = np.asarray(estimate, dtype=float)
    reps = np.asarray(replicates, dtype=float)
    ia, ib = np.triu_indices(len(names), k=1) if pairs is None else pairs
    diff = est[ia] - est[ib]
    diff_reps = reps[:, ia] - reps[:, ib]
    lo, hi = percentile_ci(diff_reps, level)
    return pd.DataFrame(
        {
            "a": [names[i] for i in ia],
            "b": [names[j] for j in ib],
            "diff": diff,
            "ci_low": lo,
            "ci_high": hi,
            "p_value": bootstrap_pvalue(diff, diff_reps),
        }
    )
