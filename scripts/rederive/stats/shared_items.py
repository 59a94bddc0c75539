"""Which models enter the shared item set of the analyses that need one.

Failure sets, co-failure, Jaccard clustering, IRT and a benchmark's
``item_sets: intersection`` compare models on the items *every* model answered.
One small or partial run then decides the item set of every other model: a
model with one row shrinks thirteen models' failure sets to one item, a run cut
off after 300 of 1,145 items shrinks them to 300, and nothing in the tables
says so. This module decides, once per analysis, which models are left out of
that item set (``shared_items: exclude_partial``, the default), whether the
old intersection of every model is kept (``intersection``) or whether such a
shrink is refused (``refuse``).

Definition (one pass, order-free):

1. *Eligible* models have at least ``min_n`` validly answered items (the
   small-n guard of :mod:`rederive.stats.small_n`). When no model has, every
   model is eligible: they are all equally small and none is singled out.
2. The *reference item set* R holds the items validly answered by more than
   half of the eligible models (a strict majority, so one over-complete model
   with extra items does not make the others look partial, and two runs cut
   off at the same item do not make themselves the norm among twelve complete
   ones).
3. An eligible model is *partial* when it validly answered fewer than
   ``partial_share`` x |R| of the items of R.
4. Left out: the small-n models (when some model is eligible) and the partial
   ones. The shared item set is then the items every kept model answered.

With two eligible models there is no majority but the pair (R is their
intersection), so neither is partial: the old intersection.

References
----------
Rubin, D. B. (1976). Inference and missing data. *Biometrika* 63(3), 581–592
    (items missing because a run stopped are not missing at random: the
    intersection silently conditions every model on where one run stopped).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from rederive.errors import InputError
from rederive.stats.rates import percent
from rederive.stats.small_n import small_n_flags

#: ``shared_items`` settings (schema enum; first is the default).
MODES = ("exclude_partial", "intersection", "refuse")

#: Columns of ``shared_items.csv`` (one row per model).
COLUMNS = [
    "model",
    "n_items",
    "n_reference",
    "n_reference_answered",
    "coverage_percent",
    "small_n",
    "partial",
    "shared",
    "reason",
]

NOTE_PREFIX = "Models left out of the shared item set"


@dataclass(frozen=True)
class SharedItems:
    """The decision of :func:`decide`.

    Attributes
    ----------
    mode : str
        The ``shared_items`` setting.
    table : DataFrame
        One row per model (:data:`COLUMNS`); ``shared`` is False for the models
        left out, ``reason`` says why ("" for the kept ones).
    """

    mode: str
    table: pd.DataFrame

    @property
    def kept(self) -> list[str]:
        """Models in the shared item set, in input order."""
        return list(self.table.loc[self.table["shared"], "model"])

    @property
    def excluded(self) -> pd.DataFrame:
        """Rows of the models left out (empty when none)."""
        return self.table[~self.table["shared"]].reset_index(drop=True)

    def note(self, what: str = "items") -> str:
        """Sentence naming the models left out with their item counts ("" when none)."""
        return excluded_note(self.excluded, what=what)


def _reason(
    small: bool, partial: bool, n: int, n_in_ref: int, n_ref: int, min_n: int, share: float
) -> str:
    """Why a model would be left out ("" when it would not)."""
    if small:
        return f"small_n: {n:,} answered, fewer than min_n {min_n}"
    if partial:
        return f"partial: {n_in_ref:,} of the {n_ref:,} reference items, fewer than {share:.0%}"
    return ""


def decide(
    answered: pd.DataFrame, *, min_n: int, partial_share: float, mode: str = "exclude_partial"
) -> SharedItems:
    """Decide which models enter the shared item set.

    Parameters
    ----------
    answered : DataFrame
        Items x models booleans: the model has a valid answer on the item.
    min_n : int
        Small-n guard; a model with fewer answered items is left out.
    partial_share : float
        A model answering fewer than this share of the reference items is partial.
    mode : {"exclude_partial", "intersection", "refuse"}
        ``intersection`` keeps every model (the table still flags them);
        ``refuse`` raises :class:`~rederive.errors.InputError` with the counts
        when some model would be left out.

    Returns
    -------
    SharedItems

    Examples
    --------
    >>> a = pd.DataFrame({"A": [True] * 10, "B": [True] * 10, "C": [True] * 3 + [False] * 7})
    >>> decide(a, min_n=1, partial_share=0.9).kept
    ['A', 'B']
    """
    if mode not in MODES:
        raise ValueError(f"shared_items must be one of {MODES}, got {mode!r}")
    values = answered.to_numpy(dtype=bool)
    models = list(answered.columns)
    n = values.sum(axis=0).astype(int)
    small = small_n_flags(n, min_n)
    eligible = ~small if (~small).any() else np.ones(len(models), dtype=bool)
    majority = values[:, eligible].sum(axis=1) * 2 > int(eligible.sum())
    n_ref = int(majority.sum())
    in_ref = values[majority].sum(axis=0).astype(int)
    partial = eligible & (in_ref < partial_share * n_ref)
    out = (small & bool((~small).any())) | partial
    table = pd.DataFrame(
        {
            "model": models,
            "n_items": n,
            "n_reference": n_ref,
            "n_reference_answered": in_ref,
            "coverage_percent": [percent(k, n_ref) for k in in_ref.tolist()],
            "small_n": small,
            "partial": partial,
            "shared": ~out if mode == "exclude_partial" else np.ones(len(models), dtype=bool),
            "reason": [
                _reason(bool(s and o), bool(p), k, r, n_ref, min_n, partial_share)
                for s, p, k, r, o in zip(
                    small, partial, n.tolist(), in_ref.tolist(), out, strict=True
                )
            ],
        },
        columns=COLUMNS,
    )
    decision = SharedItems(mode=mode, table=table)
    if mode == "refuse" and out.any():
        raise InputError(refusal(table[out], n_ref, values, out))
    return decision


def refusal(left: pd.DataFrame, n_ref: int, values: np.ndarray, out: np.ndarray) -> str:
    """Message of ``shared_items: refuse``: who would shrink the item set, by how much."""
    every = int(values.all(axis=1).sum())
    kept = int(values[:, ~out].all(axis=1).sum())
    names = "; ".join(f"{m}: {r}" for m, r in zip(left["model"], left["reason"], strict=True))
    return (
        f"{len(left)} model(s) would shrink the shared item set of the failure-set, "
        f"similarity and IRT analyses ({names}): the items every model answered are "
        f"{every:,}, without them {kept:,} (reference {n_ref:,} items, answered by most "
        "models). Complete or remove those runs, set shared_items: exclude_partial to leave "
        "them out (named in the notes), or shared_items: intersection to compare every "
        "model on the items all of them answered"
    )


def excluded_note(excluded: pd.DataFrame, *, what: str = "items") -> str:
    """``"Models left out of the shared item set: X (n items; reason), ..."`` or ``""``.

    Examples
    --------
    >>> t = pd.DataFrame({"model": ["P"], "n_items": [300], "reason": ["partial: 300 of ..."]})
    >>> excluded_note(t)
    'Models left out of the shared item set: P (300 items; partial: 300 of ...).'
    """
    if excluded.empty:
        return ""
    parts = [
        f"{m} ({int(k):,} {what if int(k) != 1 else what.removesuffix('s')}; {r})"
        for m, k, r in zip(excluded["model"], excluded["n_items"], excluded["reason"], strict=True)
    ]
    return f"{NOTE_PREFIX}: {', '.join(parts)}."


def from_frame(table: pd.DataFrame, mode: str = "exclude_partial") -> SharedItems:
    """A :class:`SharedItems` read back from ``shared_items.csv`` (or its warehouse table)."""
    table = table.copy()
    for column in ("small_n", "partial", "shared"):
        table[column] = table[column].astype(str).str.lower().isin(("true", "1"))
    table["reason"] = table["reason"].fillna("").astype(str)
    return SharedItems(mode=mode, table=table[COLUMNS].reset_index(drop=True))
