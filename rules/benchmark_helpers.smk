# Input functions, constants and targets of the benchmark rules (kept apart from
# the rules, as `snakemake --lint` asks). Every function takes the analysis name
# (or the job's wildcards, whose `analysis` names it).

from rederive.errors import InputError
from rederive.gate.outputs import describe as describe_gate
from rederive.io import formats
from rederive.stats.fractional import ScoreRule
from rederive.studies.benchmark.basis import missing_grades_caption as _missing_grades
from rederive.studies.benchmark.sources import discover, input_dirs

BENCHMARK_FIGURE_NAMES = [
    "accuracy",
    "pairwise_q",
    "irt_difficulty",
    "irt_ability",
    "failure_dendrogram",
]


@cache
def benchmark_sources(name):
    try:
        return discover(ANALYSES[name]["raw_dir"], ANALYSES[name].get("inputs"))
    except (InputError, RunFilesError, ValueError) as exc:
        stop("input", f"analysis {name}: {exc}")


def benchmark_layout(name):
    """What a benchmark raw_dir lacks: at least one of the input-format folders."""
    folders = input_dirs(ANALYSES[name]["raw_dir"], ANALYSES[name].get("inputs"))
    if any(path.is_dir() for path in folders.values()):
        return [], ""
    names = [f"{name}/" for name in formats.names()]
    return [f"input-format folder ({', '.join(names)})"], (
        f"at least one of {', '.join(names)} (docs/input-formats.md), or "
        "inputs: {auto: <folder>} for a folder of mixed outputs (optional: "
        "items.csv, published/*.csv)"
    )


def benchmark_runs(name):
    runs = list(benchmark_sources(name))
    if not runs:
        # Name every folder searched: an `inputs:` path is relative to the working
        # directory, not to raw_dir, which is easy to get wrong.
        searched = ", ".join(
            f"{fmt}: {path}{'' if path.is_dir() else ' (no such folder)'}"
            for fmt, path in input_dirs(
                ANALYSES[name]["raw_dir"], ANALYSES[name].get("inputs")
            ).items()
        )
        stop(
            "input",
            f"analysis {name}: no runs found ({searched}; expected runs of one of the "
            f"formats {', '.join(formats.names())} in their folders, or inputs: "
            "{auto: <folder>}; see docs/input-formats.md)",
        )
    return runs


def benchmark_run_inputs(name):
    """Each run's input files (an lm-eval run is a folder of several)."""
    sources = benchmark_sources(name)
    return {run: [str(p) for p in sources[run].files()] for run in benchmark_runs(name)}


def benchmark_batch_sources(wildcards):
    """The runs of one ingest batch, each with what its reader needs."""
    sources = benchmark_sources(wildcards.analysis)
    return [
        {
            "run": run,
            "format": sources[run].format,
            "path": str(sources[run].path),
            "files": [str(p) for p in sources[run].files()],
        }
        for run in analysis_batches(wildcards.analysis).get(wildcards.batch, [])
    ]


def benchmark_batch_files(wildcards):
    return [f for source in benchmark_batch_sources(wildcards) for f in source["files"]]


def benchmark_readers(wildcards):
    """The reader options of the job's analysis: each format's block, and zip limits."""
    entry = analysis(wildcards)
    keys = [name for name in formats.names() if name in entry] + ["zip_limits"]
    return {key: entry[key] for key in keys}


def score_rule(wildcards):
    return ScoreRule.from_config(analysis(wildcards)["fractional_scores"])


def fractional_scores_caption(wildcards):
    """Caption text: how the 1PL and the item analysis take fractional scores."""
    return score_rule(wildcards).caption()


def failure_set_caption(wildcards):
    """Caption text: what puts an item in a model's failure set."""
    return score_rule(wildcards).failure_caption()


def missing_grades_caption(wildcards):
    """Caption text: how a missing grade counts (item_sets)."""
    return _missing_grades(analysis(wildcards)["item_sets"])


def has_gate(name):
    """Whether the analysis has a `gate:` block (then its gate job is built)."""
    return bool(ANALYSES[name].get("gate"))


def gate_caption(wildcards):
    """Caption text: the gate's baseline, candidates, margin and level."""
    return describe_gate(analysis(wildcards)["gate"])


def benchmark_targets(name):
    tables = f"results/{name}/tables"
    gate = [f"results/{name}/gate/gate.md"] if has_gate(name) else []
    return [
        f"{tables}/power.csv",
        f"results/{name}/figures/power_mde.png",
        f"{tables}/noise.csv",
        f"{tables}/accuracy.csv",
        f"{tables}/ranking.csv",
        f"{tables}/irt_ability.csv",
        f"{tables}/failed_by_all.csv",
        f"{tables}/suspect_items.md",
        f"results/{name}/figures/suspect_items.png",
        f"{tables}/data_quality.csv",
        f"results/{name}/check/published_check.md",
        *[f"results/{name}/figures/{fig}.png" for fig in BENCHMARK_FIGURE_NAMES],
        *gate,
    ]


# ------------------------------------------------- sampling (pass@k, pass^k, maj@k)
def has_sampling(name):
    """Whether the analysis has a `sampling:` block (then its sampling jobs are built)."""
    return bool(ANALYSES[name].get("sampling"))


def ranks_sampling(name):
    """Whether the analysis compares its models at a k (`sampling.rank_at`)."""
    return has_sampling(name) and ANALYSES[name]["sampling"].get("rank_at") is not None


def sampling_input(wildcards):
    """Input function: sampling.csv when the analysis has one (the published check's)."""
    if has_sampling(wildcards.analysis):
        return [f"results/{wildcards.analysis}/tables/sampling.csv"]
    return []


def sampling_caption(wildcards):
    """Caption text: the k, metrics, interval and comparison of the sampling table."""
    from rederive.studies.benchmark.sampling import describe

    return describe(analysis(wildcards)["sampling"], analysis(wildcards)["cluster_by"])


# The sampling rules and when an analysis builds them (register_kind's only_when).
SAMPLING_RULES = {
    "analyse_benchmark_sampling": has_sampling,
    "plot_benchmark_sampling": has_sampling,
    "compare_benchmark_sampling": ranks_sampling,
}
