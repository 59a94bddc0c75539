"""Figure: minimum detectable difference against sample size, one per study.

Drawn only from ``tables/power.csv`` (the observed differences) and
``tables/power_mde_curve.csv`` (the curve): nothing is computed here.
"""

import matplotlib
import matplotlib.pyplot as plt
import matplotlib.ticker
import numpy as np
import pandas as pd

from rederive.io.names import read_csv
from rederive.plots.theme import DENSE_POINTS, SIMULATED_NOTE, apply_theme, save_figure


def draw(power: pd.DataFrame, curve: pd.DataFrame, *, title: str):
    """MDE (BH level, median per-unit sd, band = smallest to largest sd) against n,
    log-scale x; the study's n as a vertical line; the practically relevant
    difference as a horizontal line; observed |differences| as points at their n,
    coloured by the verdict."""
    apply_theme()
    fig, ax = plt.subplots(figsize=(8.6, 4.2))
    if curve.empty or curve["mde_bh_pp"].isna().all():
        # Too few units for any per-unit sd: say so rather than draw nothing.
        ax.text(0.5, 0.5, "no comparison with a per-unit sd to assess", ha="center")
        ax.set_axis_off()
        ax.set_title(title)
        return fig
    ax.fill_between(
        curve["n"],
        curve["mde_bh_low_pp"],
        curve["mde_bh_high_pp"],
        color="C0",
        alpha=0.18,
        label="MDE range over comparisons",
    )
    ax.plot(curve["n"], curve["mde_bh_pp"], color="C0", lw=2, label="MDE, median comparison (BH)")
    ax.plot(
        curve["n"], curve["mde_pp"], color="C0", lw=1, ls=":", label="MDE, one test at α (no BH)"
    )
    study_n = int(curve["study_n"].iloc[0])
    unit = str(curve["unit"].iloc[0])
    ax.axvline(study_n, color="0.3", lw=1, ls="--")
    ax.annotate(
        f"study n = {study_n:,} {unit}s",
        (study_n, 1.0),
        xycoords=("data", "axes fraction"),
        xytext=(3, -12),
        ha="left",
        textcoords="offset points",
        fontsize=8,
        color="0.3",
    )
    relevant = float(curve["relevant_pp"].iloc[0])
    ax.axhline(relevant, color="C3", lw=1, ls="-.", label=f"relevant difference ({relevant:g} pp)")
    styles = {
        "significant": ("C2", "o"),
        "tie, adequately powered": ("C1", "s"),
        "tie, underpowered": ("C3", "X"),
        "tie, not assessable": ("0.35", "v"),
        "excluded (small n)": ("0.6", "D"),
    }
    for verdict, (color, marker) in styles.items():
        sub = power[power["verdict"] == verdict]
        if sub.empty:
            continue
        ax.scatter(
            sub["n_units"],
            sub["diff_pp"].abs(),
            s=18,
            color=color,
            marker=marker,
            alpha=0.75,
            edgecolor="none",
            label=f"observed |diff|: {verdict} ({len(sub):,})",
            zorder=3,
            rasterized=len(power) > DENSE_POINTS,
        )
    ax.set_xscale("log")
    ax.set_xlabel(f"{unit}s per comparison (log scale)")
    ax.set_ylabel("difference, pp (symmetric log scale)")
    power_level = float(curve["power"].iloc[0])
    ax.set_title(f"{title}: detectable difference at {power_level:.0%} power")
    # Symmetric-log y: the ties sit within a few points of 0 while significant
    # differences reach tens of points; linear below 1 pp keeps zero on the axis.
    ax.set_yscale("symlog", linthresh=1.0, linscale=0.6)
    top = np.nanmax([curve["mde_bh_high_pp"].max(), power["diff_pp"].abs().max(), relevant]) * 1.4
    ax.set_ylim(0, top)
    ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=True)
    # Room under the axes for the provenance note save_figure adds.
    fig.subplots_adjust(bottom=0.2, right=0.68)
    return fig


def draw_check(table: pd.DataFrame, png: str) -> None:
    """Analytic power (lines) and simulated power (points) against n, one panel per design.

    ``table`` is the printed table of ``bench/power_simulation.py`` (design, n,
    analytic, simulated); saved as PNG and PDF side by side.
    """
    from pathlib import Path

    apply_theme()
    designs = list(dict.fromkeys(table["design"]))
    fig, axes = plt.subplots(1, len(designs), figsize=(4.2 * len(designs), 3.6), squeeze=False)
    for ax, design in zip(axes[0], designs, strict=True):
        sub = table[table["design"] == design]
        ax.plot(sub["n"], sub["analytic"], "-", color="C0", label="analytic")
        ax.plot(sub["n"], sub["simulated"], "o", color="C1", label="resampled")
        ax.set_xscale("log")
        ax.set_ylim(0, 1.02)
        ax.set_xlabel("n (log scale)")
        ax.set_ylabel("power")
        ax.set_title(design, fontsize=7)
        ax.legend(fontsize=7)
    save_figure(
        fig, png, Path(png).with_suffix(".pdf"), note="ChemBench: real; SaliTrap: simulated data"
    )


def main(snakemake):
    power = read_csv(snakemake.input.power)
    curve = read_csv(snakemake.input.curve)
    fig = draw(power, curve, title=snakemake.params.title)
    p = snakemake.params
    note = SIMULATED_NOTE if p.simulated else (p.note or None)
    save_figure(fig, snakemake.output.png, snakemake.output.pdf, note=note)


if __name__ == "__main__" and "snakemake" in globals():
    from rederive.runner import run

    run(main, snakemake)  # noqa: F821
