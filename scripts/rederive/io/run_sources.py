"""Finding an analysis's runs in the input folders of a format registry.

A registry (:mod:`rederive.io.formats` for benchmark runs,
:mod:`rederive.io.preference` for judged games) gives its format names, ``AUTO``,
``get(name).find_runs(folder)`` and ``find_auto_runs(folder, skip=...)``. Each
format has its folder, by default ``<raw_dir>/<format>``, which
``inputs.<format>`` may point elsewhere; ``inputs: {auto: <folder>}`` reads a
folder of mixed outputs, each file's format detected, and the default folders
are then not searched (a format set explicitly still is). A run id is
``<format>-<name>`` made a safe file name (:func:`rederive.io.run_files.run_id`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType
from typing import TypeVar

from rederive.io.run_files import RunFilesError, brace_problem, run_id

__all__ = ["find_sources", "format_dirs"]

S = TypeVar("S")


def format_dirs(
    registry: ModuleType, names: Iterable[str], raw_dir: str | Path, inputs: dict | None
) -> dict[str, Path]:
    """The folder of each format: ``inputs[<format>]`` when set, else ``<raw_dir>/<format>``;
    with ``inputs.auto``, only the formats set explicitly, and ``auto``."""
    inputs = inputs or {}
    if inputs.get(registry.AUTO):
        dirs = {fmt: Path(inputs[fmt]) for fmt in names if inputs.get(fmt)}
        return dirs | {registry.AUTO: Path(inputs[registry.AUTO])}
    return {fmt: Path(inputs.get(fmt) or Path(raw_dir) / fmt) for fmt in names}


def find_sources(
    registry: ModuleType,
    folders: dict[str, Path],
    raw_dir: str | Path,
    make_source: Callable[[str, str, Path], S],
    *,
    auto_skip: tuple = (),
) -> dict[str, S]:
    """Every run of ``folders`` (from :func:`format_dirs`), by run id (sorted).

    Parameters
    ----------
    registry : module
        The format registry the folders belong to.
    folders : dict of str to Path
        Each format's folder, ``AUTO`` for a folder of mixed outputs.
    raw_dir : str or Path
        Named in the error listing refused entries.
    make_source : callable
        ``make_source(run_id, format, path)``, the kind's source record.
    auto_skip : tuple of paths
        Files an ``auto`` walk must not take for runs (``published/``, ...).

    Raises
    ------
    ValueError
        Two inputs that map to one run id (e.g. ``a b.csv`` and ``a_b.csv``).
    rederive.errors.InputError
        From auto mode: a file no format, or several, recognise.
    RunFilesError
        Every folder's problems in one message: entries a format's ``find_runs``
        does not read (named with what to do), paths with braces.
    """
    found: dict[str, S] = {}
    paths: dict[str, Path] = {}
    problems: list[str] = []

    def add(fmt: str, name: str, path: Path) -> None:
        problem = brace_problem(path)
        if problem:
            problems.append(problem)
            return
        run = f"{fmt}-{run_id(name)}"
        if run in found:
            raise ValueError(f"inputs {paths[run]} and {path} both map to run id {run}; rename one")
        found[run], paths[run] = make_source(run, fmt, path), path

    for fmt, folder in folders.items():
        if not folder.is_dir():
            continue
        if fmt == registry.AUTO:
            for detected, name, path in registry.find_auto_runs(folder, skip=auto_skip):
                add(detected, name, path)
            continue
        try:
            runs = registry.get(fmt).find_runs(folder)
        except RunFilesError as exc:
            problems.extend(exc.problems)
            continue
        for name, path in runs:
            add(fmt, name, path)
    if problems:
        raise RunFilesError(raw_dir, problems)
    return dict(sorted(found.items()))
