"""Reader for HELM (crfm-helm) run folders, ``benchmark_output/runs/<suite>/<run>/``.

``helm-run`` writes one folder per run (one scenario x one model, named by the
run spec, e.g. ``mmlu:subject=anatomy,method=multiple_choice_joint,model=openai_gpt2``):

* ``run_spec.json``: ``name``, ``adapter_spec`` (``model``, ``num_train_trials``, …),
  ``groups`` (the run groups of HELM's schema);
* ``per_instance_stats.json``: a list of ``{instance_id, train_trial_index,
  perturbation?, stats: [{name: {name, split, perturbation?}, count, mean, …}]}``,
  one entry per (instance, train trial, perturbation);
* ``stats.json``: the run's aggregates, the numbers HELM's leaderboard shows;
* ``scenario_state.json``: every request with its instance (input, references);
* ``display_predictions.json`` (written by ``helm-summarize``): ``predicted_text``
  per (instance, train trial, perturbation).

``helm-summarize`` adds the suite's ``schema.json`` beside the run folders; its
``run_groups[].environment`` names each scenario's main metric and split.

How it is read, as HELM means it:

* **model**: ``adapter_spec.model``; **task**: the run spec name without its
  ``model=``, ``model_deployment=`` and ``data_augmentation=`` arguments, so the
  same scenario run for several models is one task; **item**: ``instance_id``.
* **epochs**: ``train_trial_index + 1``. HELM's train trials re-run each instance
  with another draw of in-context examples and report the mean over trials, so
  they are repeats of the item, averaged within it downstream.
* **metric**: ``helm.metrics`` when set (first one the run has), else the main
  metric of the run's group in the suite's ``schema.json``, else the first of
  ``exact_match``, ``quasi_exact_match`` the run has. One metric per run.
* **split**: ``helm.split``, else the schema's ``main_split``, else ``test``.
  Instances of other splits are counted exclusions.
* **perturbations** (``data_augmentation=``): HELM evaluates each perturbed copy
  of an instance beside the original and reports it as another number (e.g. EM
  under ``lowercase``); its headline is on the originals. So by default
  (``helm.perturbations: exclude``) perturbed copies are counted exclusions and
  the run's accuracy is HELM's unperturbed number; ``tasks`` reads each
  perturbation as its own task ``<task> [<perturbation>]`` (the same items,
  perturbed), compared with HELM's ``computed_on: perturbed`` aggregate. Worst-case
  aggregates (``computed_on: worst``) combine tasks and are not compared.

References
----------
crfm-helm ``helm/benchmark/runner.py`` (files of a run),
``helm/benchmark/metrics/metric.py`` (per-instance stats, train-trial means,
perturbation stats), ``helm/benchmark/presentation/summarize.py`` (suite files,
``schema.json``, ``display_predictions.json``).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from rederive.errors import InputError, relpath
from rederive.io.accounting import Accounting
from rederive.io.formats._readkit import field, files_under, head, json_object, reported_frame
from rederive.io.source import read_json
from rederive.io.tabular import frame_from_records, graded_row, parse_correct
from rederive.lazy import pandas as pd

NAME = "helm"
#: Where it comes in the registry (searched, listed): rederive.io.plugins.
ORDER = 80

#: Its folder under raw_dir and what it holds (the schema's ``inputs.helm``).
LAYOUT = "helm/: HELM benchmark_output (or runs/<suite>), one run per run folder."

#: The JSON Schema of its options, ``helm:`` in an analysis (rederive.io.plugins).
OPTIONS = {
    "description": "HELM run folders (inputs.helm).",
    "type": "object",
    "default": {},
    "properties": {
        "metrics": {
            "description": "Per-instance stats to score by, first one the run "
            "has wins (null = the main metric of the run's "
            "group in the suite's schema.json, else exact_match "
            "then quasi_exact_match).",
            "type": ["array", "null"],
            "items": {"type": "string"},
            "minItems": 1,
            "default": None,
        },
        "split": {
            "description": "Evaluation split read (null = the schema's "
            "main_split, else test); instances of other splits "
            "are counted exclusions.",
            "type": ["string", "null"],
            "default": None,
        },
        "perturbations": {
            "description": "Perturbed copies of instances "
            "(data_augmentation) -- exclude (counted "
            "exclusions; HELM's headline is on the "
            "originals) or tasks (each perturbation its "
            "own task).",
            "enum": ["exclude", "tasks"],
            "default": "exclude",
        },
    },
    "additionalProperties": False,
}

DESCRIPTION = "HELM run folders (benchmark_output/runs/<suite>/<run>/per_instance_stats.json)"

DEFAULT_METRICS = ("exact_match", "quasi_exact_match")
PERTURBATIONS = ("exclude", "tasks")
# Run-spec arguments that name the model or a perturbation, not the scenario.
NOT_TASK_ARGS = ("model", "model_deployment", "data_augmentation")
# Perturbation fields that say how HELM aggregates it, not which perturbation it is.
NOT_PERTURBATION_KEYS = ("robustness", "fairness", "computed_on")
# What helm-summarize writes into a suite folder beside the runs (summarize.py).
SUITE_FILES = {
    "schema.json",
    "summary.json",
    "costs.json",
    "runs.json",
    "run_specs.json",
    "runs_to_run_suites.json",
    "groups.json",
    "groups_metadata.json",
}
SUITE_DIRS = {"eval_cache", "groups"}
# benchmark_output/ folders of downloaded data and caches, not results.
OUTPUT_DIRS = {"scenarios", "scenario_instances", "perturbations", "releases", "cache"}
RUN_FILE = "run_spec.json"
STATS_FILE = "per_instance_stats.json"


def _is_run(folder: Path) -> bool:
    return (folder / RUN_FILE).is_file()


def find_runs(folder: Path) -> list[tuple[str, Path]]:
    """Every folder holding ``run_spec.json`` below ``folder`` is one run.

    ``folder`` may be ``benchmark_output``, its ``runs/`` or one suite. Files
    inside a run folder belong to it; the suite files of ``helm-summarize``
    and the data folders of ``benchmark_output`` are known; any other file is
    an :class:`InputError` naming it.
    """
    folder = Path(folder)
    if _is_run(folder):
        return [(folder.name, folder)]
    found = files_under(folder)
    runs = sorted({p.parent for p in found if p.name == RUN_FILE})
    suites = {run.parent for run in runs}
    for path in found:
        parents = [p for p in path.parents if p == folder or folder in p.parents]
        if any(p in runs for p in parents):
            continue
        if path.parent in suites and path.name in SUITE_FILES:
            continue
        rel = path.relative_to(folder).parts[:-1]
        if any(part in OUTPUT_DIRS for part in rel):
            continue
        if any(p.parent in suites and p.name in SUITE_DIRS for p in parents):
            continue
        raise InputError(
            "not part of a HELM run (no run_spec.json in its folder) nor a file helm-summarize "
            "writes: move it out of the input folder",
            file=relpath(path),
        )
    return sorted((str(run.relative_to(folder)), run) for run in runs)


def detect(path: Path) -> bool:
    """A folder with ``run_spec.json`` (an object with ``adapter_spec``) and per-instance stats."""
    path = Path(path)
    if not path.is_dir() or not (path / STATS_FILE).is_file():
        return False
    text = head(path / RUN_FILE).decode("utf-8", errors="replace")
    return text.lstrip().startswith("{") and '"adapter_spec"' in text


def files(path: Path) -> list[Path]:
    """The run's files that are read, and the suite's ``schema.json`` (the main metric)."""
    path = Path(path)
    names = [RUN_FILE, STATS_FILE, "stats.json", "display_predictions.json", "scenario_state.json"]
    found = [path / name for name in names if (path / name).is_file()]
    if (path.parent / "schema.json").is_file():
        found.append(path.parent / "schema.json")
    return found


def _options(params: dict) -> dict:
    options = dict(params.get(NAME) or {})
    mode = options.get("perturbations") or "exclude"
    if mode not in PERTURBATIONS:
        raise ValueError(f"helm.perturbations must be one of {PERTURBATIONS}, not {mode!r}")
    options["perturbations"] = mode
    return options


def task_name(run_name: str) -> str:
    """The run spec name without the arguments that name the model or a perturbation."""
    scenario, _, args = run_name.partition(":")
    kept = [arg for arg in args.split(",") if arg and arg.split("=", 1)[0] not in NOT_TASK_ARGS]
    return f"{scenario}:{','.join(kept)}" if kept else scenario


def perturbation_label(perturbation: dict | None) -> str | None:
    """``lowercase`` or ``misspellings(prob=0.05)``: which perturbation, not how aggregated."""
    if not perturbation:
        return None
    params = {k: v for k, v in perturbation.items() if k not in (*NOT_PERTURBATION_KEYS, "name")}
    name = str(perturbation.get("name"))
    if not params:
        return name
    return f"{name}({','.join(f'{k}={params[k]}' for k in sorted(params))})"


def _main_metric(run: Path, groups: list) -> tuple[str | None, str | None, str | None]:
    """(main_name, main_split, where) from the suite's ``schema.json``, if it names them."""
    schema_path = run.parent / "schema.json"
    if not schema_path.is_file():
        return None, None, None
    schema = json_object(schema_path)
    found = {}
    for group in schema.get("run_groups") or []:
        if isinstance(group, dict) and group.get("name") in groups:
            environment = group.get("environment") or {}
            if isinstance(environment, dict) and environment.get("main_name"):
                found[group["name"]] = (environment["main_name"], environment.get("main_split"))
    choices = sorted(set(found.values()), key=str)
    if len(choices) > 1:
        raise InputError(
            f"the run's groups name different main metrics {found}: set helm.metrics",
            file=relpath(schema_path),
            field="run_groups",
        )
    if not choices:
        return None, None, None
    (name, split), where = choices[0], relpath(schema_path)
    return str(name), (str(split) if split else None), where


