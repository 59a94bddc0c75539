"""Where the study's runs come from: the input folders of the registered formats.

Each input format (:mod:`rederive.io.formats`) has its own folder, by default
``<raw_dir>/<format>``, and each can be pointed elsewhere in config
(``benchmark.inputs.<format>``); the format's ``find_runs`` lists its runs (a file
each, or an lm-eval model folder). ``inputs: {auto: <folder>}`` reads a folder of
mixed outputs instead, detecting each run's format
(:func:`rederive.io.formats.find_auto_runs`); with it, the default
``<raw_dir>/<format>`` folders are not searched (a format set explicitly still is).

The run id is ``<format>-<name>`` with characters other than letters, digits,
``.``, ``_`` and ``-`` replaced and a long name shortened
(:func:`rederive.io.run_files.run_id`), so it is a safe file name and wildcard
value.

``matrix/`` and ``long/`` are flat: an entry there that is not read (a
sub-folder, a compressed or ``.json`` file, anything else) is refused, naming
it. ``lm_eval/`` and ``inspect/`` are the tools' own output folders, searched at
any depth; files there that are neither logs nor samples (lm-eval's
``results_*.json`` aside) are the tools' and are not read, except that a
compressed file is refused (a compressed log or samples file would otherwise be
lost). A path holding ``{`` or ``}`` is refused (Snakemake cannot carry it).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rederive.io import formats
from rederive.io.run_sources import find_sources, format_dirs

FORMATS = formats.names()


@dataclass(frozen=True)
class Source:
    run: str
    format: str
    path: Path

    def files(self) -> list[Path]:
        """Files the run is read from (Snakemake inputs: a change re-runs the ingest)."""
        return formats.get(self.format).files(self.path)


def input_dirs(raw_dir: str | Path, inputs: dict | None) -> dict[str, Path]:
    """Folder of each format: ``inputs[<format>]`` when set, else ``<raw_dir>/<format>``.

    With ``inputs.auto`` set, only the formats set explicitly, plus ``auto``.
    """
    return format_dirs(formats, FORMATS, raw_dir, inputs)


def discover(raw_dir: str | Path, inputs: dict | None = None) -> dict[str, Source]:
    """All runs found in the input folders, keyed by run id (sorted); the errors
    of :func:`rederive.io.run_sources.find_sources`. An ``auto`` folder's walk
    passes over ``items.csv`` and ``published/`` of raw_dir."""
    skip = (Path(raw_dir) / "items.csv", Path(raw_dir) / "published")
    folders = input_dirs(raw_dir, inputs)
    return find_sources(formats, folders, raw_dir, Source, auto_skip=skip)
