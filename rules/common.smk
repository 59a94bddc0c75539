# Helpers shared by every study's rules. Study rule files define
# `<study>_targets()`; `all_targets()` collects those of the enabled studies.
from pathlib import Path

from snakemake.utils import validate

from rederive.config_types import coerce_to_schema
from rederive.io.batches import group_runs

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


def _schema(name):
    import yaml

    path = Path(workflow.basedir) / "config" / "schemas" / f"{name}.schema.yaml"
    return yaml.safe_load(path.read_text())


# `--config study='{n_boot: 500, filter: null}'` hands nested scalars over as text;
# give them the schema's type (int, float, bool, None) before validating.
config.update(coerce_to_schema(dict(config), _schema("config")))
validate(config, "../config/schemas/config.schema.yaml")
for _study in config["studies"]:
    if _study not in config:
        raise ValueError(
            f"config: study '{_study}' is enabled but has no '{_study}:' section "
            f"(expected in config/{_study}.yaml)"
        )
    config[_study] = coerce_to_schema(config[_study], _schema(_study))
    validate(config[_study], f"../config/schemas/{_study}.schema.yaml")


wildcard_constraints:
    run=r"[^/]+",
    batch=r"b[0-9]{2}",


def enabled(study):
    return study in config["studies"]


def raw_dir(study):
    return Path(config[study]["raw_dir"])


def run_ids(study, pattern="{run}.jsonl"):
    """Run files found in raw/<study>/runs/ at DAG-build time, sorted."""
    runs = glob_wildcards(str(raw_dir(study) / "runs" / pattern)).run
    return sorted(r for r in runs if "/" not in r)


def ingest_batches(runs):
    """The study's ingest batches that have runs: batch name -> its run ids.

    A batch's runs depend on the run id alone (rederive.io.batches), so a new,
    changed or removed run file re-runs only its own batch's ingest job.
    """
    return group_runs(runs, config["ingest_batches"])


def study_batches(study):
    """`ingest_batches` of the study's runs (`<study>_runs()`, in its helpers file)."""
    return ingest_batches(globals()[f"{study}_runs"]())


def batch_runs(study):
    """Input/params function: the run ids of the job's ingest batch."""

    def runs(wildcards):
        return study_batches(study).get(wildcards.batch, [])

    return runs


def batch_run_files(study):
    """Input function: the raw `runs/<run>.jsonl` files of the job's ingest batch."""

    def files(wildcards):
        folder = raw_dir(study) / "runs"
        return [str(folder / f"{run}.jsonl") for run in batch_runs(study)(wildcards)]

    return files


def ingested_batches(study):
    """Input function: every `results/<study>/ingested/<batch>` folder with runs."""

    def folders(wildcards):
        return [f"results/{study}/ingested/{batch}" for batch in study_batches(study)]

    return folders


# What each job asks a scheduler for (rules: `threads`, `resources: mem_mb,
# runtime`; runtime in minutes): a base plus a slope per MB of the job's input
# files, times `attempt` on a retry (--retries). From Snakemake's per-job timings
# (results/benchmarks/): on the bundled data every job peaks at 110-650 MB RSS
# (py-irt fits the most) and needs < 1 min of CPU; on bench/scale.py data peak RSS
# grows ~80 MB per MB of labelled parquet for a warehouse build and ~70-100 MB per
# MB of DuckDB for an analysis (bootstrap weights, model pairs). Bases are 1.5x
# the bundled peak, slopes round those measured up.
def job_mem_mb(base_mb, per_input_mb=0.0, *, largest_input=False):
    def mem_mb(wildcards, input, attempt):
        return int(base_mb + per_input_mb * input_mb(input, largest_input)) * attempt

    return mem_mb


def job_runtime(base_min, per_input_mb=0.0):
    def runtime(wildcards, input, attempt):
        return int(base_min + per_input_mb * input_mb(input)) * attempt

    return runtime


def input_mb(files, largest=False):
    """MB of a job's input files, as Snakemake's `input.size_mb`, except that an
    ingest batch folder counts the files in it (Snakemake takes a folder's own
    size, a few KB), and with `largest` only the largest file counts: a batch
    job holds one run at a time.

    A missing input raises FileNotFoundError, as `input.size_mb` does, so that
    Snakemake sizes the job once its inputs exist.
    """
    sizes = [_file_or_folder_size(Path(f)) for f in files]
    return (max(sizes, default=0) if largest else sum(sizes)) / 1024 / 1024


def _file_or_folder_size(path):
    if path.is_dir():
        return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    return path.stat().st_size


def all_targets():
    targets = []
    for study in config["studies"]:
        targets += globals()[f"{study}_targets"]()
        targets += intermediate_targets(study)
    targets += summary_targets()
    return targets


def intermediate_targets(study):
    """Every output of the study's rules: per-run files, warehouse, every table.

    Snakemake does not rebuild a missing intermediate file (a deleted
    `<study>.duckdb`, or one a killed forced rebuild left as a `.tmp`) while the
    outputs downstream of it exist; asking for it in `rule all` makes a plain
    `snakemake` rebuild it, and the mtime trigger then re-derives what depends
    on it. Per-batch outputs (wildcard `batch`) are expanded over the batches
    that have runs.
    """
    batches = study_batches(study)
    files = []
    for rule_ in workflow.rules:
        if next((s for s in STUDIES if s in rule_.name), None) != study:
            continue
        names = set(rule_.wildcard_names)
        for out in rule_.output:
            if not names:
                files.append(str(out))
            elif names == {"batch"}:
                # apply_wildcards, not expand: the pattern carries the constraint.
                files += [str(out.apply_wildcards({"batch": b})) for b in batches]
    return sorted(set(files))


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


def library_version(study=None):
    """sha256 of the library code a study's jobs import: the shared modules plus
    that study's package (all packages when ``study`` is None)."""
    import hashlib

    root = Path(workflow.basedir) / "scripts" / "rederive"
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        part = path.relative_to(root).parts
        if part[0] == "simulate":
            continue  # generators write raw/, they are not run by the workflow
        if study and part[0] == "studies" and len(part) > 2 and part[1] != study:
            continue
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def track_library_code():
    """Make every job depend on the library code it imports.

    Snakemake's code trigger only hashes the file named in ``script:``; a change
    in a module it imports (a statistic, a reader) would otherwise leave stale
    results behind. The hash goes in as a parameter, so the params trigger
    re-runs exactly the jobs of the study whose code changed.
    """
    versions = {}
    for rule_ in workflow.rules:
        study = next((s for s in STUDIES if s in rule_.name), None)
        if study not in versions:
            versions[study] = library_version(study)
        rule_.set_params(library_version=versions[study])
