"""Cheap looks for ``detect`` at a JSON array file's first record (a few KB)."""

from __future__ import annotations

import re
from pathlib import Path

from rederive.io.formats import _sniff

_KEY_RE = re.compile(r'"((?:[^"\\]|\\.)*)"\s*:')
ARRAY_SNIFF = 65536  # an AlpacaEval record's outputs come before its generator names


def array_keys(path: Path, size: int = ARRAY_SNIFF) -> set[str] | None:
    """Keys visible at the head of a file that opens as a JSON array of objects, or None."""
    text = _sniff.head(path, size)
    if text is None:
        return None
    stripped = text.lstrip()
    if not stripped.startswith("[") or not stripped[1:].lstrip().startswith("{"):
        return None
    return set(_KEY_RE.findall(stripped))
