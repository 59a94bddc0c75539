"""Which files of a runs folder are read, and the run id each one gets.

A run id names a run's per-run files (``labelled/<run>.parquet``, …) and is a
Snakemake parameter, so it must be a short, safe file name; a raw file name is
whatever the user's tools wrote. So:

* **Run ids are derived, not copied.** Every character other than a letter or
  digit (any script), ``.``, ``_`` or ``-`` becomes ``_`` (``GPT*4o [v2]`` ->
  ``GPT_4o_v2``); a run id longer than :data:`MAX_RUN_ID` UTF-8 bytes is cut and
  given a hash of the whole name, so it stays unique and the same on every
  machine. Two files that map to the same id are refused, naming both.
* **Braces are refused.** Snakemake reads ``{…}`` in any input path as a
  wildcard and cannot be told otherwise, so a file (or a raw_dir) whose path
  holds ``{`` or ``}`` is refused before any job, naming it.
* **Nothing in a runs folder is skipped without a word.** Every entry of a
  runs folder is either read (``<name>.jsonl``, extension in any case) or
  refused with what to do: compressed files (decompress them first), ``.json``
  (run files are JSON Lines), sub-folders (a runs folder is flat), anything
  else (move it out).

Raw file names themselves are never changed: messages and ``data_quality.csv``
name the file as it is.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

#: Longest run id in UTF-8 bytes: ``<run>.parquet`` must fit a 255-byte file name
#: on every common filesystem, with room for Snakemake's temporary suffixes.
MAX_RUN_ID = 120
#: Bytes of the cut name kept before the hash of a shortened run id.
_KEPT = MAX_RUN_ID - 13

#: Extensions of compressed files, and the command that decompresses one.
COMPRESSED = {
    ".gz": "gunzip -k",
    ".bz2": "bunzip2 -k",
    ".xz": "unxz -k",
    ".zst": "unzstd",
    ".zip": "unzip",
    ".7z": "7z x",
    ".tgz": "tar -xzf",
    ".tar": "tar -xf",
}


class RunFilesError(Exception):
    """A runs folder (or a raw path) the workflow cannot read as it is.

    ``problems`` lists one sentence per file, each naming the file and the fix.
    """

    def __init__(self, folder, problems: list[str]):
        self.folder = str(folder)
        self.problems = problems
        shown = problems[:10]
        more = f"\n  … and {len(problems) - 10} more" if len(problems) > 10 else ""
        super().__init__(f"{folder}:\n  " + "\n  ".join(shown) + more)


def run_id(name: str) -> str:
    """The run id of a raw name (a file stem, a folder, a path inside a folder).

    Parameters
    ----------
    name : str
        The name as found on disk.

    Returns
    -------
    str
        Letters, digits, ``.``, ``_`` and ``-`` only, no leading ``.`` or
        ``_``, at most :data:`MAX_RUN_ID` UTF-8 bytes; ``run`` when nothing is
        left.
    """
    safe = re.sub(r"[^\w.-]+", "_", name, flags=re.UNICODE).strip("_").lstrip(".") or "run"
    if len(safe.encode()) <= MAX_RUN_ID:
        return safe
    digest = hashlib.sha256(name.encode()).hexdigest()[:12]
    kept = safe.encode()[:_KEPT].decode(errors="ignore").rstrip("_.-")
    return f"{kept}-{digest}"


def brace_problem(path: Path) -> str | None:
    """The refusal of a path Snakemake would read as a wildcard, else None."""
    if "{" in str(path) or "}" in str(path):
        return (
            f"{path}: a path with '{{' or '}}' cannot be a Snakemake input (Snakemake reads "
            "{…} as a wildcard); rename it without braces"
        )
    return None


def unread_problem(path: Path, suffix: str, where: str) -> str:
    """Why ``path`` in a flat runs folder is not read, and what to do about it."""
    name = path.name
    lower = name.lower()
    if path.is_dir():
        return (
            f"{path}/: sub-folders of {where} are not searched (one file per run, no "
            f"nesting); move its {suffix} files up into {where}, or the folder out"
        )
    for ext, command in COMPRESSED.items():
        if lower.endswith(ext):
            return (
                f"{path}: compressed files are not read; decompress it first "
                f"({command} '{path}') and move the archive out of {where}"
            )
    if not path.exists():
        return f"{path}: a broken link (its target does not exist); remove it"
    if lower.endswith(".json") and ".jsonl" in suffix:
        return (
            f"{path}: .json files are not read; a run file is JSON Lines (one record per "
            f"line) named <run>.jsonl: rename it if it is JSON Lines, else move it out"
        )
    return f"{path}: not a run file (only <run>{suffix} files are read in {where}); move it out"


def discover_runs(
    folder: str | Path, suffixes: tuple[str, ...] = (".jsonl",), *, prefix: str = ""
) -> dict[str, Path]:
    """Every run file of a flat runs folder, keyed by run id, in id order.

    Parameters
    ----------
    folder : str or Path
        The runs folder (absent: no runs).
    suffixes : tuple of str
        The extensions read, matched in any case (``x.JSONL`` is read).
    prefix : str
        Put before every run id (benchmark: ``long-``).

    Returns
    -------
    dict of str to Path
        Run id to its file.

    Raises
    ------
    RunFilesError
        Listing every entry that is not read, every path with braces and every
        pair of files that map to one run id.
    """
    folder = Path(folder)
    if not folder.is_dir():
        return {}
    where = f"{folder.name}/"
    found: dict[str, Path] = {}
    problems: list[str] = []
    for path in sorted(folder.iterdir()):
        suffix = next((s for s in suffixes if path.name.lower().endswith(s)), None)
        if suffix is None or not path.is_file() or len(path.name) == len(suffix):
            problems.append(unread_problem(path, "/".join(suffixes), where))
            continue
        problem = brace_problem(path)
        if problem:
            problems.append(problem)
            continue
        run = run_id(prefix + path.name[: -len(suffix)])
        if run in found:
            problems.append(
                f"{found[run]} and {path} both map to run id {run!r} (characters other "
                "than letters, digits, '.', '_' and '-' become '_', case is kept); "
                "rename one"
            )
            continue
        found[run] = path
    if problems:
        raise RunFilesError(folder, problems)
    return dict(sorted(found.items()))


def missing_layout(raw_dir: str | Path, files: list[str], runs: str = "runs") -> list[str]:
    """What a paper kind's raw_dir lacks: its required files and a runs folder.

    Parameters
    ----------
    raw_dir : str or Path
        The analysis's raw_dir.
    files : list of str
        Files it must hold (``items.jsonl``, ``baselines.csv``).
    runs : str
        Its runs folder.

    Returns
    -------
    list of str
        One entry per missing file or folder (empty when the layout is there).
    """
    raw_dir = Path(raw_dir)
    missing = [name for name in files if not (raw_dir / name).is_file()]
    if not (raw_dir / runs).is_dir():
        missing.append(f"{runs}/")
    return missing


def flat_runs(
    folder: str | Path, suffixes: tuple[str, ...], where: str, *, by_stem: bool
) -> list[tuple[str, Path]]:
    """The run files of a flat folder as ``(name, path)``, sorted.

    A file whose suffix (any case) is one of ``suffixes`` is a run, named by its
    stem or its file name; every other entry raises :class:`RunFilesError`
    listing each with what to do (:func:`unread_problem`).
    """
    runs, problems = [], []
    for path in sorted(Path(folder).iterdir()):
        if path.is_file() and path.suffix.lower() in suffixes and path.stem:
            runs.append((path.stem if by_stem else path.name, path))
        else:
            problems.append(unread_problem(path, "|".join(suffixes), where))
    if problems:
        raise RunFilesError(folder, problems)
    return runs


def nested_runs(
    folder: str | Path, suffix: str, where: str, *, passed_over=lambda path: False
) -> list[tuple[str, Path]]:
    """The run files at any depth below ``folder`` as ``(name, path)``, sorted.

    A file ending in ``suffix`` (any case) is a run named by its relative path
    without the suffix (``<judge>/<model>``); hidden entries and files for which
    ``passed_over(path)`` is true are not runs; every other file raises
    :class:`RunFilesError` listing each with what to do (:func:`unread_problem`).
    """
    folder = Path(folder)
    runs, problems = [], []
    for path in sorted(p for p in folder.rglob("*") if not p.is_dir()):
        rel = path.relative_to(folder)
        if any(part.startswith(".") for part in rel.parts) or passed_over(path):
            continue
        if path.suffix.lower() == suffix:
            runs.append((str(rel.with_suffix("")), path))
        else:
            problems.append(unread_problem(path, suffix, where))
    if problems:
        raise RunFilesError(folder, problems)
    return runs


def refuse_compressed(folder: str | Path, where: str) -> None:
    """Refuse compressed files anywhere below a tool's output folder.

    lm-eval and Inspect folders hold the tools' other files too, which are not
    read; a compressed samples file or log would be lost among them unseen.
    """
    problems = [
        unread_problem(path, "", where)
        for path in sorted(Path(folder).rglob("*"))
        if path.is_file() and any(path.name.lower().endswith(e) for e in COMPRESSED)
    ]
    if problems:
        raise RunFilesError(folder, problems)
