"""What a benchmark's headline accuracy is computed over, and each model's own items.

``item_sets`` says how a missing grade counts (a model not graded on an item
other models were graded on, e.g. a judge that returned nothing):

``require_equal``
    refused: every number is over the same items, nothing to label.
``intersection``
    excluded: the item leaves every model, so accuracy and the ranking are
    over the items every model was graded on. Leaderboards (AlpacaEval,
    harness reports) publish each model's score over *its own* graded items,
    and the published check compares that.
``zero``
    counted as 0 on every item another model was graded on; the published
    check compares that score.

Whenever the headline's items differ from a model's own, the headline's
tables carry both numbers, labelled: ``basis`` (which items, with the count and
the setting), ``n_items_own``, ``accuracy_own`` and ``accuracy_own_pct``
(accuracy.csv, and ranking.csv beside its rank). With equal item sets the
tables are unchanged.
"""

from __future__ import annotations

import pandas as pd

from rederive.studies.benchmark.common import accuracy_percent

__all__ = [
    "OWN_COLUMNS",
    "basis_note",
    "basis_text",
    "check_compares_headline",
    "missing_grades_caption",
    "with_own_items",
]

#: Columns accuracy.csv adds when the headline's items differ from a model's own.
OWN_COLUMNS = ["basis", "n_items_own", "accuracy_own", "accuracy_own_pct"]


def missing_grades_caption(item_sets: str) -> str:
    """The captions' sentence on how a missing grade counts (the ``item_sets`` setting)."""
    if item_sets == "intersection":
        return (
            "Missing grades (item_sets: intersection) are excluded: an item some model was not "
            "graded on leaves every model, so accuracy and the ranking are over the items every "
            "model was graded on; when these are fewer than a model's own, accuracy.csv and "
            "ranking.csv name them in ``basis`` and give the model's score over its own items "
            "(``n_items_own``, ``accuracy_own_pct``: what leaderboards publish and the published "
            "check compares)."
        )
    if item_sets == "zero":
        return (
            "Missing grades (item_sets: zero) count as 0 on every item another model was graded "
            "on: accuracy, the ranking and the published check use that score; accuracy.csv and "
            "ranking.csv name it in ``basis`` and give the model's score over its own graded "
            "items beside it (``n_items_own``, ``accuracy_own_pct``)."
        )
    return (
        "Missing grades (item_sets: require_equal) are refused: every model was graded on the "
        "same items."
    )


def check_compares_headline(item_sets: str) -> bool:
    """Whether the published check compares accuracy.csv's value (else own items).

    Under ``zero`` a missing grade is part of the model's score; under
    ``intersection`` it is not, and the shared items only serve the comparison.
    """
    return item_sets == "zero"


def basis_text(n_items: int, item_sets: str) -> str:
    """``basis`` of the headline: which items, how many, and the setting."""
    if item_sets == "zero":
        return f"{n_items:,} items; a missing grade counted as 0 (item_sets: zero)"
    return f"the {n_items:,} items every model was graded on (item_sets: {item_sets})"


def with_own_items(accuracy: pd.DataFrame, own: pd.DataFrame, item_sets: str) -> pd.DataFrame:
    """accuracy.csv with :data:`OWN_COLUMNS` when some model's own items differ.

    Parameters
    ----------
    accuracy : DataFrame
        The accuracy table (``model``, ``n_items``, ...).
    own : DataFrame
        ``model``, ``accuracy``, ``n_items``: each model's score over every item
        it was graded on (:func:`rederive.studies.benchmark.check.item_accuracy`).
    item_sets : str

    Returns
    -------
    DataFrame
        ``accuracy`` itself when every model's headline items are its own.
    """
    mine = own.set_index("model").reindex(accuracy["model"])
    n_own = mine["n_items"].to_numpy()
    if (n_own == accuracy["n_items"].to_numpy()).all():
        return accuracy
    out = accuracy.copy()
    out["basis"] = [basis_text(int(n), item_sets) for n in out["n_items"]]
    out["n_items_own"] = n_own.astype("int64")
    out["accuracy_own"] = mine["accuracy"].to_numpy()
    # The fraction read as its shortest decimal, rounded half-up once (as the
    # published check's identity reads accuracy.csv's own columns).
    out["accuracy_own_pct"] = [accuracy_percent(a, 1) for a in out["accuracy_own"]]
    return out


def basis_note(accuracy: pd.DataFrame) -> str:
    """The LaTeX and check sentence naming the basis ("" when there is none)."""
    if "basis" not in accuracy or accuracy.empty:
        return ""
    differs = accuracy[accuracy["n_items_own"] != accuracy["n_items"]]
    return (
        f"Accuracy over {accuracy['basis'].iloc[0]}; {len(differs):,} of {len(accuracy):,} "
        "models were graded on other items, their score over their own items is "
        "accuracy_own in accuracy.csv."
    )
