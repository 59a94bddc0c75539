"""Fig 4 (IRT item difficulty by dimension: (a) distributions, (b) box plots,
(c) model ability against TAR with Spearman ρ) and Fig 9 (naturalness against
difficulty with a linear trend, Pearson r in the legend). Drawn only from the
IRT CSVs.

Panels (a) and (b) show a *distribution* of difficulties, so they draw the
spread-matched (constrained-Bayes) estimate ``difficulty_spread``: posterior means
are shrunk and would make the items look more alike than they are. Items every
model passes or fails are drawn (finite, shrunk, wide interval) and counted in
the panel title; Fig 9 draws the posterior means.

References
----------
SaliTrap (seed paper 000), Fig 4 (§4.2) and Appendix Fig 9.
"""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from rederive.studies.salitrap.common import SHORT
from rederive.studies.salitrap.figures import draw_figures


def _stat(stats: pd.DataFrame, name: str) -> pd.Series:
    return stats.set_index("statistic").loc[name]


def _extreme_note(items: pd.DataFrame) -> str:
    extreme = (
        items["extreme"].fillna("") if "extreme" in items else pd.Series("", index=items.index)
    )
    n_pass, n_fail = int((extreme == "all pass").sum()), int((extreme == "all fail").sum())
    return f"{len(items):,} items; all pass {n_pass}, all fail {n_fail} (kept, shrunk)"


def fig4(items: pd.DataFrame, models: pd.DataFrame, stats: pd.DataFrame):
    items = items.assign(Dimension=items["dimension"].map(lambda d: SHORT.get(d, d)))
    column = "difficulty_spread" if "difficulty_spread" in items else "difficulty"
    label = "IRT difficulty (spread-matched)" if column != "difficulty" else "IRT difficulty"
    order = list(dict.fromkeys(items["Dimension"]))
    fig, axes = plt.subplots(1, 3, figsize=(14, 4))
    if items["difficulty"].notna().sum() == 0:
        # No 1PL was fitted (one model, or one item): say why instead of drawing.
        reason = next((n for n in models.get("ability_note", []) if isinstance(n, str)), "")
        for ax in axes:
            ax.text(0.5, 0.5, reason or "no 1PL fit", ha="center", va="center", wrap=True)
            ax.set_axis_off()
        return fig
    sns.kdeplot(
        data=items,
        x=column,
        hue="Dimension",
        hue_order=order,
        ax=axes[0],
        common_norm=False,
        fill=True,
        alpha=0.15,
        warn_singular=False,
    )
    axes[0].set_title(f"(a) Item difficulty distributions\n{_extreme_note(items)}", fontsize=9)
    axes[0].set_xlabel(label)
    sns.boxplot(
        data=items,
        x="Dimension",
        y=column,
        order=order,
        ax=axes[1],
        hue="Dimension",
        hue_order=order,
        legend=False,
    )
    axes[1].set_title("(b) Difficulty by dimension")
    axes[1].set_xlabel("")
    axes[1].set_ylabel(label)
    axes[1].tick_params(axis="x", rotation=20)
    ax = axes[2]
    # A perfect or zero score has no finite ML ability (NaN in the table): said, not drawn.
    shown = models[np.isfinite(models["ability"])]
    y = shown["ability"].to_numpy()
    err = np.vstack([y - shown["ci_low"].to_numpy(), shown["ci_high"].to_numpy() - y])
    err = np.where(np.isfinite(err), err, 0.0)
    ax.errorbar(shown["tar"], y, yerr=err, fmt="o", capsize=2, linewidth=0.8)
    for _, r in shown.iterrows():
        ax.annotate(
            r["model"],
            (r["tar"], r["ability"]),
            fontsize=6,
            xytext=(3, 3),
            textcoords="offset points",
        )
    if len(shown) < len(models):
        ax.text(
            0.02,
            0.98,
            f"not shown (no finite ML ability, see irt_models.csv): {', '.join(models.loc[~models.index.isin(shown.index), 'model'])}",
            transform=ax.transAxes,
            va="top",
            fontsize=6,
        )
    rho = _stat(stats, "spearman_rho_ability_tar")
    ax.set_title(f"(c) Ability vs TAR (Spearman ρ = {rho['value']:.3f})")
    ax.set_xlabel("TAR (%)")
    ax.set_ylabel("IRT ability, marginal ML (item-bootstrap 95% CI)")
    fig.tight_layout()
    return fig


def fig9(items: pd.DataFrame, stats: pd.DataFrame):
    items = items.assign(Dimension=items["dimension"].map(lambda d: SHORT.get(d, d)))
    rng = np.random.default_rng(0)  # jitter of a discrete axis, display only
    jitter = rng.uniform(-0.15, 0.15, len(items))
    fig, ax = plt.subplots(figsize=(6, 4.2))
    sns.scatterplot(
        x=items["naturalness"] + jitter,
        y=items["difficulty"],
        hue=items["Dimension"],
        ax=ax,
        s=10,
        alpha=0.6,
        linewidth=0,
    )
    slope = _stat(stats, "trend_slope_difficulty_per_naturalness_point")["value"]
    intercept = _stat(stats, "trend_intercept")["value"]
    r = _stat(stats, "pearson_r_naturalness_difficulty")
    x = np.linspace(items["naturalness"].min(), items["naturalness"].max(), 20)
    ax.plot(
        x,
        intercept + slope * x,
        color="black",
        label=f"linear trend (Pearson r = {r['value']:.3f}, p = {r['p_value']:.2g})",
    )
    ax.set_xlabel("Naturalness score (jittered)")
    ax.set_ylabel("IRT difficulty (posterior mean)")
    ax.set_title("Naturalness vs IRT difficulty")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def main(snakemake):
    draw_figures(
        snakemake,
        lambda item_params, model_params, stats: {
            "fig4": fig4(item_params, model_params, stats),
            "fig9": fig9(item_params, stats),
        },
    )
