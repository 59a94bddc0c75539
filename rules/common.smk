# Shared by every kind's rules: the named analyses of the config, the registry of
# kinds, input/params helpers keyed by the `{analysis}` wildcard, ingest batches,
# job sizing, and the triggers that keep results in step with code and inputs.
import shutil
import sys
import time
from functools import cache
from pathlib import Path

from rederive.analyses import ConfigError, kind_names, resolve
from rederive.code_version import RULE_PACKAGES
from rederive.code_version import library_version as code_version
from rederive.io import intact
from rederive.io.batches import group_runs
from rederive.io.content_keys import CACHE_FILE as CONTENT_KEYS_FILE
from rederive.io.content_keys import ContentKeys
from rederive.io.raw_tree import RawTreeError, list_files, output_folder_problem
from rederive.site.layout import HeadlineSpec
from rederive.io.run_files import (
    RunFilesError,
    brace_problem,
    discover_runs,
    missing_layout,
)
from rederive.jobserver import client as job_server

# One pinned environment for every rule (envs/requirements.lock); the conda file
# mirrors it for users who run with --software-deployment-method conda.
CONDA_ENV = "../envs/rederive.yaml"
SCHEMA_DIR = Path(workflow.basedir) / "config" / "schemas"
STARTED = time.time()
# Python jobs start as forks of one interpreter that has imported the libraries
# (rederive.jobserver; REDERIVE_JOB_SERVER=0 starts each as its own).
job_server.install(workflow)


def stop(kind, message):
    """End the run with one `rederive:` paragraph instead of a traceback."""
    sys.stderr.write(f"rederive: {kind} error: {message}\n")
    sys.exit(1)


# The kinds: one per config/schemas/<kind>.schema.yaml. The Snakefile includes
# each kind's rules/<kind>.smk, which registers it (register_kind);
# finish_workflow() checks that every kind did.
KIND_NAMES = kind_names(SCHEMA_DIR)
try:
    ANALYSES, BUILD = resolve(config, SCHEMA_DIR, KIND_NAMES)
except ConfigError as exc:
    stop("config", exc)
for _name in BUILD:
    _raw = Path(ANALYSES[_name]["raw_dir"])
    _problem = output_folder_problem(_raw)
    if _problem:
        stop("config", f"analyses.{_name}.raw_dir: {_problem}")
    if not _raw.is_dir():
        stop(
            "config",
            f"analyses.{_name}.raw_dir: {_raw} is not a folder (relative paths are "
            f"taken from the working directory, {Path.cwd()})",
        )
if config.get("show_config"):
    import yaml

    sys.stderr.write(
        yaml.safe_dump(
            {n: ANALYSES[n] for n in BUILD}, sort_keys=False, allow_unicode=True
        )
    )


wildcard_constraints:
    run=r"[^/]+",
    batch=r"b[0-9]{2}",


# ---------------------------------------------------------------- kind registry
KINDS = {}
_CLAIMED_RULES = set()


def register_kind(
    kind,
    *,
    runs,
    targets,
    layout,
    power_title=None,
    power_unit=None,
    run_inputs=None,
    headline=None,
    only_when=None,
):
    """Record a kind: the rules defined since the previous kind's file, a
    function listing an analysis's run ids, one listing its targets, the
    title and resampling unit of its power figure (a kind whose rules write
    tables/power.csv and power_mde_curve.csv gets the shared figure), its raw_dir layout
    (`paper_layout`, or a function of the analysis name returning what its
    raw_dir lacks and a sentence on what it must hold), a function giving
    each run's input files (default: its file in runs/), which the change
    report hashes, its headline table (rederive.site.layout.HeadlineSpec:
    the table the site leads with and the change report reads the top model
    from), and the rules that build an analysis only when its settings ask
    for them (`only_when`: rule name -> a function of the analysis name, e.g.
    the gate of an analysis with a `gate:` block). Called at the end of
    rules/<kind>.smk; the kind's rules answer only for analyses of that kind
    (and an `only_when` rule only for those its function accepts)."""
    if kind not in KIND_NAMES:
        raise ValueError(
            f"rules/{kind}.smk registers kind {kind!r}, which has no "
            f"config/schemas/{kind}.schema.yaml"
        )
    only_when = dict(only_when or {})
    rules = [r for r in workflow.rules if r.name not in _CLAIMED_RULES]
    _CLAIMED_RULES.update(r.name for r in rules)
    unknown = sorted(set(only_when) - {r.name for r in rules})
    if unknown:
        raise ValueError(
            f"register_kind({kind!r}, only_when=...) names rules it does not have: {unknown}"
        )
    for rule_ in rules:
        answer_for(rule_, analyses_of(kind, only_when.get(rule_.name)))
    rules = [r.name for r in rules]
    KINDS[kind] = {
        "rules": rules,
        "runs": runs,
        "targets": targets,
        "power_title": power_title,
        "power_unit": power_unit,
        "layout": layout,
        "run_inputs": run_inputs or paper_run_inputs,
        "headline": headline or HeadlineSpec(),
        "only_when": only_when,
    }


