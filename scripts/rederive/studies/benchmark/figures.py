"""Rule ``plot_benchmark_figures``: every figure of the study, drawn only from the
CSVs the analysis steps wrote (no statistic is computed here).

* ``accuracy``: accuracy per model with its bootstrap 95% CI and rank range.
* ``pairwise_q``: paired accuracy differences (row − column, points), with the
  pairs that are not significant after BH shown blank-hatched.
* ``irt_difficulty``: 1PL item difficulty by category.
* ``irt_ability``: 1PL ability per model with its item-bootstrap CI.
* ``failure_dendrogram``: Jaccard similarity of failure sets, ordered by the
  hierarchical clustering, with its dendrogram.
* ``suspect_items``: the item analysis (rederive.plots.items).

Readable at any model count: with more than ``top_k`` models (the config's
``similarity.top_k``) the per-model rows and the model × model heatmaps show the
top_k models only, the accuracy and ability figures add a histogram of every
model, and the dendrogram of all models is truncated to its last merges, each
branch labelled with its size and how many top_k models it holds.
"""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from scipy.cluster.hierarchy import dendrogram

from rederive.io.names import read_csv
from rederive.plots import items
from rederive.plots.theme import (
    CELL_IN,
    apply_theme,
    cell_inches,
    save_figure,
    shrink_labels,
)
from rederive.runner import run

# Branches of the truncated dendrogram of all models (scipy truncate_mode="lastp").
DENDROGRAM_BRANCHES = 40


def top_rows(frame: pd.DataFrame, column: str, k: int) -> pd.DataFrame:
    """The ``k`` rows of highest ``column``; ties by model name (first name wins)."""
    return frame.sort_values([column, "model"], ascending=[False, True], kind="mergesort").head(k)


def rows_and_summary(n_rows: int, row_height: float, base: float):
    """A figure of ``n_rows`` model rows above a short panel summarising every model."""
    fig = plt.figure(figsize=(6.5, row_height * n_rows + base + 2.0))
    grid = fig.add_gridspec(2, 1, height_ratios=[row_height * n_rows + base, 1.3], hspace=0.12)
    return fig, fig.add_subplot(grid[0]), fig.add_subplot(grid[1])


def summary_histogram(ax, values, chosen, *, what: str, label: str) -> None:
    """Histogram of every model's value, the shown (top-k) models' share in colour."""
    values = np.asarray(values, dtype=float)
    chosen = np.asarray(chosen, dtype=bool)
    finite = np.isfinite(values)
    bins = np.histogram_bin_edges(values[finite], bins=60) if finite.any() else 10
    counts, _, _ = ax.hist(
        values[finite], bins=bins, color="0.75", label=f"all {len(values):,} models"
    )
    ax.hist(
        values[finite & chosen],
        bins=bins,
        color="C0",
        label=f"top {int(chosen.sum()):,} (rows above)",
    )
    # Head room above the tallest bar for the legend, which then covers no bar.
    ax.set_ylim(0, max(float(np.max(counts, initial=0)), 1.0) * 1.8)
    ax.set_xlabel(label)
    ax.set_ylabel("models")
    ax.legend(loc="upper left", fontsize=7, frameon=False, title=what, title_fontsize=7)


def plot_accuracy(
    accuracy: pd.DataFrame,
    ranking: pd.DataFrame | None,
    note: str,
    png,
    pdf,
    top_k: int | None = None,
) -> None:
    if top_k is not None and len(accuracy) > top_k:
        plot_accuracy_top(accuracy, ranking, note, png, pdf, top_k)
        return
    frame = accuracy.sort_values(["accuracy", "model"], ascending=[True, False])
    fig, ax = plt.subplots(figsize=(6.5, 0.28 * len(frame) + 1.2))
    draw_accuracy_rows(ax, frame, ranking, fit_rows=False)
    ax.set_xlabel("Accuracy (%) with item-bootstrap 95% CI  [rank range]")
    ax.set_title("Accuracy per model")
    fig.subplots_adjust(bottom=0.12)
    save_figure(fig, png, pdf, note=note)


