# Targets and run discovery of the bias_awareness rules (kept apart from the
# rules, as `snakemake --lint` asks). Functions take the analysis name.


def bias_awareness_runs(name):
    return run_ids(name)


def bias_awareness_targets(name):
    tables = f"results/{name}/tables"
    return [
        f"{tables}/power.csv",
        f"results/{name}/figures/power_mde.png",
        f"{tables}/main.tex",
        f"{tables}/comparisons.tex",
        f"{tables}/agreement.tex",
        f"{tables}/data_quality.csv",
        f"results/{name}/figures/susceptibility_awareness.png",
        f"results/{name}/check/published_check.md",
    ]
