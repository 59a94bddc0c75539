"""Similarity of models' failure sets: co-failure, Jaccard, clustering, extremes.

Input everywhere is a boolean *failure matrix*: one row per model, one column per
item, ``True`` where the model failed the item. Every model must have a verdict on
every item (drop or impute missing cells before), because the rates below share one
denominator, the number of items ``N``.

For models ``A`` and ``B`` with failure sets ``F_A`` and ``F_B``:

* co-failure rate ``|F_A ∩ F_B| / N`` — how often both fail the same item;
* Jaccard similarity ``|F_A ∩ F_B| / |F_A ∪ F_B|`` — overlap of the failure sets
  relative to their union, insensitive to the items both pass.

The two are linked through the marginal failure rates ``f_A = |F_A| / N``:
``J = c / (f_A + f_B - c)`` (:func:`jaccard_from_co_failure`), which lets a published
table of co-failure rates and pass rates be checked for internal consistency.

References
----------
Jaccard, P. (1912). The distribution of the flora in the alpine zone.
    *New Phytologist*, 11(2), 37-50.
Sokal, R. R. & Michener, C. D. (1958). A statistical method for evaluating
    systematic relationships. *University of Kansas Science Bulletin*, 38,
    1409-1438 (UPGMA / average linkage).
Müllner, D. (2011). Modern hierarchical, agglomerative clustering algorithms.
    arXiv:1109.2378 (the algorithms behind :func:`scipy.cluster.hierarchy.linkage`).
Bar-Joseph, Z., Gifford, D. K. & Jaakkola, T. S. (2001). Fast optimal leaf ordering
    for hierarchical clustering. *Bioinformatics*, 17(suppl. 1), S22-S29.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.cluster import hierarchy
from scipy.spatial import distance

__all__ = [
    "LINKAGE_METHODS",
    "FailedByAll",
    "ModelClustering",
    "cluster_models",
    "co_failure_matrix",
    "empty_union_pairs",
    "extreme_pairs",
    "failed_by_all",
    "intersection_counts",
    "jaccard_from_co_failure",
    "jaccard_matrix",
    "similarity_matrices",
]

# Methods that are well defined on an arbitrary (non-Euclidean) dissimilarity such as
# 1 - Jaccard. scipy's centroid / median / ward assume Euclidean distances between
# observations, which a Jaccard distance matrix is not, so they are refused.
LINKAGE_METHODS = ("average", "complete", "single", "weighted")


def _failure_matrix(fail: pd.DataFrame) -> np.ndarray:
    """Validated boolean models x items matrix."""
    if not isinstance(fail, pd.DataFrame):
        raise ValueError("fail must be a pandas DataFrame (models x items)")
    if fail.index.has_duplicates:
        raise ValueError("fail: model labels (rows) must be unique")
    if fail.shape[0] < 1 or fail.shape[1] < 1:
        raise ValueError(f"fail: need at least one model and one item, got {fail.shape}")
    if fail.isna().to_numpy().any():
        raise ValueError("fail: missing cells; every model needs a verdict on every item")
    values = fail.to_numpy()
    if values.dtype != bool:
        try:
            numeric = values.astype(float)
        except (TypeError, ValueError) as exc:
            raise ValueError("fail: values must be boolean (or 0/1)") from exc
        if not np.isin(numeric, (0.0, 1.0)).all():
            raise ValueError("fail: values must be boolean (or 0/1)")
        values = numeric.astype(bool)
    return values


# float32 holds every integer up to 2**24 exactly, and a BLAS product of 0/1
# columns sums such integers, so counts over fewer items are exact; beyond that
# float64 (exact to 2**53) is used. A BLAS product is ~100x faster than numpy's
# integer matmul, which at 5,000 models x 30,000 items takes tens of minutes.
_FLOAT32_EXACT_ITEMS = 2**24
# Items per block of the product: 5,000 models x 4,096 items of float32 is 80 MB,
# instead of a float copy of the whole failure matrix.
_ITEM_BLOCK = 4096


def intersection_counts(values: np.ndarray) -> np.ndarray:
    """``|F_A ∩ F_B|`` for every pair of rows of a boolean models x items array.

    Exact integer counts (int64), from BLAS products over blocks of items.
    """
    n_models, n_items = values.shape
    dtype = np.float32 if n_items < _FLOAT32_EXACT_ITEMS else np.float64
    inter = np.zeros((n_models, n_models), dtype=dtype)
    for start in range(0, n_items, _ITEM_BLOCK):
        block = values[:, start : start + _ITEM_BLOCK].astype(dtype)
        inter += block @ block.T
    return np.rint(inter).astype(np.int64)


def _intersections(fail: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pairwise |A ∩ B|, per-model |A|, and N (as exact integer counts)."""
    f = _failure_matrix(fail)
    inter = intersection_counts(f)
    return inter, np.diag(inter).copy(), f.shape[1]


