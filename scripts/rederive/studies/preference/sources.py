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
from rederive.io.run_sources import find_sources, format_dirs

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
    return format_dirs(preference, preference.names(), raw_dir, inputs)


def discover(
    raw_dir: str | Path, inputs: dict | None = None, *, skip: tuple = ()
) -> dict[str, Source]:
    """Every run of the input folders, by run id (sorted); the errors of
    :func:`rederive.io.run_sources.find_sources`.

    Parameters
    ----------
    raw_dir : str or Path
    inputs : dict, optional
        The analysis's ``inputs`` block.
    skip : tuple of paths
        Files an ``auto`` walk of raw_dir must not take for runs (published/ is
        always passed over; the length-control inputs).
    """
    own = (Path(raw_dir) / "published", *skip)
    folders = input_dirs(raw_dir, inputs)
    return find_sources(preference, folders, raw_dir, Source, auto_skip=own)
