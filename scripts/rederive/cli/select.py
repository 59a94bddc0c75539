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

__all__ = ["Unselectable", "common_folder", "found_by", "select_inputs"]


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


def found_by(raw_dir: Path, inputs: dict) -> dict[Path, str] | str:
    """Path -> format of every run the workflow would read, or its refusal's message."""
    try:
        sources = discover(raw_dir, inputs)
    except (InputError, RunFilesError, ValueError) as exc:
        return str(exc)
    return {source.path.resolve(): source.format for source in sources.values()}


class Unselectable(Exception):
    """No folder selects exactly the runs; the message says what the closest one does."""


def select_inputs(raw_dir: Path, runs: list[Run], tolerated: set[Path] = frozenset()) -> dict:
    """The first candidate ``inputs:`` that reads ``runs``, each as its detected format,
    and nothing else but paths of ``tolerated`` (runs that are found anyway, such as
    runs their reader refuses).

    Raises
    ------
    Unselectable
        With what ``inputs: {auto: <their folder>}`` would do instead.
    """
    want = {run.path.resolve(): run.format for run in runs}
    why = ""
    for inputs in _candidates(raw_dir, runs):
        found = found_by(raw_dir, inputs)
        if isinstance(found, str):
            reason = f"{inputs} is refused: {found}"
        else:
            extra = sorted(set(found) - set(want) - set(tolerated))
            if all(found.get(path) == fmt for path, fmt in want.items()) and not extra:
                return inputs
            reason = f"{inputs} would also read {extra[0]}" if extra else f"{inputs} misses some"
        if formats.AUTO in inputs:
            why = f"inputs: {reason}"  # the selection closest to "these runs' folder"
    raise Unselectable(why)
