"""From what a folder holds to the analyses of its config.

One analysis per kind of data found: a benchmark analysis per group of runs
that share tasks (:mod:`rederive.cli.grouping`), selected by folder
(:mod:`rederive.cli.select`); a paper-kind analysis per study folder whose
kind its records tell; a preference analysis when the workflow has that kind.
Whatever cannot be configured is kept as a *problem* (the config says it, and
``rederive init`` exits 1): a run its reader refuses, groups the folder layout
cannot separate, a study folder of no clear kind.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from rederive.analyses import NAME_PATTERN, RESERVED_NAMES, load_schema
from rederive.cli.grouping import Content, Group, group_runs
from rederive.cli.scan import Run, Scan
from rederive.cli.select import Unselectable, common_folder, found_by, select_inputs
from rederive.io import formats

__all__ = ["Analysis", "Plan", "make_plan", "slug"]

PREFERENCE = "preference"


@dataclass
class Analysis:
    """One entry of ``analyses:``, with the comment lines written above it."""

    name: str
    entry: dict
    notes: list[str] = field(default_factory=list)
    #: Option key -> comment lines written above it.
    option_notes: dict[str, list[str]] = field(default_factory=dict)
    runs: list[Run] = field(default_factory=list)


@dataclass
class Plan:
    """The analyses of the config and everything found that they leave out."""

    analyses: list[Analysis] = field(default_factory=list)
    #: Sentences on what will stop the build or was not configured.
    problems: list[str] = field(default_factory=list)
    #: Preference runs when the workflow has no preference kind yet.
    preference_waiting: list[Run] = field(default_factory=list)
    #: Runs found but in no analysis: (run, why).
    left_out: list[tuple[Run, str]] = field(default_factory=list)


def slug(text: str) -> str:
    """``text`` as (part of) an analysis name: letters, digits, ``_``, ``-``, ``.``."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_.-")
    return name[:80] or "results"


def _unique(name: str, taken: set[str]) -> str:
    base, n = name[:76], 2
    while name in taken or name in RESERVED_NAMES or not NAME_PATTERN.match(name):
        name, n = f"{base}-{n}", n + 1
    taken.add(name)
    return name


def _listing(names: list[str], limit: int = 3) -> str:
    return ", ".join(names) if len(names) <= limit else f"{len(names)}"


def _group_notes(group: Group, contents: dict[Path, Content], scan: Scan) -> list[str]:
    n_models, n_tasks = len(group.models), len(group.tasks)
    tasks = ", ".join(f"{t} ({n} items)" for t, n in list(group.tasks.items())[:6])
    more = f" and {n_tasks - 6} more" if n_tasks > 6 else ""
    notes = [
        f"{len(group.runs)} run(s), {n_models} model(s), {n_tasks} task(s): {tasks}{more}; "
        f"{group.n_items} items in all.",
        "Runs (format, path, models: tasks):",
    ]
    for run in group.runs[:50]:
        content = contents[run.path]
        models = content.models
        who = ", ".join(models) if len(models) <= 3 else f"{len(models)} models"
        tasks = sorted(content.tasks)
        what = ", ".join(tasks) if len(tasks) <= 3 else f"{len(tasks)} tasks"
        notes.append(f"  {run.format:<10} {scan.rel(run.path)}  {who}: {what}")
    if len(group.runs) > 50:
        notes.append(f"  … and {len(group.runs) - 50} more runs")
    return notes


def _item_sets_notes(group: Group) -> list[str]:
    shown = "; ".join(f"{m}: {n} of {total}" for m, n, total in group.short[:5])
    more = f"; {len(group.short) - 5} more" if len(group.short) > 5 else ""
    return [
        f"The models were not graded on the same items ({shown}{more} items).",
        "intersection compares every model on the items all were graded on (a model",
        "graded on too few of them is left out, counted and named); each model's",
        "own-items score stays beside it. The default, require_equal, would stop the",
        "build; zero counts a missing grade as wrong (docs/configuration.md).",
    ]


