# rederive: rebuild every table and figure of the bundled LLM-behaviour studies
# from the raw model outputs under raw/. Run `snakemake --cores 8`; the default data
# is simulated (see README), real runs drop into the same folders.
from snakemake.utils import min_version

min_version("9.0")


configfile: "config/config.yaml"
configfile: "config/salitrap.yaml"
configfile: "config/tag_sycophancy.yaml"
configfile: "config/bias_awareness.yaml"
configfile: "config/cot_loadbearing.yaml"
configfile: "config/benchmark.yaml"


report: "rules/report/workflow.rst"


include: "rules/common.smk"
include: "rules/salitrap.smk"
include: "rules/tag_sycophancy.smk"
include: "rules/bias_awareness.smk"
include: "rules/cot_loadbearing.smk"
include: "rules/benchmark.smk"
include: "rules/power.smk"
include: "rules/summary.smk"


track_library_code()


rule all:
    default_target: True
    input:
        all_targets(),
