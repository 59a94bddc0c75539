# Input functions, targets and report helper of the tag_sycophancy rules (kept
# apart from the rules, as `snakemake --lint` asks).


TAGSYC = config["tag_sycophancy"]
TAGSYC_TABLES = "results/tag_sycophancy/tables"
TAGSYC_FIGURES = "results/tag_sycophancy/figures"
TAGSYC_FIGURE_NAMES = [
    "fig1_forest",
    "fig2_baseline",
    "fig3_lineage_trend",
    "fig4_ablations",
    "fig5_maybe",
]


def tag_sycophancy_runs():
    return run_ids("tag_sycophancy")


def tag_sycophancy_models_csv(wildcards):
    path = raw_dir("tag_sycophancy") / "models.csv"
    return [str(path)] if path.exists() else []


def tag_sycophancy_simulated():
    """The bundled default data is simulated (raw/tag_sycophancy/SIMULATED.md)."""
    return (raw_dir("tag_sycophancy") / "SIMULATED.md").exists()


def tag_sycophancy_targets():
    return [
        "results/tag_sycophancy/tables/power.csv",
        "results/tag_sycophancy/figures/power_mde.png",
        f"{TAGSYC_TABLES}/tag_effects.csv",
        f"{TAGSYC_TABLES}/panel_summary.csv",
        f"{TAGSYC_TABLES}/leading_tokens.csv",
        *expand(f"{TAGSYC_FIGURES}/{{name}}.png", name=TAGSYC_FIGURE_NAMES),
        "results/tag_sycophancy/check/published_check.md",
    ]


def tagsyc_report(path, caption):
    return report(
        path,
        caption=f"report/tag_sycophancy/{caption}.rst",
        category="Tag sycophancy",
        subcategory="Figures" if path.endswith(".png") else "Tables",
    )
