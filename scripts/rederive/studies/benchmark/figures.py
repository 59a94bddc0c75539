"""Rule ``plot_benchmark_figures``: every figure of the study, drawn only from the
CSVs the analysis steps wrote (no statistic is computed here).

* ``accuracy``: accuracy per model with its bootstrap 95% CI and rank range.
* ``pairwise_q``: paired accuracy differences (row − column, points), with the
  pairs that are not significant after BH shown blank-hatched.
* ``irt_difficulty``: 1PL item difficulty by category.
* ``irt_ability``: 1PL ability per model with its item-bootstrap CI.
* ``failure_dendrogram``: Jaccard similarity of failure sets, ordered by the
  hierarchical clustering, with its dendrogram.
"""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from scipy.cluster.hierarchy import dendrogram

from rederive.io.names import read_csv
from rederive.plots.theme import (
    CELL_IN,
    apply_theme,
    cell_inches,
    save_figure,
    shrink_labels,
)
from rederive.runner import run


def plot_accuracy(
    accuracy: pd.DataFrame, ranking: pd.DataFrame | None, note: str, png, pdf
) -> None:
    frame = accuracy.sort_values(["accuracy", "model"], ascending=[True, False])
    fig, ax = plt.subplots(figsize=(6.5, 0.28 * len(frame) + 1.2))
    y = np.arange(len(frame))
    ax.errorbar(
        frame["accuracy_pct"],
        y,
        xerr=[
            frame["accuracy_pct"] - frame["ci_low_pct"],
            frame["ci_high_pct"] - frame["accuracy_pct"],
        ],
        fmt="o",
        color="C0",
        ecolor="0.4",
        capsize=2,
        markersize=4,
    )
    labels = list(frame["model"])
    if ranking is not None:
        ranks = ranking.set_index("model")["rank"]
        labels = [f"{m}  [{ranks.get(m, '?')}]" for m in labels]
    ax.set_yticks(y, labels)
    ax.set_xlabel("Accuracy (%) with item-bootstrap 95% CI  [rank range]")
    ax.set_title("Accuracy per model")
    fig.subplots_adjust(bottom=0.12)
    save_figure(fig, png, pdf, note=note)


def plot_pairwise(
    accuracy: pd.DataFrame, pairwise: pd.DataFrame, fdr_q: float, note: str, png, pdf
) -> None:
    order = list(accuracy.sort_values(["accuracy", "model"], ascending=[False, True])["model"])
    position = {m: k for k, m in enumerate(order)}
    ia = pairwise["a"].map(position).to_numpy()
    ib = pairwise["b"].map(position).to_numpy()
    values = np.full((len(order), len(order)), np.nan)
    values[ia, ib] = pairwise["diff_pct"].to_numpy(dtype=float)
    values[ib, ia] = -pairwise["diff_pct"].to_numpy(dtype=float)
    flags = np.zeros((len(order), len(order)), dtype=bool)
    flags[ia, ib] = flags[ib, ia] = pairwise["significant"].to_numpy(dtype=bool)
    diff = pd.DataFrame(values, index=order, columns=order)
    sig = pd.DataFrame(flags, index=order, columns=order)
    cell = cell_inches(len(order))
    size = cell * len(order) + 2
    fig, ax = plt.subplots(figsize=(size + 1, size))
    limit = float(np.nanmax(np.abs(diff.to_numpy()))) if diff.notna().any().any() else 1.0
    sns.heatmap(
        diff.where(sig),
        ax=ax,
        cmap="RdBu",
        center=0,
        vmin=-limit,
        vmax=limit,
        square=True,
        cbar_kws={"label": "row − column (points)", "shrink": 0.6},
        linewidths=0.3 if cell == CELL_IN else 0,
        linecolor="white",
        rasterized=cell < CELL_IN,
    )
    shrink_labels(ax, len(order))
    tied = (~sig).to_numpy() & ~np.eye(len(order), dtype=bool)
    rows, cols = np.nonzero(tied)
    ax.scatter(
        cols + 0.5,
        rows + 0.5,
        marker="s",
        s=12 * (cell / CELL_IN) ** 2,
        color="0.75",
        label=f"not separable (BH q ≥ {fdr_q:g})",
        rasterized=cell < CELL_IN,
    )
    ax.legend(loc="upper right", bbox_to_anchor=(1.0, 1.08), fontsize=7, frameon=False)
    ax.grid(False)
    ax.set_xlabel("")
    ax.set_ylabel("")
    ax.set_title("Paired accuracy differences")
    fig.subplots_adjust(bottom=0.25)
    save_figure(fig, png, pdf, note=note)


def plot_difficulty(difficulty: pd.DataFrame, note: str, png, pdf) -> None:
    # A distribution plot draws the spread-matched estimate (posterior means are
    # shrunk). Items every model passes or fails are finite and shrunk by the
    # hierarchical prior, so they are drawn, and counted in the panel.
    extreme = difficulty["extreme"].fillna("").astype(str)
    n_pass, n_fail = int((extreme == "all correct").sum()), int((extreme == "all wrong").sum())
    column = "difficulty_spread" if "difficulty_spread" in difficulty else "difficulty"
    categories = sorted(difficulty["category"].astype(str).unique())
    fig, ax = plt.subplots(figsize=(max(4.5, 0.6 * len(categories) + 2), 4))
    sns.violinplot(
        data=difficulty.assign(category=difficulty["category"].astype(str)),
        x="category",
        y=column,
        order=categories,
        ax=ax,
        inner="quartile",
        cut=0,
        color="C0",
    )
    ax.set_xlabel("Category")
    ax.set_ylabel(
        "1PL item difficulty (logit, spread-matched)"
        if column != "difficulty"
        else "1PL item difficulty (logit)"
    )
    ax.set_title(f"Item difficulty by category ({len(difficulty):,} items)")
    ax.text(
        0.01,
        0.99,
        f"all models pass: {n_pass:,}; all fail: {n_fail:,} (drawn, shrunk towards the rest)",
        transform=ax.transAxes,
        fontsize=7,
        va="top",
    )
    if len(categories) > 4:
        ax.tick_params(axis="x", rotation=45)
    fig.subplots_adjust(bottom=0.2)
    save_figure(fig, png, pdf, note=note)


