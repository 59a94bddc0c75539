"""Failure sets: co-failure and Jaccard matrices, hierarchical clustering,
Table 5 (most / least similar pairs) and the items every model fails.

A model's failure set is the items whose valid control label is not in the TAR
numerator (anything but Strict Pass). The statistics are the shared ones of
:mod:`rederive.stats.similarity`, which need a verdict of every model on every
item: the failure matrix here keeps the N items *every* model answered validly
(an excluded row is neither a pass nor a failure) and counts the items left out
(``items_not_answered_by_all`` in ``failed_by_all.csv``). Which models take part
is decided first (``shared_items``, :mod:`rederive.stats.shared_items`): by
default a small-n or partial model is left out, so one short run cannot shrink
every other model's failure set; the models left out are named in the Table 5
note and listed in ``shared_items.csv``. Over those items:

* co-failure rate = |A ∩ B| / N (Fig 10, Table 5),
* Jaccard similarity = |A ∩ B| / |A ∪ B| (Fig 11, Table 5); for two models that
  never fail the union is empty and the similarity is 1 *by convention*
  (identical, empty failure sets), flagged in ``empty_union``.

Models are clustered on Jaccard distance 1 − J with the configured linkage
(default average); the dendrogram order is written to CSV so the figures draw
heatmaps in that order without recomputing anything.

References
----------
SaliTrap (seed paper 000), §5.2 (Fig 5), Appendix Figs 10–11 and Table 5.
Jaccard, P. (1912). The distribution of the flora in the alpine zone.
    *New Phytologist*, 11(2), 37–50.
"""

from pathlib import Path

import numpy as np
import pandas as pd

from rederive.errors import InputError
from rederive.report.latex import booktabs
from rederive.stats import similarity
from rederive.stats.rates import percent
from rederive.stats.small_n import SMALL_N
from rederive.studies.salitrap.common import (
    CONTROL,
    load,
    shared_item_set,
    simulated_notes,
    small_n_by_model,
    write_csv,
)
from rederive.studies.salitrap.metrics import label_matrix, metrics_from_config

PAIR_COLUMNS = [
    "model_a",
    "model_b",
    "n_items",
    "fail_a",
    "fail_b",
    "both_fail",
    "union",
    "co_failure_rate",
    "jaccard",
    "empty_union",
]


def failure_matrix(matrix: pd.DataFrame, pass_labels) -> tuple[pd.DataFrame, int]:
    """Models × items ``True`` = failed, over the items every model answered validly.

    Parameters
    ----------
    matrix : DataFrame
        Items × models labels (NaN = no valid row), from :func:`label_matrix`.
    pass_labels : iterable of str
        Labels that are not a failure (the TAR numerator).

    Returns
    -------
    fail : DataFrame
        Boolean models × items matrix (the input of :mod:`rederive.stats.similarity`).
    n_incomplete : int
        Items left out because at least one model has no valid row for them.
    """
    values = matrix.to_numpy()
    complete = pd.notna(values).all(axis=1)
    if matrix.shape[1] == 0 or not complete.any():
        raise InputError(
            "failure sets need at least one item that every model answered validly "
            f"under control; none of the {matrix.shape[0]} items is"
        )
    failed = ~np.isin(values[complete], list(pass_labels))
    fail = pd.DataFrame(failed.T, index=matrix.columns, columns=matrix.index[complete])
    return fail, int((~complete).sum())


def pair_table(fail: pd.DataFrame) -> pd.DataFrame:
    """Every ordered pair (including a model with itself): counts, co-failure, Jaccard."""
    co = similarity.co_failure_matrix(fail)
    jac = similarity.jaccard_matrix(fail)
    n_items = fail.shape[1]
    both = np.rint(co.to_numpy() * n_items).astype(np.int64)  # |A ∩ B|, exact
    size = np.diag(both)
    models = list(fail.index)
    ia, ib = (g.ravel() for g in np.indices((len(models), len(models))))
    union = size[ia] + size[ib] - both[ia, ib]
    return pd.DataFrame(
        {
            "model_a": [models[i] for i in ia],
            "model_b": [models[j] for j in ib],
            "n_items": n_items,
            "fail_a": size[ia],
            "fail_b": size[ib],
            "both_fail": both[ia, ib],
            "union": union,
            "co_failure_rate": co.to_numpy()[ia, ib],
            "jaccard": jac.to_numpy()[ia, ib],
            "empty_union": union == 0,
        },
        columns=PAIR_COLUMNS,
    )


def cluster(fail: pd.DataFrame, method: str) -> tuple[np.ndarray, list[str]]:
    """Linkage matrix (scipy layout) and leaf order of the models."""
    if fail.shape[0] < 2:
        return np.empty((0, 4)), list(fail.index)
    clustering = similarity.cluster_models(similarity.jaccard_matrix(fail), method)
    return clustering.linkage, list(clustering.order)


