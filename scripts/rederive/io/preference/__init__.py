"""The registry of preference input formats (pairwise judged games): one module per format.

Each module (``alpaca_eval``, ``arena_hard``, ``mt_bench``, ``battles``,
``long``) defines, as the benchmark formats do (:mod:`rederive.io.formats`):

* ``NAME``: its key under an analysis's ``inputs:``;
* ``DESCRIPTION``: one line, for docs and messages;
* ``find_runs(folder) -> [(name, path)]``: the runs of a folder given to it;
* ``detect(path) -> bool``: does this file look like one of its runs (cheap:
  a few KB at most), used by ``inputs: {auto: <folder>}``;
* ``files(path) -> [Path]``: the files a run is read from (Snakemake inputs);
* ``read(path, *, params, accounting) -> DataFrame``: the games frame
  (:data:`COLUMNS`, :mod:`rederive.io.preference._games`), one row per judged
  game in file order, every row read counted as used or excluded;
* ``reported(path, *, params) -> DataFrame``: the source's own aggregate
  numbers (:data:`REPORTED_COLUMNS`), empty when it has none;
* ``REPORTS = False`` (optional): the format never carries aggregate numbers;
* ``OPTIONS`` (when it has options): the JSON Schema of its block under an
  analysis, laid into the kind's schema (:func:`schema_properties`).

``params`` is the analysis's entry: a format reads its options from
``params[NAME]`` (``alpaca_eval: {model_name: …}``, ``arena_hard: {baseline: …,
incomplete_pairs: …}``, ``mt_bench: {incomplete_pairs: …}``, ``battles:
{anonymous_only: …, turn_in_item: …}``). Files are opened only through :mod:`rederive.io.source`.

A new format is one module and its tests (:mod:`rederive.io.plugins` finds it).
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from rederive.io import formats as _benchmark_formats
from rederive.io import plugins
from rederive.io.preference._games import COLUMNS, VERDICTS, games_frame
from rederive.lazy import pandas as pd

#: Every format module of this package, in the order their folders are searched
#: (their ``ORDER``; rederive.io.plugins).
FORMATS: tuple[ModuleType, ...] = plugins.discover(__name__)

AUTO = "auto"
DOCS = "docs/kinds/preference-inputs.md"
#: The long frame of a source's own numbers: one row per (model, metric).
REPORTED_COLUMNS = ["model", "metric", "value", "file"]

__all__ = [
    "AUTO",
    "COLUMNS",
    "FORMATS",
    "REPORTED_COLUMNS",
    "VERDICTS",
    "detected",
    "find_auto_runs",
    "games_frame",
    "get",
    "names",
    "reported_frame",
    "schema_properties",
]


def schema_properties() -> dict:
    """The preference schema's ``inputs`` block and every format's ``OPTIONS``
    (``x-formats: rederive.io.preference`` in config/schemas/preference.schema.yaml)."""
    return plugins.schema_properties(FORMATS, AUTO)


def names() -> tuple[str, ...]:
    """The ``NAME`` of every registered format."""
    return plugins.names_of(FORMATS)


def get(name: str) -> ModuleType:
    """The format module called ``name``; ValueError, listing the registered
    ones, for any other name."""
    return plugins.module_named(FORMATS, name, "preference input format")


def detected(path: Path) -> list[str]:
    """Names of the formats whose ``detect`` accepts ``path``."""
    return _benchmark_formats.detected(Path(path), FORMATS)


def find_auto_runs(
    folder: str | Path, *, skip: tuple[str | Path, ...] = ()
) -> list[tuple[str, str, Path]]:
    """The runs of a folder of mixed preference outputs, each with its detected format.

    The walk of :func:`rederive.io.formats.find_auto_runs` over this registry: every
    file is a candidate run that exactly one format must detect, except files that
    are part of a detected run (AlpacaEval's ``leaderboard.csv`` and
    ``model_outputs.json``); hidden files are skipped.

    Returns
    -------
    list of (format, name, path)
        Sorted by format then name (the path relative to ``folder``).

    Raises
    ------
    InputError
        For the first file that no format or several formats detect.
    """
    return _benchmark_formats.find_auto_runs(folder, skip=skip, formats=FORMATS, docs=DOCS)


def reported_frame(rows: list[dict]) -> pd.DataFrame:
    """A source's own numbers with :data:`REPORTED_COLUMNS` (empty when ``rows`` is)."""
    frame = pd.DataFrame(rows, columns=REPORTED_COLUMNS)
    frame["value"] = frame["value"].astype("float64")
    return frame