def draw_jaccard_cells(ax_heat, ax_cbar, square: pd.DataFrame) -> None:
    """The Jaccard heatmap under a dendrogram, with its horizontal colour bar."""
    sns.heatmap(
        square,
        ax=ax_heat,
        cbar_ax=ax_cbar,
        cmap="viridis",
        vmin=0,
        vmax=1,
        cbar_kws={"orientation": "horizontal"},
        yticklabels=True,
        xticklabels=True,
        # Beyond 50 models, one image in the PDF rather than n² vector cells.
        rasterized=cell_inches(len(square)) < CELL_IN,
    )


def draw_accuracy_rows(
    ax, frame: pd.DataFrame, ranking: pd.DataFrame | None, *, fit_rows: bool = True
) -> None:
    """One point with its CI per model, labelled with its rank range; ``fit_rows``
    trims the y range to the rows (the top-k panel; the all-models figure keeps
    matplotlib's margins)."""
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
    if fit_rows:
        ax.set_ylim(-0.7, len(frame) - 0.3)


def plot_accuracy_top(
    accuracy: pd.DataFrame, ranking: pd.DataFrame | None, note: str, png, pdf, top_k: int
) -> None:
    """The top_k models as rows, every model in a histogram below."""
    top = top_rows(accuracy, "accuracy", top_k)
    frame = top.sort_values(["accuracy", "model"], ascending=[True, False])
    fig, ax, ax_all = rows_and_summary(len(frame), 0.28, 1.2)
    draw_accuracy_rows(ax, frame, ranking)
    ax.set_xlabel("Accuracy (%) with item-bootstrap 95% CI  [rank range]")
    ax.set_title(f"Accuracy per model: top {len(frame):,} of {len(accuracy):,}")
    summary_histogram(
        ax_all,
        accuracy["accuracy_pct"],
        accuracy["model"].isin(top["model"]),
        what="every model",
        label="Accuracy (%)",
    )
    save_figure(fig, png, pdf, note=note)


def plot_pairwise(
    accuracy: pd.DataFrame,
    pairwise: pd.DataFrame,
    fdr_q: float,
    note: str,
    png,
    pdf,
    top_k: int | None = None,
) -> None:
    ranked = accuracy.sort_values(["accuracy", "model"], ascending=[False, True])
    order = list(ranked["model"])
    n_all = len(order)
    if top_k is not None and n_all > top_k:
        order = order[:top_k]
    position = {m: k for k, m in enumerate(order)}
    # Beyond comparisons.all_pairs_up_to models pairwise.csv holds only some pairs
    # (rank neighbours, the top); pairs outside the shown models are dropped and
    # shown pairs never tested stay blank instead of reading as "not separable".
    shown = pairwise[pairwise["a"].isin(position) & pairwise["b"].isin(position)]
    ia = shown["a"].map(position).to_numpy(dtype=int)
    ib = shown["b"].map(position).to_numpy(dtype=int)
    values = np.full((len(order), len(order)), np.nan)
    values[ia, ib] = shown["diff_pct"].to_numpy(dtype=float)
    values[ib, ia] = -shown["diff_pct"].to_numpy(dtype=float)
    flags = np.zeros((len(order), len(order)), dtype=bool)
    flags[ia, ib] = flags[ib, ia] = shown["significant"].to_numpy(dtype=bool)
    tested = np.zeros((len(order), len(order)), dtype=bool)
    tested[ia, ib] = tested[ib, ia] = True
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
    tied = (~sig).to_numpy() & ~np.eye(len(order), dtype=bool) & tested
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
    n_untested = int((~tested & ~np.eye(len(order), dtype=bool)).sum()) // 2
    if n_untested:
        ax.scatter(
            [],
            [],
            marker="s",
            s=12,
            facecolor="white",
            edgecolor="0.5",
            linewidths=0.5,
            label=f"not tested ({n_untested:,} pairs, blank)",
        )
    ax.legend(
        loc="upper right",
        bbox_to_anchor=(1.0, 1.08 + (0.03 if n_untested else 0)),
        fontsize=7,
        frameon=False,
    )
    ax.grid(False)
    ax.set_xlabel("")
    ax.set_ylabel("")
    ax.set_title(
        "Paired accuracy differences"
        + (f": top {len(order):,} of {n_all:,} models" if n_all > len(order) else ""),
        loc="left" if n_untested else "center",
    )
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


