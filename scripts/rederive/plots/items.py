"""Figure ``suspect_items``: every item's discrimination against its Rasch misfit.

Drawn from ``tables/item_analysis.csv`` (written by the item-analysis rule of the
kind; nothing is computed here): item-rest correlation on x, outfit mean-square
on y (log scale), flagged items coloured by their first flag, the threshold
lines from the same settings that raised the flags, and the ``n_listed`` most
suspect items labelled with their rank in ``suspect_items.csv``.
"""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import FuncFormatter, NullFormatter

from rederive.io.names import read_csv
from rederive.plots.theme import DENSE_POINTS, SIMULATED_NOTE, apply_theme, save_figure

FLAG_LABELS = {
    "negative_discrimination": "negative discrimination",
    "misfit": "misfit",
    "flips_across_epochs": "flips across epochs",
}


def first_flag(analysis: pd.DataFrame) -> pd.Series:
    """The first of the drawn flags each item carries ("" for none)."""
    first = pd.Series("", index=analysis.index)
    for flag in reversed(list(FLAG_LABELS)):
        first = first.mask(analysis[flag].astype(bool), flag)
    return first


def plot_suspect_items(
    analysis: pd.DataFrame,
    suspects: pd.DataFrame,
    *,
    item_column: str,
    thresholds: dict,
    n_listed: int,
    note: str,
    png,
    pdf,
) -> None:
    """Scatter of item-rest r against outfit MNSQ, flagged items highlighted."""
    fig, ax = plt.subplots(figsize=(7.0, 4.8))
    drawn = analysis[np.isfinite(analysis["item_rest_r"]) & np.isfinite(analysis["outfit_mnsq"])]
    first = first_flag(drawn)
    ax.scatter(
        drawn.loc[first == "", "item_rest_r"],
        drawn.loc[first == "", "outfit_mnsq"],
        s=6,
        color="0.7",
        alpha=0.6,
        linewidths=0,
        label=f"not flagged ({int((first == '').sum()):,})",
        rasterized=len(drawn) > DENSE_POINTS,
    )
    for k, (flag, label) in enumerate(FLAG_LABELS.items()):
        rows = drawn[first == flag]
        if len(rows):
            ax.scatter(
                rows["item_rest_r"],
                rows["outfit_mnsq"],
                s=14,
                color=f"C{k + 1}",
                linewidths=0,
                label=f"{label} ({len(rows):,})",
                rasterized=len(rows) > DENSE_POINTS,
            )
    ax.set_yscale("log")
    # Plain numbers: the theme turns mathtext off, so 10^x labels would print raw.
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.axvline(thresholds["discrimination_below"], color="0.3", lw=0.8, ls="--")
    ax.axhline(thresholds["mnsq_above"], color="0.3", lw=0.8, ls=":")
    top = suspects.head(n_listed)
    placed = top[top[item_column].isin(drawn[item_column])]
    seen = set()
    for _, row in placed.iterrows():
        # Items with the same pattern share a point: label it once, with the best rank.
        spot = (round(row["item_rest_r"], 3), round(np.log10(row["outfit_mnsq"]), 2))
        if spot in seen:
            continue
        seen.add(spot)
        ax.annotate(
            str(int(row["rank"])),
            (row["item_rest_r"], row["outfit_mnsq"]),
            xytext=(3, 2),
            textcoords="offset points",
            fontsize=6,
        )
    n_none = int(analysis["solved_by_none"].sum())
    n_all = int(analysis["solved_by_all"].sum())
    ax.set_xlabel("Item-rest correlation (point-biserial)")
    ax.set_ylabel("Rasch outfit mean-square (log)")
    ax.set_title("Item analysis: suspect items")
    ax.legend(
        loc="upper right",
        fontsize=7,
        title=f"solved by none: {n_none:,}, by all: {n_all:,} (not drawn)",
        title_fontsize=7,
    )
    fig.subplots_adjust(bottom=0.14)
    save_figure(fig, png, pdf, note=note)


def main(snakemake):
    apply_theme()
    p = snakemake.params
    plot_suspect_items(
        read_csv(snakemake.input.analysis),
        read_csv(snakemake.input.suspects),
        item_column=p.item_column,
        thresholds=p.settings,
        n_listed=p.settings["n_listed"],
        note=SIMULATED_NOTE if p.simulated else p.data_note,
        png=snakemake.output.png,
        pdf=snakemake.output.pdf,
    )