def _stat(entry: dict, metric: str, split: str, *, file: str, where: str) -> dict | None:
    stats = field(entry, "stats", list, file=file, where=where)
    matches = []
    for number, stat in enumerate(stats):
        name = field(stat, "name", dict, file=file, where=f"{where}stats[{number}].")
        if name.get("name") == metric and name.get("split") == split:
            matches.append(stat)
    if len(matches) > 1:
        raise InputError(
            f"{len(matches)} {metric!r} stats for split {split!r} in one entry (sub-splits?)",
            file=file,
            field=f"{where}stats",
        )
    return matches[0] if matches else None


def _splits(entries: list) -> set[str]:
    return {
        stat["name"]["split"]
        for entry in entries
        if isinstance(entry, dict)
        for stat in entry.get("stats") or []
        if isinstance(stat, dict)
        and isinstance(stat.get("name"), dict)
        and stat["name"].get("split")
    }


def _stat_names(entries: list) -> set[str]:
    return {
        stat["name"]["name"]
        for entry in entries
        if isinstance(entry, dict)
        for stat in entry.get("stats") or []
        if isinstance(stat, dict) and isinstance(stat.get("name"), dict)
    }


def _choose(path: Path, run_spec: dict, entries: list, options: dict, *, file: str):
    """The metric and split this run is scored by, and a note saying where they came from."""
    groups = run_spec.get("groups") if isinstance(run_spec.get("groups"), list) else []
    main_name, main_split, schema = _main_metric(path, groups)
    present = _stat_names(entries)
    if options.get("metrics"):
        candidates, source = list(options["metrics"]), "helm.metrics"
    elif main_name:
        candidates, source = [main_name], f"main metric in {schema}"
    else:
        candidates, source = list(DEFAULT_METRICS), "default"
    metric = next((m for m in candidates if m in present), None)
    if metric is None:
        raise InputError(
            f"none of the metrics {candidates} ({source}) is among this run's per-instance stats; "
            "set helm.metrics to one it has, e.g. "
            f"{sorted(m for m in present if 'match' in m or m in ('f1_score', 'equivalent'))}",
            file=file,
            field="stats.name.name",
        )
    split = options.get("split") or main_split or "test"
    splits = _splits(entries)
    if split not in splits:
        raise InputError(
            f"split {split!r} is not in this run (it has {sorted(splits)}): set helm.split",
            file=file,
            field="stats.name.split",
        )
    return metric, split, f"metric {metric} ({source}), split {split}"


