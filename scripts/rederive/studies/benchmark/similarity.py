"""Rule ``cluster_benchmark_failures``: which models fail the same items.

A model fails an item when its per-item score is below 0.5 (scores are 0/1 for
single-epoch binary grading; epoch means and partial credit are dichotomised the
same way as for the IRT fit). From the models × items failure matrix,
:mod:`rederive.stats.similarity` gives the co-failure rates, the Jaccard
similarity of failure sets, the hierarchical clustering on ``1 − J`` and the most
and least alike pairs. Items every model fails are listed: on a real benchmark
they are the first place to look for mis-keyed or unanswerable questions.

References
----------
Jaccard, P. (1912). The distribution of the flora in the alpine zone. *New Phytologist* 11, 37–50.
"""

import pandas as pd

from rederive.runner import run
from rederive.stats import similarity
from rederive.studies.benchmark.common import load_scores, write_csv


def failure_matrix(matrix: pd.DataFrame) -> pd.DataFrame:
    """Boolean models × items, True = failed (score < 0.5)."""
    if matrix.isna().any().any():
        raise ValueError("failure clustering needs every model scored on every item")
    return (matrix < 0.5).T


def square(frame: pd.DataFrame) -> pd.DataFrame:
    out = frame.copy()
    out.index.name = "model"
    return out.reset_index()


def analyse(
    matrix: pd.DataFrame, items: pd.DataFrame, *, linkage: str, n_extreme_pairs: int
) -> dict:
    fail = failure_matrix(matrix)
    fail = fail.sort_index()
    co_failure = similarity.co_failure_matrix(fail)
    jaccard = similarity.jaccard_matrix(fail)
    if len(fail) < 2:
        # One model: nothing to cluster; a header-only linkage table, not a traceback.
        link = pd.DataFrame(columns=["step", "left", "right", "distance", "size", "method"])
        order = list(fail.index)
    else:
        clustering = similarity.cluster_models(jaccard, linkage, optimal_ordering=True)
        link = pd.DataFrame(clustering.linkage, columns=["left", "right", "distance", "size"])
        link[["left", "right", "size"]] = link[["left", "right", "size"]].astype(int)
        link.insert(0, "step", range(1, len(link) + 1))
        link["method"] = clustering.method
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
    return {
        "co_failure": square(co_failure),
        "jaccard": square(jaccard),
        "linkage": link,
        "order": order,
        "extreme_pairs": pairs,
        "failed_by_all": failed,
        "failed_share": everyone.share,
    }


def main(snakemake):
    p = snakemake.params
    matrix, items = load_scores(snakemake.input.db)
    result = analyse(matrix, items, linkage=p.linkage, n_extreme_pairs=p.n_extreme_pairs)
    write_csv(result["jaccard"], snakemake.output.jaccard)
    write_csv(result["co_failure"], snakemake.output.co_failure)
    write_csv(result["linkage"], snakemake.output.linkage)
    write_csv(result["extreme_pairs"], snakemake.output.extreme_pairs)
    write_csv(result["failed_by_all"], snakemake.output.failed_by_all)


if __name__ == "__main__" and "snakemake" in globals():
    run(main, snakemake)  # noqa: F821
