# Helpers shared by every study's rules. Study rule files define
# `<study>_targets()`; `all_targets()` collects those of the enabled studies.
from pathlib import Path

from snakemake.utils import validate

# One pinned environment for every rule (envs/requirements.lock); the conda file
# mirrors it for users who run with --software-deployment-method conda.
CONDA_ENV = "../envs/rederive.yaml"

STUDIES = [
    "salitrap",
    "tag_sycophancy",
    "bias_awareness",
    "cot_loadbearing",
    "benchmark",
]

validate(config, "../config/schemas/config.schema.yaml")
for _study in config["studies"]:
    if _study not in config:
        raise ValueError(
            f"config: study '{_study}' is enabled but has no '{_study}:' section "
            f"(expected in config/{_study}.yaml)"
        )
    validate(config[_study], f"../config/schemas/{_study}.schema.yaml")


wildcard_constraints:
    run=r"[^/]+",


def enabled(study):
    return study in config["studies"]


def raw_dir(study):
    return Path(config[study]["raw_dir"])


def run_ids(study, pattern="{run}.jsonl"):
    """Run files found in raw/<study>/runs/ at DAG-build time, sorted."""
    runs = glob_wildcards(str(raw_dir(study) / "runs" / pattern)).run
    return sorted(r for r in runs if "/" not in r)


def all_targets():
    targets = []
    for study in config["studies"]:
        targets += globals()[f"{study}_targets"]()
    targets += summary_targets()
    return targets


def summary_targets():
    return [
        "results/summary/published_check.md",
        "results/summary/provenance.json",
    ]


def study_checks(wildcards):
    return [f"results/{s}/check/published_check.csv" for s in config["studies"]]


def raw_inputs(wildcards):
    files = []
    for study in config["studies"]:
        root = raw_dir(study)
        files += sorted(str(p) for p in root.rglob("*") if p.is_file())
    return files