def make_plan(
    scan: Scan,
    contents: dict[Path, Content],
    items: dict[str, set[str]],
    kinds: list[str],
    schema_dir: Path,
    *,
    name: str,
    label: str,
    taken: set[str],
) -> Plan:
    """The analyses for ``scan`` (``contents``: each benchmark run read once, ``items``:
    the item ids of each task, :func:`rederive.cli.grouping.read_content`).

    ``name`` and ``label`` are those of the only analysis, or the stem of each
    name and label when there are several; ``taken`` holds names not to use
    (the bundled analyses').
    """
    plan = Plan()
    taken = set(taken)
    parts: list[tuple[str, Analysis]] = []  # (suffix, analysis) before names are final
    benchmark_runs = scan.of("benchmark")
    refused = [run for run in benchmark_runs if contents[run.path].error]
    tolerated = {run.path.resolve() for run in refused}
    included: set[Path] = set()
    unplaced: list[tuple[Group, str]] = []
    groups = group_runs(benchmark_runs, contents, items)
    for group in groups:
        raw_dir = _raw_dir(scan, group.runs)
        try:
            inputs = select_inputs(raw_dir, group.runs, tolerated)
        except Unselectable as exc:
            unplaced.append((group, str(exc)))
            continue
        entry = {"kind": "benchmark", "label": "", "raw_dir": str(raw_dir)}
        if inputs:
            entry["inputs"] = inputs
        analysis = Analysis("", entry, _group_notes(group, contents, scan), runs=group.runs)
        if group.short:
            entry["item_sets"] = "intersection"
            analysis.option_notes["item_sets"] = _item_sets_notes(group)
        for model, task, runs in group.duplicates:
            plan.problems.append(
                f"model {model!r}, task {task!r} is graded in {len(runs)} runs "
                f"({', '.join(runs)}): the build refuses two runs of one model and task; "
                "keep one of them in the folder"
            )
        found = found_by(raw_dir, inputs)
        included |= set(found) & tolerated
        for run in refused:
            if run.path.resolve() in found:
                analysis.notes.append(
                    f"Refused by its reader, the build stops at it: {scan.rel(run.path)}"
                )
        folder = raw_dir if raw_dir != scan.folder else common_folder(group.runs)
        suffix = scan.rel(folder) if folder != scan.folder else next(iter(group.tasks))
        parts.append((suffix, analysis))
    _unseparated(plan, unplaced, scan, several=len(groups) > 1)
    for run in refused:
        message = contents[run.path].error
        where = "the build stops at it" if run.path.resolve() in included else "not analysed"
        plan.problems.append(f"{scan.rel(run.path)} ({run.format}) is refused ({where}): {message}")
        if run.path.resolve() not in included:
            plan.left_out.append((run, f"refused by its reader: {message}"))
    for study in scan.studies:
        rel = scan.rel(study.path)
        shown = f"{rel}/" if rel != "." else "the folder"
        if study.problems:
            plan.problems.append(
                f"{shown}: runs/ holds entries the build refuses: " + "; ".join(study.problems)
            )
        if study.kind is None:
            plan.problems.append(
                f"{shown} is not configured: {study.why_not()}; write its analysis by hand "
                f"(kind: {' | '.join(study.layouts)}, raw_dir: {study.path})"
            )
            continue
        entry = {"kind": study.kind, "label": "", "raw_dir": str(study.path)}
        notes = [
            f"Study folder of kind {study.kind} (its items and run records hold the fields "
            f"{study.kind} reads): {len(study.runs)} run file(s) in runs/.",
        ]
        also = [
            name + ("/" if (study.path / name).is_dir() else "")
            for name in study.optional
            if (study.path / name).exists()
        ]
        if also:
            notes.append("Also read: " + ", ".join(also))
        if study.unread:
            notes.append("Not read by the kind: " + ", ".join(p.name for p in study.unread))
        parts.append((rel if rel != "." else study.kind, Analysis("", entry, notes)))
    preference = scan.of(PREFERENCE)
    if preference and PREFERENCE not in kinds:
        plan.preference_waiting = preference
    elif preference:
        analysis = _preference_analysis(scan, preference, schema_dir)
        if isinstance(analysis, str):
            plan.problems.append(analysis)
            plan.left_out += [(run, "preference data not configured") for run in preference]
        else:
            parts.append((scan.rel(common_folder(preference)), analysis))
    _name(parts, name, label, taken)
    plan.analyses = [analysis for _, analysis in parts]
    return plan


