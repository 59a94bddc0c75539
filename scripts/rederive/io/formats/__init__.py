"""The registry of benchmark input formats: one module per format.

Each module (``matrix``, ``long``, ``lm_eval``, …) defines

* ``NAME``: its key under an analysis's ``inputs:`` and its run-id prefix;
* ``DESCRIPTION``: one line, for docs and messages;
* ``ORDER``: where it comes among the formats (searched, listed);
* ``OPTIONS`` (optional): the JSON Schema of its options block under an
  analysis (``lm_eval: {filter: …}``), laid into the kind's schema;
* ``find_runs(folder) -> [(name, path)]``: the runs of a folder given to it;
* ``detect(path) -> bool``: does this file or folder look like one of its runs
  (cheap: reads a few KB at most), used by ``inputs: {auto: <folder>}``;
* ``files(path) -> [Path]``: the files a run is read from (Snakemake inputs);
* ``read(path, *, params, accounting) -> DataFrame``: the long reader frame;
* ``reported(path, *, params) -> DataFrame``: the tool's own aggregate scores;
* ``ANSWERS`` (optional): where the reader finds each sample's extracted answer
  (the reader frame's ``answer``, what maj@k votes with); a format without it
  logs none, and maj@k is ``n/a`` for its runs (:func:`answers_note`);
* ``REPORTS = False`` (optional): the format never carries aggregate scores, so
  ingest writes the empty reported file without calling ``reported`` (per run,
  building its empty frame cost as much as reading a 30,000-row Parquet file).

A new format is one module and its tests: :mod:`rederive.io.plugins` finds it
by its file, its ``ORDER`` places it, its ``OPTIONS`` become the kind's schema.

Auto mode (:func:`find_auto_runs`) walks a folder of mixed outputs: a folder that
one format detects as a run (an lm-eval model folder) is one run and is not
entered; every other file is a candidate run of its own, which exactly one
format must detect. A file that is part of a detected run (an lm-eval
``results_*.json``, an Every Eval Ever aggregate) is not a candidate.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from rederive.errors import InputError, relpath
from rederive.io import plugins

#: Every format module of this package, in the order their folders are searched
#: (their ``ORDER``; rederive.io.plugins).
FORMATS: tuple[ModuleType, ...] = plugins.discover(__name__)

AUTO = "auto"

REPORTED_COLUMNS = ["model", "task", "metric", "filter", "value", "file"]


def schema_properties() -> dict:
    """The benchmark schema's ``inputs`` block and every format's ``OPTIONS``
    (``x-formats: rederive.io.formats`` in config/schemas/benchmark.schema.yaml)."""
    return plugins.schema_properties(FORMATS, AUTO)


def names() -> tuple[str, ...]:
    """The ``NAME`` of every registered format."""
    return plugins.names_of(FORMATS)


def get(name: str) -> ModuleType:
    """The format module called ``name``; ValueError, listing the registered
    ones, for any other name."""
    return plugins.module_named(FORMATS, name, "input format")


def answers_note(name: str) -> str:
    """Why a run of format ``name`` has no extracted answers ("" when it may have some)."""
    if getattr(get(name), "ANSWERS", None):
        return ""
    return f"no extracted answers: the {name} format logs none (docs/input-formats.md)"


def detected(path: Path, formats: tuple[ModuleType, ...] = FORMATS) -> list[str]:
    """Names of the formats (of ``formats``, default this registry's) whose ``detect``
    accepts ``path``."""
    return [module.NAME for module in formats if module.detect(path)]


def _skipped(path: Path, skip: set[Path]) -> bool:
    # Hidden files and folders (.DS_Store, .git) are never results.
    return path.name.startswith(".") or path.resolve() in skip


def find_auto_runs(
    folder: str | Path,
    *,
    skip: tuple[str | Path, ...] = (),
    formats: tuple[ModuleType, ...] = FORMATS,
    docs: str = "docs/input-formats.md",
) -> list[tuple[str, str, Path]]:
    """The runs of a folder of mixed outputs, each with its detected format.

    Parameters
    ----------
    folder : str or Path
        Walked recursively in sorted order.
    skip : tuple of paths
        Files or folders that are not runs (the analysis's ``items.csv`` and
        ``published/`` when the folder is its raw_dir).
    formats : tuple of modules
        The registry searched (default this one, the benchmark formats; the
        preference readers pass theirs, :mod:`rederive.io.preference`).
    docs : str
        The page the "no format recognises" error points to.

    Returns
    -------
    list of (format, name, path)
        ``name`` is the run's path relative to ``folder`` (``.`` is the folder's own
        name), sorted by format then name.

    Raises
    ------
    InputError
        For the first candidate that no format or several formats detect, naming
        the file and the formats tried.
    """
    folder = Path(folder)
    skipped = {Path(p).resolve() for p in skip}
    runs: list[tuple[str, Path]] = []
    loose: list[Path] = []

    modules = {module.NAME: module for module in formats}

    def walk(directory: Path) -> None:
        matches = detected(directory, formats)
        if len(matches) > 1:
            refuse(directory, matches, formats, docs)
        if matches:
            runs.append((matches[0], directory))
            return
        for entry in sorted(directory.iterdir()):
            if _skipped(entry, skipped):
                continue
            if entry.is_dir():
                walk(entry)
            else:
                loose.append(entry)

    walk(folder)
    matches = {path: detected(path, formats) for path in loose}
    runs += [(found[0], path) for path, found in matches.items() if len(found) == 1]
    owners: dict[Path, set[Path]] = {}
    for fmt, path in runs:
        for part in modules[fmt].files(path):
            owners.setdefault(part.resolve(), set()).add(path)
    companions = set()
    for path in loose:
        # Part of another run (an aggregate beside its samples file): not a run itself.
        if owners.get(path.resolve(), set()) - {path}:
            companions.add(path)
        elif len(matches[path]) != 1:
            refuse(path, matches[path], formats, docs)
    found = []
    for fmt, path in runs:
        if path in companions:
            continue
        rel = path.relative_to(folder)
        found.append((fmt, str(rel) if str(rel) != "." else folder.resolve().name, path))
    return sorted(found)


def refuse(
    path: Path,
    matches: list[str],
    formats: tuple[ModuleType, ...] = FORMATS,
    docs: str = "docs/input-formats.md",
) -> None:
    """Raise the auto-mode error for a candidate detected by none or several formats."""
    if matches:
        raise InputError(
            f"inputs.auto: this {'folder' if path.is_dir() else 'file'} looks like a run of "
            f"several formats ({', '.join(matches)}); move it into a folder of its own and "
            f"name the format with inputs: {{{matches[0]}: <folder>}}",
            file=relpath(path),
        )
    raise InputError(
        f"inputs.auto: no input format recognises this file (tried "
        f"{', '.join(module.NAME for module in formats)}; see {docs}); move it out of the folder",
        file=relpath(path),
    )
