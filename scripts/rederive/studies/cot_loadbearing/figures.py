"""Figures drawn from this study's CSV tables (no statistic is computed here).

References
----------
Paper 003 (CoT load-bearing), Figure 2 (behaviour by dataset), §5.3 (gradients),
    Figure 3 (judge sensitivity).
"""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from rederive.io.names import read_csv
from rederive.plots.theme import SIMULATED_NOTE, apply_theme, save_figure
from rederive.runner import run

COLORS = {"A": "#4C72B0", "B": "#55A868", "C": "#C44E52"}
NAMES = {"A": "A: silent bypass", "B": "B: self-correction", "C": "C: propagation"}


def _stacked_bars(ax, shares: pd.DataFrame) -> np.ndarray:
    """One A/B/C stacked bar per row of ``shares`` (``A_pct, B_pct, C_pct``); returns x."""
    x = np.arange(len(shares))
    bottom = np.zeros(len(shares))
    for lab in "ABC":
        values = shares[f"{lab}_pct"].to_numpy(float)
        ax.bar(x, values, bottom=bottom, color=COLORS[lab], label=NAMES[lab], width=0.7)
        bottom += values
    return x


def _ci_error(g: pd.DataFrame) -> np.ndarray:
    """Asymmetric error bars of ``C_pct`` from its CI bounds."""
    return np.vstack([g["C_pct"] - g["ci_low"], g["ci_high"] - g["C_pct"]])


def stacked_shares(table: pd.DataFrame):
    """Stacked A/B/C bars per dataset, one panel per model."""
    models = sorted(table["model"].unique())
    fig, axes = plt.subplots(
        1, len(models), figsize=(3.2 * len(models), 3.4), sharey=True, squeeze=False
    )
    for ax, model in zip(axes[0], models, strict=True):
        t = table[(table["model"] == model) & (table["dataset"] != "all")]
        x = _stacked_bars(ax, t)
        ax.set_xticks(x, t["dataset"].str.upper())
        ax.set_title(model, fontsize=9)
        ax.set_ylim(0, 100)
    axes[0][0].set_ylabel("% of continuations")
    axes[0][-1].legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=7, frameon=False)
    return fig


def gradients(position: pd.DataFrame, remaining: pd.DataFrame):
    """C rate with CIs by perturbation position and by remaining steps."""
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.2))
    for ax, frame, col, title in (
        (axes[0], position, "position", "by perturbation position"),
        (axes[1], remaining, "remaining", "by remaining steps"),
    ):
        for model, g in frame.groupby("model", sort=True):
            x = np.arange(len(g))
            err = _ci_error(g)
            ax.errorbar(x, g["C_pct"], yerr=err, marker="o", capsize=3, label=model)
            ax.set_xticks(x, g[col])
        ax.set_title(f"Type C rate {title}", fontsize=9)
        ax.set_ylabel("Type C (%)")
    axes[1].legend(fontsize=7, frameon=False)
    return fig


def subjects(frame: pd.DataFrame, model: str):
    """Per-subject C rates on MMLU for one model, sorted."""
    g = frame[frame["model"] == model].sort_values("C_pct")
    fig, ax = plt.subplots(figsize=(5, 0.18 * len(g) + 1.2))
    y = np.arange(len(g))
    err = _ci_error(g)
    ax.errorbar(g["C_pct"], y, xerr=err, fmt="o", color=COLORS["C"], capsize=2, markersize=3)
    ax.set_yticks(y, g["subject"].str.replace("_", " "), fontsize=6)
    ax.set_xlabel("Type C (%)")
    ax.set_title(f"MMLU subjects ({model})", fontsize=9)
    return fig


def judge(frame: pd.DataFrame):
    """A/B/C shares of the same continuations under each judge prompt."""
    fig, ax = plt.subplots(figsize=(5, 3))
    if frame.empty:
        ax.text(0.5, 0.5, "no judge variants in the data", ha="center", va="center")
        ax.set_axis_off()
        return fig
    g = frame.sort_values(["model", "A_pct"])
    x = _stacked_bars(ax, g)
    ax.set_xticks(x, g["judge_variant"], rotation=20, fontsize=7)
    fig.subplots_adjust(bottom=0.3)  # room for the tick labels above the provenance note
    ax.set_ylabel("% of re-labelled continuations")
    ax.set_title("Judge-prompt sensitivity", fontsize=9)
    ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return fig


def main(snakemake) -> None:
    apply_theme()
    note = SIMULATED_NOTE if snakemake.params.simulated else None
    out = snakemake.output
    table1 = read_csv(snakemake.input.table1)
    save_figure(stacked_shares(table1), out.shares_png, out.shares_pdf, note=note)
    save_figure(
        gradients(
            read_csv(snakemake.input.position),
            read_csv(snakemake.input.remaining, dtype={"remaining": str}),
        ),
        out.gradients_png,
        out.gradients_pdf,
        note=note,
    )
    subj = read_csv(snakemake.input.subjects)
    model = (
        snakemake.params.main_model
        if snakemake.params.main_model in set(subj["model"])
        else sorted(subj["model"])[0]
    )
    save_figure(subjects(subj, model), out.subjects_png, out.subjects_pdf, note=note)
    save_figure(judge(read_csv(snakemake.input.judge)), out.judge_png, out.judge_pdf, note=note)


if __name__ == "__main__" and "snakemake" in globals():
    run(main, snakemake)  # noqa: F821
