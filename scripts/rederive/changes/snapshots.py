"""Builds to compare: a history entry, a results folder, files held in memory.

Every snapshot has ``manifest`` (dict, or None when the build's inputs were not
recorded), ``files`` (path under ``results/<name>/`` -> SHA-256) and
``read(path) -> bytes``; :func:`rederive.changes.report.compare_snapshots`
takes any two.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

__all__ = ["KEPT_FOLDERS", "FolderSnapshot", "MemorySnapshot", "kept_files"]

#: What a build keeps and compares: tables, published checks, audits and the
#: gate; never figures (binary, and redrawn from the tables), logs, the
#: warehouse or the ingested files (intermediates), nor the reports themselves.
KEPT_FOLDERS = ("tables", "check", "audit", "gate")


def kept_files(folder: str | Path) -> list[Path]:
    """The files of a results folder a build keeps, sorted."""
    root = Path(folder)
    out = []
    for sub in KEPT_FOLDERS:
        base = root / sub
        if base.is_dir():
            out += [p for p in base.rglob("*") if p.is_file() and not p.name.startswith(".")]
    return sorted(out)


@dataclass
class MemorySnapshot:
    """A build's files as bytes (the job that records it holds them anyway)."""

    manifest: dict | None
    contents: dict[str, bytes]

    def __post_init__(self):
        self.files = {p: hashlib.sha256(b).hexdigest() for p, b in sorted(self.contents.items())}

    def read(self, path: str) -> bytes:
        return self.contents[path]


class FolderSnapshot:
    """A results folder ``results/<name>`` (or a copy of one), read lazily.

    Its manifest is the newest history entry's when the folder's files are the
    ones that entry recorded, else None (a folder edited or copied without its
    history: the comparison then covers the outputs only).
    """

    def __init__(self, folder: str | Path):
        from rederive.changes.history import History

        self.folder = Path(folder)
        self._paths = {p.relative_to(self.folder).as_posix(): p for p in kept_files(self.folder)}
        self.files = {
            rel: hashlib.sha256(path.read_bytes()).hexdigest()
            for rel, path in sorted(self._paths.items())
        }
        latest = History(self.folder / "history").latest()
        self.entry = latest if latest is not None and latest.files == self.files else None
        self.manifest = self.entry.manifest if self.entry is not None else None

    def read(self, path: str) -> bytes:
        return self._paths[path].read_bytes()
