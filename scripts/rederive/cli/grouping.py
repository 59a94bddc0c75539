"""Which benchmark runs can be compared: read each once, group them by shared tasks.

A benchmark analysis compares models on the items they share, items keyed by
``(task, item_id)``; runs with no task in common share no item, and the
warehouse refuses them in one analysis ("the models share no item at all").
So the runs of a folder form one group per connected set of tasks (two runs
belong together when they share a task, directly or through others), and each
group becomes its own analysis. Within a group, models graded on different
items make the default ``item_sets: require_equal`` refuse the build; the
group says so, with the counts, for the config to name the alternative.

Each run is read by its format's reader with the kind's default options, as
the ingest job will read it: a run its reader refuses is kept with the
reader's message.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa

from rederive.cli.scan import Run
from rederive.errors import InputError, relpath
from rederive.io import formats
from rederive.io.accounting import Accounting
from rederive.io.run_files import RunFilesError

__all__ = ["Content", "Group", "group_runs", "read_content"]


@dataclass(frozen=True)
class Content:
    """What one run holds: distinct items graded per (model, task), and per task."""

    rows: int
    #: (model, task) -> distinct items graded.
    graded: dict[tuple[str, str], int]
    #: task -> distinct items of this run.
    tasks: dict[str, int]
    excluded: dict[str, int]
    error: str | None = None

    @property
    def models(self) -> list[str]:
        return sorted({model for model, _ in self.graded})


def read_content(run: Run, params: dict, items: dict[str, set[str]]) -> Content:
    """Read ``run`` with its format's reader; a refusal becomes ``error``.

    ``items`` (task -> item ids) gains the run's items: every run of a task is in
    that task's group, so this is the group's item set, held once.
    """
    accounting = Accounting(
        study="benchmark", run=run.name, file=relpath(run.path), sha256="", format=run.format
    )
    module = formats.get(run.format)
    # The reader the ingest job calls: a long file's Arrow path when it has one.
    reader = getattr(module, "read_table", module.read)
    try:
        frame = reader(run.path, params=params, accounting=accounting)
    except (InputError, RunFilesError, ValueError, OSError) as exc:
        return Content(0, {}, {}, {}, error=str(exc))
    if isinstance(frame, pa.Table):
        frame = frame.select(["model", "task", "item_id"]).to_pandas()
    excluded = dict(accounting.excluded)
    if frame.empty:
        reasons = ", ".join(f"{n} {why}" for why, n in sorted(excluded.items())) or "none read"
        return Content(0, {}, {}, excluded, error=f"no graded row ({reasons})")
    keys = frame[["model", "task", "item_id"]].astype(str).drop_duplicates()
    graded = keys.groupby(["model", "task"]).size()
    tasks = {}
    for task, ids in keys.groupby("task")["item_id"]:
        tasks[str(task)] = ids.nunique()
        items.setdefault(str(task), set()).update(ids.unique())
    return Content(
        len(frame), {(str(m), str(t)): int(n) for (m, t), n in graded.items()}, tasks, excluded
    )


@dataclass
class Group:
    """Runs that share tasks: one benchmark analysis."""

    runs: list[Run]
    tasks: dict[str, int] = field(default_factory=dict)
    models: list[str] = field(default_factory=list)
    #: Models graded on fewer items than the group's union: (model, graded, union).
    short: list[tuple[str, int, int]] = field(default_factory=list)
    #: (model, task) graded in more than one run: the warehouse refuses it.
    duplicates: list[tuple[str, str, list[str]]] = field(default_factory=list)

    @property
    def n_items(self) -> int:
        return sum(self.tasks.values())


def group_runs(
    runs: list[Run], contents: dict[Path, Content], items: dict[str, set[str]]
) -> list[Group]:
    """The readable runs in groups of shared tasks, ordered by their first run's path
    (``items``: every task's item ids, from :func:`read_content`)."""
    readable = [run for run in runs if contents[run.path].error is None]
    parent = list(range(len(readable)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first_with: dict[str, int] = {}
    for i, run in enumerate(readable):
        for task in contents[run.path].tasks:
            j = first_with.setdefault(task, i)
            parent[find(i)] = find(j)
    members: dict[int, list[Run]] = defaultdict(list)
    for i, run in enumerate(readable):
        members[find(i)].append(run)
    groups = [
        _summarise(sorted(m, key=lambda r: r.path), contents, items) for m in members.values()
    ]
    return sorted(groups, key=lambda g: g.runs[0].path)


def _summarise(runs: list[Run], contents: dict[Path, Content], items: dict[str, set[str]]) -> Group:
    graded: dict[tuple[str, str], int] = defaultdict(int)
    sources: dict[tuple[str, str], list[str]] = defaultdict(list)
    for run in runs:
        for key, n in contents[run.path].graded.items():
            graded[key] = max(graded[key], n)
            sources[key].append(run.name)
    names = sorted({task for run in runs for task in contents[run.path].tasks})
    tasks = {task: len(items[task]) for task in names}
    models = sorted({model for model, _ in graded})
    union = sum(tasks.values())
    short = []
    for model in models:
        n = sum(graded.get((model, task), 0) for task in tasks)
        if n < union:
            short.append((model, n, union))
    duplicates = [(m, t, names) for (m, t), names in sorted(sources.items()) if len(names) > 1]
    return Group(runs, tasks, models, short, duplicates)
