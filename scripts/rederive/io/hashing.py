"""Content hashes for provenance."""

from __future__ import annotations

import hashlib
from pathlib import Path

from rederive.io.source import open_binary


def sha256_file(path: str | Path, chunk: int = 1 << 20) -> str:
    """SHA-256 of a file's bytes; a directory or special file is an InputError."""
    digest = hashlib.sha256()
    with open_binary(path) as handle:
        while block := handle.read(chunk):
            digest.update(block)
    return digest.hexdigest()
