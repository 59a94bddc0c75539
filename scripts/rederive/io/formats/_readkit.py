"""Small helpers shared by the format readers of this package.

Each reader opens its files through :mod:`rederive.io.source`; these helpers add
what several JSON-based formats need on top: a cheap look at a file's first
bytes for ``detect``, a whole JSON document that must be an object, typed access
to a field with an :class:`~rederive.errors.InputError` naming file and field,
and the empty frame of reported scores.
"""

from __future__ import annotations

from pathlib import Path

from rederive.errors import InputError, relpath
from rederive.io.source import SNIFF_BYTES, open_binary, read_json
from rederive.lazy import pandas as pd

REPORTED_COLUMNS = ["model", "task", "metric", "filter", "value", "file"]


def reported_frame(rows: list[dict]) -> pd.DataFrame:
    """Reported scores with the fixed columns (an empty frame when ``rows`` is)."""
    return pd.DataFrame(rows, columns=REPORTED_COLUMNS)


def head(path: Path, size: int = SNIFF_BYTES) -> bytes:
    """The first ``size`` bytes of a regular file, ``b""`` when it cannot be read.

    ``detect`` answers "does this look like my format", so an unreadable path
    is simply not one; the reader chosen later reports why it cannot be read.
    """
    try:
        with open_binary(path) as handle:
            return handle.read(size)
    except InputError:
        return b""


def json_object(path: Path) -> dict:
    """The JSON document of a file, which must be an object."""
    record = read_json(path)
    if not isinstance(record, dict):
        raise InputError(f"expected a JSON object, got {type(record).__name__}", file=relpath(path))
    return record


def field(record: dict, key: str, types, *, file: str, where: str = "", nullable: bool = False):
    """``record[key]`` of the expected type, else an :class:`InputError`.

    ``where`` prefixes the field name in the error (``eval.HumanEval/0[2].``),
    so the message points into nested JSON that has no line numbers.
    """
    name = f"{where}{key}"
    if not isinstance(record, dict):
        raise InputError(f"expected a JSON object, got {record!r}", file=file, field=where or key)
    if key not in record:
        raise InputError("required field is missing", file=file, field=name)
    value = record[key]
    if value is None and nullable:
        return None
    accepted = types if isinstance(types, tuple) else (types,)
    if not isinstance(value, accepted) or (isinstance(value, bool) and bool not in accepted):
        kinds = " or ".join(t.__name__ for t in accepted)
        shown = repr(value) if len(repr(value)) <= 80 else repr(value)[:77] + "..."
        raise InputError(f"expected {kinds}, got {shown}", file=file, field=name)
    return value


def files_under(folder: Path) -> list[Path]:
    """Every file below ``folder`` (any depth), sorted; hidden folders included.

    A reader's ``find_runs`` classifies each one as part of a run, a known
    non-run file of its tool, or an error: nothing is skipped unseen.
    """
    return sorted(p for p in Path(folder).rglob("*") if not p.is_dir())


def not_a_run(path: Path, fmt: str, expected: str) -> InputError:
    """The error for a file in a format's folder that is none of its files."""
    return InputError(
        f"not a {fmt} file ({expected}): move it out of the input folder", file=relpath(path)
    )
