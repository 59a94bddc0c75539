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
McCulloch 1992, §3.5), which for balanced data equals REML when positive.

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
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

#: Reasons a within-item part is NaN, written to the table's ``within_note``.
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
]


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

    @property
    def se_total(self) -> float:
        return float(np.sqrt(self.var_total))

    @property
    def share_within(self) -> float:
        """Share of the estimate's variance that is prediction noise, ``Ŵ / S²``."""
        if not np.isfinite(self.var_mean_within) or self.var_total == 0:
            return float("nan")
        return float(self.var_mean_within / self.var_total)


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


def model_components(summary, model: str) -> Components:
    """:func:`decompose` of one model's score, from :func:`item_summary` (or its matrices)."""
    mats = _as_matrices(summary)
    return _model_components(mats, mats.row(model))


def _model_components(mats: ItemMatrices, j: int) -> Components:
    keep = mats.has[j]
    k = mats.epochs[j, keep].astype(float)
    var_hat = mats.var_hat[j, keep]
    return decompose(
        mats.mean[j, keep],
        var_hat,
        var_hat / k,
        k,
        n_repeated=int((k >= 2).sum()),
        note=ONE_EPOCH,
    )


def pair_components(summary, model_a: str, model_b: str) -> Components:
    """:func:`decompose` of the paired difference a − b over the items both have."""
    mats = _as_matrices(summary)
    return _pair_components(mats, mats.row(model_a), mats.row(model_b))


def _pair_components(mats: ItemMatrices, ja: int, jb: int) -> Components:
    both = mats.has[ja] & mats.has[jb]
    ka, kb = mats.epochs[ja, both].astype(float), mats.epochs[jb, both].astype(float)
    va, vb = mats.var_hat[ja, both], mats.var_hat[jb, both]
    return decompose(
        mats.mean[ja, both] - mats.mean[jb, both],
        va + vb,
        va / ka + vb / kb,
        (ka + kb) / 2,
        n_repeated=int(((ka >= 2) & (kb >= 2)).sum()),
        note=ONE_EPOCH_PAIR,
    )


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
    }


def noise_table(long: pd.DataFrame, pairs: list[tuple[str, str]] | None = None) -> pd.DataFrame:
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

    Returns
    -------
    pandas.DataFrame
        :data:`COLUMNS`: the model rows (``level`` = ``model``, ``model_b``
        empty) in name order, then the pair rows (``level`` = ``pair``).
    """
    return table_from_matrices(item_matrices(item_summary(long)), pairs)


def table_from_matrices(
    mats: ItemMatrices, pairs: list[tuple[str, str]] | None = None
) -> pd.DataFrame:
    """:func:`noise_table` from :class:`ItemMatrices` (e.g. :func:`item_matrices_from_codes`)."""
    models = mats.models
    if pairs is None:
        pairs = [(a, b) for i, a in enumerate(models) for b in models[i + 1 :]]
    index = {m: j for j, m in enumerate(models)}
    rows = [_row("model", m, "", _model_components(mats, j)) for j, m in enumerate(models)]
    rows += [_row("pair", a, b, _pair_components(mats, index[a], index[b])) for a, b in pairs]
    return pd.DataFrame(rows, columns=COLUMNS)