def _key(instance_id, perturbation, trial) -> tuple:
    return (str(instance_id), json.dumps(perturbation, sort_keys=True), trial)


def _predictions(path: Path) -> dict[tuple, str]:
    """``predicted_text`` by (instance, perturbation, trial), from display_predictions.json."""
    source = path / "display_predictions.json"
    if not source.is_file():
        return {}
    records = read_json(source)
    if not isinstance(records, list):
        raise InputError("expected a JSON list", file=relpath(source))
    found = {}
    for record in records:
        if isinstance(record, dict) and isinstance(record.get("predicted_text"), str):
            key = _key(
                record.get("instance_id"),
                record.get("perturbation"),
                record.get("train_trial_index"),
            )
            found[key] = record["predicted_text"]
    return found


def _doc_hashes(path: Path) -> dict[tuple, str]:
    """SHA-256 of each instance's input and references, from scenario_state.json.

    Keyed by (instance, perturbation): another model's run of the scenario must
    have seen the same text under the same ``instance_id``.
    """
    source = path / "scenario_state.json"
    if not source.is_file():
        return {}
    state = json_object(source)
    found = {}
    for request in state.get("request_states") or []:
        instance = request.get("instance") if isinstance(request, dict) else None
        if not isinstance(instance, dict):
            continue
        document = {
            "input": (instance.get("input") or {}).get("text"),
            "references": [
                [(ref.get("output") or {}).get("text"), ref.get("tags")]
                for ref in instance.get("references") or []
                if isinstance(ref, dict)
            ],
        }
        digest = hashlib.sha256(json.dumps(document, sort_keys=True).encode()).hexdigest()
        found[_key(instance.get("id"), instance.get("perturbation"), None)[:2]] = digest
    return found


