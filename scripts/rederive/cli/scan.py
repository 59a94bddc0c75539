"""What a folder of results holds: runs of each input format, study folders, the rest.

The walk is auto mode's (:func:`rederive.io.formats.find_auto_runs`), over both
registries of input formats, benchmark and preference, and it never stops: a
folder laid out as a paper kind's study folder is that folder (not entered); a
folder a format detects as one run (an lm-eval model folder) is that run (not
entered); every other file is a run when exactly one format detects it, part
of a run when a run reads it (an aggregate beside its samples), and otherwise
*unread*, with the reason. A benchmark raw_dir's ``items.csv`` (item metadata)
and ``published/`` are set apart wherever they are, with their folder. Nothing
found is dropped: hidden entries
(``.DS_Store``, ``.git``) are counted, as auto mode skips them, and the files
inside a run folder that its format does not read are listed as unread.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from rederive.cli.studies import StudyFolder, study_folder
from rederive.io import formats as benchmark_formats
from rederive.io import preference as preference_formats
from rederive.io.formats import _sniff

__all__ = ["BENCHMARK_EXTRAS", "Run", "Scan", "Unread", "scan"]

#: Entries of a benchmark raw_dir that are not runs: item metadata, published scores.
BENCHMARK_EXTRAS = ("items.csv", "published")


@dataclass(frozen=True)
class Run:
    """One run: its registry (``benchmark`` or ``preference``), format and path."""

    registry: str
    format: str
    path: Path
    name: str


@dataclass(frozen=True)
class Unread:
    """A file or folder nobody reads, and why."""

    path: Path
    reason: str


@dataclass
class Scan:
    """Everything under ``folder``, sorted by path within each list."""

    folder: Path
    runs: list[Run] = field(default_factory=list)
    studies: list[StudyFolder] = field(default_factory=list)
    unread: list[Unread] = field(default_factory=list)
    #: Folders holding a benchmark raw_dir's ``items.csv`` or ``published/`` -> those.
    extras: dict[Path, list[Path]] = field(default_factory=dict)
    hidden: int = 0

    def of(self, registry: str) -> list[Run]:
        return [run for run in self.runs if run.registry == registry]

    def rel(self, path: Path) -> str:
        """``path`` relative to the folder (``.`` for the folder itself)."""
        return Path(path).relative_to(self.folder).as_posix()


REGISTRIES: tuple[tuple[str, tuple[ModuleType, ...]], ...] = (
    ("benchmark", benchmark_formats.FORMATS),
    ("preference", preference_formats.FORMATS),
)


def _detect(path: Path) -> tuple[str, list[str]] | None:
    """(registry, formats) of the first registry any of whose formats detects ``path``."""
    for registry, modules in REGISTRIES:
        found = benchmark_formats.detected(path, modules)
        if found:
            return registry, found
    return None


def _module(registry: str, name: str) -> ModuleType:
    return dict(REGISTRIES)[registry][[m.NAME for m in dict(REGISTRIES)[registry]].index(name)]


def _benchmark_extra(path: Path) -> bool:
    """Is ``path`` a benchmark raw_dir's ``published/`` or its ``items.csv`` (an
    ``item_id`` column)? Auto mode skips them in the raw_dir, the build reads them."""
    if path.name not in BENCHMARK_EXTRAS:
        return False
    if path.name == "published":
        return path.is_dir()
    if not path.is_file():
        return False
    rows = _sniff.csv_head(path)
    return bool(rows) and "item_id" in {name.strip() for name in rows[0]}


def scan(folder: str | Path) -> Scan:
    """Walk ``folder`` (sorted, following links to folders once) and classify every entry."""
    root = Path(folder).absolute()
    result = Scan(root)
    loose: list[Path] = []
    seen: set[Path] = set()

    def several(path: Path, registry: str, found: list[str]) -> Unread:
        return Unread(
            path,
            f"looks like a run of several {registry} formats ({', '.join(found)}); "
            "move it into a folder of its own and name its format under inputs:",
        )

    def walk(directory: Path) -> None:
        real = directory.resolve()
        if real in seen:
            result.unread.append(Unread(directory, "a link to a folder already walked"))
            return
        seen.add(real)
        if (directory / "summary" / "provenance.json").is_file():
            # An earlier build's results/: its ingested Parquet files look like runs.
            result.unread.append(Unread(directory, "the outputs of an earlier build, not inputs"))
            return
        study = study_folder(directory)
        if study is not None:
            result.studies.append(study)
            return
        detection = _detect(directory)
        if detection:
            registry, found = detection
            if len(found) > 1:
                result.unread.append(several(directory, registry, found))
                return
            module = _module(registry, found[0])
            name = result.rel(directory) if directory != root else root.name
            result.runs.append(Run(registry, found[0], directory, name))
            read = {p.resolve() for p in module.files(directory)}
            for path in sorted(directory.rglob("*")):
                if path.is_file() and path.resolve() not in read:
                    result.unread.append(
                        Unread(path, f"inside the {found[0]} run {name}/, which does not read it")
                    )
            return
        for entry in sorted(directory.iterdir()):
            if entry.name.startswith("."):
                result.hidden += 1
            elif _benchmark_extra(entry):
                result.extras.setdefault(directory, []).append(entry)
            elif entry.name == "items.csv":
                result.unread.append(
                    Unread(
                        entry,
                        "named items.csv but without an item_id column: a benchmark raw_dir's "
                        "items.csv is its item metadata (item_id, task, category, group); rename it",
                    )
                )
            elif entry.is_dir():
                walk(entry)
            else:
                loose.append(entry)

    walk(root)
    candidates: list[Run] = []
    unread: list[Path] = []
    for path in loose:
        detection = _detect(path)
        if detection is None:
            unread.append(path)
        elif len(detection[1]) > 1:
            result.unread.append(several(path, *detection))
        else:
            candidates.append(Run(detection[0], detection[1][0], path, result.rel(path)))
    # A file another run reads (an aggregate beside its samples) is part of that run.
    owners: dict[Path, set[Path]] = {}
    for run in [*result.runs, *candidates]:
        for part in _module(run.registry, run.format).files(run.path):
            owners.setdefault(part.resolve(), set()).add(run.path)
    for run in candidates:
        if not owners.get(run.path.resolve(), set()) - {run.path}:
            result.runs.append(run)
    for path in unread:
        if not owners.get(path.resolve()):
            result.unread.append(Unread(path, "no input format recognises it"))
    result.runs.sort(key=lambda run: run.path)
    result.unread.sort(key=lambda item: item.path)
    return result
