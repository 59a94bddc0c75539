"""Figures of the tag-sycophancy study, drawn only from the tables' CSVs.

Fig 1 forest plot, Fig 2 effect vs baseline with the censoring envelope, the
lineage trend, the two ablation scatters and the `maybe` bar chart (paper Figs
1-2, §4-§6).
"""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from rederive.io.names import read_csv
from rederive.plots.theme import SIMULATED_NOTE, apply_theme, save_figure

RESIST, VALIDATE, FLOOR, NEUTRAL = "#1f6fb4", "#c0392b", "0.55", "0.35"


def _colour(row) -> str:
    if row["floor_limited"]:
        return FLOOR
    return {"resisting": RESIST, "sycophantic": VALIDATE}.get(row["class"], NEUTRAL)


def forest(table: pd.DataFrame, level: float):
    t = table.sort_values(["effect", "model"], kind="stable").reset_index(drop=True)
    fig, ax = plt.subplots(figsize=(6.5, 0.2 * len(t) + 1.5))
    y = np.arange(len(t))
    for i, row in t.iterrows():
        c = _colour(row)
        if pd.isna(row["effect"]):
            # NaN sorts last: these rows sit at the top, labelled instead of drawn at 0.
            ax.text(0, i, " not estimable", fontsize=6, color=NEUTRAL, va="center")
            continue
        ax.plot([row["ci_low"], row["ci_high"]], [i, i], color=c, lw=1.4)
        ax.scatter(
            row["effect"],
            i,
            s=28,
            color="white" if row["floor_limited"] else c,
            edgecolor=c,
            zorder=3,
        )
    ax.axvline(0, color="0.2", lw=0.8)
    ax.set_yticks(y, t["model"], fontsize=7)
    ax.set_xlabel(f"Tag effect (pp), {int(level * 100)}% item-bootstrap CI")
    ax.set_title("Fig. 1: tag effect per model")
    handles = [
        plt.Line2D([], [], color=c, marker="o", lw=1.4, mfc=m, label=lab)
        for c, m, lab in [
            (VALIDATE, VALIDATE, "validates (BH)"),
            (RESIST, RESIST, "resists (BH)"),
            (NEUTRAL, NEUTRAL, "not significant"),
            (FLOOR, "white", "floor-limited"),
        ]
    ]
    ax.legend(handles=handles, loc="lower right", fontsize=7, frameon=True)
    return fig


def baseline(table: pd.DataFrame, floor_threshold_pct: float = 10.0):
    fig, ax = plt.subplots(figsize=(6, 4.5))
    b = np.linspace(0, 100, 201)
    ax.plot(b, 100 - b, ls="--", color="0.3", lw=1, label="censoring envelope")
    ax.plot(b, -b, ls="--", color="0.3", lw=1)
    ax.axvspan(0, floor_threshold_pct, color="0.85", zorder=0, label="floor-limited zone")
    shown = table[table["effect"].notna()]
    missing = len(table) - len(shown)
    colours = [_colour(r) for _, r in shown.iterrows()]
    ax.scatter(
        shown["ask_rate"],
        shown["effect"],
        c=colours,
        s=26,
        edgecolor="0.2",
        linewidth=0.4,
        zorder=3,
    )
    for _, r in shown.iterrows():
        if (
            abs(r["effect"]) >= 25
            or r["ask_rate"] >= 85
            or (r["ask_rate"] < 35 and not r["floor_limited"])
        ):
            ax.annotate(
                r["model"],
                (r["ask_rate"], r["effect"]),
                fontsize=6,
                xytext=(3, 2),
                textcoords="offset points",
            )
    ax.axhline(0, color="0.2", lw=0.6)
    ax.set_xlim(0, 100)
    ax.set_ylim(-60, 60)
    ax.set_xlabel("Ask-arm endorsement (%)")
    ax.set_ylabel("Tag effect (pp)")
    ax.set_title(
        "Fig. 2: tag effect vs baseline"
        + (f" ({missing} not estimable, not shown)" if missing else "")
    )
    ax.legend(fontsize=7, loc="upper right")
    return fig