def _run_spec(path: Path) -> tuple[dict, str, str]:
    spec_path = Path(path) / RUN_FILE
    name = relpath(spec_path)
    run_spec = json_object(spec_path)
    run_name = field(run_spec, "name", str, file=name)
    adapter = field(run_spec, "adapter_spec", dict, file=name)
    model = field(adapter, "model", str, file=name, where="adapter_spec.")
    return run_spec, model, task_name(run_name)


def _entries(path: Path) -> tuple[list, str]:
    stats_path = Path(path) / STATS_FILE
    name = relpath(stats_path)
    if not stats_path.is_file():
        raise InputError(
            "no per_instance_stats.json in this HELM run folder (the run did not finish, or "
            "was written by a HELM release that did not keep per-instance stats)",
            file=name,
        )
    entries = read_json(stats_path)
    if not isinstance(entries, list):
        raise InputError("expected a JSON list of per-instance entries", file=name)
    if not entries:
        raise InputError("no per-instance entries", file=name)
    for number, entry in enumerate(entries):
        where = f"[{number}]."
        stats = field(entry, "stats", list, file=name, where=where)
        for index, stat in enumerate(stats):
            at = f"{where}stats[{index}]."
            stat_name = field(stat, "name", dict, file=name, where=at)
            field(stat_name, "name", str, file=name, where=f"{at}name.")
            field(stat_name, "split", str, file=name, where=f"{at}name.")
    return entries, name