def answer_for(rule_, analyses):
    """Let ``rule_`` build only the analyses the ``analyses`` pattern matches:
    several kinds have rules writing results/{analysis}/tables/power.csv."""
    if "analysis" in rule_.wildcard_names:
        rule_.set_wildcard_constraints(analysis=analyses)
        rule_.update_wildcard_constraints()


def headline_of(name):
    """The analysis's headline table (its kind's HeadlineSpec), as a dict."""
    from dataclasses import asdict

    return asdict(KINDS[kind_of(name)]["headline"])


def paper_layout(files, holds):
    """Layout of a paper kind: required `files` and a runs/ folder; `holds` says
    what such a raw_dir holds, for the message refusing one that lacks them."""

    def check(name):
        return missing_layout(raw_dir(name), files), holds

    return check


def check_raw_dir(name):
    """Refuse, before any job, a raw_dir that is not a study folder of its kind
    (`raw_dir: /`, `/etc`, a typo'd folder), has a path Snakemake cannot carry
    (braces), or holds no run: one `rederive:` message instead of a missing
    input or a traceback in some input function."""
    kind, folder = kind_of(name), raw_dir(name)
    problem = brace_problem(folder)
    if problem:
        stop("config", f"analyses.{name}.raw_dir: {problem}")
    missing, holds = KINDS[kind]["layout"](name)
    if missing:
        stop(
            "input",
            f"analysis {name}: raw_dir {folder} is not a {kind} study folder: it has "
            f"no {', no '.join(missing)}. A {kind} raw_dir holds {holds} "
            f"(docs/kinds/{kind}.md)",
        )
    if not KINDS[kind]["runs"](name):
        stop(
            "input",
            f"analysis {name}: raw_dir {folder} has no run file in runs/ (a {kind} "
            f"raw_dir holds {holds}; docs/kinds/{kind}.md)",
        )
    bad = [p for p in raw_files_of(name) if brace_problem(p)]
    if bad:
        stop(
            "input",
            f"analysis {name}: "
            + "; ".join(brace_problem(p) for p in bad[:5])
            + (f"; … and {len(bad) - 5} more" if len(bad) > 5 else ""),
        )


@cache
def raw_files_of(name):
    """Every file under the analysis's raw_dir, symlinked folders followed
    (hashed into provenance.json; rederive.io.raw_tree)."""
    try:
        return list_files(raw_dir(name))
    except RawTreeError as exc:
        stop("input", f"analysis {name}: raw_dir {raw_dir(name)}: {exc}")


def analyses_of(kind, wanted=None):
    """Wildcard constraint: the built analyses of one kind, those ``wanted``
    accepts when given (no match when none)."""
    return analyses_pattern(
        [
            n
            for n in BUILD
            if ANALYSES[n]["kind"] == kind and (wanted is None or wanted(n))
        ]
    )


def kind_of(name):
    return ANALYSES[name]["kind"]


# ---------------------------------------------------------- settings and inputs
def analysis(wildcards):
    return ANALYSES[wildcards.analysis]


def setting(*keys):
    """Params function: one setting of the job's analysis, e.g.
    setting("bootstrap", "n_boot")."""

    def value(wildcards):
        node = analysis(wildcards)
        for key in keys:
            node = node[key]
        return node

    return value


