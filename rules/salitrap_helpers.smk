# Targets and run discovery of the salitrap rules (kept apart from the rules, as
# `snakemake --lint` asks). Functions take the analysis name.


def salitrap_runs(name):
    return run_ids(name)


SALITRAP_FIGURES = [
    "fig4_irt",
    "fig5_dendrogram",
    "fig6_density",
    "fig7_liberation",
    "fig8_interventions",
    "fig9_naturalness_difficulty",
    "fig10_co_failure",
    "fig11_jaccard",
    "fig12_density_by_dimension",
    "overview_labels",
]


def salitrap_targets(name):
    tables = f"results/{name}/tables"
    return [
        f"{tables}/power.csv",
        f"results/{name}/figures/power_mde.png",
        f"{tables}/table1_tar_hfr.csv",
        f"results/{name}/check/published_check.md",
        f"{tables}/pairwise_tar.csv",
        f"{tables}/ranking.csv",
        f"{tables}/table5_pairs.tex",
        f"{tables}/table6_liberation.tex",
        f"{tables}/table7_interventions.tex",
        f"{tables}/suspect_items.md",
        f"results/{name}/figures/suspect_items.png",
        *(
            f"results/{name}/figures/{fig}.{ext}"
            for fig in SALITRAP_FIGURES
            for ext in ("png", "pdf")
        ),
    ]
