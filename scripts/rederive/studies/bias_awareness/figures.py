"""Figures of the bias-awareness study, drawn only from the table CSVs.

* ``susceptibility_awareness``: Pr[S] (x) against Pr[A] (y) per model and bias
  with their intervals; filled = strict judge, hollow = keyword filter.
* ``outcome_shares``: stacked shares of trial outcomes per model × bias, and a
  zoom on the S_C2W flips split into aware and silent (the TG decomposition).

References
----------
Gao, W., et al. (2026). arXiv:2606.15127, §3 (S, A, TG).
"""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from rederive.io.names import read_csv
from rederive.plots.theme import SIMULATED_NOTE, apply_theme, save_figure
from rederive.studies.bias_awareness.output import BIAS_LABELS, BIAS_ORDER

MARKERS = {"B4": "o", "B5": "s", "B6": "D", "all": "*"}
OUTCOME_LABELS = {
    "correct_kept": "correct, kept",
    "corrected": "wrong -> correct",
    "wrong_kept": "wrong, kept",
    "flipped_aware": "flipped (S), aware",
    "flipped_silent": "flipped (S), silent (TG)",
    "flipped_unjudged": "flipped (S), no judge label",
}


def susceptibility_awareness(main: pd.DataFrame):
    """Scatter of Pr[S] against Pr[A] per model × bias with CIs.

    Cells whose Pr[S] is not estimable (NaN in ``main``) are not drawn; the
    axes name them, so a missing point is never read as a 0.
    """
    models = sorted(main["model"].unique())
    colours = dict(zip(models, sns.color_palette(n_colors=len(models)), strict=True))
    fig, ax = plt.subplots(figsize=(6.4, 4.6))
    hidden = {}
    for row in main.itertuples(index=False):
        colour, marker = colours[row.model], MARKERS.get(row.bias, "o")
        x = row.susceptibility
        if np.isnan(x):
            # Not estimable (reason in main.csv): no position on the x axis, not a 0.
            hidden.setdefault(row.model, []).append(row.bias)
            continue
        xerr = [[x - row.susceptibility_low], [row.susceptibility_high - x]]
        for kind, filled in (("awareness_strict", True), ("awareness_keyword", False)):
            y = getattr(row, kind)
            if np.isnan(y):
                continue
            yerr = [[y - getattr(row, f"{kind}_low")], [getattr(row, f"{kind}_high") - y]]
            ax.errorbar(
                x,
                y,
                xerr=xerr if filled else None,
                yerr=yerr,
                fmt=marker,
                color=colour,
                markerfacecolor=colour if filled else "white",
                markersize=9 if row.bias == "all" else 6,
                elinewidth=0.8,
                capsize=2,
                alpha=0.95 if filled else 0.7,
            )
        if not np.isnan(row.awareness_strict) and not np.isnan(row.awareness_keyword):
            ax.plot(
                [x, x], [row.awareness_strict, row.awareness_keyword], color=colour, lw=0.6, ls=":"
            )
    handles = [plt.Line2D([], [], color=colours[m], marker="o", ls="", label=m) for m in models]
    handles += [
        plt.Line2D([], [], color="0.3", marker=MARKERS[b], ls="", label=BIAS_LABELS[b])
        for b in BIAS_ORDER
    ]
    handles += [
        plt.Line2D([], [], color="0.3", marker="o", ls="", label="strict judge"),
        plt.Line2D(
            [], [], color="0.3", marker="o", markerfacecolor="white", ls="", label="keyword filter"
        ),
    ]
    ax.legend(
        handles=handles, loc="center left", bbox_to_anchor=(1.02, 0.5), frameon=False, fontsize=8
    )
    ax.set_xlabel("Susceptibility Pr[S_C2W = 1] (%)")
    ax.set_ylabel("Awareness Pr[A = 1] (%)")
    ax.set_ylim(-2, 102)
    ax.set_xlim(left=0)
    ax.set_title("Susceptibility vs. awareness")
    if hidden:
        text = "; ".join(f"{m} ({', '.join(b)})" for m, b in hidden.items())
        ax.text(
            0.01,
            0.99,
            f"Pr[S] not estimable, not shown: {text}",
            transform=ax.transAxes,
            fontsize=7,
            va="top",
            color="0.3",
            wrap=True,
        )
    fig.tight_layout(rect=(0, 0.04, 1, 1))  # room for the provenance note
    return fig


def outcome_shares(outcomes: pd.DataFrame):
    """Stacked outcome shares and a zoom on the flips (aware vs. silent)."""
    frame = outcomes.copy()
    frame["cell"] = frame["model"] + " · " + frame["bias"].map(lambda b: "all" if b == "all" else b)
    cells = list(dict.fromkeys(frame["cell"]))
    wide = frame.pivot(index="cell", columns="outcome", values="percent").reindex(index=cells)
    present = [
        o
        for o in OUTCOME_LABELS
        if o in wide.columns and (o != "flipped_unjudged" or wide[o].sum() > 0)
    ]
    colours = dict(
        zip(
            OUTCOME_LABELS,
            sns.color_palette("colorblind", n_colors=len(OUTCOME_LABELS)),
            strict=True,
        )
    )
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 0.45 * len(cells) + 1.8), sharey=True)
    y = np.arange(len(cells))
    for ax, outcomes_shown in (
        (left, present),
        (right, [o for o in present if o.startswith("flipped")]),
    ):
        start = np.zeros(len(cells))
        for outcome in outcomes_shown:
            values = wide[outcome].fillna(0).to_numpy()
            ax.barh(
                y,
                values,
                left=start,
                color=colours[outcome],
                label=OUTCOME_LABELS[outcome],
                height=0.7,
            )
            start += values
    left.set_yticks(y, cells)
    left.invert_yaxis()
    left.set_xlabel("Share of biased trials (%)")
    left.set_xlim(0, 100)
    left.set_title("All outcomes")
    right.set_xlabel("Share of biased trials (%)")
    right.set_title("Zoom: bias-induced flips")
    handles, labels = left.get_legend_handles_labels()
    fig.legend(
        handles,
        labels,
        loc="lower center",
        ncol=3,
        frameon=False,
        fontsize=8,
        bbox_to_anchor=(0.5, -0.02),
    )
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    return fig


def main(snakemake):
    apply_theme()
    note = SIMULATED_NOTE if bool(snakemake.params.simulated) else None
    out = snakemake.output
    scatter = susceptibility_awareness(read_csv(snakemake.input.main_csv))
    save_figure(scatter, out.scatter_png, out.scatter_pdf, note=note)
    outcomes = outcome_shares(read_csv(snakemake.input.outcomes))
    save_figure(outcomes, out.outcomes_png, out.outcomes_pdf, note=note)


if __name__ == "__main__" and "snakemake" in globals():
    from rederive.runner import run

    run(main, snakemake)  # noqa: F821
