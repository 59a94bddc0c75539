"""The ``inputs:`` of a benchmark analysis that reads exactly a given set of runs.

A benchmark analysis selects its runs by folder: the ``<raw_dir>/<format>``
folders, a folder per format (``inputs: {lm_eval: …}``), or a folder of mixed
outputs (``inputs: {auto: …}``). Each candidate below is checked with the
workflow's own discovery (:func:`rederive.studies.benchmark.sources.discover`,
which the rules call), so a config written from it finds exactly the runs it
was written for, or the candidate is not used.
"""

from __future__ import annotations

import os
from pathlib import Path

from rederive.cli.scan import Run
from rederive.errors import InputError
from rederive.io import formats
from rederive.io.run_files import RunFilesError
from rederive.studies.benchmark.sources import discover

__all__ = ["common_folder", "select_inputs"]


def common_folder(runs: list[Run]) -> Path:
    """The deepest folder holding every run (a run folder holds itself)."""
    folders = [str(r.path if r.path.is_dir() else r.path.parent) for r in runs]
    return Path(os.path.commonpath(folders))


def _candidates(raw_dir: Path, runs: list[Run]):
    if any((raw_dir / name).is_dir() for name in formats.names()):
        yield {}  # the documented layout: <raw_dir>/<format>/
    yield {formats.AUTO: str(common_folder(runs))}
    by_format: dict[str, list[Run]] = {}
    for run in runs:
        by_format.setdefault(run.format, []).append(run)
    yield {name: str(common_folder(group)) for name, group in sorted(by_format.items())}


def found_by(raw_dir: Path, inputs: dict) -> dict[Path, str] | None:
    """Path -> format of every run the workflow would read, or None when it refuses."""
    try:
        sources = discover(raw_dir, inputs)
    except (InputError, RunFilesError, ValueError):
        return None
    return {source.path.resolve(): source.format for source in sources.values()}


def select_inputs(
    raw_dir: Path, runs: list[Run], tolerated: set[Path] = frozenset()
) -> dict | None:
    """The first candidate ``inputs:`` that reads ``runs``, each as its detected format,
    and nothing else but paths of ``tolerated`` (runs that are found anyway, such as
    runs their reader refuses); None when no folder selection does.
    """
    want = {run.path.resolve(): run.format for run in runs}
    for inputs in _candidates(raw_dir, runs):
        found = found_by(raw_dir, inputs)
        if found is None:
            continue
        extra = set(found) - set(want)
        if all(found.get(path) == fmt for path, fmt in want.items()) and extra <= tolerated:
            return inputs
    return None