def raw_dir(name):
    return Path(ANALYSES[name]["raw_dir"])


def raw_root(wildcards):
    """Params function: the analysis's raw_dir (ingest names files relative to it)."""
    return str(raw_dir(wildcards.analysis))


def raw_file(relative):
    """Input function: a file under the analysis's raw_dir."""

    def path(wildcards):
        return str(raw_dir(wildcards.analysis) / relative)

    return path


def optional_raw_file(relative):
    """Input function: a file under raw_dir when it exists (else no input)."""

    def paths(wildcards):
        path = raw_dir(wildcards.analysis) / relative
        return [str(path)] if path.exists() else []

    return paths


def published_files(wildcards):
    """The published-number CSVs of the analysis (read by its check job)."""
    return sorted(
        str(p) for p in (raw_dir(wildcards.analysis) / "published").glob("*.csv")
    )


def published_dir(wildcards):
    return str(raw_dir(wildcards.analysis) / "published")


def is_simulated(wildcards):
    """The bundled data carries SIMULATED.md; notes and captions then say so.
    A parameter, so adding or removing the file re-derives what it labels."""
    return (raw_dir(wildcards.analysis) / "SIMULATED.md").exists()


def data_note(wildcards):
    """Where the data come from, as captions and notes print it: the analysis's
    `source`, else its label (never a path)."""
    entry = analysis(wildcards)
    return entry["source"] or f"Data: {entry['label']}."


def label(wildcards):
    return analysis(wildcards)["label"]


def power_title(wildcards):
    entry = analysis(wildcards)
    return f"{entry['label']}: {KINDS[entry['kind']]['power_title']}"


def power_unit(wildcards):
    return KINDS[analysis(wildcards)["kind"]]["power_unit"]


def power_note(wildcards):
    """Simulated data get the theme's simulated-data note; anything else its source."""
    return "" if is_simulated(wildcards) else data_note(wildcards)


@cache
def run_files(name):
    """The run files of <raw_dir>/runs/ at DAG-build time: run id -> file.

    Run ids are safe file names derived from the file names
    (rederive.io.run_files); an entry of runs/ that is not read, a path with
    braces, or two files with one run id stop the run before any job.
    """
    try:
        return discover_runs(raw_dir(name) / "runs")
    except RunFilesError as exc:
        stop("input", f"analysis {name}: runs folder {exc}")


def paper_run_inputs(name):
    """Each run's input files: its own file in runs/."""
    return {run: [str(path)] for run, path in run_files(name).items()}


def run_ids(name):
    """Run ids of the analysis's runs/ folder, sorted."""
    return list(run_files(name))


@cache
def analysis_batches(name):
    """The analysis's ingest batches that have runs: batch name -> its run ids.

    A batch's runs depend on the run id alone (rederive.io.batches), so a new,
    changed or removed run file re-runs only its own batch's ingest job.
    """
    return group_runs(KINDS[kind_of(name)]["runs"](name), config["ingest_batches"])


def batch_runs(wildcards):
    """Input/params function: the run ids of the job's ingest batch."""
    return analysis_batches(wildcards.analysis).get(wildcards.batch, [])


def batch_run_files(wildcards):
    """Input function: the raw `runs/<run>.jsonl` files of the job's ingest batch."""
    files = run_files(wildcards.analysis)
    return [str(files[run]) for run in batch_runs(wildcards)]


def ingested_batches(wildcards):
    """Input function: every `results/<analysis>/ingested/<batch>` folder with runs."""
    name = wildcards.analysis
    return [f"results/{name}/ingested/{batch}" for batch in analysis_batches(name)]


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


def job_size(
    mem_mb,
    runtime_min,
    *,
    mem_per_input_mb=0.0,
    runtime_per_input_mb=0.0,
    largest_input=False,
):
    """A rule's resources: memory (MB) and runtime (minutes), each a base plus a
    slope per MB of the job's input files (`largest_input`: the largest only)."""
    return {
        "mem_mb": job_mem_mb(mem_mb, mem_per_input_mb, largest_input=largest_input),
        "runtime": job_runtime(runtime_min, runtime_per_input_mb),
    }


