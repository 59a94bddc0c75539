"""Fig 5 (dendrogram of models on failure-set Jaccard distance), Fig 10
(co-failure rate matrix) and Fig 11 (Jaccard matrix), heatmaps in dendrogram
order. Drawn only from the failure-set CSVs.

References
----------
SaliTrap (seed paper 000), Fig 5 (§5.2) and Appendix Figs 10–11.
"""

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns
from scipy.cluster.hierarchy import dendrogram

from rederive.plots.theme import SIMULATED_NOTE, apply_theme, save_figure


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
    size = 0.5 * len(order) + 2.5
    fig, ax = plt.subplots(figsize=(size + 1.2, size))
    sns.heatmap(
        square,
        ax=ax,
        cmap="viridis",
        annot=len(order) <= 16,
        fmt=".2f",
        annot_kws={"fontsize": 6},
        square=True,
        cbar_kws={"label": label, "shrink": 0.7},
    )
    ax.set_xlabel("")
    ax.set_ylabel("")
    ax.set_title(title)
    fig.tight_layout()
    return fig


def main(snakemake):
    apply_theme()
    note = SIMULATED_NOTE if snakemake.params.simulated else None
    out = snakemake.output
    pairs = pd.read_csv(snakemake.input.pairs)
    linkage = pd.read_csv(snakemake.input.linkage)
    leaves = pd.read_csv(snakemake.input.order)
    order = list(leaves.sort_values("leaf_position")["model"])
    save_figure(fig_dendrogram(linkage, leaves), out.fig5_png, out.fig5_pdf, note=note)
    save_figure(
        fig_heatmap(
            pairs, order, "co_failure_rate", "Co-failure rate |A∩B| / N", "co-failure rate"
        ),
        out.fig10_png,
        out.fig10_pdf,
        note=note,
    )
    save_figure(
        fig_heatmap(
            pairs,
            order,
            "jaccard",
            "Failure-set Jaccard similarity |A∩B| / |A∪B|",
            "Jaccard similarity",
        ),
        out.fig11_png,
        out.fig11_pdf,
        note=note,
    )


if __name__ == "__main__" and "snakemake" in globals():
    from rederive.runner import run

    run(main, snakemake)  # noqa: F821
