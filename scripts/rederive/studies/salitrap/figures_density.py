"""Figs 6 and 12: TAR and CoT-Hijacked rate against the number of injected
numbers, averaged over models (Fig 6) and per dimension (Fig 12). Drawn only
from ``density_rates.csv`` and ``density_slopes.csv``.

References
----------
SaliTrap (seed paper 000), Fig 6 (§5.3) and Appendix Fig 12.
"""

import matplotlib.pyplot as plt
import pandas as pd

from rederive.studies.salitrap.common import OVERALL, SHORT
from rederive.studies.salitrap.figures import draw_figures

NAMES = {"TAR": "TAR (%)", "CHR": "CoT Hijacked (%)"}


def _draw(ax, sub: pd.DataFrame, color, label=None) -> None:
    sub = sub.sort_values("bin")
    x = sub["bin"].to_numpy()
    y = sub["percent"].to_numpy()
    ax.fill_between(x, sub["ci_low"], sub["ci_high"], color=color, alpha=0.2, linewidth=0)
    ax.plot(x, y, marker="o", color=color, label=label)
    ax.set_xticks(x, sub["bin_label"].tolist())


def _slope_text(slopes: pd.DataFrame, dimension: str, metric: str) -> str:
    row = slopes[(slopes["dimension"] == dimension) & (slopes["metric"] == metric)]
    if row.empty:
        return ""
    r = row.iloc[0]
    return f"slope {r.slope_pp_per_number:+.2f} pp/number [{r.ci_low:+.2f}, {r.ci_high:+.2f}]"


def fig_overall(rates: pd.DataFrame, slopes: pd.DataFrame, metrics: list[str]):
    fig, axes = plt.subplots(1, len(metrics), figsize=(4.2 * len(metrics), 3.4), squeeze=False)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for ax, metric, color in zip(axes[0], metrics, colors, strict=False):
        sub = rates[(rates["dimension"] == OVERALL) & (rates["metric"] == metric)]
        _draw(ax, sub, color)
        ax.set_xlabel("Injected numbers")
        ax.set_ylabel(NAMES.get(metric, metric))
        ax.set_title(_slope_text(slopes, OVERALL, metric), fontsize=8, fontweight="normal")
    fig.suptitle("Distractor density: mean over models (95% CI)")
    fig.tight_layout()
    return fig


def fig_by_dimension(rates: pd.DataFrame, slopes: pd.DataFrame, metrics: list[str]):
    dims = [d for d in dict.fromkeys(rates["dimension"]) if d != OVERALL]
    fig, axes = plt.subplots(
        len(metrics),
        len(dims),
        figsize=(3.2 * len(dims), 2.9 * len(metrics)),
        squeeze=False,
        sharey="row",
    )
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, metric in enumerate(metrics):
        for j, dimension in enumerate(dims):
            ax = axes[i, j]
            sub = rates[(rates["dimension"] == dimension) & (rates["metric"] == metric)]
            _draw(ax, sub, colors[i % len(colors)])
            ax.set_title(
                f"{SHORT.get(dimension, dimension)}\n{_slope_text(slopes, dimension, metric)}",
                fontsize=8,
            )
            ax.set_xlabel("Injected numbers" if i == len(metrics) - 1 else "")
            ax.set_ylabel(NAMES.get(metric, metric) if j == 0 else "")
            ax.tick_params(axis="x", labelsize=7)
    fig.suptitle("Distractor density by trap dimension: mean over models (95% CI)")
    fig.tight_layout()
    return fig


def draw(rates: pd.DataFrame, slopes: pd.DataFrame) -> dict:
    metrics = list(dict.fromkeys(rates["metric"]))
    return {
        "fig6": fig_overall(rates, slopes, metrics),
        "fig12": fig_by_dimension(rates, slopes, metrics),
    }


def main(snakemake):
    draw_figures(snakemake, draw)
