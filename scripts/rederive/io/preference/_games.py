"""The canonical games frame every preference reader returns, and its row checks.

One row per judged game, in file order:

* ``model_a``, ``model_b`` -- the two sides as the source names them (trimmed,
  never blank, never the same model);
* ``outcome`` -- the preference for ``model_a`` in [0, 1]: 1 a wins, 0 b wins,
  0.5 a tie (or both bad), anything in between a graded preference;
* ``verdict`` -- ``a``, ``b``, ``tie``, ``both_bad`` or ``graded``;
* ``strength`` -- 1, or 2 for a strong label (Arena-Hard ``A>>B``, ``B>>A``);
* ``label`` -- the source's own verdict text as written;
* ``item_id`` (missing allowed), ``judge`` (missing allowed), ``game`` (1 and 2
  for the two orders of a pair judged both ways, else 1), ``first`` (``a``, ``b``
  or ``""`` when unknown: the side the judge saw first), ``category`` (may be
  ``""``), ``len_a``, ``len_b`` (output lengths in characters, NaN when the
  source does not carry the outputs);
* ``source_file``, ``line`` -- where the game was read, for messages.
"""

from __future__ import annotations

import math

from rederive.errors import InputError
from rederive.io.jsonl import require_id
from rederive.lazy import pandas as pd

COLUMNS = [
    "model_a",
    "model_b",
    "outcome",
    "verdict",
    "strength",
    "label",
    "item_id",
    "judge",
    "game",
    "first",
    "category",
    "len_a",
    "len_b",
    "source_file",
    "line",
]
VERDICTS = ("a", "b", "tie", "both_bad", "graded")
TEXT = ("model_a", "model_b", "verdict", "label", "item_id", "judge", "first", "category")
SAME_MODEL = "same model on both sides (not a game between two contestants)"
INCOMPLETE = ("source", "keep", "drop")


def game_row(
    model_a: str,
    model_b: str,
    outcome: float,
    verdict: str,
    label: str,
    *,
    source_file: str,
    line: int | None,
    strength: int = 1,
    item_id: str | None = None,
    judge: str | None = None,
    game: int = 1,
    first: str = "",
    category: str = "",
    len_a: float = math.nan,
    len_b: float = math.nan,
) -> dict:
    """One record of the games frame (:data:`COLUMNS`)."""
    return {
        "model_a": model_a,
        "model_b": model_b,
        "outcome": outcome,
        "verdict": verdict,
        "strength": strength,
        "label": label,
        "item_id": item_id,
        "judge": judge,
        "game": game,
        "first": first,
        "category": category,
        "len_a": len_a,
        "len_b": len_b,
        "source_file": source_file,
        "line": line,
    }


def games_frame(records: list[dict]) -> pd.DataFrame:
    """The games frame with fixed columns and dtypes (a stable Parquet schema)."""
    frame = pd.DataFrame.from_records(records, columns=COLUMNS)
    for column in (*TEXT, "source_file"):
        frame[column] = frame[column].astype("string")
    for column in ("outcome", "len_a", "len_b"):
        frame[column] = frame[column].astype("float64")
    for column in ("strength", "game"):
        frame[column] = frame[column].astype("int64")
    frame["line"] = frame["line"].astype("Int64")
    return frame


def verdict_of(outcome: float) -> str:
    """``a``, ``b`` or ``tie`` for 1, 0 and 0.5; ``graded`` for any other preference."""
    return {1.0: "a", 0.0: "b", 0.5: "tie"}.get(outcome, "graded")


def side(record: dict, field: str, *, file: str, line: int | None) -> str:
    """A model name: non-blank text (or an integer), trimmed; else an InputError."""
    if field not in record:
        raise InputError("required field is missing", file=file, line=line, field=field)
    return require_id(record, field, file=file, line=line)


def optional_text(record: dict, field: str, *, file: str, line: int | None) -> str | None:
    """A text field that may be absent or null (``None``); a number becomes its text.

    A list, an object or a boolean is an InputError: as text it would become a
    judge or category called ``"[1]"`` or ``"True"``.
    """
    value = record.get(field)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise InputError(f"expected text, got {value!r:.80}", file=file, line=line, field=field)
    if isinstance(value, float) and math.isnan(value):
        return None
    return str(value).strip()


def text_length(value, *, file: str, line: int | None, field: str) -> float:
    """The length in characters of an output text; NaN for a null output."""
    if value is None:
        return math.nan
    if not isinstance(value, str):
        raise InputError(
            f"expected the output text, got {value!r:.80}", file=file, line=line, field=field
        )
    return float(len(value))


def distinct(accounting, model_a: str, model_b: str, line: int | None, games: int = 1) -> bool:
    """Whether the two sides differ; a model against itself is counted, not kept."""
    if model_a != model_b:
        return True
    for _ in range(games):
        accounting.exclude(SAME_MODEL, line)
    return False


def incomplete_option(options: dict, *, fmt: str) -> str:
    """The ``incomplete_pairs`` option of a two-game format, checked."""
    value = options.get("incomplete_pairs") or "source"
    if value not in INCOMPLETE:
        raise ValueError(
            f"{fmt}.incomplete_pairs must be one of {', '.join(INCOMPLETE)}, got {value!r}"
        )
    return value
