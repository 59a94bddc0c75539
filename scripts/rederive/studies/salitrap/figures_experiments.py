"""Fig 7 (liberation rates by model and condition) and Fig 8 (TAR under control
and prompt interventions P1–P3), drawn only from the Table 6 and 7 CSVs.

References
----------
SaliTrap (seed paper 000), Figs 7 and 8 (§5.4, §5.5), Appendix Tables 6 and 7.
"""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from rederive.studies.salitrap.common import OVERALL
from rederive.studies.salitrap.figures import draw_figures


def grouped_bars(ax, frame: pd.DataFrame, groups: list[str], hues: list[str], hue_col: str):
    """Bars of ``percent`` per group × hue with asymmetric CI whiskers."""
    width = 0.8 / max(len(hues), 1)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    x = np.arange(len(groups))
    for h, hue in enumerate(hues):
        sub = frame[frame[hue_col] == hue].set_index("model").reindex(groups)
        y = sub["percent"].to_numpy(dtype=float)
        err = np.vstack(
            [y - sub["ci_low"].to_numpy(dtype=float), sub["ci_high"].to_numpy(dtype=float) - y]
        )
        ax.bar(
            x + (h - (len(hues) - 1) / 2) * width,
            y,
            width,
            label=hue,
            color=colors[h % len(colors)],
            yerr=np.nan_to_num(err),
            capsize=2,
            error_kw={"linewidth": 0.8},
        )
    ax.set_xticks(x, groups, rotation=20, ha="right")


def bar_figure(frame: pd.DataFrame, *, width: float, empty: str, legend_y: float, tick_labels=None):
    """Bars of ``percent`` per model × condition with the condition legend below."""
    models = list(dict.fromkeys(frame["model"]))
    conditions = list(dict.fromkeys(frame["condition"]))
    fig, ax = plt.subplots(figsize=(width * max(len(models), 2) + 2, 3.6))
    if frame.empty:
        ax.text(0.5, 0.5, empty, ha="center", transform=ax.transAxes)
        return fig, ax
    grouped_bars(ax, frame, models, conditions, "condition")
    if tick_labels is not None:
        ax.set_xticks(range(len(models)), [tick_labels[m] for m in models], rotation=0, ha="center")
    ax.legend(
        title="Condition",
        ncols=len(conditions),
        loc="upper center",
        bbox_to_anchor=(0.5, legend_y),
    )
    return fig, ax


def fig_liberation(table6: pd.DataFrame):
    overall = table6[table6["dimension"] == OVERALL]
    labels = {m: f"{m}\n(SC={int(g['sc_cases'].iloc[0])})" for m, g in overall.groupby("model")}
    fig, ax = bar_figure(
        overall,
        width=1.6,
        empty="no liberation runs in the data",
        legend_y=-0.22,
        tick_labels=labels,
    )
    ax.set_ylabel("Liberation rate (%)")
    ax.set_ylim(0, 105)
    ax.set_title("Liberation of Sycophantic Compliance cases (95% CI)")
    fig.tight_layout()
    return fig


def fig_interventions(table7: pd.DataFrame):
    tar = table7[table7["metric"] == "TAR"]
    fig, ax = bar_figure(tar, width=1.8, empty="no intervention runs in the data", legend_y=-0.3)
    ax.set_ylabel("TAR (%)")
    ax.set_title("TAR under control and prompt interventions (95% CI)")
    fig.tight_layout()
    return fig


def main(snakemake):
    draw_figures(
        snakemake,
        lambda table6, table7: {
            "fig7": fig_liberation(table6),
            "fig8": fig_interventions(table7),
        },
    )