# Rule name -> job_size(...), from each rule file's size_jobs(...) table; a rule
# without an entry gets DEFAULT_SIZE.
JOB_SIZES = {}
DEFAULT_SIZE = job_size(500, 10)


def size_jobs(**sizes):
    """Record the job sizes of the rules of one rule file (called at its end)."""
    JOB_SIZES.update(sizes)


def job_paths(rule_):
    """Where a rule's jobs log and record their timings: results/logs/ and
    results/benchmarks/, then the analysis (or summary/ for rules over every
    analysis), the rule's name, and one level per other wildcard ({batch})."""
    names = sorted(set(rule_.wildcard_names) - {"analysis"})
    where = "{analysis}" if "analysis" in rule_.wildcard_names else "summary"
    stem = str(Path(where, rule_.name, *[f"{{{n}}}" for n in names]))
    return f"results/logs/{stem}.log", f"results/benchmarks/{stem}.tsv"


def give_job_directives(rule_):
    """The directives each job gets from here, never written in a rule: its log
    and benchmark files, the pinned environment, one thread, and its size
    (Snakemake's --lint wants the first three, a scheduler reads the last)."""
    log, benchmark = job_paths(rule_)
    if not rule_.log:
        # The path modifier a `log:` directive would have passed (the same as
        # the rule's outputs': default storage, module prefixes).
        rule_.log_modifier = rule_.output_modifier
        rule_.set_log(log)
    if not rule_.benchmark:
        rule_.benchmark_modifier = rule_.output_modifier
        rule_.benchmark = benchmark
    if not rule_.conda_env:
        rule_.conda_env = CONDA_ENV
    rule_.resources.update(JOB_SIZES.get(rule_.name, DEFAULT_SIZE))


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


# ---------------------------------------------------------------------- targets
def all_targets():
    targets = []
    for name in BUILD:
        targets += KINDS[kind_of(name)]["targets"](name)
        targets += intermediate_targets(name)
    return targets + summary_targets()


def intermediate_targets(name):
    """Every output of the analysis's rules: per-run files, warehouse, every table.

    Snakemake does not rebuild a missing intermediate file (a deleted
    warehouse, or one a killed forced rebuild left as a `.tmp`) while the
    outputs downstream of it exist; asking for it in `rule all` makes a plain
    `snakemake` rebuild it, and the mtime trigger then re-derives what depends
    on it. Per-batch outputs (wildcard `batch`) are expanded over the batches
    that have runs.
    """
    files = []
    for rule_ in rules_of(name):
        names = set(rule_.wildcard_names)
        for out in rule_.output:
            # apply_wildcards, not expand: the pattern carries the constraint.
            if names == {"analysis"}:
                files.append(str(out.apply_wildcards({"analysis": name})))
            elif names == {"analysis", "batch"}:
                files += [
                    str(out.apply_wildcards({"analysis": name, "batch": b}))
                    for b in analysis_batches(name)
                ]
    return sorted(set(files))


def all_inputs(wildcards):
    """Input function of the `all` rule (every target), once damaged intermediates
    and stale ingest folders are out of the way (evaluated while Snakemake
    builds its job graph, when it knows whether this is a dry run)."""
    repair_outputs()
    return all_targets()


_REPAIRED = []


