"""Fig 7 (liberation rates by model and condition) and Fig 8 (TAR under control
and prompt interventions P1–P3), drawn only from the Table 6 and 7 CSVs.

References
----------
SaliTrap (seed paper 000), Figs 7 and 8 (§5.4, §5.5), Appendix Tables 6 and 7.
"""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from rederive.plots.theme import SIMULATED_NOTE, apply_theme, save_figure
from rederive.studies.salitrap.common import OVERALL


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


def fig_liberation(table6: pd.DataFrame):
    overall = table6[table6["dimension"] == OVERALL]
    models = list(dict.fromkeys(overall["model"]))
    conditions = list(dict.fromkeys(overall["condition"]))
    fig, ax = plt.subplots(figsize=(1.6 * max(len(models), 2) + 2, 3.6))
    if overall.empty:
        ax.text(0.5, 0.5, "no liberation runs in the data", ha="center", transform=ax.transAxes)
    else:
        labels = {m: f"{m}\n(SC={int(g['sc_cases'].iloc[0])})" for m, g in overall.groupby("model")}
        grouped_bars(ax, overall, models, conditions, "condition")
        ax.set_xticks(range(len(models)), [labels[m] for m in models], rotation=0, ha="center")
        ax.legend(
            title="Condition",
            ncols=len(conditions),
            loc="upper center",
            bbox_to_anchor=(0.5, -0.22),
        )
    ax.set_ylabel("Liberation rate (%)")
    ax.set_ylim(0, 105)
    ax.set_title("Liberation of Sycophantic Compliance cases (95% CI)")
    fig.tight_layout()
    return fig


def fig_interventions(table7: pd.DataFrame):
    tar = table7[table7["metric"] == "TAR"]
    models = list(dict.fromkeys(tar["model"]))
    conditions = list(dict.fromkeys(tar["condition"]))
    fig, ax = plt.subplots(figsize=(1.8 * max(len(models), 2) + 2, 3.6))
    if tar.empty:
        ax.text(0.5, 0.5, "no intervention runs in the data", ha="center", transform=ax.transAxes)
    else:
        grouped_bars(ax, tar, models, conditions, "condition")
        ax.legend(
            title="Condition",
            ncols=len(conditions),
            loc="upper center",
            bbox_to_anchor=(0.5, -0.3),
        )
    ax.set_ylabel("TAR (%)")
    ax.set_title("TAR under control and prompt interventions (95% CI)")
    fig.tight_layout()
    return fig


def main(snakemake):
    apply_theme()
    note = SIMULATED_NOTE if snakemake.params.simulated else None
    out = snakemake.output
    table6 = pd.read_csv(snakemake.input.table6)
    table7 = pd.read_csv(snakemake.input.table7)
    save_figure(fig_liberation(table6), out.fig7_png, out.fig7_pdf, note=note)
    save_figure(fig_interventions(table7), out.fig8_png, out.fig8_pdf, note=note)


if __name__ == "__main__" and "snakemake" in globals():
    from rederive.runner import run

    run(main, snakemake)  # noqa: F821