def extreme_pairs(fail: pd.DataFrame, pairs: pd.DataFrame, n: int) -> pd.DataFrame:
    """Table 5: the ``n`` most and ``n`` least similar unordered pairs by Jaccard.

    Within each group ``rank`` 1 is the most extreme pair (highest Jaccard among
    the most similar, lowest among the least similar).
    """
    columns = ["group", "rank", "model_a", "model_b", "co_failure_rate", "jaccard"]
    counts = ["both_fail", "union", "n_items", "empty_union"]
    if fail.shape[0] < 2:
        return pd.DataFrame(columns=columns + counts)
    table = similarity.extreme_pairs(
        similarity.jaccard_matrix(fail), similarity.co_failure_matrix(fail), k=n
    )
    table.insert(1, "rank", table.groupby("group", sort=False).cumcount() + 1)
    return table.merge(
        pairs[["model_a", "model_b", *counts]], on=["model_a", "model_b"], how="left"
    )[columns + counts]


def failed_by_all(fail: pd.DataFrame, n_incomplete: int) -> pd.DataFrame:
    """Items every model fails, among the items every model answered validly."""
    core = similarity.failed_by_all(fail)
    return pd.DataFrame(
        [
            {
                "items_failed_by_all": core.count,
                "share_percent": percent(core.count, fail.shape[1]),
                "models": fail.shape[0],
                "n_items": fail.shape[1],
                "items_not_answered_by_all": n_incomplete,
            }
        ]
    )


def latex(
    table5: pd.DataFrame, all_fail: pd.DataFrame, *, simulated: bool, left_out: str = ""
) -> str:
    # The paper lists both groups from high to low Jaccard, so the table reads
    # top-down from the most to the least similar pair.
    body = table5.assign(_g=table5["group"].map({"most_similar": 0, "least_similar": 1}))
    body = body.sort_values(["_g", "jaccard"], ascending=[True, False], kind="stable")[
        ["group", "model_a", "model_b", "co_failure_rate", "jaccard"]
    ]
    body["group"] = body["group"].map(
        {"most_similar": "Most similar", "least_similar": "Least similar"}
    )
    body.loc[body["group"].duplicated(), "group"] = ""
    # A row of mixed int/float columns comes back all float: cast the counts, or the
    # note reads "205.0 items ... 12.0 models".
    row = all_fail.iloc[0]
    notes = (
        f"{int(row.items_failed_by_all)} items ({row.share_percent:.1f}%) are failed by "
        f"all {int(row.models)} models. Failure = any valid label other than Strict Pass."
    )
    if table5["empty_union"].any():
        notes += " Jaccard 1 of two models that never fail is a convention (empty union)."
    if left_out:
        notes += " " + left_out
    return booktabs(
        body,
        caption="SaliTrap Table 5: most and least similar model pairs by failure-set Jaccard similarity.",
        label="tab:salitrap-pairs",
        decimals={"co_failure_rate": 3, "jaccard": 3},
        header=["", "Model A", "Model B", "Co-failure", "Jaccard"],
        column_format="lllrr",
        notes=simulated_notes(notes, simulated),
    )


def main(snakemake):
    p = snakemake.params
    items, labels = load(snakemake.input.db)
    matrix = label_matrix(labels, items, CONTROL)
    shared = shared_item_set(matrix, p)
    fail, n_incomplete = failure_matrix(
        matrix[shared.kept], metrics_from_config(p.metrics)["TAR"].numerator
    )
    z, order = cluster(fail, p.linkage)
    rank = {m: i for i, m in enumerate(order)}
    pairs = pair_table(fail)
    pairs = pairs.assign(_a=pairs["model_a"].map(rank), _b=pairs["model_b"].map(rank))
    pairs = pairs.sort_values(["_a", "_b"]).drop(columns=["_a", "_b"]).reset_index(drop=True)
    table5 = extreme_pairs(fail, pairs, p.n_pairs)
    all_fail = failed_by_all(fail, n_incomplete)
    linkage_frame = pd.DataFrame(z, columns=["left", "right", "distance", "size"])
    linkage_frame["method"] = p.linkage
    # linkage_index: the model's leaf id in the linkage matrix; leaf_position: its
    # place in the dendrogram (the heatmaps' order).
    models = list(fail.index)
    order_frame = pd.DataFrame(
        {
            "model": models,
            "linkage_index": range(len(models)),
            "leaf_position": [rank[m] for m in models],
        }
    )
    small = small_n_by_model(labels, items, p.min_n)
    for frame in (pairs, table5):
        for side in ("a", "b"):
            frame[f"{SMALL_N}_{side}"] = frame[f"model_{side}"].map(small).astype(bool)
    order_frame[SMALL_N] = order_frame["model"].map(small).astype(bool)
    write_csv(pairs, snakemake.output.pairs)
    write_csv(table5, snakemake.output.table5)
    write_csv(all_fail, snakemake.output.failed_by_all)
    write_csv(linkage_frame, snakemake.output.linkage)
    write_csv(order_frame, snakemake.output.order)
    write_csv(shared.table, snakemake.output.shared_items)
    Path(snakemake.output.table5_tex).write_text(
        latex(table5, all_fail, simulated=bool(p.simulated), left_out=shared.note())
    )


if __name__ == "__main__" and "snakemake" in globals():
    from rederive.runner import run

    run(main, snakemake)  # noqa: F821