def plot_ability(ability: pd.DataFrame, accuracy: pd.DataFrame, note: str, png, pdf) -> None:
    frame = ability.merge(accuracy[["model", "accuracy_pct"]], on="model")
    frame = frame.sort_values(["ability_ml", "model"], ascending=[True, False])
    fig, ax = plt.subplots(figsize=(6.5, 0.28 * len(frame) + 1.4))
    y = np.arange(len(frame))
    ax.errorbar(
        frame["ability_ml"],
        y,
        xerr=[frame["ability_ml"] - frame["ci_low"], frame["ci_high"] - frame["ability_ml"]],
        fmt="o",
        color="C0",
        ecolor="0.4",
        capsize=2,
        markersize=4,
        label="marginal-ML ability, item-bootstrap 95% CI",
    )
    ax.scatter(
        frame["ability_pyirt"],
        y,
        marker="x",
        color="C1",
        s=18,
        label="py-irt posterior mean",
        zorder=3,
    )
    ax.set_yticks(
        y, [f"{m}  ({a:.1f}%)" for m, a in zip(frame["model"], frame["accuracy_pct"], strict=True)]
    )
    ax.set_xlabel("1PL ability (logit)   [model (accuracy)]")
    ax.set_title("IRT ability per model")
    ax.legend(loc="lower right", fontsize=7)
    fig.subplots_adjust(bottom=0.15)
    save_figure(fig, png, pdf, note=note)


def plot_dendrogram(jaccard: pd.DataFrame, linkage: pd.DataFrame, note: str, png, pdf) -> None:
    models = list(jaccard["model"])
    matrix = jaccard.set_index("model")[models]
    z = linkage[["left", "right", "distance", "size"]].to_numpy(dtype=float)
    n = len(models)
    fig = plt.figure(figsize=(cell_inches(n) * n + 4.5, cell_inches(n) * n + 3.5))
    grid = fig.add_gridspec(
        2, 2, width_ratios=[1, 3], height_ratios=[0.04, 1], wspace=0.02, hspace=0.08
    )
    ax_cbar = fig.add_subplot(grid[0, 1])
    ax_tree = fig.add_subplot(grid[1, 0])
    ax_heat = fig.add_subplot(grid[1, 1])
    if len(z):
        tree = dendrogram(z, orientation="left", ax=ax_tree, no_labels=True, color_threshold=0)
        # With orientation="left" leaf k sits at y = 10k + 5 counted from the bottom;
        # inverting the axis puts tree["leaves"][0] at the top, like heatmap row 0.
        ax_tree.set_ylim(0, 10 * n)
        ax_tree.invert_yaxis()
        order = [models[i] for i in tree["leaves"]]
    else:  # one model: no tree to draw
        ax_tree.text(0.5, 0.5, "one model:\nnothing to cluster", ha="center", va="center")
        order = models
    ax_tree.set_axis_off()
    sns.heatmap(
        matrix.loc[order, order],
        ax=ax_heat,
        cbar_ax=ax_cbar,
        cmap="viridis",
        vmin=0,
        vmax=1,
        cbar_kws={"orientation": "horizontal"},
        yticklabels=True,
        xticklabels=True,
        # Beyond 50 models, one image in the PDF rather than n² vector cells.
        rasterized=cell_inches(n) < CELL_IN,
    )
    ax_cbar.set_title("Jaccard similarity of failure sets (clustered on 1 − J)", fontsize=9)
    ax_cbar.xaxis.set_ticks_position("top")
    ax_heat.yaxis.tick_right()
    ax_heat.tick_params(axis="y", rotation=0)
    shrink_labels(ax_heat, n)
    ax_heat.set_xlabel("")
    ax_heat.set_ylabel("")
    fig.subplots_adjust(bottom=0.2)
    save_figure(fig, png, pdf, note=note)


def main(snakemake):
    apply_theme()
    i, o, p = snakemake.input, snakemake.output, snakemake.params
    accuracy = read_csv(i.accuracy)
    pairwise = read_csv(i.pairwise)
    ranking = read_csv(i.ranking)
    plot_accuracy(accuracy, ranking, p.data_note, o.accuracy_png, o.accuracy_pdf)
    plot_pairwise(accuracy, pairwise, p.fdr_q, p.data_note, o.pairwise_q_png, o.pairwise_q_pdf)
    plot_difficulty(read_csv(i.difficulty), p.data_note, o.irt_difficulty_png, o.irt_difficulty_pdf)
    plot_ability(read_csv(i.ability), accuracy, p.data_note, o.irt_ability_png, o.irt_ability_pdf)
    plot_dendrogram(
        read_csv(i.jaccard),
        read_csv(i.linkage),
        p.data_note,
        o.failure_dendrogram_png,
        o.failure_dendrogram_pdf,
    )


if __name__ == "__main__" and "snakemake" in globals():
    run(main, snakemake)  # noqa: F821
