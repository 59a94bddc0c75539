"""Which model pairs a leaderboard compares: all of them, or rank neighbours and the top.

With ``M`` models there are ``M(M − 1)/2`` pairs: 231 at 22 models, 12.5 million
at 5,000. Beyond a configured size the question a ranking answers is local —
can this model be told apart from the ones just above and below it, and from
the leader? — so the family tested is each model against its ``k`` rank
neighbours on each side and every model against the top, de-duplicated
(``k·M − k(k+1)/2 + M − 1 − k`` pairs, fewer for small ``M``). Benjamini–Hochberg
then runs over exactly the pairs tested, and the table says which family that
was (:func:`family_note`).

Positions are 0-based ranks (0 = the top). A pair ``(i, j)`` always has
``i < j``; pairs come sorted by ``i`` then ``j``, the order of
``numpy.triu_indices``, so the all-pairs family is exactly ``triu_indices(M, 1)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

ALL = "all"
NEIGHBOUR = "neighbour"
TOP = "top"
BOTH = "neighbour+top"


@dataclass(frozen=True)
class Family:
    """The comparisons tested: rank positions ``(ia[k], ib[k])`` and why each is in.

    Attributes
    ----------
    ia, ib : ndarray of intp
        Rank positions of each pair, ``ia < ib``, sorted by ``(ia, ib)``.
    reason : ndarray of str
        ``"all"`` (all-pairs family), else ``"neighbour"``, ``"top"`` or
        ``"neighbour+top"``.
    n_models : int
    neighbours : int or None
        ``k`` of the neighbour family; None for all pairs.
    """

    ia: np.ndarray
    ib: np.ndarray
    reason: np.ndarray
    n_models: int
    neighbours: int | None

    @property
    def all_pairs(self) -> bool:
        return self.neighbours is None

    @property
    def n_pairs(self) -> int:
        return int(self.ia.size)


def rank_order(estimate, names) -> np.ndarray:
    """Column indices by descending estimate, equal estimates in name order."""
    est = np.asarray(estimate, dtype=float)
    names = [str(n) for n in names]
    return np.array(sorted(range(len(names)), key=lambda j: (-est[j], names[j])), dtype=np.intp)


def comparison_family(n_models: int, *, all_pairs_up_to: int, neighbours: int) -> Family:
    """The pairs to test among ``n_models`` models in rank order.

    Parameters
    ----------
    n_models : int
        Models ranked (positions ``0 … n_models − 1``, 0 the top).
    all_pairs_up_to : int
        Up to this many models every pair is tested.
    neighbours : int
        Beyond it, each model is compared with the ``neighbours`` models ranked
        just above and just below it, and with the top model.

    Returns
    -------
    Family
    """
    if n_models < 0 or all_pairs_up_to < 0 or neighbours < 1:
        raise ValueError("n_models, all_pairs_up_to must be >= 0 and neighbours >= 1")
    if n_models <= all_pairs_up_to:
        ia, ib = np.triu_indices(n_models, k=1)
        return Family(ia.astype(np.intp), ib.astype(np.intp), np.full(ia.size, ALL), n_models, None)
    near = [(np.arange(n_models - d), np.arange(d, n_models)) for d in range(1, neighbours + 1)]
    near_i = np.concatenate([i for i, _ in near])
    near_j = np.concatenate([j for _, j in near])
    top_j = np.arange(1, n_models)
    keys_near = near_i * n_models + near_j
    keys_top = top_j  # (0, j) has key j
    keys = np.union1d(keys_near, keys_top)  # sorted: by i, then j
    ia, ib = np.divmod(keys, n_models)
    is_near = np.isin(keys, keys_near)
    is_top = ia == 0
    reason = np.where(is_near & is_top, BOTH, np.where(is_near, NEIGHBOUR, TOP))
    return Family(ia.astype(np.intp), ib.astype(np.intp), reason, n_models, neighbours)


def family_note(n_models: int, n_pairs: int, neighbours: int | None = None) -> str:
    """One sentence naming the family BH ran over (for captions and notes).

    ``neighbours`` None means all pairs; otherwise the neighbour family's ``k``.
    """
    total = n_models * (n_models - 1) // 2
    if neighbours is None:
        return f"BH over all {total:,} pairs."
    return (
        f"BH over each model vs its {neighbours} rank neighbour{'s' if neighbours != 1 else ''} "
        f"on each side and the top: {n_pairs:,} pairs of {total:,}."
    )