def read(path: Path, *, params: dict, accounting: Accounting) -> pd.DataFrame:
    """Read one HELM run folder into the long reader frame.

    Parameters
    ----------
    path : Path
        ``benchmark_output/runs/<suite>/<run>/``.
    params : dict
        ``params["helm"]``: ``metrics`` (list or null), ``split`` (null),
        ``perturbations`` (``exclude`` or ``tasks``).
    accounting : Accounting
        One row read per per-instance entry; other splits, perturbed copies
        (``exclude``) and entries without the metric are counted exclusions.

    Returns
    -------
    DataFrame
        :data:`rederive.io.tabular.COLUMNS` plus ``metric``.
    """
    path = Path(path)
    options = _options(params)
    run_spec, model, task = _run_spec(path)
    entries, name = _entries(path)
    metric, split, note = _choose(path, run_spec, entries, options, file=name)
    accounting.notes.append(f"{path.name}: {note}")
    predictions = _predictions(path)
    hashes = _doc_hashes(path)
    records, seen = [], {}
    for number, entry in enumerate(entries):
        where = f"[{number}]."
        accounting.rows_read += 1
        instance = field(entry, "instance_id", (str, int), file=name, where=where)
        trial = field(entry, "train_trial_index", int, file=name, where=where)
        perturbation = (
            field(entry, "perturbation", dict, file=name, where=where, nullable=True)
            if ("perturbation" in entry)
            else None
        )
        key = _key(instance, perturbation, trial)
        if key in seen:
            raise InputError(
                f"instance {instance!r}, train trial {trial}"
                f"{f', perturbation {perturbation_label(perturbation)}' if perturbation else ''} "
                f"already appears as entry {seen[key]}",
                file=name,
                field=f"{where}instance_id",
            )
        seen[key] = number
        label = perturbation_label(perturbation)
        if label is not None and options["perturbations"] == "exclude":
            accounting.exclude(f"perturbed copy ({label}; helm.perturbations: exclude)")
            continue
        stat = _stat(entry, metric, split, file=name, where=where)
        if stat is None:
            if split not in _splits([entry]):
                accounting.exclude(f"other HELM split ({', '.join(sorted(_splits([entry])))})")
            else:
                accounting.exclude(f"no {metric} stat for this instance")
            continue
        if not stat.get("count"):
            accounting.exclude(f"{metric} not computed (count 0)")
            continue
        score = parse_correct(
            stat.get("mean"), file=name, line=None, field=f"{where}stats.{metric}.mean"
        )
        if score is None:
            accounting.exclude(f"{metric} not computed (mean null)")
            continue
        accounting.rows_used += 1
        records.append(
            graded_row(
                model,
                task if label is None else f"{task} [{label}]",
                str(instance),
                score,
                name,
                epoch=trial + 1,
                doc_hash=hashes.get(key[:2]),
                response=predictions.get(key),
            )
        )
    frame = frame_from_records(records)
    frame["metric"] = pd.array([metric] * len(frame), dtype="string")
    return frame


def reported(path: Path, *, params: dict) -> pd.DataFrame:
    """HELM's own aggregate of the chosen metric from ``stats.json``.

    The unperturbed mean (HELM's mean over train trials of each trial's mean);
    with ``helm.perturbations: tasks`` also each perturbation's
    ``computed_on: perturbed`` mean.
    """
    path = Path(path)
    stats_path = path / "stats.json"
    if not stats_path.is_file():
        return reported_frame([])
    options = _options(params)
    run_spec, model, task = _run_spec(path)
    entries, name = _entries(path)
    metric, split, _ = _choose(path, run_spec, entries, options, file=name)
    stats = read_json(stats_path)
    if not isinstance(stats, list):
        raise InputError("expected a JSON list of stats", file=relpath(stats_path))
    rows = []
    for number, stat in enumerate(stats):
        stat_name = field(stat, "name", dict, file=relpath(stats_path), where=f"[{number}].")
        if stat_name.get("name") != metric or stat_name.get("split") != split:
            continue
        perturbation = stat_name.get("perturbation")
        if perturbation is None:
            label = None
        elif options["perturbations"] == "tasks" and perturbation.get("computed_on") == "perturbed":
            label = perturbation_label(perturbation)
        else:
            continue
        if not isinstance(stat.get("mean"), int | float) or isinstance(stat.get("mean"), bool):
            continue
        rows.append(
            {
                "model": model,
                "task": task if label is None else f"{task} [{label}]",
                "metric": metric,
                "filter": split,
                "value": float(stat["mean"]),
                "file": relpath(stats_path),
            }
        )
    return reported_frame(sorted(rows, key=lambda row: row["task"]))
