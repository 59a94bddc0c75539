"""A JSON document that is an array of records, read with the line of each record.

AlpacaEval's ``annotations.json`` and the Chatbot Arena ``clean_battle_*.json``
are one JSON array per file (pandas ``to_json(orient="records", indent=2)``,
``json.dump(..., indent=2)``): :func:`rederive.io.source.read_json` would parse
them in one piece and lose where each record stands. Here each top-level
element is decoded on its own (``json.JSONDecoder.raw_decode``), so every
message names the line where its record starts. The file is opened and decoded
through :mod:`rederive.io.source` like every other input.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

from rederive.errors import InputError, relpath
from rederive.io.source import read_text

_SPACE = re.compile(r"[ \t\r\n]*")
_DECODER = json.JSONDecoder()


def iter_array(path: str | Path) -> Iterator[tuple[int, object]]:
    """Yield ``(line, element)`` for each element of a file holding one JSON array.

    ``NaN`` (which Python's ``json`` writes for a missing float) is read as a
    float NaN, as pandas and AlpacaEval read it.

    Raises
    ------
    InputError
        The file is not one JSON array (naming what it starts with), or an
        element is malformed or nested too deeply (naming its line).
    """
    name = relpath(path)
    text = read_text(path)
    pos = _SPACE.match(text, 0).end()
    if pos == len(text):
        raise InputError("empty file: expected a JSON array of records", file=name)
    if text[pos] != "[":
        raise InputError(
            f"expected a JSON array of records ([...]), the file starts with {text[pos]!r}",
            file=name,
            line=text.count("\n", 0, pos) + 1,
        )
    line, counted = 1, 0
    pos = _SPACE.match(text, pos + 1).end()
    if text.startswith("]", pos):
        return _end(text, pos + 1, name)
    while True:
        line += text.count("\n", counted, pos)
        counted = pos
        try:
            element, end = _DECODER.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            raise InputError(
                f"malformed JSON ({exc.msg} at column {exc.colno})", file=name, line=exc.lineno
            ) from None
        except RecursionError:
            raise InputError("JSON nested too deeply", file=name, line=line) from None
        yield line, element
        pos = _SPACE.match(text, end).end()
        if text.startswith(",", pos):
            pos = _SPACE.match(text, pos + 1).end()
            continue
        if text.startswith("]", pos):
            return _end(text, pos + 1, name)
        where = text.count("\n", 0, pos) + 1
        found = repr(text[pos]) if pos < len(text) else "the end of the file"
        raise InputError(
            f"malformed JSON (expected ',' or ']' after a record, found {found})",
            file=name,
            line=where,
        )


def _end(text: str, pos: int, name: str) -> None:
    pos = _SPACE.match(text, pos).end()
    if pos != len(text):
        raise InputError(
            "malformed JSON (text after the closing ']' of the array)",
            file=name,
            line=text.count("\n", 0, pos) + 1,
        )
