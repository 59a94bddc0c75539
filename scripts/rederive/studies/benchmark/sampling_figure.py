"""Rule ``plot_benchmark_sampling``: pass@k and pass^k against k, one line per model
with its interval as a band, drawn only from ``tables/sampling.csv``.

pass@k rises with k (more tries, more chances) and pass^k falls (every try must
succeed); the gap between them at a k is how inconsistent a model is. Models
without a metric (grades not 0/1) are named under the figure, not drawn.
"""

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns
from matplotlib.ticker import FixedLocator, NullLocator

from rederive.io.names import read_csv
from rederive.plots.theme import apply_theme, save_figure
from rederive.runner import run

#: The panels, left to right: metric of sampling.csv and its title.
PANELS = (
    ("pass@k", "pass@k: at least one of k samples correct"),
    ("pass^k", "pass^k: all k samples correct"),
)


def _rows(table: pd.DataFrame, metric: str) -> pd.DataFrame:
    rows = table[(table["metric"] == metric) & table["estimate"].notna()].copy()
    rows["k"] = rows["k"].astype(int)
    return rows.sort_values(["model", "k"])


def missing_models(table: pd.DataFrame) -> list[str]:
    """Models of the table with no pass@k or pass^k estimate at any k (not drawn)."""
    drawn = table[table["metric"].isin([m for m, _ in PANELS]) & table["estimate"].notna()]
    return sorted(set(table["model"]) - set(drawn["model"]))


def plot_sampling(table: pd.DataFrame, note: str, png, pdf) -> None:
    """Two panels (pass@k, pass^k) of estimate (%) against k with interval bands."""
    models = sorted(set(table["model"]) - set(missing_models(table)))
    colours = dict(zip(models, sns.color_palette(n_colors=max(len(models), 1)), strict=False))
    fig, axes = plt.subplots(1, 2, figsize=(9.5, 3.8), sharey=True)
    ks = sorted({int(k) for k in table["k"].dropna()})
    for ax, (metric, title) in zip(axes, PANELS, strict=True):
        rows = _rows(table, metric)
        if rows.empty:
            ax.text(
                0.5,
                0.5,
                f"{metric} not in sampling.csv",
                ha="center",
                va="center",
                transform=ax.transAxes,
            )
        for model, group in rows.groupby("model", sort=True):
            colour = colours[model]
            ax.fill_between(
                group["k"].to_numpy(dtype=float),
                100 * group["ci_low"].to_numpy(dtype=float),
                100 * group["ci_high"].to_numpy(dtype=float),
                color=colour,
                alpha=0.18,
                linewidth=0,
            )
        if not rows.empty:
            sns.lineplot(
                data=rows.assign(estimate_100=100 * rows["estimate"]),
                x="k",
                y="estimate_100",
                hue="model",
                hue_order=models,
                palette=colours,
                marker="o",
                markersize=4,
                ax=ax,
                legend=ax is axes[0],
                errorbar=None,
            )
        if ks and max(ks) / min(ks) >= 8:
            ax.set_xscale("log", base=2)
        ax.xaxis.set_major_locator(FixedLocator(ks or [1]))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xticklabels([str(k) for k in ks or [1]])
        ax.set_xlabel("k (samples drawn)")
        ax.set_ylabel("estimate (%) with interval")
        ax.set_ylim(-2, 102)
        ax.set_title(title, fontsize=9)
    legend = axes[0].get_legend()
    if legend is not None:
        handles, labels = axes[0].get_legend_handles_labels()
        legend.remove()
        fig.legend(
            handles,
            labels,
            loc="upper left",
            bbox_to_anchor=(1.0, 0.95),
            fontsize=7,
            frameon=False,
            title="model",
            title_fontsize=7,
        )
    method = ", ".join(sorted({m for m in table["method"].dropna().astype(str) if m}))
    fig.suptitle("pass@k and pass^k against k, per model", fontweight="bold")
    fig.tight_layout()
    lost = missing_models(table)
    parts = [note, f"Bands: {method}" if method else ""]
    if lost:
        parts.append(f"Not drawn (no pass@k or pass^k, see sampling.csv): {', '.join(lost)}")
    text = ". ".join(p.rstrip(". ") for p in parts if p)
    save_figure(fig, png, pdf, note=text + "." if text else "")


def main(snakemake):
    apply_theme()
    table = read_csv(snakemake.input.sampling)
    # Empty numeric cells read as NaN; a table of n/a rows only still draws its panels.
    for column in ("estimate", "ci_low", "ci_high"):
        table[column] = pd.to_numeric(table[column], errors="coerce").astype(float)
    table["k"] = pd.to_numeric(table["k"], errors="coerce")
    plot_sampling(table, snakemake.params.data_note, snakemake.output.png, snakemake.output.pdf)


if __name__ == "__main__" and "snakemake" in globals():
    run(main, snakemake)  # noqa: F821
