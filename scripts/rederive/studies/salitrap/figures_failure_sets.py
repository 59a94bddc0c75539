"""Fig 5 (dendrogram of models on failure-set Jaccard distance), Fig 10
(co-failure rate matrix) and Fig 11 (Jaccard matrix), heatmaps in dendrogram
order. Drawn only from the failure-set CSVs.

References
----------
SaliTrap (seed paper 000), Fig 5 (§5.2) and Appendix Figs 10–11.
"""

import matplotlib.pyplot as plt
import pandas as pd
from scipy.cluster.hierarchy import dendrogram

from rederive.studies.salitrap.figures import draw_figures, heatmap


def fig_dendrogram(linkage: pd.DataFrame, leaves: pd.DataFrame):
    order = list(leaves["model"])
    fig, ax = plt.subplots(figsize=(7.5, 0.35 * max(len(order), 3) + 1.2))
    if linkage.empty:
        ax.text(0.5, 0.5, "fewer than two models", ha="center", transform=ax.transAxes)
    else:
        z = linkage[["left", "right", "distance", "size"]].to_numpy(dtype=float)
        labels = list(leaves.sort_values("linkage_index")["model"])
        dendrogram(z, labels=labels, orientation="right", ax=ax, color_threshold=None)
        method = linkage["method"].iloc[0]
        ax.set_xlabel(f"Jaccard distance of failure sets ({method} linkage)")
    ax.set_title("Models clustered by their failure sets")
    fig.tight_layout()
    return fig


def fig_heatmap(pairs: pd.DataFrame, order: list[str], value: str, title: str, label: str):
    square = pairs.pivot(index="model_a", columns="model_b", values=value).reindex(
        index=order, columns=order
    )
    return heatmap(square, title=title, label=label)


def draw(pairs: pd.DataFrame, linkage: pd.DataFrame, order: pd.DataFrame) -> dict:
    leaves = list(order.sort_values("leaf_position")["model"])
    return {
        "fig5": fig_dendrogram(linkage, order),
        "fig10": fig_heatmap(
            pairs, leaves, "co_failure_rate", "Co-failure rate |A∩B| / N", "co-failure rate"
        ),
        "fig11": fig_heatmap(
            pairs,
            leaves,
            "jaccard",
            "Failure-set Jaccard similarity |A∩B| / |A∪B|",
            "Jaccard similarity",
        ),
    }


def main(snakemake):
    draw_figures(snakemake, draw)
