"""The history of one analysis's builds: ``results/<name>/history/``.

Each build that changed something adds an *entry*: the build's manifest
(:mod:`rederive.changes.manifest`) and the SHA-256 of every table, check and
audit file it wrote. File contents are stored once, gzip-compressed, under
their hash (``objects/``), so a table that did not change between builds costs
nothing more; figures are not kept. The newest ``keep`` entries are kept, and
objects no kept entry names are removed.

Layout::

    history/entries/000001.json   {"entry": 1, "built_at": …, "manifest": …, "files": …}
    history/objects/<sha256>.gz

Writes are atomic (temporary file, then rename), contents before the entry
that names them, so a killed job leaves at worst an unreferenced object,
removed by the next prune. ``built_at`` (UTC) is the one wall-clock field the
workflow writes outside logs and benchmarks: it says when, not what, and no
table or report compares it.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from rederive.changes.manifest import identity

__all__ = ["History", "HistoryEntry", "snapshot_digest"]

ENTRY_WIDTH = 6


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def snapshot_digest(manifest: dict, files: dict[str, str]) -> str:
    """One hash over what a build was made from and what it wrote."""
    text = json.dumps(
        {"manifest": identity(manifest), "files": files}, sort_keys=True, ensure_ascii=False
    )
    return _sha256(text.encode("utf-8"))


def _write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@dataclass(frozen=True)
class HistoryEntry:
    """One kept build: its number, time, manifest and files (path -> SHA-256)."""

    number: int
    built_at: str
    manifest: dict
    files: dict[str, str]
    store: History

    @property
    def digest(self) -> str:
        return snapshot_digest(self.manifest, self.files)

    def read(self, path: str) -> bytes:
        """The bytes the build wrote to ``path`` (relative to ``results/<name>/``)."""
        return self.store.read_object(self.files[path])


class History:
    """The history folder of one analysis.

    Parameters
    ----------
    folder : path
        ``results/<name>/history``.
    """

    def __init__(self, folder: str | Path):
        self.folder = Path(folder)
        self.entries_dir = self.folder / "entries"
        self.objects_dir = self.folder / "objects"

    def entries(self) -> list[HistoryEntry]:
        """Every kept entry, oldest first (an unreadable entry file is skipped
        with its name in the error the caller sees only if it asks for it)."""
        out = []
        if not self.entries_dir.is_dir():
            return out
        for path in sorted(self.entries_dir.glob("*.json")):
            if not path.stem.isdigit():
                continue
            record = json.loads(path.read_text(encoding="utf-8"))
            out.append(
                HistoryEntry(
                    number=int(record["entry"]),
                    built_at=record.get("built_at", ""),
                    manifest=record["manifest"],
                    files=record["files"],
                    store=self,
                )
            )
        return sorted(out, key=lambda e: e.number)

    def latest(self) -> HistoryEntry | None:
        entries = self.entries()
        return entries[-1] if entries else None

    def entry(self, number: int) -> HistoryEntry:
        """Entry ``number``; a negative number counts back from the newest (-1)."""
        entries = self.entries()
        if number < 0:
            if -number > len(entries):
                raise KeyError(number)
            return entries[number]
        for entry in entries:
            if entry.number == number:
                return entry
        raise KeyError(number)

    def read_object(self, sha: str) -> bytes:
        data = gzip.decompress((self.objects_dir / f"{sha}.gz").read_bytes())
        if _sha256(data) != sha:
            raise ValueError(f"history object {sha} is damaged (its content has another hash)")
        return data

    def record(
        self, manifest: dict, files: dict[str, bytes]
    ) -> tuple[HistoryEntry | None, HistoryEntry]:
        """Add this build as the newest entry, unless it equals the newest one.

        Old entries are not pruned here (:meth:`prune`): the caller compares the
        build with ``previous`` first, whose files a prune may remove.

        Returns
        -------
        previous : HistoryEntry or None
            The newest entry before this call (None for a first build).
        current : HistoryEntry
            This build's entry; ``previous`` itself when the build changed
            nothing (no entry added).
        """
        hashes = {path: _sha256(data) for path, data in sorted(files.items())}
        entries = self.entries()
        latest = entries[-1] if entries else None
        if latest is not None and latest.digest == snapshot_digest(manifest, hashes):
            return latest, latest
        for path, data in files.items():
            target = self.objects_dir / f"{hashes[path]}.gz"
            if not target.exists():
                _write_atomic(target, gzip.compress(data, compresslevel=6, mtime=0))
        number = latest.number + 1 if latest else 1
        record = {
            "entry": number,
            "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "manifest": manifest,
            "files": hashes,
        }
        _write_atomic(
            self.entries_dir / f"{number:0{ENTRY_WIDTH}d}.json",
            (json.dumps(record, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode(),
        )
        return latest, HistoryEntry(number, record["built_at"], manifest, hashes, self)

    def prune(self, keep: int) -> None:
        """Keep the newest ``keep`` entries (at least one) and the objects they name."""
        keep = max(1, keep)
        entries = self.entries()
        for entry in entries[: max(0, len(entries) - keep)]:
            (self.entries_dir / f"{entry.number:0{ENTRY_WIDTH}d}.json").unlink(missing_ok=True)
        named = {sha for entry in self.entries() for sha in entry.files.values()}
        if self.objects_dir.is_dir():
            for path in self.objects_dir.iterdir():
                if path.name.endswith(".gz") and path.name[:-3] not in named:
                    path.unlink(missing_ok=True)
                elif path.name.startswith("."):
                    path.unlink(missing_ok=True)  # a temporary file a killed write left