def repair_outputs():
    """Remove every output that differs from what its job wrote, and the ingest
    batch folders of runs no longer in an analysis, once per run.

    A damaged file (rederive.io.intact: a truncated warehouse, a Parquet file cut
    short in an ingest folder, an edited table) is removed with the output
    holding it; rule `all` asks for every output, so this run rebuilds it, and
    the files that depend on it are re-derived. A dry run says what a run would
    remove. Nothing is touched by jobs of a cluster run (they parse the workflow
    too), by --touch, or while another Snakemake holds a lock on this folder.
    """
    if _REPAIRED:
        return
    _REPAIRED.append(True)
    if (
        workflow.executor_plugin is None
        or not workflow.is_main_process
        or workflow.touch
        or any(Path(".snakemake", "locks").glob("*.lock"))
    ):
        return
    dry = workflow.dryrun
    for output in checked_outputs():
        damage = intact.check(output)
        if damage is None:
            continue
        removed = f"{damage.output}/" if damage.is_directory else "it"
        if dry:
            sys.stderr.write(
                f"rederive: {damage.file} is damaged ({damage.reason}): a run without "
                f"--dry-run removes {removed} and rebuilds it\n"
            )
            continue
        try:
            intact.remove(damage)
        except OSError as exc:
            sys.stderr.write(
                f"rederive: {damage.file} is damaged ({damage.reason}) and cannot be "
                f"removed ({exc.strerror}): {intact.advice(damage)}\n"
            )
            continue
        sys.stderr.write(
            f"rederive: {damage.file} was damaged ({damage.reason}): removed {removed}; "
            "this run rebuilds it and what depends on it\n"
        )
    for name in BUILD:
        stale = stale_batch_folders(name)
        if not stale:
            continue
        shown = ", ".join(p.name for p in stale[:5]) + (" …" if len(stale) > 5 else "")
        where = f"results/{name}/ingested/ ({shown})"
        if dry:
            sys.stderr.write(
                f"rederive: {len(stale)} ingest folder(s) of runs no longer in analysis "
                f"{name} would be removed from {where}\n"
            )
            continue
        try:
            for folder in stale:
                shutil.rmtree(folder)
                intact.forget([folder.as_posix()])
        except OSError as exc:
            sys.stderr.write(
                f"rederive: the ingest folders of runs no longer in analysis {name} "
                f"cannot be removed ({exc.strerror}); they are not read: delete {where} "
                "when you can\n"
            )
            continue
        sys.stderr.write(
            f"rederive: removed {len(stale)} ingest folder(s) of runs no longer in "
            f"analysis {name} (a run removed or renamed, or ingest_batches changed) "
            f"from {where}\n"
        )


def checked_outputs():
    """Every output the built analyses and the summary have: each analysis's
    (intermediate_targets) and those of the rules without wildcards."""
    files = {f for name in BUILD for f in intermediate_targets(name)}
    for rule_ in workflow.rules:
        if rule_.name != "all" and not rule_.wildcard_names:
            files.update(str(out) for out in rule_.output)
    return sorted(files)


def stale_batch_folders(name):
    """The `results/<name>/ingested/bNN` folders of batches with no run now."""
    import re

    folder = Path("results") / name / "ingested"
    if not folder.is_dir():
        return []
    current = set(analysis_batches(name))
    return sorted(
        p
        for p in folder.iterdir()
        if p.is_dir()
        and not p.is_symlink()
        and re.fullmatch(r"b[0-9]{2}", p.name)
        and p.name not in current
    )


def summary_targets():
    return [
        "results/summary/published_check.md",
        "results/summary/published_audit.md",
        "results/summary/provenance.json",
        "results/site",
    ]


def rules_of(name):
    """The rules that build one analysis: its kind's (an `only_when` rule when
    its function accepts the analysis), and the shared rules over one analysis
    whose inputs its kind writes (shared_rule_applies)."""
    entry = KINDS[kind_of(name)]
    kind_rules = {
        r
        for r in entry["rules"]
        if r not in entry["only_when"] or entry["only_when"][r](name)
    }
    return [
        r
        for r in workflow.rules
        if r.name in kind_rules
        or (r.name in shared_analysis_rules() and shared_rule_applies(r, kind_of(name)))
    ]


def analysis_rules(name):
    """The analysis's rules with one output per analysis (no {batch})."""
    return [r for r in rules_of(name) if set(r.wildcard_names) == {"analysis"}]


@cache
def shared_analysis_rules():
    """Rules written once for every analysis (power figure, audit, change
    report): the rules over {analysis} that no kind registered."""
    claimed = {r for entry in KINDS.values() for r in entry["rules"]}
    return {
        r.name
        for r in workflow.rules
        if "analysis" in r.wildcard_names and r.name not in claimed
    }


@cache
def kind_outputs(kind):
    """The results/{analysis}/... files the rules of a kind write (patterns)."""
    from snakemake.io import strip_wildcard_constraints

    return {
        strip_wildcard_constraints(str(out))
        for r in workflow.rules
        if r.name in KINDS[kind]["rules"]
        for out in r.output
    }