def plot_ability(
    ability: pd.DataFrame,
    accuracy: pd.DataFrame,
    note: str,
    png,
    pdf,
    top_k: int | None = None,
) -> None:
    frame = ability.merge(accuracy[["model", "accuracy_pct"]], on="model")
    large = top_k is not None and len(frame) > top_k
    everyone = frame
    if large:
        frame = top_rows(frame, "ability_ml", top_k)
    frame = frame.sort_values(["ability_ml", "model"], ascending=[True, False])
    if large:
        fig, ax, ax_all = rows_and_summary(len(frame), 0.28, 1.4)
        summary_histogram(
            ax_all,
            everyone["ability_ml"],
            everyone["model"].isin(frame["model"]),
            what="every model",
            label="1PL ability (logit, marginal ML)",
        )
    else:
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
    # A model without a finite ability keeps its row, labelled so (irt_ability.csv's
    # ability_note says why: a perfect score, no variation under a threshold, ...).
    ax.set_yticks(
        y,
        [
            f"{m}  ({a:.1f}%)" + ("" if np.isfinite(t) else ": no ability")
            for m, a, t in zip(
                frame["model"], frame["accuracy_pct"], frame["ability_ml"], strict=True
            )
        ],
    )
    ax.set_xlabel("1PL ability (logit)   [model (accuracy)]")
    if large:
        ax.set_ylim(-0.7, len(frame) - 0.3)
        ax.set_title(f"IRT ability per model: top {len(frame):,} of {len(everyone):,}")
        ax.legend(loc="lower right", fontsize=7)
    else:
        ax.set_title("IRT ability per model")
        ax.legend(loc="lower right", fontsize=7)
        fig.subplots_adjust(bottom=0.15)
    save_figure(fig, png, pdf, note=note)


def plot_dendrogram(
    jaccard: pd.DataFrame,
    linkage: pd.DataFrame,
    note: str,
    png,
    pdf,
    leaves: pd.DataFrame | None = None,
) -> None:
    """The clustered Jaccard heatmap; with ``leaves`` listing more models than
    ``jaccard`` (its top_k), the truncated dendrogram of all above the top_k heatmap."""
    if leaves is not None and len(leaves) > len(jaccard):
        plot_dendrogram_all(jaccard, linkage, leaves, note, png, pdf)
        return
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
    draw_jaccard_cells(ax_heat, ax_cbar, matrix.loc[order, order])
    ax_cbar.set_title("Jaccard similarity of failure sets (clustered on 1 − J)", fontsize=9)
    ax_cbar.xaxis.set_ticks_position("top")
    ax_heat.yaxis.tick_right()
    ax_heat.tick_params(axis="y", rotation=0)
    shrink_labels(ax_heat, n)
    ax_heat.set_xlabel("")
    ax_heat.set_ylabel("")
    fig.subplots_adjust(bottom=0.2)
    save_figure(fig, png, pdf, note=note)


def truncated_labels(z: np.ndarray, in_top: np.ndarray):
    """Leaf labels of a truncated dendrogram: a branch's size and its top_k models."""
    n = len(in_top)
    size = np.ones(n + len(z), dtype=int)
    top = np.zeros(n + len(z), dtype=int)
    top[:n] = in_top
    for step, (left, right, _, _) in enumerate(z):
        size[n + step] = size[int(left)] + size[int(right)]
        top[n + step] = top[int(left)] + top[int(right)]

    def label(node: int) -> str:
        return f"{size[node]:,} ({top[node]} top)" if top[node] else f"{size[node]:,}"

    return label


