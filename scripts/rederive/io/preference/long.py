"""Long CSV or JSONL of judged games: one row per game.

Columns: ``model_a``, ``model_b`` and ``outcome`` (the preference for
``model_a`` in [0, 1]: 1 a wins, 0 b wins, 0.5 a tie, anything in between a
graded preference) or ``winner`` (``a``/``model_a``, ``b``/``model_b``,
``tie``, ``both_bad``/``tie (bothbad)``, or the name of either model), or
both (then they must agree). Optional: ``item_id``, ``judge``, ``category``,
``game`` (a whole number ≥ 1, default 1), ``first`` (``a``, ``b`` or blank:
the side the judge saw first), ``strength`` (1 or 2, default 1), ``len_a``,
``len_b`` (output lengths, ≥ 0; say in your analysis how they were measured).
Other columns are ignored.

``verdict`` comes from ``winner`` when there is one, else from ``outcome``
(``a``, ``b``, ``tie`` for 1, 0, 0.5; ``graded`` otherwise); ``label`` is the
``winner`` (else the ``outcome``) as written. A row whose outcome and winner
are both blank (or null) is the counted exclusion ``missing outcome``.

A ``.csv`` file is always this format; a ``.jsonl`` file when its first record
has ``outcome`` (one with ``winner`` only is read by ``battles``, which reads
the same columns).
"""

from __future__ import annotations

import math
from pathlib import Path

from rederive.errors import InputError, relpath
from rederive.io.formats import _sniff
from rederive.io.jsonl import iter_jsonl
from rederive.io.preference import _games
from rederive.io.run_files import flat_runs
from rederive.io.source import CsvRows, width_message
from rederive.lazy import pandas as pd

NAME = "long"
#: Where it comes in the registry (searched, listed): rederive.io.plugins.
ORDER = 50
#: Its folder under raw_dir and what it holds (the schema's ``inputs.long``).
LAYOUT = "long/<name>.csv|.jsonl: games model_a, model_b, outcome or winner [, item_id, judge, game, first, category, strength, len_a, len_b]."
DESCRIPTION = (
    "long CSV/JSONL of games: model_a, model_b, outcome or winner (+ item_id, judge, game, "
    "first, category, strength, len_a, len_b)"
)
REPORTS = False  # no aggregate: see rederive.io.preference
SIDES = ("model_a", "model_b")
WINNERS = {
    "a": (1.0, "a"),
    "model_a": (1.0, "a"),
    "b": (0.0, "b"),
    "model_b": (0.0, "b"),
    "tie": (0.5, "tie"),
    "both_bad": (0.5, "both_bad"),
    "tie (bothbad)": (0.5, "both_bad"),
}
MISSING = "missing outcome (outcome and winner both blank)"
_BLANK = {"", "na", "nan", "null", "none"}


def find_runs(folder: Path) -> list[tuple[str, Path]]:
    """Every ``*.csv`` and ``*.jsonl`` of the folder, named by file name; the folder is
    flat and any other entry is refused, naming it."""
    return flat_runs(folder, (".csv", ".jsonl"), "long/", by_stem=False)


def detect(path: Path) -> bool:
    """A ``.csv`` whose header, or a ``.jsonl`` whose first record, has ``model_a``,
    ``model_b`` and ``outcome`` (a ``.csv`` may have ``winner`` instead)."""
    suffix = path.suffix.lower()
    if suffix == ".csv":
        rows = _sniff.csv_head(path)
        if not rows:
            return False
        header = {cell.strip() for cell in rows[0]}
        return set(SIDES) <= header and bool({"outcome", "winner"} & header)
    if suffix == ".jsonl":
        record = _sniff.first_json_line(path)
        return record is not None and {*SIDES, "outcome"} <= set(record)
    return False


def files(path: Path) -> list[Path]:
    return [Path(path)]


def _blank(value) -> bool:
    if value is None:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    return isinstance(value, str) and value.strip().lower() in _BLANK


def _number(value, *, file: str, line: int, field: str, what: str) -> float | None:
    """A number from a cell or JSON value, None when blank; else an InputError."""
    if _blank(value):
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise InputError(f"expected {what}, got {value!r:.80}", file=file, line=line, field=field)
    try:
        number = float(value)
    except ValueError:
        raise InputError(
            f"expected {what}, got {value!r:.80}", file=file, line=line, field=field
        ) from None
    if not math.isfinite(number):
        raise InputError(f"expected {what}, got {value!r:.80}", file=file, line=line, field=field)
    return number


def _whole(value, default: int, allowed, *, file: str, line: int, field: str, what: str) -> int:
    number = _number(value, file=file, line=line, field=field, what=what)
    if number is None:
        return default
    if number != int(number) or not allowed(int(number)):
        raise InputError(f"expected {what}, got {value!r:.80}", file=file, line=line, field=field)
    return int(number)


def _text(value, *, file: str, line: int, field: str) -> str | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise InputError(f"expected text, got {value!r:.80}", file=file, line=line, field=field)
    return str(value).strip()


def _side(value, *, file: str, line: int, field: str) -> str:
    name = _text(value, file=file, line=line, field=field)
    if name is None:
        raise InputError("model name is blank", file=file, line=line, field=field)
    return name


