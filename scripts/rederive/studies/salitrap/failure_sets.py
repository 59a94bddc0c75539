"""Failure sets: co-failure and Jaccard matrices, hierarchical clustering,
Table 5 (most / least similar pairs) and the items every model fails.

A model's failure set is the items whose valid control label is not in the TAR
numerator (anything but Strict Pass). For models A and B over the N items both
answered validly:

* co-failure rate = |A ∩ B| / N (Fig 10, Table 5),
* Jaccard similarity = |A ∩ B| / |A ∪ B| (Fig 11, Table 5); for two models that
  never fail the union is empty and the similarity is *undefined* (NaN, flagged
  in ``empty_union``) — their Jaccard distance is then set to 0 for clustering
  (identical, empty failure sets), which the note column says.

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
from scipy.cluster.hierarchy import leaves_list, linkage
from scipy.spatial.distance import squareform

from rederive.report.latex import booktabs
from rederive.stats.rates import percent
from rederive.studies.salitrap.common import CONTROL, is_simulated, load, write_csv
from rederive.studies.salitrap.metrics import label_matrix, metrics_from_config


def failure_matrix(matrix: pd.DataFrame, pass_labels) -> tuple[np.ndarray, np.ndarray]:
    """Items × models: ``failed`` (valid and not a pass) and ``valid`` booleans."""
    values = matrix.to_numpy()
    valid = pd.notna(values)
    failed = valid & ~np.isin(values, list(pass_labels))
    return failed, valid


def pair_table(failed: np.ndarray, valid: np.ndarray, models: list[str]) -> pd.DataFrame:
    """Every ordered pair (including a model with itself): counts, co-failure, Jaccard.

    Counts are over the items both models answered validly, so an excluded row
    never counts as a success or a failure of either model.
    """
    f = failed.astype(np.int64)
    v = valid.astype(np.int64)
    both_valid = v.T @ v
    both_fail = f.T @ f
    fail_a = f.T @ v  # [a, b]: items a fails among those b answered too
    fail_b = v.T @ f
    union = fail_a + fail_b - both_fail
    with np.errstate(invalid="ignore", divide="ignore"):
        co = np.where(both_valid > 0, both_fail / both_valid, np.nan)
        jac = np.where(union > 0, both_fail / union, np.nan)
    ia, ib = np.meshgrid(np.arange(len(models)), np.arange(len(models)), indexing="ij")
    ia, ib = ia.ravel(), ib.ravel()
    return pd.DataFrame(
        {
            "model_a": [models[i] for i in ia],
            "model_b": [models[j] for j in ib],
            "n_items": both_valid[ia, ib],
            "fail_a": fail_a[ia, ib],
            "fail_b": fail_b[ia, ib],
            "both_fail": both_fail[ia, ib],
            "union": union[ia, ib],
            "co_failure_rate": co[ia, ib],
            "jaccard": jac[ia, ib],
            "empty_union": union[ia, ib] == 0,
        }
    )


def jaccard_distance(pairs: pd.DataFrame, models: list[str]) -> np.ndarray:
    """Square Jaccard distance; an empty union (both never fail) counts as distance 0."""
    square = pairs.pivot(index="model_a", columns="model_b", values="jaccard").reindex(
        index=models, columns=models
    )
    distance = 1.0 - square.to_numpy()
    distance[np.isnan(distance)] = 0.0
    np.fill_diagonal(distance, 0.0)
    return (distance + distance.T) / 2  # exact symmetry for squareform


def cluster(pairs: pd.DataFrame, models: list[str], method: str):
    """Linkage matrix (scipy layout) and leaf order of the models."""
    if len(models) < 2:
        return np.empty((0, 4)), list(models)
    z = linkage(squareform(jaccard_distance(pairs, models), checks=False), method=method)
    return z, [models[i] for i in leaves_list(z)]


def extreme_pairs(pairs: pd.DataFrame, n: int) -> pd.DataFrame:
    """The ``n`` most and ``n`` least similar unordered pairs by Jaccard (ties by names)."""
    unordered = pairs[pairs["model_a"] < pairs["model_b"]].dropna(subset=["jaccard"])
    top = unordered.sort_values(["jaccard", "model_a", "model_b"], ascending=[False, True, True])
    bottom = unordered.sort_values(["jaccard", "model_a", "model_b"], ascending=[True, True, True])
    most = top.head(n).assign(group="most_similar")
    # The paper lists the least similar pairs from the least-dissimilar end down.
    least = bottom.head(n).iloc[::-1].assign(group="least_similar")
    table = pd.concat([most, least], ignore_index=True)
    table.insert(1, "rank", list(range(1, len(most) + 1)) + list(range(len(least), 0, -1)))
    return table[
        [
            "group",
            "rank",
            "model_a",
            "model_b",
            "co_failure_rate",
            "jaccard",
            "both_fail",
            "union",
            "n_items",
        ]
    ]


def failed_by_all(failed: np.ndarray, valid: np.ndarray, models: list[str]) -> pd.DataFrame:
    """Items every model fails, among items every model answered validly."""
    complete = valid.all(axis=1)
    every = (failed | ~valid).all(axis=1) & complete
    n = int(complete.sum())
    k = int(every.sum())
    return pd.DataFrame(
        [
            {
                "items_failed_by_all": k,
                "share_percent": percent(k, n),
                "models": len(models),
                "n_items": n,
                "items_not_answered_by_all": int((~complete).sum()),
            }
        ]
    )


def latex(table5: pd.DataFrame, all_fail: pd.DataFrame, *, simulated: bool) -> str:
    body = table5[["group", "model_a", "model_b", "co_failure_rate", "jaccard"]].copy()
    body["group"] = body["group"].map(
        {"most_similar": "Most similar", "least_similar": "Least similar"}
    )
    body.loc[body["group"].duplicated(), "group"] = ""
    row = all_fail.iloc[0]
    notes = (
        f"{row.items_failed_by_all} items ({row.share_percent:.1f}%) are failed by all "
        f"{row.models} models. Failure = any valid label other than Strict Pass."
    )
    if simulated:
        notes += " Computed from SIMULATED data calibrated to the published tables."
    return booktabs(
        body,
        caption="SaliTrap Table 5: most and least similar model pairs by failure-set Jaccard similarity.",
        label="tab:salitrap-pairs",
        decimals={"co_failure_rate": 3, "jaccard": 3},
        header=["", "Model A", "Model B", "Co-failure", "Jaccard"],
        column_format="lllrr",
        notes=notes,
    )


def main(snakemake):
    p = snakemake.params
    items, labels = load(snakemake.input.db)
    matrix = label_matrix(labels, items, CONTROL)
    models = list(matrix.columns)
    failed, valid = failure_matrix(matrix, metrics_from_config(p.metrics)["TAR"].numerator)
    pairs = pair_table(failed, valid, models)
    z, order = cluster(pairs, models, p.linkage)
    rank = {m: i for i, m in enumerate(order)}
    pairs = pairs.assign(_a=pairs["model_a"].map(rank), _b=pairs["model_b"].map(rank))
    pairs = pairs.sort_values(["_a", "_b"]).drop(columns=["_a", "_b"]).reset_index(drop=True)
    table5 = extreme_pairs(pairs, p.n_pairs)
    all_fail = failed_by_all(failed, valid, models)
    linkage_frame = pd.DataFrame(z, columns=["left", "right", "distance", "size"])
    linkage_frame["method"] = p.linkage
    # linkage_index: the model's leaf id in the linkage matrix; leaf_position: its
    # place in the dendrogram (the heatmaps' order).
    order_frame = pd.DataFrame(
        {
            "model": models,
            "linkage_index": range(len(models)),
            "leaf_position": [rank[m] for m in models],
        }
    )
    write_csv(pairs, snakemake.output.pairs)
    write_csv(table5, snakemake.output.table5)
    write_csv(all_fail, snakemake.output.failed_by_all)
    write_csv(linkage_frame, snakemake.output.linkage)
    write_csv(order_frame, snakemake.output.order)
    Path(snakemake.output.table5_tex).write_text(
        latex(table5, all_fail, simulated=is_simulated(p.raw_dir))
    )


if __name__ == "__main__" and "snakemake" in globals():
    from rederive.runner import run

    run(main, snakemake)  # noqa: F821
