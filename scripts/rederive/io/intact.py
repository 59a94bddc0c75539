"""Output stamps: every file a job writes is keyed by its content, so a damaged
intermediate is found before a job reads it.

Snakemake decides what to rebuild from modification times and its own records.
A warehouse truncated by a full disk or a half-finished copy, or a Parquet file
cut short inside an ingest batch folder (Snakemake tracks the folder, not the
files in it), looks as good to it as the file the job wrote: every downstream
job then fails on it, run after run, or reads it silently.

So when a job has written its outputs, :func:`record` (called by
:func:`rederive.runner.run`) keeps a *stamp* per output in
``.snakemake/rederive/stamps/<output>.json``: the size and SHA-256 of the file,
or of every file of a directory output. Before Snakemake builds its job graph
the workflow compares each output with its stamp (:func:`check`) and removes
the damaged ones (:func:`remove`), which rule ``all`` then asks to be rebuilt,
with what depends on them. A job that fails on an input the workflow did not
check first (a run of explicit targets, a file written before stamps existed)
names the damaged file instead of a traceback (:func:`damaged_input`).

A stamp also keeps each file's ``stat`` (size, modification and change times,
inode) at its last verification. While that is unchanged the file holds the
bytes that were hashed (no tool sets a change time back), so a run with
nothing to do stats each output and reads none of it. Snakemake touches every
output file after its job; :func:`refresh` records the new stat at the end of
the run that wrote it.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

#: Where stamps live, relative to the working directory (Snakemake's own folder).
STAMPS = Path(".snakemake") / "rederive" / "stamps"
#: The file Snakemake keeps in a directory output to carry its modification time.
SNAKEMAKE_TIMESTAMP = ".snakemake_timestamp"
_VERSION = 1


@dataclass(frozen=True)
class Damage:
    """One damaged output.

    Attributes
    ----------
    output : str
        The rule's output: the file, or the directory output holding it.
    file : str
        The damaged file itself (``output`` for a plain file).
    reason : str
        What is wrong, for a message (``truncated to 100 of its 2,000 bytes``).
    """

    output: str
    file: str
    reason: str

    @property
    def is_directory(self) -> bool:
        return self.output != self.file


def stamp_path(output: str | Path, root: Path = STAMPS) -> Path:
    """The stamp file of ``output`` (a path relative to the working directory)."""
    return root / (Path(output).as_posix().strip("/") + ".json")


def _stat_key(stat: os.stat_result) -> list[int]:
    return [stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino]


def _sha256(path: Path) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def output_files(output: str | Path) -> dict[str, Path]:
    """The files of an output, by their path inside it: ``{"": output}`` for a
    file, every file under a directory output (but Snakemake's timestamp file)."""
    output = Path(output)
    if not output.is_dir():
        return {"": output}
    found = {}
    for folder, dirs, files in os.walk(output):
        dirs.sort()
        for name in sorted(files):
            path = Path(folder) / name
            if path.parent == output and name == SNAKEMAKE_TIMESTAMP:
                continue
            found[path.relative_to(output).as_posix()] = path
    return found


def _entry(path: Path) -> dict:
    stat = path.stat()
    return {"size": stat.st_size, "sha256": _sha256(path), "stat": _stat_key(stat)}


def _write_json(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".stamp.")
    try:
        with os.fdopen(fd, "w") as handle:
            json.dump(data, handle, sort_keys=True)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _relative_outputs(outputs: Iterable[str | Path]) -> list[str]:
    """The outputs inside the working directory (stamps are kept for those only)."""
    kept = []
    for output in map(str, outputs):
        path = Path(output)
        if path.is_absolute() or ".." in path.parts:
            continue
        kept.append(path.as_posix())
    return kept


def forget(outputs: Iterable[str | Path], root: Path = STAMPS) -> None:
    """Remove the stamps of ``outputs`` (a job about to write them anew)."""
    for output in _relative_outputs(outputs):
        stamp_path(output, root).unlink(missing_ok=True)


def record(outputs: Iterable[str | Path], rule: str, root: Path = STAMPS) -> None:
    """Stamp each of ``outputs`` as it is now (called when its job has written it).

    Parameters
    ----------
    outputs : iterable of str or Path
        The job's outputs, relative to the working directory; a missing one is
        skipped (Snakemake reports it).
    rule : str
        The job's rule, named in messages about the output.
    root : Path
        Stamp folder.
    """
    for output in _relative_outputs(outputs):
        path = Path(output)
        if not path.exists():
            continue
        files = {name: _entry(file) for name, file in output_files(path).items()}
        stamp = {
            "version": _VERSION,
            "output": output,
            "rule": rule,
            "directory": path.is_dir(),
            "files": files,
        }
        _write_json(stamp_path(output, root), stamp)


def _load(stamp_file: Path) -> dict | None:
    try:
        stamp = json.loads(stamp_file.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(stamp, dict) or stamp.get("version") != _VERSION:
        return None
    if not isinstance(stamp.get("files"), dict):
        return None
    return stamp


def _size_reason(now: int, was: int) -> str:
    if now < was:
        return f"truncated to {now:,} of its {was:,} bytes"
    return f"{now:,} bytes where its job wrote {was:,}"


def check(output: str | Path, root: Path = STAMPS, *, update: bool = True) -> Damage | None:
    """Compare ``output`` with its stamp.

    Parameters
    ----------
    output : str or Path
        A rule's output, relative to the working directory.
    root : Path
        Stamp folder.
    update : bool
        Record the new ``stat`` of a file whose bytes were hashed again and
        found unchanged (so the next check only stats it).

    Returns
    -------
    Damage or None
        None when the output matches its stamp, or cannot be compared: it is
        missing (Snakemake rebuilds it), or has no readable stamp.
    """
    output = Path(output).as_posix()
    stamp_file = stamp_path(output, root)
    stamp = _load(stamp_file) if stamp_file.is_file() else None
    path = Path(output)
    if stamp is None or not path.exists():
        return None
    expected = stamp["files"]
    rule = stamp.get("rule", "its rule")
    if stamp.get("directory") != path.is_dir():
        kind = "a folder" if stamp.get("directory") else "a file"
        return Damage(output, output, f"rule {rule} wrote {kind} here")
    present = output_files(path)
    for name in sorted(set(expected) - set(present)):
        return Damage(output, f"{output}/{name}", "missing: the folder lost a file its job wrote")
    for name in sorted(set(present) - set(expected)):
        return Damage(output, f"{output}/{name}", f"not written by rule {rule}")
    changed = False
    for name, entry in expected.items():
        file = present[name]
        try:
            stat = file.stat()
        except OSError as exc:
            return Damage(output, str(file.as_posix()), f"unreadable: {exc.strerror}")
        if _stat_key(stat) == entry.get("stat"):
            continue
        if stat.st_size != entry.get("size"):
            return Damage(output, file.as_posix(), _size_reason(stat.st_size, entry.get("size", 0)))
        try:
            digest = _sha256(file)
        except OSError as exc:
            return Damage(output, file.as_posix(), f"unreadable: {exc.strerror}")
        if digest != entry.get("sha256"):
            return Damage(output, file.as_posix(), f"its bytes changed since rule {rule} wrote it")
        entry["stat"] = _stat_key(stat)
        changed = True
    if changed and update:
        try:
            _write_json(stamp_file, stamp)
        except OSError:
            pass  # the stamp only saves hashing next time
    return None


def remove(damage: Damage, root: Path = STAMPS) -> None:
    """Delete a damaged output (the whole directory output) and its stamp."""
    path = Path(damage.output)
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)
    forget([damage.output], root)


def refresh(since: float, root: Path = STAMPS) -> int:
    """Record the stat Snakemake's touch gave each output stamped at or after
    ``since`` (a ``time.time()``), so that the next run only stats it.

    Called at the end of the run that wrote them. Between a job's stamp and the
    end of its run only Snakemake's touch is expected: a file of the same size
    and inode takes its new stat without being hashed again (a job hashed it
    moments before); any other file keeps its stamp, and the next check hashes
    or removes it.

    Returns
    -------
    int
        The number of files whose stat was recorded.
    """
    updated = 0
    if not root.is_dir():
        return updated
    for stamp_file in sorted(root.rglob("*.json")):
        try:
            if stamp_file.stat().st_mtime < since:
                continue
        except OSError:
            continue
        stamp = _load(stamp_file)
        if stamp is None or not isinstance(stamp.get("output"), str):
            continue
        output = Path(stamp["output"])
        changed = 0
        for name, entry in stamp["files"].items():
            try:
                stat = (output / name if name else output).stat()
            except OSError:
                continue
            was = entry.get("stat") or [None] * 4
            if _stat_key(stat) != was and [stat.st_size, stat.st_ino] == [was[0], was[3]]:
                entry["stat"] = _stat_key(stat)
                changed += 1
        if changed:
            try:
                _write_json(stamp_file, stamp)
            except OSError:
                continue
            updated += changed
    return updated


# ------------------------------------------------------------ without a stamp
_PARQUET_MAGIC = b"PAR1"


def structural_problem(path: str | Path) -> str | None:
    """What makes ``path`` unreadable as the file its name says, or None.

    Only what can be told cheaply without a stamp: a Parquet file without its
    ``PAR1`` header and footer (or a footer longer than the file), a DuckDB
    database DuckDB cannot open, a JSON file that does not parse. Other files
    (CSV, Markdown, figures) are not judged.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    try:
        if suffix == ".parquet":
            return _parquet_problem(path)
        if suffix == ".json":
            try:
                json.loads(path.read_bytes())
            except ValueError as exc:
                return f"not valid JSON ({exc})"
            return None
        if suffix == ".duckdb":
            return _duckdb_problem(path)
    except OSError as exc:
        return f"unreadable: {exc.strerror}"
    return None


def _parquet_problem(path: Path) -> str | None:
    size = path.stat().st_size
    if size < 12:
        return f"not a Parquet file: {size} bytes"
    with open(path, "rb") as handle:
        head = handle.read(4)
        handle.seek(-8, os.SEEK_END)
        tail = handle.read(8)
    if head != _PARQUET_MAGIC or tail[4:] != _PARQUET_MAGIC:
        return "not a complete Parquet file (no PAR1 footer: cut short?)"
    footer = int.from_bytes(tail[:4], "little")
    if footer + 12 > size:
        return f"not a complete Parquet file (a footer of {footer:,} bytes in {size:,})"
    return None


#: A DuckDB file starts with three header blocks of 4 KiB, then its data blocks.
_DUCKDB_HEADERS = 3 * 4096


def _duckdb_problem(path: Path) -> str | None:
    import duckdb

    try:
        con = duckdb.connect(str(path), read_only=True)
    except duckdb.Error as exc:
        return f"DuckDB cannot open it: {str(exc).splitlines()[0]}"
    try:
        # Opening reads the headers and the catalog only: a file cut short after
        # them opens, and fails on the first read of a lost block. Its blocks
        # say how long it must be.
        block_size, blocks = con.execute(
            "SELECT block_size, total_blocks FROM pragma_database_size()"
        ).fetchone()
    except duckdb.Error as exc:
        return f"DuckDB cannot read it: {str(exc).splitlines()[0]}"
    finally:
        con.close()
    need = _DUCKDB_HEADERS + int(block_size) * int(blocks)
    size = path.stat().st_size
    if size < need:
        return f"truncated: {size:,} bytes, its {blocks:,} blocks need {need:,}"
    return None


#: Words of DuckDB and Arrow errors that mean a file is damaged, not misused.
_DAMAGE_WORDS = (
    "magic bytes",
    "Corrupt database file",
    "Could not read enough bytes",
    "checksum",
    "Couldn't deserialize thrift",
    "is not a valid DuckDB database file",
    "Parquet file size is 0 bytes",
    "The file is not a Parquet file",
)


def damaged_input(
    inputs: Iterable[str | Path], error: BaseException | None = None
) -> Damage | None:
    """The first damaged file among a failed job's inputs, or None.

    Each input under the working directory is compared with its stamp when it
    has one (:func:`check`), else judged by :func:`structural_problem`; a
    directory input file by file. When nothing is found that way, an ``error``
    whose text names one of the input files together with words of a damaged
    file (DuckDB's "Corrupt database file", Arrow's "magic bytes", …) names it.
    """
    inputs = _relative_outputs(inputs)
    for output in inputs:
        if not Path(output).exists():
            continue
        found = check(output, update=False)
        if found is not None:
            return found
        if stamp_path(output).is_file():
            continue
        for name, file in output_files(output).items():
            problem = structural_problem(file)
            if problem is not None:
                return Damage(output, file.as_posix() if name else output, problem)
    if error is not None:
        text = _error_text(error)
        if any(word in text for word in _DAMAGE_WORDS):
            for output in inputs:
                for name, file in output_files(output).items():
                    if file.as_posix() in text or str(file.resolve()) in text:
                        line = next((w for w in _DAMAGE_WORDS if w in text), "damaged")
                        return Damage(output, file.as_posix() if name else output, line)
    return None


def _error_text(error: BaseException) -> str:
    parts, seen = [], set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        parts.append(str(error))
        error = error.__cause__ or error.__context__
    return "\n".join(parts)


def advice(damage: Damage) -> str:
    """What to delete: the file, or the directory output holding it."""
    target = damage.output + ("/" if damage.is_directory else "")
    return f"delete {target} and run the same command again: it is rebuilt, with what depends on it"
