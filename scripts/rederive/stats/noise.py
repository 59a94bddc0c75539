"""Prediction noise vs data noise: variance components of scores over repeated epochs.

A model graded ``K_i`` times (epochs, samples, trials) on each of ``n`` items has
per-epoch scores ``y_ik``; its score is the mean of the item means
``θ̂ = (1/n) Σ_i ȳ_i`` (the warehouse's ``scores`` table, then the accuracy). Two
things make ``θ̂`` vary: which items were drawn (data noise, the spread of the
items' true scores ``p_i``) and which answers the model happened to sample
(prediction noise, the spread of ``y_ik`` around ``p_i``). With items drawn at
random and epochs independent given the item,

    Var(θ̂) = (σ²_between + σ²_within / K) / n        (equal K; Miller 2024, §3)

with ``σ²_between = Var(p_i)`` and ``σ²_within = E[Var(y_ik | i)]`` (for 0/1
scores ``E[p_i (1 − p_i)]``). With unequal epochs ``σ²_within / K`` becomes
``W = (1/n) Σ_i σ²_i / K_i``. The estimators:

* ``s²_i = Σ_k (y_ik − ȳ_i)² / (K_i − 1)`` per item with ``K_i ≥ 2`` — unbiased
  for the item's within variance (for a Bernoulli mean the ``K − 1`` divisor is
  what removes the bias of ``ȳ(1 − ȳ)``);
* ``σ̂²_within`` = the mean of ``s²_i`` over the repeated items; an item the model
  answered once takes this pooled value (its own variance is not estimable);
* ``Ŵ = (1/n) Σ_i ŝ²_i / K_i``, the part of the per-item variance that is
  prediction noise at the epochs run;
* ``S² = Var(ȳ_i)`` (ddof = 1), unbiased for ``σ²_between + W`` because the item
  means are independent with a common expectation, so ``S² / n`` is the total
  variance of ``θ̂`` (the usual item-level SE already carries the prediction
  noise) and ``σ̂²_between = S² − Ŵ`` (unbiased, hence negative at times: a
  between-item spread indistinguishable from zero).

This is the one-way random-effects ANOVA (method of moments; Searle, Casella &
McCulloch 1992, §3.5), which for balanced data (every item of the model with the
same number of epochs) equals REML when positive, and is kept there
(``estimator`` = ``moments``). With unbalanced epochs the moments stay unbiased
but weigh every item alike, whatever its epochs, and REML is the default
(``estimator`` = ``REML``): the restricted maximum likelihood of the one-way
model ``y_ik = μ + u_i + e_ik``, ``u_i ~ N(0, σ²_between)``, ``e_ik ~ N(0,
σ²_within)`` (Patterson & Thompson 1971; Searle et al. 1992, §6.6), the fit of
``lme4::lmer(y ~ 1 + (1 | item), REML = TRUE)``. It is computed exactly from the
per-item sufficient statistics (item means, within sums of squares, epochs):
with ``τ = σ²_between / σ²_within`` and ``h_i = τ + 1/K_i`` the profiled
criterion is

    −2ℓ_R(τ) = (N − 1) log Q(τ) + Σ_i log h_i + log Σ_i h_i⁻¹,
    Q(τ) = Σ_i SSW_i + Σ_i (ȳ_i − μ̂)² / h_i,   μ̂ = Σ ȳ_i h_i⁻¹ / Σ h_i⁻¹,

minimised over ``τ ≥ 0`` (grid, then Brent's method on its derivative), and
``σ̂²_within = Q(τ̂) / (N − 1)``, ``σ̂²_between = τ̂ σ̂²_within``. Items with the
same number of epochs share ``h_i``, so one evaluation costs the number of
distinct epoch counts, not of items (bench/README.md: statsmodels' MixedLM took
41 s for one model of 20,000 items, the whole table of 200 such models 6.3 s). REML's between part is never negative; its
``var_mean_between + var_mean_within`` is the model's variance of the score,
``(σ̂²_between + σ̂²_within · mean(1/K_i)) / n``, beside the empirical
``se_total² = S² / n`` the accuracy's interval uses, and ``share_within`` is the
within part's share of the model's variance.

A pair under REML: the per-item difference ``d_i = ȳ_ai − ȳ_bi`` has variance
``σ²_between,d + v_i``, ``v_i = σ̂²_within,a / K_ai + σ̂²_within,b / K_bi`` with the
two models' REML within parts; ``σ²_between,d`` is the REML estimate of the
between-item variance given those ``v_i`` (the random-effects model of
meta-analysis, Viechtbauer 2005; ``metafor::rma(d, v, method = "REML")``).

A pair of models graded on the same items is the same decomposition of the
per-item difference ``d_i = ȳ_ai − ȳ_bi``: the two models sample their answers
independently, so the within part of ``Var(d̄_i)`` is
``s²_ai / K_ai + s²_bi / K_bi``, and the between part is the variance of the
items' true differences (what pairing does not remove). The per-epoch within
variance of a pair, ``σ²_within,a + σ²_within,b``, is what a planner running both
models ``K`` more times divides by ``K``.

A model with one epoch per item has no within-item variance estimate: its within
and between parts are NaN with the reason, and only the total is reported.

References
----------
Miller, E. (2024). Adding error bars to evals: a statistical approach to language
    model evaluations. arXiv:2411.00640 (§3, resampled answers: the variance of
    the mean with K answers per question).
Wang, S. (2025). Measuring all the noises of LLM evals. arXiv:2512.21326
    (prediction noise ``E[Var(y | question)]``, data noise
    ``Var(E[y | question])`` and their total by the law of total variance, for a
    score and for the paired difference of every pair of models).
Searle, S. R., Casella, G. & McCulloch, C. E. (1992). *Variance Components*,
    §3.5 (the one-way classification, unbalanced data). Wiley.
Cochran, W. G. (1977). *Sampling Techniques*, 3rd ed., §10.6 (two-stage
    sampling: the variance with m subunits per unit). Wiley.
Patterson, H. D. & Thompson, R. (1971). Recovery of inter-block information when
    block sizes are unequal. *Biometrika*, 58(3), 545–554 (REML).
Viechtbauer, W. (2005). Bias and efficiency of meta-analytic variance estimators
    in the random-effects model. *Journal of Educational and Behavioral
    Statistics*, 30(3), 261–293 (REML of the between variance with known
    sampling variances).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from scipy.optimize import brentq

#: Reasons a within-item part is NaN, written to the table's ``within_note``.
__all__ = [
    "AUTO",
    "COLUMNS",
    "ESTIMATOR_TEXT",
    "MOMENTS",
    "ONE_EPOCH",
    "ONE_EPOCH_PAIR",
    "REML",
    "REML_GRID",
    "TOO_FEW_ITEMS",
    "Components",
    "ItemMatrices",
    "decompose",
    "item_matrices",
    "item_matrices_from_codes",
    "item_summary",
    "model_components",
    "noise_table",
    "pair_components",
    "reml_known_variances",
    "reml_one_way",
    "table_from_matrices",
]

ONE_EPOCH = "every item has one epoch: within-item variance not estimable"
ONE_EPOCH_PAIR = "a model of the pair has one epoch per item: within-item variance not estimable"
TOO_FEW_ITEMS = "fewer than 2 items: no variance"

#: Columns of :func:`noise_table`, in order.
COLUMNS = [
    "level",
    "model",
    "model_b",
    "n_items",
    "n_items_repeated",
    "mean_epochs",
    "effective_epochs",
    "estimate",
    "se_total",
    "var_between",
    "var_within",
    "var_mean_between",
    "var_mean_within",
    "share_within",
    "within_note",
    "estimator",
]

MOMENTS = "moments"
REML = "REML"
AUTO = "auto"
#: ``estimator`` column text.
ESTIMATOR_TEXT = {
    MOMENTS: "moments (one-way ANOVA; balanced epochs, equals REML when positive)",
    REML: "REML (unbalanced epochs)",
}


@dataclass(frozen=True)
class Components:
    """Variance components of one mean of item means (a score or a paired difference).

    Attributes
    ----------
    n_items : int
        Items the mean is over.
    n_items_repeated : int
        Items with two or more epochs (for a pair: for both models).
    mean_epochs : float
        Arithmetic mean of the epochs per item (for a pair: of both models').
    effective_epochs : float
        ``σ̂²_within / Ŵ``: the ``K`` of ``σ²_within / K`` (the harmonic mean of the
        epochs for a model; NaN where the within part is not estimable).
    estimate : float
        The mean of the item means (or of the per-item differences).
    var_total : float
        ``S² / n``, the variance of the estimate.
    var_between, var_within : float
        ``σ̂²_between`` (per item) and ``σ̂²_within`` (per item and epoch).
    var_mean_between, var_mean_within : float
        ``σ̂²_between / n`` and ``Ŵ / n``; they add up to ``var_total``.
    note : str
        Why the within part is NaN ("" when estimated).
    estimator : str
        :data:`MOMENTS` or :data:`REML`.
    """

    n_items: int
    n_items_repeated: int
    mean_epochs: float
    effective_epochs: float
    estimate: float
    var_total: float
    var_between: float
    var_within: float
    var_mean_between: float
    var_mean_within: float
    note: str
    estimator: str = MOMENTS

    @property
    def se_total(self) -> float:
        return float(np.sqrt(self.var_total))

    @property
    def share_within(self) -> float:
        """Share of the estimate's variance that is prediction noise.

        ``Ŵ / (var_mean_between + var_mean_within)`` times ``n``: with the moments
        the parts add up to ``S² / n``, so this is ``Ŵ / S²``; with REML it is the
        within part's share of the model's variance of the score.
        """
        total = self.var_mean_between + self.var_mean_within
        if not np.isfinite(self.var_mean_within) or not np.isfinite(total) or total == 0:
            return float("nan")
        return float(self.var_mean_within / total)


def item_summary(long: pd.DataFrame) -> pd.DataFrame:
    """Per (model, item): epochs, mean score and within-item variance.

    Parameters
    ----------
    long : pandas.DataFrame
        One row per graded epoch, columns ``model``, ``item``, ``correct`` (any
        numeric score; each row is one epoch, whatever its ``epoch`` label).

    Returns
    -------
    pandas.DataFrame
        Indexed by (``model``, ``item``), sorted: ``epochs`` (rows), ``mean``,
        ``var`` (ddof = 1, the unbiased within-item variance; NaN with one epoch).
    """
    scores = long.assign(correct=long["correct"].astype(float))
    grouped = scores.groupby(["model", "item"], sort=True)["correct"]
    out = pd.DataFrame(
        {"epochs": grouped.size(), "mean": grouped.mean(), "var": grouped.var(ddof=1)}
    )
    return out.astype({"epochs": "int64"})


def _impute_within(var: np.ndarray) -> np.ndarray:
    """Per-item within variances, single-epoch items given the model's pooled mean.

    All NaN when no item has two epochs (nothing to pool).
    """
    observed = np.isfinite(var)
    if not observed.any():
        return np.full_like(var, np.nan)
    return np.where(observed, var, var[observed].mean())


#: Points of the log-spaced grid over which the REML criterion is scanned before
#: the minimum is polished (it is unimodal in practice; the grid guards a second basin).
REML_GRID = 49


def _minimise_half_line(criterion, slope, scale: float) -> float:
    """Minimiser over ``τ ≥ 0`` of a smooth criterion with derivative ``slope``.

    Scans ``0`` and a log grid from ``1e-8 · scale`` to ``1e8 · scale``
    (``criterion`` takes the whole grid as an array), then solves ``slope = 0``
    by Brent's method between the grid neighbours of the best point (to 1e-15
    relative), or returns 0 when the best point is 0 and the criterion rises
    from there (``slope(0) ≥ 0``).
    """
    grid = np.concatenate([[0.0], scale * np.logspace(-8, 8, REML_GRID)])
    with np.errstate(divide="ignore", invalid="ignore"):
        values = np.asarray(criterion(grid), dtype=float)
    best = int(np.nanargmin(values))
    if best == 0 and slope(0.0) >= 0:
        return 0.0
    low = grid[max(best - 1, 0)]
    high = grid[min(best + 1, grid.size - 1)]
    if slope(low) >= 0:
        return float(low)
    if slope(high) <= 0:
        return float(high)
    return float(brentq(slope, low, high, xtol=1e-300, rtol=1e-15, maxiter=500))


def _by_epochs(means, epochs, extra=None):
    """Group item means by a key (the epochs, or a known variance): per group n,
    mean and the sum of squares of the means about it."""
    keys, inverse = np.unique(
        np.asarray(extra if extra is not None else epochs), return_inverse=True
    )
    count = np.bincount(inverse).astype(float)
    total = np.bincount(inverse, weights=means)
    centre = total / count
    squares = np.bincount(inverse, weights=(means - centre[inverse]) ** 2)
    return keys.astype(float), count, centre, squares


def reml_one_way(means, ssw, epochs) -> tuple[float, float]:
    """REML ``(σ²_between, σ²_within)`` of the one-way random-effects model, exactly.

    Parameters
    ----------
    means : array_like, shape (n,)
        Item means ``ȳ_i``.
    ssw : array_like, shape (n,)
        Within-item sums of squares ``Σ_k (y_ik − ȳ_i)²`` (0 for one epoch).
    epochs : array_like, shape (n,)
        Epochs ``K_i ≥ 1``.

    Returns
    -------
    (float, float)
        The estimates ``lme4::lmer(y ~ 1 + (1 | item), REML = TRUE)`` reports
        (``VarCorr``), to its optimiser's tolerance (tests/stats/test_noise_reml.py:
        1e-5); NaN when no item has two epochs or there are fewer than 2 items.

    Notes
    -----
    The profiled restricted log-likelihood of the module docstring, evaluated on
    the groups of items with equal epochs. The between part is at the boundary 0
    when the criterion rises from ``τ = 0``.
    """
    y = np.asarray(means, dtype=float)
    w_ss = float(np.sum(ssw))
    k = np.asarray(epochs, dtype=float)
    n_obs = float(k.sum())
    if y.size < 2 or not np.any(k >= 2):
        return float("nan"), float("nan")
    if w_ss == 0 and np.all(y == y[0]):
        return 0.0, 0.0  # every epoch of every item equal: no variance at all
    kk, count, centre, squares = _by_epochs(y, k)
    inv_k = 1.0 / kk

    def parts(tau: float):
        h = tau + inv_k
        w = count / h
        mu = float(np.sum(w * centre) / np.sum(w))
        q = w_ss + float(np.sum((squares + count * (centre - mu) ** 2) / h))
        return h, w, mu, q

    def criterion(taus: np.ndarray) -> np.ndarray:
        h = taus[:, None] + inv_k[None, :]
        w = count / h
        mu = (w * centre).sum(axis=1) / w.sum(axis=1)
        q = w_ss + ((squares + count * (centre - mu[:, None]) ** 2) / h).sum(axis=1)
        return (n_obs - 1) * np.log(q) + (count * np.log(h)).sum(axis=1) + np.log(w.sum(axis=1))

    def slope(tau: float) -> float:
        h, w, mu, q = parts(tau)
        resid = (squares + count * (centre - mu) ** 2) / h**2
        return float(
            -(n_obs - 1) * np.sum(resid) / q + np.sum(count / h) - np.sum(count / h**2) / np.sum(w)
        )

    spread = float(np.var(y, ddof=1)) if y.size > 1 else 0.0
    pooled = w_ss / max(n_obs - y.size, 1.0)
    scale = max(spread / pooled, 1e-12) if pooled > 0 else 1.0
    tau = _minimise_half_line(criterion, slope, scale)
    _, _, _, q = parts(tau)
    within = q / (n_obs - 1)
    return float(tau * within), float(within)


def reml_known_variances(values, variances) -> float:
    """REML between variance ``τ²`` of ``values_i ~ N(μ, τ² + v_i)`` with known ``v_i``.

    The random-effects model of meta-analysis; equals
    ``metafor::rma(yi, vi, method = "REML")``'s ``tau2`` (Viechtbauer 2005).
    Values with equal ``v_i`` are grouped, so the cost is the distinct variances.
    NaN with fewer than 2 values.
    """
    d = np.asarray(values, dtype=float)
    v = np.asarray(variances, dtype=float)
    if d.size < 2:
        return float("nan")
    vv, count, centre, squares = _by_epochs(d, None, extra=v)

    def parts(t2: float):
        h = t2 + vv
        w = count / h
        mu = float(np.sum(w * centre) / np.sum(w))
        resid = squares + count * (centre - mu) ** 2
        return h, w, resid

    def criterion(t2s: np.ndarray) -> np.ndarray:
        h = t2s[:, None] + vv[None, :]
        w = count / h
        mu = (w * centre).sum(axis=1) / w.sum(axis=1)
        resid = squares + count * (centre - mu[:, None]) ** 2
        return (count * np.log(h)).sum(axis=1) + np.log(w.sum(axis=1)) + (resid / h).sum(axis=1)

    def slope(t2: float) -> float:
        h, w, resid = parts(t2)
        return float(np.sum(count / h) - np.sum(count / h**2) / np.sum(w) - np.sum(resid / h**2))

    spread = float(np.var(d, ddof=1))
    scale = max(spread, float(np.mean(v)), 1e-12)
    return _minimise_half_line(criterion, slope, scale)


def decompose(
    means, within_epoch, within_mean, epochs, *, n_repeated: int, note: str = ""
) -> Components:
    """Split the variance of the mean of ``means`` into between- and within-item parts.

    Parameters
    ----------
    means : array_like, shape (n,)
        Per-item means ``ȳ_i`` (or per-item paired differences).
    within_epoch : array_like, shape (n,)
        Per-item within variance of one epoch (``ŝ²_i``, single-epoch items
        imputed); all NaN when not estimable.
    within_mean : array_like, shape (n,)
        Per-item within variance of the item mean (``ŝ²_i / K_i``; for a pair
        the sum over the two models); all NaN when not estimable.
    epochs : array_like, shape (n,)
        Epochs per item (for a pair, the mean of the two models').
    n_repeated : int
        Items with two or more epochs.
    note : str
        Reason the within part is not estimable (used when it is NaN).

    Returns
    -------
    Components
    """
    y = np.asarray(means, dtype=float)
    w_epoch = np.asarray(within_epoch, dtype=float)
    w_mean = np.asarray(within_mean, dtype=float)
    n = y.size
    k = np.asarray(epochs, dtype=float)
    mean_epochs = float(k.mean()) if n else float("nan")
    if n < 2:
        nan = float("nan")
        estimate = float(y.mean()) if n else nan
        return Components(
            n, n_repeated, mean_epochs, nan, estimate, nan, nan, nan, nan, nan, TOO_FEW_ITEMS
        )
    s2 = float(np.var(y, ddof=1))
    var_total = s2 / n
    if np.isfinite(w_mean).all():
        sigma_w = float(w_epoch.mean())
        big_w = float(w_mean.mean())
        between = s2 - big_w
        effective = sigma_w / big_w if big_w > 0 else float("nan")
        note = ""
    else:
        sigma_w = big_w = between = effective = float("nan")
    return Components(
        n_items=n,
        n_items_repeated=int(n_repeated),
        mean_epochs=mean_epochs,
        effective_epochs=effective,
        estimate=float(y.mean()),
        var_total=var_total,
        var_between=between,
        var_within=sigma_w,
        var_mean_between=between / n,
        var_mean_within=big_w / n,
        note=note,
    )


@dataclass(frozen=True)
class ItemMatrices:
    """:func:`item_summary` as models × items arrays (items in sorted order).

    ``has`` marks the (model, item) cells scored; ``var_hat`` holds each model's
    within-item variances with single-epoch items given the model's pooled mean
    (:func:`_impute_within` over the model's own items). One row per model makes
    a model's or a pair's arrays one contiguous slice, where indexing the
    summary by model (and joining two models) cost a pandas lookup per model and
    per pair: thousands of models and tens of thousands of pairs.
    """

    models: list[str]
    mean: np.ndarray
    var_hat: np.ndarray
    epochs: np.ndarray
    has: np.ndarray

    def row(self, model: str) -> int:
        return self._index[model]

    @property
    def _index(self) -> dict[str, int]:
        return {m: j for j, m in enumerate(self.models)}


def item_matrices(summary: pd.DataFrame) -> ItemMatrices:
    """Spread :func:`item_summary` into :class:`ItemMatrices`."""
    model_codes, models = pd.factorize(summary.index.get_level_values("model"), sort=True)
    item_codes, items = pd.factorize(summary.index.get_level_values("item"), sort=True)
    shape = (len(models), len(items))
    mean = np.full(shape, np.nan)
    var = np.full(shape, np.nan)
    epochs = np.zeros(shape, dtype=np.int64)
    has = np.zeros(shape, dtype=bool)
    mean[model_codes, item_codes] = summary["mean"].to_numpy(float)
    var[model_codes, item_codes] = summary["var"].to_numpy(float)
    epochs[model_codes, item_codes] = summary["epochs"].to_numpy(np.int64)
    has[model_codes, item_codes] = True
    for j in range(shape[0]):
        var[j, has[j]] = _impute_within(var[j, has[j]])
    return ItemMatrices([str(m) for m in models], mean, var, epochs, has)


def item_matrices_from_codes(
    model: np.ndarray,
    item: np.ndarray,
    correct: np.ndarray,
    models: list[str],
    items: np.ndarray,
    *,
    block_models: int | None = None,
) -> ItemMatrices:
    """:func:`item_matrices` of :func:`item_summary` from integer-coded epochs.

    Parameters
    ----------
    model, item : numpy.ndarray
        Per graded epoch, the position in ``models`` (sorted names) and in
        ``items``; rows with a negative model code are left out (a missing key,
        as in the grouped frame).
    correct : numpy.ndarray
        The epoch's score.
    models : list of str
        Model names, sorted.
    items : numpy.ndarray
        Item labels of the codes, in any order: the matrices' columns are the
        labels in sorted order, as :func:`item_matrices` gives them.
    block_models : int, optional
        Models summed per pass (default: as many as keep a pass near 16 M cells).

    Notes
    -----
    Counts and sums by ``np.bincount``, the variance in two passes (the mean
    first, then the squared deviations): the grouped pandas frame of 150 M
    epochs would take ~10 GB, these arrays one float64 matrix each. Means and
    variances equal :func:`item_summary`'s to rounding (tested to 1e-12); the
    workflow uses this path only above ``LONG_FRAME_ROWS`` epochs, so smaller
    tables are the grouped frame's byte for byte.
    """
    n_models, n_items = len(models), len(items)
    order = np.argsort(np.asarray(items, dtype=str), kind="stable")
    column = np.empty(n_items, dtype=np.int64)
    column[order] = np.arange(n_items)  # item code -> sorted column
    shape = (n_models, n_items)
    mean = np.full(shape, np.nan)
    var = np.full(shape, np.nan)
    epochs = np.zeros(shape, dtype=np.int64)
    step = block_models or max(1, (1 << 24) // max(n_items, 1))
    for lo in range(0, n_models, step):
        hi = min(n_models, lo + step)
        rows = np.flatnonzero((model >= lo) & (model < hi))
        if not len(rows):
            continue
        cell = (model[rows].astype(np.int64) - lo) * n_items + column[item[rows]]
        score = np.asarray(correct[rows], dtype=float)
        size = (hi - lo) * n_items
        count = np.bincount(cell, minlength=size)
        block_mean = np.bincount(cell, weights=score, minlength=size)
        seen = count > 0
        block_mean = np.divide(block_mean, count, out=np.full(size, np.nan), where=seen)
        deviation = score - block_mean[cell]
        squares = np.bincount(cell, weights=deviation * deviation, minlength=size)
        block_var = np.divide(squares, count - 1, out=np.full(size, np.nan), where=count >= 2)
        mean[lo:hi] = block_mean.reshape(hi - lo, n_items)
        var[lo:hi] = block_var.reshape(hi - lo, n_items)
        epochs[lo:hi] = count.reshape(hi - lo, n_items)
    has = epochs > 0
    # Only the models and items with an epoch, as the grouped frame has them.
    rows_kept, columns_kept = has.any(axis=1), has.any(axis=0)
    if not (rows_kept.all() and columns_kept.all()):
        pick = np.ix_(rows_kept, columns_kept)
        mean, var, epochs, has = mean[pick], var[pick], epochs[pick], has[pick]
        models = [m for m, kept in zip(models, rows_kept, strict=True) if kept]
    for j in range(len(models)):
        var[j, has[j]] = _impute_within(var[j, has[j]])
    return ItemMatrices([str(m) for m in models], mean, var, epochs, has)


def _as_matrices(summary) -> ItemMatrices:
    return summary if isinstance(summary, ItemMatrices) else item_matrices(summary)


def _check_estimator(estimator: str) -> str:
    if estimator not in (AUTO, MOMENTS, REML):
        raise ValueError(f"estimator must be {AUTO!r}, {MOMENTS!r} or {REML!r}, got {estimator!r}")
    return estimator


def _balanced(*epochs: np.ndarray) -> bool:
    """Every item with the same epochs (per model): moments and REML coincide."""
    return all(k.size == 0 or bool(np.all(k == k[0])) for k in epochs)


def model_components(summary, model: str, *, estimator: str = AUTO) -> Components:
    """:func:`decompose` of one model's score, from :func:`item_summary` (or its matrices).

    ``estimator``: ``"auto"`` (moments with balanced epochs, REML otherwise),
    ``"moments"`` or ``"REML"``.
    """
    mats = _as_matrices(summary)
    return _model_components(mats, mats.row(model), _check_estimator(estimator))


def _model_components(mats: ItemMatrices, j: int, estimator: str = AUTO) -> Components:
    keep = mats.has[j]
    k = mats.epochs[j, keep].astype(float)
    var_hat = mats.var_hat[j, keep]
    moments = decompose(
        mats.mean[j, keep],
        var_hat,
        var_hat / k,
        k,
        n_repeated=int((k >= 2).sum()),
        note=ONE_EPOCH,
    )
    if estimator == MOMENTS or (estimator == AUTO and _balanced(k)):
        return moments
    if not np.isfinite(moments.var_within):
        return replace(moments, estimator=REML)
    # Single-epoch items carry an imputed var_hat; times K - 1 = 0 they add nothing.
    between, within = reml_one_way(mats.mean[j, keep], var_hat * (k - 1.0), k)
    return _reml_components(moments, between, within, within / k, within)


def _reml_components(moments: Components, between, within_epoch, per_item, within) -> Components:
    """``moments`` with the REML parts (``per_item``: each item's within variance of its mean)."""
    n = moments.n_items
    big_w = float(np.mean(per_item))
    return replace(
        moments,
        effective_epochs=within / big_w if big_w > 0 else float("nan"),
        var_between=between,
        var_within=within_epoch,
        var_mean_between=between / n,
        var_mean_within=big_w / n,
        estimator=REML,
    )


def pair_components(summary, model_a: str, model_b: str, *, estimator: str = AUTO) -> Components:
    """:func:`decompose` of the paired difference a − b over the items both have."""
    mats = _as_matrices(summary)
    estimator = _check_estimator(estimator)
    return _pair_components(mats, mats.row(model_a), mats.row(model_b), estimator)


def _pair_components(
    mats: ItemMatrices, ja: int, jb: int, estimator: str = AUTO, within=None
) -> Components:
    both = mats.has[ja] & mats.has[jb]
    ka, kb = mats.epochs[ja, both].astype(float), mats.epochs[jb, both].astype(float)
    va, vb = mats.var_hat[ja, both], mats.var_hat[jb, both]
    moments = decompose(
        mats.mean[ja, both] - mats.mean[jb, both],
        va + vb,
        va / ka + vb / kb,
        (ka + kb) / 2,
        n_repeated=int(((ka >= 2) & (kb >= 2)).sum()),
        note=ONE_EPOCH_PAIR,
    )
    if estimator == MOMENTS or (estimator == AUTO and _balanced(ka, kb)):
        return moments
    if not np.isfinite(moments.var_within) or moments.n_items < 2:
        return replace(moments, estimator=REML)
    within = {} if within is None else within
    for j in (ja, jb):
        if j not in within:
            within[j] = _model_components(mats, j, REML).var_within
    wa, wb = within[ja], within[jb]
    per_item = wa / ka + wb / kb
    between = reml_known_variances(mats.mean[ja, both] - mats.mean[jb, both], per_item)
    return _reml_components(moments, between, wa + wb, per_item, wa + wb)


def _row(level: str, model: str, model_b: str, c: Components) -> dict:
    return {
        "level": level,
        "model": model,
        "model_b": model_b,
        "n_items": c.n_items,
        "n_items_repeated": c.n_items_repeated,
        "mean_epochs": c.mean_epochs,
        "effective_epochs": c.effective_epochs,
        "estimate": c.estimate,
        "se_total": c.se_total,
        "var_between": c.var_between,
        "var_within": c.var_within,
        "var_mean_between": c.var_mean_between,
        "var_mean_within": c.var_mean_within,
        "share_within": c.share_within,
        "within_note": c.note,
        "estimator": ESTIMATOR_TEXT[c.estimator] if np.isfinite(c.var_within) else "",
    }


def noise_table(
    long: pd.DataFrame, pairs: list[tuple[str, str]] | None = None, *, estimator: str = AUTO
) -> pd.DataFrame:
    """Variance components of every model's score and every pair's paired difference.

    Parameters
    ----------
    long : pandas.DataFrame
        One row per graded epoch: ``model``, ``item``, ``correct``.
    pairs : list of (str, str), optional
        Pairs ``(a, b)`` whose difference a − b is decomposed; default every
        pair of models in name order. Beyond a few hundred models pass the
        comparison family (:mod:`rederive.stats.family`): all pairs of 5,000
        models are 12.5 M rows.
    estimator : str
        ``"auto"`` (default): the moments where the epochs are balanced (a model's
        items, or both models' shared items, each with one number of epochs),
        where they equal REML when positive, and REML otherwise; ``"moments"``
        or ``"REML"`` everywhere. The ``estimator`` column names the one used.

    Returns
    -------
    pandas.DataFrame
        :data:`COLUMNS`: the model rows (``level`` = ``model``, ``model_b``
        empty) in name order, then the pair rows (``level`` = ``pair``).
    """
    return table_from_matrices(item_matrices(item_summary(long)), pairs, estimator=estimator)


def table_from_matrices(
    mats: ItemMatrices, pairs: list[tuple[str, str]] | None = None, *, estimator: str = AUTO
) -> pd.DataFrame:
    """:func:`noise_table` from :class:`ItemMatrices` (e.g. :func:`item_matrices_from_codes`)."""
    estimator = _check_estimator(estimator)
    models = mats.models
    if pairs is None:
        pairs = [(a, b) for i, a in enumerate(models) for b in models[i + 1 :]]
    index = {m: j for j, m in enumerate(models)}
    fits = [_model_components(mats, j, estimator) for j in range(len(models))]
    # A pair under REML takes its models' REML within parts: computed once per model.
    within = {j: c.var_within for j, c in enumerate(fits) if c.estimator == REML}
    rows = [_row("model", m, "", fits[j]) for j, m in enumerate(models)]
    rows += [
        _row("pair", a, b, _pair_components(mats, index[a], index[b], estimator, within))
        for a, b in pairs
    ]
    return pd.DataFrame(rows, columns=COLUMNS)
