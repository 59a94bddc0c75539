"""Rule ``cluster_benchmark_failures``: which models fail the same items.

A model fails an item when its per-item score is below ``fractional_scores.threshold``
(0.5 by default; equal to it counts as a failure only with ``ties: incorrect``):
for 0/1 scores, an item scored 0; for epoch means, partial credit and judge
preferences, a score below the threshold (an AlpacaEval loss, not a draw),
whatever ``fractional_scores.method`` the 1PL uses
(:mod:`rederive.stats.fractional`). When some score is fractional,
``failure_leaves.csv`` gains the rule (``failure_set``), each model's
``n_failed`` and a ``note`` for a model without variation (every score one
value between 0 and 1: its failure set is empty or every item by the threshold
alone). From the models × items failure matrix,
:mod:`rederive.stats.similarity` gives the co-failure rates, the Jaccard
similarity of failure sets, the hierarchical clustering on ``1 − J`` and the most
and least alike pairs. Items every model fails are listed: on a real benchmark
they are the first place to look for mis-keyed or unanswerable questions.

At leaderboard scale (thousands of models) the clustering, the leaf order and
the extreme pairs still cover every model, but the square co-failure and Jaccard
tables hold only the ``similarity.top_k`` models of highest accuracy: 5,000
models would make each a 5,000 × 5,000 table (25 M cells, ~250 MB of CSV).

References
----------
Jaccard, P. (1912). The distribution of the flora in the alpine zone. *New Phytologist* 11, 37–50.
"""

import numpy as np
import pandas as pd

from rederive.runner import run
from rederive.stats import similarity
from rederive.stats.fractional import ScoreRule, constant_score
from rederive.studies.benchmark.common import load_scores, write_csv


def failure_matrix(matrix: pd.DataFrame, rule: ScoreRule | None = None) -> pd.DataFrame:
    """Boolean models × items, True = failed (score below the threshold, 0.5 by default)."""
    if matrix.isna().to_numpy().any():
        raise ValueError("failure clustering needs every model scored on every item")
    failed = (rule or ScoreRule()).failed(matrix.to_numpy(dtype=float))
    return pd.DataFrame(failed, index=matrix.index, columns=matrix.columns).T


def failure_notes(matrix: pd.DataFrame, fail: pd.DataFrame, rule: ScoreRule) -> pd.DataFrame:
    """Per model (rows of ``fail``): ``n_failed``, the rule, and a note on a model
    without variation, whose failure set the threshold alone decides."""
    constant = pd.Series(constant_score(matrix.to_numpy(dtype=float)), index=matrix.columns)
    n_failed = fail.sum(axis=1)
    notes = []
    for model in fail.index:
        value = constant[model]
        if np.isfinite(value):
            what = "every item" if n_failed[model] else "no item"
            notes.append(
                f"no variation: every score {value:g} ({fail.shape[1]:,} items); "
                f"{what} fails ({rule.failure_text()}), so its failure set is "
                f"{'every item' if n_failed[model] else 'empty'} by the threshold alone"
            )
        else:
            notes.append("")
    return pd.DataFrame(
        {
            "n_failed": n_failed.to_numpy().astype(int),
            "failure_set": rule.failure_text(),
            "note": notes,
        },
        index=fail.index,
    )


def square(frame: pd.DataFrame) -> pd.DataFrame:
    out = frame.copy()
    out.index.name = "model"
    return out.reset_index()


def top_models(matrix: pd.DataFrame, k: int) -> list:
    """The ``k`` models of highest mean score, returned in name order.

    Ties in the mean are broken by name (the alphabetically first model wins), so
    the selection does not depend on column order.
    """
    means = matrix.mean(axis=0)
    frame = pd.DataFrame({"model": means.index, "mean": means.to_numpy()})
    frame = frame.sort_values(["mean", "model"], ascending=[False, True], kind="mergesort")
    return sorted(frame["model"].head(k))


def linkage_table(clustering: similarity.ModelClustering) -> pd.DataFrame:
    link = pd.DataFrame(clustering.linkage, columns=["left", "right", "distance", "size"])
    link[["left", "right", "size"]] = link[["left", "right", "size"]].astype(int)
    link.insert(0, "step", range(1, len(link) + 1))
    link["method"] = clustering.method
    return link


