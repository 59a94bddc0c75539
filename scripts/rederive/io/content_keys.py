"""Content keys of a job's source files, so that a changed input always re-derives.

Snakemake reruns a job when an input is *newer* than its outputs. A file whose
bytes changed but whose mtime is older (``cp -p``, ``rsync -a``, ``unzip``, a
``git checkout`` of an older copy) is not seen, and the old numbers stay. The
workflow therefore gives every job a ``source_digest`` parameter: one SHA-256
over the names and contents of the job's inputs that no rule writes (run files,
item tables, published numbers). Snakemake's params trigger then reruns the job
exactly when a byte of its sources changed; a touched or re-checked-out file
with the same bytes gives the same digest, and Snakemake's own checksum of the
newer-looking file keeps the job from rerunning.

Hashing every source on every invocation would make a no-op run as slow as
reading all inputs, so file hashes are kept in a small cache keyed by
(size, mtime, ctime, inode). Any write to a file changes its ctime, and no tool
can set ctime back, so a cache hit means the bytes are the ones hashed.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

#: Where the workflow keeps the cache, relative to its working directory.
CACHE_FILE = Path(".snakemake") / "rederive" / "content-keys.json"


def _stat_key(stat: os.stat_result) -> list[int]:
    return [stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino]


def _sha256(path: Path, chunk: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(chunk):
            digest.update(block)
    return digest.hexdigest()


class ContentKeys:
    """SHA-256 of files, cached by stat key in a JSON file.

    Parameters
    ----------
    cache_file : path or None
        Where the cache lives between runs (``None``: this process only). A
        missing or unreadable cache is rebuilt; writes are atomic, so parallel
        cluster jobs never read half a file.
    """

    def __init__(self, cache_file: str | Path | None = None):
        self.cache_file = Path(cache_file) if cache_file else None
        self._entries: dict[str, list] = {}
        self._dirty = False
        if self.cache_file and self.cache_file.is_file():
            try:
                loaded = json.loads(self.cache_file.read_text())
                if isinstance(loaded, dict):
                    self._entries = loaded
            except (OSError, ValueError):
                self._entries = {}

    def file(self, path: str | Path) -> str:
        """The file's SHA-256, or ``"missing"`` / ``"not-a-file"`` (Snakemake
        then reports the missing input itself)."""
        path = Path(path)
        try:
            stat = path.stat()
        except OSError:
            return "missing"
        if not path.is_file():
            return "not-a-file"
        key = str(path.resolve())
        stamp = _stat_key(stat)
        cached = self._entries.get(key)
        if isinstance(cached, list) and len(cached) == 5 and cached[:4] == stamp:
            return cached[4]
        digest = _sha256(path)
        self._entries[key] = [*stamp, digest]
        self._dirty = True
        return digest

    def digest(self, paths) -> str:
        """One key over the (sorted, de-duplicated) paths and their contents."""
        combined = hashlib.sha256()
        for path in sorted({str(p) for p in paths}):
            combined.update(path.encode("utf-8", "surrogateescape") + b"\0")
            combined.update(self.file(path).encode() + b"\n")
        return combined.hexdigest()[:20]

    def save(self) -> None:
        """Write the cache if anything was hashed (atomically; errors ignored:
        the cache only saves time)."""
        if not (self.cache_file and self._dirty):
            return
        try:
            self.cache_file.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.cache_file.parent, prefix=".content-keys.")
            with os.fdopen(fd, "w") as handle:
                json.dump(self._entries, handle, sort_keys=True)
            os.replace(tmp, self.cache_file)
            self._dirty = False
        except OSError:
            pass