def _game(row: dict, *, file: str, line: int, accounting) -> dict | None:
    model_a = _side(row.get("model_a"), file=file, line=line, field="model_a")
    model_b = _side(row.get("model_b"), file=file, line=line, field="model_b")
    outcome = _number(
        row.get("outcome"), file=file, line=line, field="outcome", what="an outcome in [0, 1]"
    )
    if outcome is not None and not 0.0 <= outcome <= 1.0:
        raise InputError(
            f"outcome {outcome:g} is outside [0, 1]", file=file, line=line, field="outcome"
        )
    winner = None if _blank(row.get("winner")) else row["winner"]
    verdict, label = None, None
    if winner is not None:
        if not isinstance(winner, str):
            raise InputError(
                f"expected a winner, got {winner!r:.80}", file=file, line=line, field="winner"
            )
        label = winner
        key = winner.strip()
        if key.lower() in WINNERS:
            won, verdict = WINNERS[key.lower()]
        elif key in (model_a, model_b) and model_a != model_b:
            won, verdict = (1.0, "a") if key == model_a else (0.0, "b")
        else:
            raise InputError(
                f"unknown winner {winner!r:.80} (expected a, b, tie, both_bad, model_a, "
                "model_b or the name of either model)",
                file=file,
                line=line,
                field="winner",
            )
        if outcome is not None and outcome != won:
            raise InputError(
                f"outcome {outcome:g} disagrees with winner {winner!r} ({won:g})",
                file=file,
                line=line,
                field="outcome",
            )
        outcome = won
    elif outcome is not None:
        verdict = _games.verdict_of(outcome)
        label = str(row["outcome"]).strip()
    first = _text(row.get("first"), file=file, line=line, field="first") or ""
    if first not in {"", "a", "b"}:
        raise InputError(
            f"expected a, b or blank, got {first!r:.80}", file=file, line=line, field="first"
        )
    strength = _whole(
        row.get("strength"),
        1,
        {1, 2}.__contains__,
        file=file,
        line=line,
        field="strength",
        what="1 or 2",
    )
    game = _whole(
        row.get("game"),
        1,
        lambda n: n >= 1,
        file=file,
        line=line,
        field="game",
        what="a game number ≥ 1",
    )
    lengths = []
    for field in ("len_a", "len_b"):
        length = _number(row.get(field), file=file, line=line, field=field, what="a length ≥ 0")
        if length is not None and length < 0:
            raise InputError(
                f"expected a length ≥ 0, got {length:g}", file=file, line=line, field=field
            )
        lengths.append(math.nan if length is None else length)
    judge = _text(row.get("judge"), file=file, line=line, field="judge")
    item = _text(row.get("item_id"), file=file, line=line, field="item_id")
    category = _text(row.get("category"), file=file, line=line, field="category") or ""
    if not _games.distinct(accounting, model_a, model_b, line):
        return None
    if outcome is None:
        accounting.exclude(MISSING, line)
        return None
    accounting.rows_used += 1
    return _games.game_row(
        model_a,
        model_b,
        outcome,
        verdict,
        label,
        source_file=file,
        line=line,
        strength=strength,
        item_id=item,
        judge=judge,
        game=game,
        first=first,
        category=category,
        len_a=lengths[0],
        len_b=lengths[1],
    )


def _csv_rows(path: Path):
    name = relpath(path)
    rows = iter(CsvRows(path))
    try:
        _, header = next(rows)
    except StopIteration:
        raise InputError("empty file: expected a header row", file=name, line=1) from None
    header = [cell.strip() for cell in header]
    for column in SIDES:
        if column not in header:
            raise InputError("required column is missing", file=name, line=1, field=column)
    if not {"outcome", "winner"} & set(header):
        raise InputError("needs an outcome or a winner column", file=name, line=1, field="outcome")
    repeated = sorted({c for c in header if c and header.count(c) > 1})
    if repeated:
        raise InputError(f"columns appear twice: {', '.join(repeated)}", file=name, line=1)
    for line, cells in rows:
        if not cells or all(not cell.strip() for cell in cells):
            continue
        if len(cells) != len(header):
            raise InputError(width_message(cells, header), file=name, line=line)
        yield line, dict(zip(header, cells, strict=True))


def _jsonl_rows(path: Path):
    name = relpath(path)
    for line, record in iter_jsonl(path):
        for column in SIDES:
            if column not in record:
                raise InputError("required field is missing", file=name, line=line, field=column)
        if "outcome" not in record and "winner" not in record:
            raise InputError("required field is missing", file=name, line=line, field="outcome")
        yield line, record


def read(path: Path, *, params: dict, accounting) -> pd.DataFrame:
    name = relpath(path)
    rows = _csv_rows(path) if Path(path).suffix.lower() == ".csv" else _jsonl_rows(path)
    records = []
    for line, row in rows:
        accounting.rows_read += 1
        game = _game(row, file=name, line=line, accounting=accounting)
        if game is not None:
            records.append(game)
    if accounting.rows_read == 0:
        raise InputError("no games in this file", file=name)
    return _games.games_frame(records)


def reported(path: Path, *, params: dict) -> pd.DataFrame:
    """A long file has no aggregate."""
    from rederive.io.preference import reported_frame

    return reported_frame([])