def _jaccard_from_counts(inter: np.ndarray, size: np.ndarray) -> np.ndarray:
    union = size[:, None] + size[None, :] - inter
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(union > 0, inter / np.where(union > 0, union, 1), 1.0)


def similarity_matrices(fail: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Co-failure and Jaccard matrices from one product of the failure matrix.

    The same values as :func:`co_failure_matrix` and :func:`jaccard_matrix`,
    which would each compute the intersections again.

    Returns
    -------
    (pandas.DataFrame, pandas.DataFrame)
        ``co_failure``, ``jaccard``: symmetric models x models matrices.
    """
    inter, size, n_items = _intersections(fail)
    co = pd.DataFrame(inter / n_items, index=fail.index, columns=fail.index)
    jac = pd.DataFrame(_jaccard_from_counts(inter, size), index=fail.index, columns=fail.index)
    return co, jac


def co_failure_matrix(fail: pd.DataFrame) -> pd.DataFrame:
    """Share of items that both models fail, ``|F_A ∩ F_B| / N``.

    Parameters
    ----------
    fail : pandas.DataFrame
        Boolean models x items matrix, ``True`` = failed.

    Returns
    -------
    pandas.DataFrame
        Symmetric models x models matrix; the diagonal is each model's failure rate.
    """
    inter, _, n_items = _intersections(fail)
    return pd.DataFrame(inter / n_items, index=fail.index, columns=fail.index)


def jaccard_matrix(fail: pd.DataFrame) -> pd.DataFrame:
    """Jaccard similarity of failure sets, ``|F_A ∩ F_B| / |F_A ∪ F_B|``.

    Parameters
    ----------
    fail : pandas.DataFrame
        Boolean models x items matrix, ``True`` = failed.

    Returns
    -------
    pandas.DataFrame
        Symmetric models x models matrix with ones on the diagonal.

    Notes
    -----
    When two models never fail (``F_A = F_B = ∅``, empty union) the ratio is 0/0.
    It is defined here as **1.0**: the two failure sets are identical (both empty),
    which is also the convention that keeps ``1 - J`` a metric. Such pairs are
    rare but real for easy item sets; list them with :func:`empty_union_pairs`
    before reading "perfectly similar" into them.
    """
    inter, size, _ = _intersections(fail)
    return pd.DataFrame(_jaccard_from_counts(inter, size), index=fail.index, columns=fail.index)


def empty_union_pairs(fail: pd.DataFrame) -> pd.DataFrame:
    """Unordered pairs of distinct models that both fail no item at all.

    These are the pairs whose Jaccard similarity is 1.0 by convention, not by data.

    Returns
    -------
    pandas.DataFrame
        Columns ``model_a, model_b`` (in row order of ``fail``); empty if none.
    """
    _, size, _ = _intersections(fail)
    never = np.flatnonzero(size == 0)
    ia, ib = np.triu_indices(never.size, k=1)
    names = fail.index
    return pd.DataFrame(
        {"model_a": names[never[ia]], "model_b": names[never[ib]]},
        columns=["model_a", "model_b"],
    )


def jaccard_from_co_failure(cf, fail_rate_a, fail_rate_b):
    """Jaccard similarity implied by a co-failure rate and two failure rates.

    ``J = c / (f_a + f_b - c)``, since ``|A ∪ B| / N = f_a + f_b - c``. Works on
    scalars or arrays (broadcast). With published rates rounded to 3 decimals the
    implied ``J`` carries a rounding error of up to ~0.002 for rates near 0.8 (see
    the test for the bound).

    Parameters
    ----------
    cf : float or array_like
        Co-failure rate ``|A ∩ B| / N``.
    fail_rate_a, fail_rate_b : float or array_like
        Failure rates ``|A| / N`` and ``|B| / N`` (e.g. ``1 - TAR``).

    Returns
    -------
    float or numpy.ndarray
        NaN where the union is empty (0/0) or the inputs are inconsistent
        (``c > min(f_a, f_b)`` or a negative union).
    """
    c = np.asarray(cf, dtype=float)
    fa = np.asarray(fail_rate_a, dtype=float)
    fb = np.asarray(fail_rate_b, dtype=float)
    union = fa + fb - c
    # A co-failure rate above either marginal rate cannot come from real sets.
    consistent = (c >= 0) & (c <= np.minimum(fa, fb) + 1e-12) & (union > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(consistent, c / np.where(union > 0, union, 1.0), np.nan)
    return out.item() if out.ndim == 0 else out


@dataclass(frozen=True)
class ModelClustering:
    """Result of :func:`cluster_models`.

    Attributes
    ----------
    linkage : numpy.ndarray, shape (n_models - 1, 4)
        scipy linkage matrix on the Jaccard distance ``1 - J``.
    order : list
        Model labels in dendrogram leaf order (for ordering heatmap rows/columns).
    method : str
        Linkage method used.
    optimal_ordering : bool
        Whether the leaf order was optimised (Bar-Joseph et al. 2001).
    """

    linkage: np.ndarray
    order: list
    method: str
    optimal_ordering: bool


def cluster_models(
    jaccard: pd.DataFrame,
    method: str = "average",
    *,
    optimal_ordering: bool = False,
) -> ModelClustering:
    """Agglomerative clustering of models on the Jaccard distance ``1 - J``.

    Parameters
    ----------
    jaccard : pandas.DataFrame
        Square, symmetric Jaccard similarity matrix (e.g. from :func:`jaccard_matrix`)
        with identical row and column labels.
    method : {"average", "complete", "single", "weighted"}, default "average"
        Linkage criterion passed to :func:`scipy.cluster.hierarchy.linkage`
        ("average" = UPGMA). Centroid, median and Ward are refused because they
        assume Euclidean distances.
    optimal_ordering : bool, default False
        Reorder leaves so that adjacent leaves are as similar as possible (slower,
        same tree). Useful for heatmaps.

    Returns
    -------
    ModelClustering

    Raises
    ------
    ValueError
        Unknown method, fewer than 2 models, non-square / asymmetric input, labels
        that differ between rows and columns, or similarities outside [0, 1].
    """
    if method not in LINKAGE_METHODS:
        raise ValueError(f"method must be one of {LINKAGE_METHODS}, got {method!r}")
    if not isinstance(jaccard, pd.DataFrame) or jaccard.shape[0] != jaccard.shape[1]:
        raise ValueError("jaccard must be a square DataFrame (models x models)")
    if not jaccard.index.equals(jaccard.columns):
        raise ValueError("jaccard: row and column labels must be identical and in the same order")
    if jaccard.shape[0] < 2:
        raise ValueError("need at least 2 models to cluster")
    sim = jaccard.to_numpy(dtype=float)
    if not np.isfinite(sim).all() or (sim < 0).any() or (sim > 1).any():
        raise ValueError("jaccard: similarities must be finite and within [0, 1]")
    if not np.allclose(sim, sim.T, rtol=0, atol=1e-12):
        raise ValueError("jaccard: matrix must be symmetric")
    dist = 1.0 - sim
    # Exact zeros on the diagonal (and symmetry to the last bit) are what squareform
    # checks; the matrix was verified to be symmetric up to 1e-12 above.
    dist = (dist + dist.T) / 2.0
    np.fill_diagonal(dist, 0.0)
    condensed = distance.squareform(dist, checks=True)
    link = hierarchy.linkage(condensed, method=method, optimal_ordering=optimal_ordering)
    leaves = hierarchy.leaves_list(link)
    return ModelClustering(
        linkage=link,
        order=[jaccard.index[i] for i in leaves],
        method=method,
        optimal_ordering=optimal_ordering,
    )


def extreme_pairs(jaccard: pd.DataFrame, co_failure: pd.DataFrame, k: int = 5) -> pd.DataFrame:
    """The ``k`` most and ``k`` least similar unordered model pairs by Jaccard.

    Parameters
    ----------
    jaccard, co_failure : pandas.DataFrame
        Square models x models matrices with the same labels (from
        :func:`jaccard_matrix` and :func:`co_failure_matrix`).
    k : int, default 5
        Pairs per group. If there are fewer than ``2k`` pairs the groups overlap.

    Returns
    -------
    pandas.DataFrame
        Columns ``group`` ("most_similar" / "least_similar"), ``model_a``,
        ``model_b``, ``co_failure_rate``, ``jaccard``. Within each group the most
        extreme pair comes first: descending Jaccard for "most_similar", ascending
        for "least_similar". (Match published tables on the unordered pair, not on
        row order.)

    Notes
    -----
    Exact ties in Jaccard are broken by the pair's labels compared as strings (the
    smaller label first, then the larger, ascending), so which pairs are chosen and
    their order never depend on the row order of the input. Only the orientation
    within a pair does: ``model_a`` is the label that comes first in the row order
    of ``jaccard``.
    """
    if not isinstance(k, int | np.integer) or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    for name, mat in (("jaccard", jaccard), ("co_failure", co_failure)):
        if not isinstance(mat, pd.DataFrame) or not mat.index.equals(mat.columns):
            raise ValueError(f"{name} must be a square DataFrame with identical row/column labels")
    if not jaccard.index.equals(co_failure.index):
        raise ValueError("jaccard and co_failure must have the same model labels in the same order")
    n = jaccard.shape[0]
    if n < 2:
        raise ValueError("need at least 2 models to form a pair")
    names = jaccard.index
    sim = jaccard.to_numpy(dtype=float)
    co = co_failure.to_numpy(dtype=float)
    ia, ib = np.triu_indices(n, k=1)
    values = sim[ia, ib]
    k_eff = min(int(k), values.size)

    def candidates(descending: bool) -> pd.DataFrame:
        # Only the pairs at or beyond the k-th most extreme value can be chosen;
        # the exact tie-break then runs on those few (with their ties) instead of
        # on all n(n-1)/2 pairs as Python strings (12.5 M at 5,000 models).
        signed = -values if descending else values
        cut = np.partition(signed, k_eff - 1)[k_eff - 1]
        keep = np.flatnonzero(signed <= cut)
        a, b = ia[keep], ib[keep]
        return pd.DataFrame(
            {
                "model_a": names[a],
                "model_b": names[b],
                "co_failure_rate": co[a, b],
                "jaccard": sim[a, b],
            }
        )

    def chosen(descending: bool) -> pd.DataFrame:
        pairs = candidates(descending)
        # Tie keys use the pair's labels in string order, not in row order, so that
        # the choice among tied pairs does not depend on how the input is sorted.
        str_a = pairs["model_a"].astype(str)
        str_b = pairs["model_b"].astype(str)
        pairs = pairs.assign(_ka=np.minimum(str_a, str_b), _kb=np.maximum(str_a, str_b))
        return pairs.sort_values(
            ["jaccard", "_ka", "_kb"], ascending=[not descending, True, True], kind="mergesort"
        ).head(k_eff)

    out = pd.concat(
        [chosen(True).assign(group="most_similar"), chosen(False).assign(group="least_similar")],
        ignore_index=True,
    )
    return out[["group", "model_a", "model_b", "co_failure_rate", "jaccard"]]


@dataclass(frozen=True)
class FailedByAll:
    """Items every model fails.

    Attributes
    ----------
    count : int
        Number of such items.
    share : float
        ``count / N``.
    items : list
        Their column labels, in column order.
    """

    count: int
    share: float
    items: list


def failed_by_all(fail: pd.DataFrame) -> FailedByAll:
    """Count and share of items that every model fails (the all-model failure core).

    Parameters
    ----------
    fail : pandas.DataFrame
        Boolean models x items matrix, ``True`` = failed.

    Returns
    -------
    FailedByAll
    """
    f = _failure_matrix(fail)
    mask = f.all(axis=0)
    return FailedByAll(
        count=int(mask.sum()),
        share=float(mask.mean()),
        items=list(fail.columns[mask]),
    )