def shared_rule_applies(rule_, kind):
    """Whether a shared rule builds the analyses of ``kind``, that is whether each file it
    reads by a results/{analysis}/ pattern is one the kind writes (the power
    figure needs the kind's power tables; a kind without them has none)."""
    from snakemake.io import strip_wildcard_constraints

    needed = {
        strip_wildcard_constraints(str(item))
        for item in rule_.input
        if isinstance(item, str) and "{analysis" in str(item)
    }
    return needed <= kind_outputs(kind)


def analyses_pattern(names):
    """Wildcard constraint matching exactly the analyses ``names`` (none: no match)."""
    import re

    return "|".join(re.escape(n) for n in names) if names else "(?!x)x"


def analysis_outputs(name, folders):
    """The analysis's declared outputs in results/<name>/<folder>/ for the given
    folders, in the order the rules declare them."""
    files = []
    for rule_ in analysis_rules(name):
        for out in rule_.output:
            path = Path(str(out.apply_wildcards({"analysis": name})))
            if path.parts[:2] == ("results", name) and path.parent.name in folders:
                files.append(path.as_posix())
    return list(dict.fromkeys(files))


def analysis_checks(wildcards):
    """Every built analysis's published check (of the kinds that have one), then
    those of the analyses earlier runs built (earlier_analyses) that have one."""
    check = "results/{analysis}/check/published_check.csv"
    built = [
        check.format(analysis=name)
        for name in BUILD
        if check in kind_outputs(kind_of(name))
    ]
    earlier = [check.format(analysis=name) for name in earlier_analyses()]
    return built + [path for path in earlier if Path(path).is_file()]


@cache
def earlier_analyses():
    """Analyses in results/ that earlier runs built and this run does not
    (rederive.changes.earlier): name -> Earlier, with each one's settings as it
    was built laid into ANALYSES so that its page and captions read them. A
    kind this workflow no longer has is left out."""
    from rederive.analyses import RESERVED_NAMES
    from rederive.changes.earlier import find_earlier

    found = find_earlier("results", set(BUILD) | RESERVED_NAMES, current_file_hashes)
    CONTENT_KEYS.save()
    out = {}
    for earlier in found:
        if earlier.kind not in KINDS:
            continue
        ANALYSES[earlier.name] = {
            "source": None,
            **earlier.settings,
            "raw_dir": earlier.raw_dir or ".",
        }
        out[earlier.name] = earlier
    return out


def current_file_hashes(folder):
    """SHA-256 of every file under a folder now, by relative path (None when the
    folder is not there or cannot be listed): the content-key cache hashes
    only files whose stat changed."""
    root = Path(folder)
    if not root.is_dir():
        return None
    try:
        files = list_files(root)
    except RawTreeError:
        return None
    return {p.relative_to(root).as_posix(): CONTENT_KEYS.file(p) for p in files}


def analysis_audits(wildcards):
    return [f"results/{name}/audit/published_audit.csv" for name in BUILD]


def raw_inputs(wildcards):
    return [str(p) for name in BUILD for p in raw_files_of(name)]


# ------------------------------------------------------------ rerun triggers
@cache
def library_version(kind=None, packages=()):
    """Hash of the library code a job of ``kind`` imports (rederive.code_version)."""
    return code_version(Path(workflow.basedir) / "scripts" / "rederive", kind, packages)


CONTENT_KEYS = ContentKeys(CONTENT_KEYS_FILE)


def source_digest(rule_):
    """Params function: one key over the contents of the job's source inputs
    (those under no `results/` path, i.e. files no rule writes). The params
    trigger then reruns the job when a source's bytes change, whatever its
    mtime (rederive.io.content_keys)."""
    specs = list(rule_.input)

    def digest(wildcards):
        files = []
        for spec in specs:
            items = spec(wildcards) if callable(spec) else spec
            if isinstance(items, (str, Path)):
                items = [items]
            for item in items:
                text = str(item)
                if callable(spec) or "{" not in text:
                    files.append(text)
                else:
                    files.append(text.format(**dict(wildcards.items())))
        sources = [f for f in files if not f.startswith("results/")]
        key = CONTENT_KEYS.digest(sources)
        CONTENT_KEYS.save()
        return key

    return digest


