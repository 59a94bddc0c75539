"""Where a preference analysis's runs come from: the input folders of the formats
of :mod:`rederive.io.preference`.

Each format has its folder, by default ``<raw_dir>/<format>``, which
``inputs.<format>`` may point elsewhere; ``inputs: {auto: <folder>}`` reads a
folder of mixed outputs, each file's format detected
(:func:`rederive.io.preference.find_auto_runs`), and the default folders are
then not searched (a format set explicitly still is). A run id is
``<format>-<name>`` made a safe file name (:func:`rederive.io.run_files.run_id`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rederive.io import preference
from rederive.io.run_files import RunFilesError, brace_problem, run_id

__all__ = ["Source", "discover", "input_dirs"]


@dataclass(frozen=True)
class Source:
    run: str
    format: str
    path: Path

    def files(self) -> list[Path]:
        """The files the run is read from (Snakemake inputs: a change re-runs its ingest)."""
        return preference.get(self.format).files(self.path)


def input_dirs(raw_dir: str | Path, inputs: dict | None) -> dict[str, Path]:
    """The folder of each format: ``inputs[<format>]`` when set, else ``<raw_dir>/<format>``;
    with ``inputs.auto``, only the formats set explicitly, and ``auto``."""
    inputs = inputs or {}
    names = preference.names()
    if inputs.get(preference.AUTO):
        dirs = {fmt: Path(inputs[fmt]) for fmt in names if inputs.get(fmt)}
        return dirs | {preference.AUTO: Path(inputs[preference.AUTO])}
    return {fmt: Path(inputs.get(fmt) or Path(raw_dir) / fmt) for fmt in names}


def discover(
    raw_dir: str | Path, inputs: dict | None = None, *, skip: tuple = ()
) -> dict[str, Source]:
    """Every run of the input folders, by run id (sorted).

    Parameters
    ----------
    raw_dir : str or Path
    inputs : dict, optional
        The analysis's ``inputs`` block.
    skip : tuple of paths
        Files an ``auto`` walk of raw_dir must not take for runs (published/,
        the length-control inputs).

    Raises
    ------
    ValueError
        Two inputs that map to one run id.
    rederive.errors.InputError
        From auto mode: a file no format, or several, recognise.
    RunFilesError
        A format folder's entries that are not read, or paths with braces.
    """
    found: dict[str, Source] = {}
    problems: list[str] = []

    def add(fmt: str, name: str, path: Path) -> None:
        problem = brace_problem(path)
        if problem:
            problems.append(problem)
            return
        run = f"{fmt}-{run_id(name)}"
        if run in found:
            raise ValueError(
                f"inputs {found[run].path} and {path} both map to run id {run}; rename one"
            )
        found[run] = Source(run, fmt, path)

    for fmt, folder in input_dirs(raw_dir, inputs).items():
        if not folder.is_dir():
            continue
        if fmt == preference.AUTO:
            own = (Path(raw_dir) / "published", *skip)
            for detected, name, path in preference.find_auto_runs(folder, skip=own):
                add(detected, name, path)
            continue
        try:
            runs = preference.get(fmt).find_runs(folder)
        except RunFilesError as exc:
            problems.extend(exc.problems)
            continue
        for name, path in runs:
            add(fmt, name, path)
    if problems:
        raise RunFilesError(raw_dir, problems)
    return dict(sorted(found.items()))
