# Input functions and targets of the cot_loadbearing rules (kept apart from the
# rules, as `snakemake --lint` asks).


COT = config["cot_loadbearing"]
COT_TABLES = "results/cot_loadbearing/tables"
COT_FIGURES = "results/cot_loadbearing/figures"
COT_FIGURE_NAMES = ["shares", "gradients", "mmlu_subjects", "judge_sensitivity"]


def cot_loadbearing_runs():
    return run_ids("cot_loadbearing")


def cot_loadbearing_simulated():
    """Whether the raw folder holds the bundled simulated data (notes and captions say so)."""
    return (raw_dir("cot_loadbearing") / "SIMULATED.md").exists()


def cot_loadbearing_published(wildcards):
    return sorted(
        str(p) for p in (raw_dir("cot_loadbearing") / "published").glob("*.csv")
    )


def cot_loadbearing_targets():
    return [
        "results/cot_loadbearing/tables/power.csv",
        "results/cot_loadbearing/figures/power_mde.png",
        f"{COT_TABLES}/table1_main.csv",
        f"{COT_TABLES}/table5_deviance.csv",
        f"{COT_TABLES}/data_quality.csv",
        f"{COT_TABLES}/rule_vs_judge_agreement.csv",
        "results/cot_loadbearing/check/published_check.md",
    ] + [f"{COT_FIGURES}/{name}.png" for name in COT_FIGURE_NAMES]