def plot_dendrogram_all(
    jaccard: pd.DataFrame, linkage: pd.DataFrame, leaves: pd.DataFrame, note: str, png, pdf
) -> None:
    """Dendrogram of every model, cut to its last merges, over the top_k heatmap.

    A per-leaf label for thousands of models is unreadable at any size, so the
    tree shows its last :data:`DENDROGRAM_BRANCHES` branches, each labelled with
    how many models it joins and how many of them are in the heatmap below.
    """
    leaves = leaves.sort_values("linkage_index")
    z = linkage[["left", "right", "distance", "size"]].to_numpy(dtype=float)
    top_models = list(jaccard["model"])
    matrix = jaccard.set_index("model")[top_models]
    position = leaves.set_index("model")["leaf_position"]
    order = sorted(top_models, key=lambda m: (position[m], m))
    k = len(order)
    side = cell_inches(k) * k
    fig = plt.figure(figsize=(side + 4.5, side + 7.5))
    # Rows in inches: tree, its rotated branch labels, the colour bar's title and
    # ticks (drawn above it), the colour bar, a gap, the heatmap.
    grid = fig.add_gridspec(
        6, 1, height_ratios=[4.0, 1.1, 0.6, 0.25, 0.3, side], hspace=0, left=0.1, right=0.9
    )
    ax_tree = fig.add_subplot(grid[0])
    ax_cbar = fig.add_subplot(grid[3])
    ax_heat = fig.add_subplot(grid[5])
    label = truncated_labels(z, leaves["in_top_k"].astype(bool).to_numpy())
    dendrogram(
        z,
        ax=ax_tree,
        truncate_mode="lastp",
        p=min(DENDROGRAM_BRANCHES, len(leaves)),
        leaf_label_func=label,
        leaf_rotation=90,
        leaf_font_size=7,
        color_threshold=0,
        above_threshold_color="0.3",
    )
    ax_tree.set_ylabel("Jaccard distance 1 − J")
    ax_tree.set_title(
        f"Failure clustering of all {len(leaves):,} models: last "
        f"{min(DENDROGRAM_BRANCHES, len(leaves))} branches (models in branch, top {k} among them)",
        fontsize=9,
    )
    ax_tree.grid(False)
    draw_jaccard_cells(ax_heat, ax_cbar, matrix.loc[order, order])
    ax_cbar.set_title(
        f"Jaccard similarity of failure sets, top {k} models by accuracy (in the tree's order)",
        fontsize=9,
    )
    ax_cbar.xaxis.set_ticks_position("top")
    ax_heat.yaxis.tick_right()
    ax_heat.tick_params(axis="y", rotation=0)
    shrink_labels(ax_heat, k)
    ax_heat.set_xlabel("")
    ax_heat.set_ylabel("")
    save_figure(fig, png, pdf, note=note)


def main(snakemake):
    apply_theme()
    i, o, p = snakemake.input, snakemake.output, snakemake.params
    accuracy = read_csv(i.accuracy)
    pairwise = read_csv(i.pairwise)
    ranking = read_csv(i.ranking)
    plot_accuracy(accuracy, ranking, p.data_note, o.accuracy_png, o.accuracy_pdf, p.top_k)
    plot_pairwise(
        accuracy, pairwise, p.fdr_q, p.data_note, o.pairwise_q_png, o.pairwise_q_pdf, p.top_k
    )
    plot_difficulty(read_csv(i.difficulty), p.data_note, o.irt_difficulty_png, o.irt_difficulty_pdf)
    plot_ability(
        read_csv(i.ability), accuracy, p.data_note, o.irt_ability_png, o.irt_ability_pdf, p.top_k
    )
    plot_dendrogram(
        read_csv(i.jaccard),
        read_csv(i.linkage),
        p.data_note,
        o.failure_dendrogram_png,
        o.failure_dendrogram_pdf,
        leaves=read_csv(i.leaves),
    )
    # The item-analysis figure in this job too: a job of its own cost more than drawing it.
    items.main(snakemake)


if __name__ == "__main__" and "snakemake" in globals():
    run(main, snakemake)  # noqa: F821
