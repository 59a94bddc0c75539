# rederive: rebuild every table and figure of the configured analyses from the raw
# model outputs. Run `snakemake --cores 8`; the bundled data is simulated except
# the ChemBench matrix (see README). Your own analyses: --configfile my_evals.yaml.
from pathlib import Path

from snakemake.utils import min_version

min_version("9.0")

WORKFLOW_CONFIG = (
    "config/config.yaml"
    if Path("config/config.yaml").is_file()
    else str(Path(workflow.basedir) / "config" / "config.yaml")
)


# The working directory's config/config.yaml when it has one (Snakemake's layout
# for a deployed workflow), else the one beside this Snakefile, so that
# `snakemake -s <repo>/Snakefile --directory <dir>` finds the bundled settings.
configfile: WORKFLOW_CONFIG


report: "rules/report/workflow.rst"


include: "rules/common.smk"


# One file per kind (config/schemas/<kind>.schema.yaml); each ends with register_kind(...).
for kind in KIND_NAMES:

    include: f"rules/{kind}.smk"


# Written once for every analysis.
include: "rules/power.smk"
include: "rules/summary.smk"
include: "rules/audit.smk"
include: "rules/changes.smk"
include: "rules/site.smk"


finish_workflow()
on_nothing_to_do(
    f"rederive: no changes ({len(BUILD)} {'analysis' if len(BUILD) == 1 else 'analyses'}: "
    f"{', '.join(BUILD)}); results in results/<name>/, the site in results/site/index.html"
)


# The closing lines, printed after Snakemake's own ("Complete log", elapsed time).
onsuccess:
    job_server.stop()
    refresh_stamps()
    print_last(done_message())


onerror:
    job_server.stop()
    refresh_stamps()
    print_last(failure_message())


rule all:
    default_target: True
    input:
        all_inputs,
