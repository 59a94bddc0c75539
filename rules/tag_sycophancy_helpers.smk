# Targets, run discovery and report helper of the tag_sycophancy rules (kept apart
# from the rules, as `snakemake --lint` asks). Functions take the analysis name.


TAGSYC_FIGURE_NAMES = [
    "fig1_forest",
    "fig2_baseline",
    "fig3_lineage_trend",
    "fig4_ablations",
    "fig5_maybe",
]


def tag_sycophancy_runs(name):
    return run_ids(name)


def tag_sycophancy_targets(name):
    tables = f"results/{name}/tables"
    return [
        f"{tables}/power.csv",
        f"results/{name}/figures/power_mde.png",
        f"{tables}/tag_effects.csv",
        f"{tables}/panel_summary.csv",
        f"{tables}/leading_tokens.csv",
        *[f"results/{name}/figures/{fig}.png" for fig in TAGSYC_FIGURE_NAMES],
        f"results/{name}/check/published_check.md",
    ]


def tagsyc_report(path, caption):
    return report(
        path,
        caption=f"report/tag_sycophancy/{caption}.rst",
        category="{analysis}",
        subcategory="Figures" if path.endswith(".png") else "Tables",
    )
