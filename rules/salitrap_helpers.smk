# Input functions and targets of the salitrap rules (kept apart from the rules,
# as `snakemake --lint` asks).


SALITRAP = config["salitrap"]


def salitrap_runs():
    return run_ids("salitrap")


def salitrap_models_csv(wildcards):
    path = raw_dir("salitrap") / "models.csv"
    return [str(path)] if path.exists() else []


def salitrap_targets():
    return [
        "results/salitrap/tables/table1_tar_hfr.csv",
        "results/salitrap/check/published_check.md",
    ]