def finish_workflow():
    """Check the registry against the schema, give every rule its job
    directives (give_job_directives), and make every job depend on the
    library code it imports and on the bytes of its source files.

    Snakemake's code trigger only hashes the file named in ``script:``; a change
    in a module it imports (a statistic, a reader) would otherwise leave stale
    results behind. The hash goes in as a parameter, so the params trigger
    re-runs exactly the jobs of the kind whose code changed.
    """
    if sorted(KINDS) != sorted(KIND_NAMES):
        missing = sorted(set(KIND_NAMES) - set(KINDS))
        raise ValueError(
            f"kinds {missing} have a schema in config/schemas/ but no rules/<kind>.smk "
            "that calls register_kind"
        )
    for name in BUILD:
        check_raw_dir(name)
    rule_kinds = {name: k for k, entry in KINDS.items() for name in entry["rules"]}
    unknown = sorted(set(JOB_SIZES) - {r.name for r in workflow.rules})
    if unknown:
        raise ValueError(f"size_jobs names rules that do not exist: {unknown}")
    for rule_ in workflow.rules:
        if rule_.name == "all":
            continue
        if rule_.name in shared_analysis_rules():
            answer_for(
                rule_,
                analyses_pattern(
                    [n for n in BUILD if shared_rule_applies(rule_, kind_of(n))]
                ),
            )
        give_job_directives(rule_)
        # A rule of RULE_PACKAGES imports no kind's package ("-" matches none).
        kind = rule_kinds.get(rule_.name, "-" if rule_.name in RULE_PACKAGES else None)
        version = library_version(kind, RULE_PACKAGES.get(rule_.name, ()))
        rule_.set_params(library_version=version, source_digest=source_digest(rule_))
        if "analysis" in rule_.wildcard_names and any(
            "report" in getattr(out, "flags", {}) for out in rule_.output
        ):
            # What report captions name: the analysis's label, where its data come
            # from, and whether they are the simulated bundled data (only on rules
            # with report outputs, so a new label re-runs no ingest).
            rule_.set_params(label=label, data_note=data_note, simulated=is_simulated)


def done_message():
    """What each analysis's build changed (its change report), then where
    everything is."""
    from rederive.changes.closing import closing_lines

    names = ", ".join(BUILD)
    return "\n".join(closing_lines(BUILD, STARTED)) + (
        f"\nrederive: done ({len(BUILD)} {'analysis' if len(BUILD) == 1 else 'analyses'}: "
        f"{names}). Results in results/<name>/; "
        "summary results/summary/published_check.md; "
        "every analysis as a page: results/site/index.html; "
        "report: snakemake --report results/report.html"
    )


def failure_message():
    """The `rederive:` messages of the jobs that failed in this run, repeated as
    the last lines on screen (Snakemake's own error summary comes after them)."""
    messages = []
    for log in sorted(Path("results/logs").rglob("*.log")):
        try:
            if log.stat().st_mtime < STARTED:
                continue
            text = log.read_text(errors="replace")
        except OSError:
            continue
        start = text.find("rederive: ")
        if start >= 0:
            messages.append(text[start:].strip())
    if not messages:
        return "rederive: stopped; the first error above names the job and its log."
    return "\n".join(messages)


def on_nothing_to_do(message):
    """Print ``message`` last when Snakemake finds nothing to be done: it then
    returns before the onsuccess handler, so the run's own closing line would
    be missing. Watches Snakemake's log for its "Nothing to be done" message."""
    import logging

    from snakemake.common import NOTHING_TO_BE_DONE_MSG

    class Watch(logging.Handler):
        def emit(self, record):
            if (
                str(record.msg).startswith(NOTHING_TO_BE_DONE_MSG[:20])
                and not self.seen
            ):
                self.seen = True
                print_last(message)

    handler = Watch()
    handler.seen = False
    logging.getLogger("snakemake.logging").addHandler(handler)


def refresh_stamps():
    """Record the stat of every output written in this run (Snakemake touched
    them after their jobs), so that the next run's check only stats them."""
    try:
        intact.refresh(STARTED)
    except OSError:
        pass  # stamps only save hashing; the next check hashes what it must


def print_last(message):
    import atexit

    atexit.register(lambda: print(message, file=sys.stderr, flush=True))