def analyse(
    matrix: pd.DataFrame,
    items: pd.DataFrame,
    *,
    linkage: str,
    n_extreme_pairs: int,
    top_k: int | None = None,
    optimal_ordering_up_to: int | None = None,
    rule: ScoreRule | None = None,
) -> dict:
    """Failure similarity of every model pair, the tables restricted to the top-k.

    ``co_failure`` and ``jaccard`` are square over the ``top_k`` models of highest
    mean score (all models when there are at most ``top_k``, or ``top_k`` is
    None), in name order; the linkage, the leaf order and the extreme pairs cover
    every model. Leaves are optimally ordered up to ``optimal_ordering_up_to``
    models (always when None). ``rule`` sets the failure threshold
    (:meth:`ScoreRule.failed`); with a fractional score in the matrix,
    ``leaves`` adds ``n_failed``, ``failure_set`` and ``note``.
    """
    rule = rule or ScoreRule()
    fail = failure_matrix(matrix, rule)
    fail = fail.sort_index()
    co_failure, jaccard = similarity.similarity_matrices(fail)
    models = list(fail.index)
    top = top_models(matrix, top_k) if top_k is not None and len(models) > top_k else models
    if len(fail) < 2:
        # One model: nothing to cluster; a header-only linkage table, not a traceback.
        link = pd.DataFrame(columns=["step", "left", "right", "distance", "size", "method"])
        order = models
    else:
        # Optimal leaf ordering only orders the leaves (same tree) and grows far
        # faster than the linkage itself (measured: bench/README.md, issue 24).
        clustering = similarity.cluster_models(
            jaccard,
            linkage,
            optimal_ordering=optimal_ordering_up_to is None
            or len(models) <= optimal_ordering_up_to,
        )
        link = linkage_table(clustering)
        order = clustering.order
    pairs = (
        similarity.extreme_pairs(
            jaccard, co_failure, k=min(n_extreme_pairs, len(fail) * (len(fail) - 1) // 2)
        )
        if len(fail) >= 2
        else pd.DataFrame(columns=["group", "model_a", "model_b", "co_failure_rate", "jaccard"])
    )
    everyone = similarity.failed_by_all(fail)
    failed = items.set_index("item_key").loc[everyone.items].reset_index()
    failed["n_models"] = fail.shape[0]
    position = {model: k for k, model in enumerate(order)}
    in_top = set(top)
    leaves = pd.DataFrame(
        {
            "model": models,
            "linkage_index": range(len(models)),
            "leaf_position": [position[m] for m in models],
            "in_top_k": [m in in_top for m in models],
        }
    )
    values = matrix.to_numpy(dtype=float)
    if ((values > 0.0) & (values < 1.0)).any():
        notes = failure_notes(matrix, fail, rule)
        leaves = pd.concat([leaves, notes.reset_index(drop=True)], axis=1)
    return {
        "co_failure": square(co_failure.loc[top, top]),
        "jaccard": square(jaccard.loc[top, top]),
        "linkage": link,
        "leaves": leaves,
        "order": order,
        "extreme_pairs": pairs,
        "failed_by_all": failed,
        "failed_share": everyone.share,
    }


def main(snakemake):
    p = snakemake.params
    matrix, items = load_scores(snakemake.input.db)
    result = analyse(
        matrix,
        items,
        linkage=p.linkage,
        n_extreme_pairs=p.n_extreme_pairs,
        top_k=p.top_k,
        optimal_ordering_up_to=p.optimal_ordering_up_to,
        rule=ScoreRule.from_config(p.fractional_scores),
    )
    del matrix
    write_csv(result["jaccard"], snakemake.output.jaccard)
    write_csv(result["co_failure"], snakemake.output.co_failure)
    write_csv(result["linkage"], snakemake.output.linkage)
    write_csv(result["leaves"], snakemake.output.leaves)
    write_csv(result["extreme_pairs"], snakemake.output.extreme_pairs)
    write_csv(result["failed_by_all"], snakemake.output.failed_by_all)


if __name__ == "__main__" and "snakemake" in globals():
    run(main, snakemake)  # noqa: F821
