"""Line-numbered JSONL reading with user-facing errors."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from rederive.errors import InputError, relpath


def iter_jsonl(path: str | Path) -> Iterator[tuple[int, dict]]:
    """Yield ``(line_number, record)`` for each non-blank line of a JSONL file.

    Raises
    ------
    InputError
        On a line that is not valid JSON or not a JSON object, naming file and line.
        A corrupt line is an error rather than a counted exclusion: we cannot know
        which (model, item) it was, so excluding it would hide a hole in the data.
    """
    name = relpath(path)
    try:
        handle = open(path, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read file ({exc.strerror})", file=name) from None
    with handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(
                    f"malformed JSON ({exc.msg} at column {exc.colno})", file=name, line=number
                ) from None
            except UnicodeDecodeError:
                raise InputError("not valid UTF-8", file=name, line=number) from None
            if not isinstance(record, dict):
                raise InputError("each line must be a JSON object", file=name, line=number)
            yield number, record


def require_fields(record: dict, fields, *, file: str, line: int) -> None:
    """Raise :class:`InputError` naming the first required field that is absent."""
    for field in fields:
        if field not in record:
            raise InputError("required field is missing", file=file, line=line, field=field)
