"""Where the study's runs come from: the input folders of the registered formats.

Each input format (:mod:`rederive.io.formats`) has its own folder, by default
``<raw_dir>/<format>``, and each can be pointed elsewhere in config
(``benchmark.inputs.<format>``); the format's ``find_runs`` lists its runs (a file
each, or an lm-eval model folder). ``inputs: {auto: <folder>}`` reads a folder of
mixed outputs instead, detecting each run's format
(:func:`rederive.io.formats.find_auto_runs`); with it, the default
``<raw_dir>/<format>`` folders are not searched (a format set explicitly still is).

The run id is ``<format>-<name>`` with characters other than letters, digits,
``.``, ``_`` and ``-`` replaced, so it is a safe file name and wildcard value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from rederive.io import formats

FORMATS = formats.names()


@dataclass(frozen=True)
class Source:
    run: str
    format: str
    path: Path

    def files(self) -> list[Path]:
        """Files the run is read from (Snakemake inputs: a change re-runs the ingest)."""
        return formats.get(self.format).files(self.path)


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("_") or "run"


def input_dirs(raw_dir: str | Path, inputs: dict | None) -> dict[str, Path]:
    """Folder of each format: ``inputs[<format>]`` when set, else ``<raw_dir>/<format>``.

    With ``inputs.auto`` set, only the formats set explicitly, plus ``auto``.
    """
    inputs = inputs or {}
    if inputs.get(formats.AUTO):
        dirs = {fmt: Path(inputs[fmt]) for fmt in FORMATS if inputs.get(fmt)}
        return dirs | {formats.AUTO: Path(inputs[formats.AUTO])}
    return {fmt: Path(inputs.get(fmt) or Path(raw_dir) / fmt) for fmt in FORMATS}


def discover(raw_dir: str | Path, inputs: dict | None = None) -> dict[str, Source]:
    """All runs found in the input folders, keyed by run id (sorted).

    Raises
    ------
    ValueError
        When two inputs would get the same run id (e.g. ``a b.csv`` and ``a_b.csv``).
    rederive.errors.InputError
        From a format's ``find_runs`` (a file there that is no run), or from auto
        mode (a file no format, or several, recognise).
    """
    found: dict[str, Source] = {}

    def add(fmt: str, name: str, path: Path) -> None:
        run = f"{fmt}-{_safe(name)}"
        if run in found:
            raise ValueError(
                f"inputs {found[run].path} and {path} both map to run id {run}; rename one"
            )
        found[run] = Source(run, fmt, path)

    for fmt, folder in input_dirs(raw_dir, inputs).items():
        if not folder.is_dir():
            continue
        if fmt == formats.AUTO:
            skip = (Path(raw_dir) / "items.csv", Path(raw_dir) / "published")
            for detected, name, path in formats.find_auto_runs(folder, skip=skip):
                add(detected, name, path)
        else:
            for name, path in formats.get(fmt).find_runs(folder):
                add(fmt, name, path)
    return dict(sorted(found.items()))
