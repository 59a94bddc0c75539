"""Cheap looks at a candidate file for ``detect``: its first few KB, never more.

Detection must not raise on a file that is not of the format (a directory, a
binary file, bad UTF-8): it answers ``False`` and leaves the error to the reader
that is finally chosen, or to auto mode's "no format recognises this file".
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

from rederive.io.source import SNIFF_BYTES

_KEY_RE = re.compile(r'"((?:[^"\\]|\\.)*)"\s*:')


def head(path: Path, size: int = SNIFF_BYTES) -> str | None:
    """The first ``size`` bytes of a regular file as text, or None (not a file, binary)."""
    try:
        if not path.is_file():
            return None
        with open(path, "rb") as handle:
            raw = handle.read(size)
    except OSError:
        return None
    if b"\x00" in raw or raw.startswith((b"\x1f\x8b", b"PK\x03\x04", b"\xff\xfe", b"\xfe\xff")):
        return None
    text = raw.decode("utf-8", errors="ignore")
    return text.removeprefix("\ufeff")


def first_json_line(path: Path) -> dict | None:
    """The first non-blank line of a JSON-lines file as an object, or None."""
    text = head(path, 65536)
    if text is None:
        return None
    for line in text.splitlines():
        if line.strip():
            try:
                record = json.loads(line)
            except ValueError:
                return None
            return record if isinstance(record, dict) else None
    return None


def json_keys(path: Path) -> set[str] | None:
    """Keys visible in the first KB of a file that starts as a JSON object, or None."""
    text = head(path)
    if text is None or not text.lstrip().startswith("{"):
        return None
    return set(_KEY_RE.findall(text))


def csv_head(path: Path) -> list[list[str]] | None:
    """The first complete CSV rows of a file (header first), or None."""
    text = head(path)
    if text is None:
        return None
    lines = text.splitlines(keepends=True)
    if len(lines) > 1 and len(text.encode("utf-8")) >= SNIFF_BYTES:
        lines = lines[:-1]  # the last line may be cut
    try:
        return [row for row in csv.reader(io.StringIO("".join(lines))) if row]
    except csv.Error:
        return None