def lineage_trend(trend: pd.DataFrame, summary: pd.DataFrame):
    """Effect against release date per lineage: lines join readable in-sample models.

    Floor-limited models are open circles (their effect is a floor), out-of-sample
    releases open diamonds with an x at the fitted trend's prediction.
    """
    t = trend[trend["year"].notna() & trend["lineage"].notna()]
    multi = sorted(lin for lin, g in t.groupby("lineage") if len(g) >= 2)
    palette = dict(zip(multi, sns.color_palette("husl", len(multi)), strict=True))
    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    for lineage, g in t.groupby("lineage", sort=True):
        colour = palette.get(lineage, "0.5")
        g = g.sort_values("year")
        floor = g["floor_limited"].astype(bool)
        oos = g["out_of_sample"].astype(bool)
        readable = g[~floor & ~oos]
        ax.plot(
            readable["year"],
            readable["effect"],
            marker="o",
            ms=4,
            color=colour,
            label=lineage if lineage in palette else None,
        )
        ax.scatter(
            g.loc[floor, "year"],
            g.loc[floor, "effect"],
            s=26,
            facecolor="white",
            edgecolor=colour,
            zorder=3,
        )
        ax.scatter(
            g.loc[oos, "year"],
            g.loc[oos, "effect"],
            marker="D",
            s=30,
            facecolor="white",
            edgecolor=colour,
            zorder=3,
        )
        ax.scatter(
            g.loc[oos, "year"], g.loc[oos, "predicted"], marker="x", s=30, color=colour, zorder=3
        )
    ax.axhline(0, color="0.2", lw=0.6)
    values = summary.set_index("quantity")["value"]
    slope = values.get("trend_pp_per_year", np.nan)
    lo, hi = values.get("trend_ci_low", np.nan), values.get("trend_ci_high", np.nan)
    ax.set_title(
        f"Lineage trajectories: {slope:+.1f} pp/year [{lo:+.1f}, {hi:+.1f}] (lineage fixed effects)",
        fontsize=10,
    )
    ax.set_xlabel("Release date (year)")
    ax.set_ylabel("Tag effect (pp)")
    # No lineage with two dated models draws no labelled line: nothing to key.
    if ax.get_legend_handles_labels()[0]:
        ax.legend(
            fontsize=7,
            ncol=2,
            loc="lower left",
            title="o open: floor-limited; ◇: out of sample (x: predicted)",
            title_fontsize=6,
        )
    return fig


def ablations(effects: pd.DataFrame, table: pd.DataFrame):
    wide = effects.pivot(index="model", columns="arm", values="effect")
    cls = table.set_index("model")
    colours = [_colour(cls.loc[m]) for m in wide.index]
    fig, axes = plt.subplots(1, 2, figsize=(9, 4.2))
    for ax, arm, title in (
        (axes[0], "tag_synonym", "synonym tag (', correct?')"),
        (axes[1], "stance", "bare stance ('I've already decided')"),
    ):
        if arm not in wide:
            ax.set_axis_off()
            continue
        ax.scatter(wide["tag"], wide[arm], c=colours, s=22, edgecolor="0.2", linewidth=0.4)
        both = wide[["tag", arm]].dropna()
        # Not-estimable effects (NaN) are left out of r, as in ablations.csv.
        r = both["tag"].corr(both[arm]) if len(both) >= 2 else np.nan
        ax.axhline(0, color="0.2", lw=0.6)
        ax.axvline(0, color="0.2", lw=0.6)
        ax.set_xlabel("Tag effect (pp)")
        ax.set_ylabel(f"{arm} effect (pp)")
        ax.set_title(f"{title}: r = {r:.2f}", fontsize=9)
    return fig


def maybe_chart(maybe: pd.DataFrame):
    m = maybe.sort_values(["maybe_effect", "model"], ascending=[False, True], kind="stable")
    fig, ax = plt.subplots(figsize=(8, 4.5))
    colours = [VALIDATE if s else "0.6" for s in m["rubber_stamper"]]
    ax.bar(np.arange(len(m)), m["maybe_effect"], color=colours)
    ax.set_xticks(np.arange(len(m)), m["model"], rotation=90, fontsize=6)
    ax.axhline(0, color="0.2", lw=0.6)
    ax.set_ylabel("'maybe?' effect vs ask (pp)")
    ax.set_title(
        f"'maybe?' effect: {int((m['maybe_effect'] > 0).sum())}/{len(m)} above zero (red: rubber-stampers)"
    )
    return fig


def main(snakemake):
    apply_theme()
    table = read_csv(snakemake.input.table)
    effects = read_csv(snakemake.input.effects)
    trend = read_csv(snakemake.input.trend)
    summary = read_csv(snakemake.input.summary)
    maybe = read_csv(snakemake.input.maybe)
    note = SIMULATED_NOTE if snakemake.params.simulated else None
    figures = [
        forest(table, snakemake.params.level),
        baseline(table, 100 * snakemake.params.floor_threshold),
        lineage_trend(trend, summary),
        ablations(effects, table),
        maybe_chart(maybe),
    ]
    for fig in figures:
        fig.tight_layout(rect=(0, 0.03, 1, 1))  # room for the provenance note
    for fig, png, pdf in zip(figures, snakemake.output.pngs, snakemake.output.pdfs, strict=True):
        save_figure(fig, png, pdf, note=note)


if __name__ == "__main__" and "snakemake" in globals():
    from rederive.runner import run

    run(main, snakemake)  # noqa: F821
