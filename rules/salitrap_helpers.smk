# Input functions and targets of the salitrap rules (kept apart from the rules,
# as `snakemake --lint` asks).


SALITRAP = config["salitrap"]


def salitrap_runs():
    return run_ids("salitrap")


def salitrap_models_csv(wildcards):
    path = raw_dir("salitrap") / "models.csv"
    return [str(path)] if path.exists() else []


def salitrap_simulated():
    """The bundled default data is simulated (raw/salitrap/SIMULATED.md)."""
    return (raw_dir("salitrap") / "SIMULATED.md").exists()


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


def salitrap_targets():
    return [
        "results/salitrap/tables/power.csv",
        "results/salitrap/figures/power_mde.png",
        "results/salitrap/tables/table1_tar_hfr.csv",
        "results/salitrap/check/published_check.md",
        "results/salitrap/tables/pairwise_tar.csv",
        "results/salitrap/tables/ranking.csv",
        "results/salitrap/tables/table5_pairs.tex",
        "results/salitrap/tables/table6_liberation.tex",
        "results/salitrap/tables/table7_interventions.tex",
        *(
            f"results/salitrap/figures/{name}.{ext}"
            for name in SALITRAP_FIGURES
            for ext in ("png", "pdf")
        ),
    ]
