# Targets and run discovery of the cot_loadbearing rules (kept apart from the
# rules, as `snakemake --lint` asks). Functions take the analysis name.


COT_FIGURE_NAMES = ["shares", "gradients", "mmlu_subjects", "judge_sensitivity"]


def cot_loadbearing_runs(name):
    return run_ids(name)


def cot_loadbearing_targets(name):
    tables = f"results/{name}/tables"
    return [
        f"{tables}/power.csv",
        f"results/{name}/figures/power_mde.png",
        f"{tables}/table1_main.csv",
        f"{tables}/table5_deviance.csv",
        f"{tables}/data_quality.csv",
        f"{tables}/rule_vs_judge_agreement.csv",
        f"results/{name}/check/published_check.md",
    ] + [f"results/{name}/figures/{fig}.png" for fig in COT_FIGURE_NAMES]