def _raw_dir(scan: Scan, runs: list[Run]) -> Path:
    """The deepest folder holding every run that is laid out as a benchmark raw_dir
    (its items.csv and published/ are then read), else the runs' own folder: every
    file under a raw_dir is hashed into the analysis's provenance, so no wider."""
    holders = [folder for folder in scan.extras if all(folder in r.path.parents for r in runs)]
    if holders:
        return max(holders, key=lambda folder: len(folder.parts))
    return common_folder(runs)


def _unseparated(plan: Plan, groups: list[tuple[Group, str]], scan: Scan, *, several: bool) -> None:
    """Problems for the groups no folder selects (``several``: of more than one group)."""
    for group, why in groups:
        names = ", ".join(scan.rel(r.path) for r in group.runs[:3])
        more = f" and {len(group.runs) - 3} more" if len(group.runs) > 3 else ""
        tasks = f"tasks {_listing(list(group.tasks))}"
        reason = "they share no task with the runs beside them, and " if several else ""
        plan.problems.append(
            f"{len(group.runs)} run(s) are not analysed ({names}{more}; {tasks}): {reason}no "
            f"folder selects exactly them ({why}). An analysis reads whole folders, and items "
            "are matched on (task, item_id): move each group of runs sharing a task into a "
            "folder of its own and run rederive init again"
        )
        for run in group.runs:
            plan.left_out.append((run, "no folder selects exactly its group of runs"))


def _preference_analysis(scan: Scan, runs: list[Run], schema_dir: Path) -> Analysis | str:
    """A preference analysis of the folder holding ``runs`` (its inputs detected, as
    ``inputs: {auto: …}`` does), or why there is none."""
    folder = common_folder(runs)
    schema = load_schema(schema_dir / f"{PREFERENCE}.schema.yaml")
    inputs = schema.get("properties", {}).get("inputs", {}).get("properties", {})
    if formats.AUTO not in inputs:
        return (
            f"{len(runs)} preference file(s) are not configured: the {PREFERENCE} kind "
            "has no inputs.auto to read a folder of mixed files; write its analysis by hand"
        )
    others = [r.path for r in scan.runs if r.registry != PREFERENCE]
    others += [s.path for s in scan.studies] + [u.path for u in scan.unread]
    inside = [p for p in others if folder == p or folder in p.parents]
    if inside:
        return (
            f"{len(runs)} preference file(s) are not configured: their folder "
            f"{scan.rel(folder)}/ also holds {scan.rel(inside[0])}, which the {PREFERENCE} "
            "kind would refuse; move the preference files into a folder of their own"
        )
    entry = {"kind": PREFERENCE, "label": "", "raw_dir": str(folder)}
    entry["inputs"] = {formats.AUTO: str(folder)}
    notes = [f"{len(runs)} file(s) of pairwise judgments:"]
    notes += [f"  {r.format:<12} {scan.rel(r.path)}" for r in runs[:50]]
    return Analysis("", entry, notes, runs=runs)


def _name(parts: list[tuple[str, Analysis]], name: str, label: str, taken: set[str]) -> None:
    for suffix, analysis in parts:
        if len(parts) == 1:
            analysis.name = _unique(name, taken)
            analysis.entry["label"] = label
        else:
            analysis.name = _unique(f"{name}-{slug(suffix)}", taken)
            analysis.entry["label"] = f"{label}: {suffix}"
