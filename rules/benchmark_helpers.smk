# Input functions, constants and targets of the benchmark rules (kept apart from
# the rules, as `snakemake --lint` asks).

from rederive.studies.benchmark.sources import discover, input_dirs

BENCHMARK = config["benchmark"]
BENCHMARK_TABLES = "results/benchmark/tables"
BENCHMARK_FIGURES = "results/benchmark/figures"
BENCHMARK_FIGURE_NAMES = [
    "accuracy",
    "pairwise_q",
    "irt_difficulty",
    "irt_ability",
    "failure_dendrogram",
]


def benchmark_sources():
    return discover(BENCHMARK["raw_dir"], BENCHMARK.get("inputs"))


def benchmark_runs():
    runs = list(benchmark_sources())
    if not runs:
        # Name every folder searched: an `inputs:` path is relative to the working
        # directory, not to raw_dir, which is easy to get wrong.
        searched = ", ".join(
            f"{fmt}: {path}{'' if path.is_dir() else ' (no such folder)'}"
            for fmt, path in input_dirs(
                BENCHMARK["raw_dir"], BENCHMARK.get("inputs")
            ).items()
        )
        raise ValueError(
            f"benchmark: no runs found ({searched}; expected matrix/*.csv, long/*.csv|jsonl, "
            "lm_eval/<model>/samples_*.jsonl or inspect/*.eval; see raw/benchmark/README.md)"
        )
    return runs


def benchmark_batch_sources(wildcards):
    """The runs of one ingest batch, each with what its reader needs."""
    sources = benchmark_sources()
    return [
        {
            "run": run,
            "format": sources[run].format,
            "path": str(sources[run].path),
            "files": [str(p) for p in sources[run].files()],
        }
        for run in ingest_batches(sources).get(wildcards.batch, [])
    ]


def benchmark_batch_files(wildcards):
    return [f for source in benchmark_batch_sources(wildcards) for f in source["files"]]


def benchmark_items_file(wildcards):
    path = raw_dir("benchmark") / "items.csv"
    return [str(path)] if path.exists() else []


def benchmark_data_note():
    sources = benchmark_sources()
    if list(sources) == ["matrix-chembench"]:
        return "Real data: ChemBench per-item results (irt-on-bench, MIT licence), not simulated."
    raw = BENCHMARK["raw_dir"]
    return f"Data: the runs under {raw} (as supplied by the user)."


def benchmark_targets():
    if not enabled("benchmark"):
        return []
    return [
        "results/benchmark/tables/power.csv",
        "results/benchmark/figures/power_mde.png",
        f"{BENCHMARK_TABLES}/accuracy.csv",
        f"{BENCHMARK_TABLES}/ranking.csv",
        f"{BENCHMARK_TABLES}/irt_ability.csv",
        f"{BENCHMARK_TABLES}/failed_by_all.csv",
        f"{BENCHMARK_TABLES}/data_quality.csv",
        "results/benchmark/check/published_check.md",
        *[f"{BENCHMARK_FIGURES}/{name}.png" for name in BENCHMARK_FIGURE_NAMES],
    ]
