"""Line-numbered JSONL reading with user-facing errors."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from rederive.errors import InputError, relpath
from rederive.io.source import iter_text_lines


def iter_jsonl(path: str | Path) -> Iterator[tuple[int, dict]]:
    """Yield ``(line_number, record)`` for each non-blank line of a JSONL file.

    The file is opened and decoded by :mod:`rederive.io.source` (regular file,
    not compressed, UTF-8 line by line, BOM dropped).

    Raises
    ------
    InputError
        On a line that is not valid JSON or not a JSON object, naming file and line.
        A corrupt line is an error rather than a counted exclusion: we cannot know
        which (model, item) it was, so excluding it would hide a hole in the data.
    """
    name = relpath(path)
    for number, line in enumerate(iter_text_lines(path), start=1):
        if not line.strip():
            continue
        try:
            record = _DECODER.decode(line)
        except json.JSONDecodeError as exc:
            raise InputError(
                f"malformed JSON ({exc.msg} at column {exc.colno})", file=name, line=number
            ) from None
        except ValueError as exc:  # NaN / Infinity: not JSON, and not a usable value
            raise InputError(str(exc), file=name, line=number) from None
        except RecursionError:
            raise InputError("JSON nested too deeply", file=name, line=number) from None
        if not isinstance(record, dict):
            raise InputError("each line must be a JSON object", file=name, line=number)
        yield number, record


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not valid JSON: write null for a missing value")


# One decoder for all lines: json.loads with keyword arguments builds a new one per call.
_DECODER = json.JSONDecoder(parse_constant=_refuse_constant)


def require_fields(record: dict, fields, *, file: str, line: int) -> None:
    """Raise :class:`InputError` naming the first required field that is absent."""
    for field in fields:
        if field not in record:
            raise InputError("required field is missing", file=file, line=line, field=field)


def require_type(
    record: dict,
    field: str,
    types,
    *,
    file: str,
    line: int | None,
    message: str | None = None,
    valid=None,
    nullable: bool = False,
):
    """``record[field]`` when it has the expected type, else :class:`InputError`.

    Parameters
    ----------
    record : dict
        One parsed row (the field must be present: see :func:`require_fields`).
    field : str
    types : type or tuple of types
        Accepted types. A bool never passes as a number (``True`` is an ``int`` in
        Python) unless ``bool`` itself is among them.
    file, line :
        Where the row stands, for the error.
    message : str, optional
        The error message; default ``expected <types>, got <value>``.
    valid : callable, optional
        Further test of a value of the right type (non-blank, in range, …); a
        false result raises the same error.
    nullable : bool
        Accept ``None`` (returned as is).
    """
    value = record[field]
    if value is None and nullable:
        return None
    accepted = types if isinstance(types, tuple) else (types,)
    ok = (
        isinstance(value, accepted)
        and (bool in accepted or not isinstance(value, bool))
        and (valid is None or valid(value))
    )
    if not ok:
        if message is None:
            names = " or ".join(t.__name__ for t in accepted)
            message = f"expected {names}, got {value!r}"
        raise InputError(message, file=file, line=line, field=field)
    return value


def require_id(record: dict, field: str, *, file: str, line: int) -> str:
    """``record[field]`` as an identifier: non-blank text or an integer, as text.

    A null, boolean, number with a fraction, list or object is an
    :class:`InputError`: turned into text it would silently become a model or
    item called ``"None"`` or ``"[1]"``.
    """
    value = require_type(
        record,
        field,
        (str, int),
        file=file,
        line=line,
        message=f"expected a name or id (text or integer), got {record[field]!r}",
        valid=lambda v: str(v).strip() != "",
    )
    return str(value).strip()


def require_unique(
    seen: dict,
    key,
    *,
    file: str,
    line: int,
    field: str,
    message: str = "duplicate {field} {key!r} (first on line {first})",
    **details,
) -> None:
    """Record that ``key`` stands on ``line``; a second occurrence is an :class:`InputError`.

    Parameters
    ----------
    seen : dict
        Key → line of its first occurrence, shared by the calls of one file.
    key : hashable
    file, line, field :
        Where the second occurrence stands, for the error.
    message : str
        ``str.format`` template of the error with ``key``, ``first`` (line of the
        first occurrence), ``field`` and any ``details``; the values are
        substituted, so braces inside them are safe.
    """
    if key in seen:
        raise InputError(
            message.format(key=key, first=seen[key], field=field, **details),
            file=file,
            line=line,
            field=field,
        )
    seen[key] = line
