"""Pairwise battle logs: one vote per record with ``model_a``, ``model_b``, ``winner``.

The layout of Chatbot Arena's ``clean_battle_*.json`` (FastChat
``fastchat/serve/monitor/clean_battle_data.py``: a JSON array written with
``json.dump(..., indent=2)``; fields ``model_a``, ``model_b``, ``winner``,
``judge``, ``turn``, ``anony``, ``language``, ``tstamp`` and, in the released
data, ``question_id``, ``conversation_a``, ``conversation_b``), of the public
``lmsys/chatbot_arena_conversations`` and ``lmarena-ai/arena-human-preference-*``
exports (as JSON lines), and of MT-bench's human judgments
(``lmsys/mt_bench_human_judgments``). A ``.json`` file is one array of records,
a ``.jsonl`` file one record per line.

How it maps: ``winner`` ``model_a`` -> ``outcome`` 1 (``verdict`` ``a``),
``model_b`` -> 0 (``b``), ``tie`` and ``tie (inconsistent)`` -> 0.5 (``tie``),
``tie (bothbad)`` and ``both_bad`` -> 0.5 (``both_bad``); any other winner is
an error; ``label`` is the winner as written. ``item_id`` = ``question_id``
(missing allowed; with the option ``turn_in_item: true``,
``<question_id>/turn<turn>``, as the ``mt_bench`` reader names MT-bench items:
in MT-bench's human judgments ``turn`` is the turn judged, while in Chatbot
Arena's logs it is the conversation's number of turns); ``judge`` = ``judge``;
``category`` = ``category`` when the record has it as text; ``game`` 1;
``first`` is unknown (``""``: the two answers are shown side by side);
``len_a``/``len_b`` = the characters of the assistant messages of
``conversation_a``/``conversation_b`` when the record carries them, else NaN.

With ``anonymous_only: true`` (default, as the Chatbot Arena leaderboard
counts only battles where the models' names were hidden) a record with
``anony: false`` is the counted exclusion ``named battle``; a record without
``anony`` is kept.
"""

from __future__ import annotations

import math
from pathlib import Path

from rederive.errors import InputError, relpath
from rederive.io.formats import _sniff
from rederive.io.jsonl import iter_jsonl, require_fields, require_id
from rederive.io.preference import _games
from rederive.io.preference._jsonarray import iter_array
from rederive.io.preference._sniffing import array_keys
from rederive.io.run_files import flat_runs
from rederive.lazy import pandas as pd

NAME = "battles"
#: Where it comes in the registry (searched, listed): rederive.io.plugins.
ORDER = 40
#: Its folder under raw_dir and what it holds (the schema's ``inputs.battles``).
LAYOUT = "battles/<name>.json|.jsonl: battle logs with model_a, model_b, winner (Chatbot Arena clean_battle, human judgments)."
DESCRIPTION = (
    "battle logs (Chatbot Arena clean_battle JSON, arena conversation exports, MT-bench "
    "human judgments): model_a, model_b, winner (+ question_id, judge, turn, anony)"
)
REPORTS = False  # a battle log carries no aggregate: see rederive.io.preference
#: The schema of its block under an analysis (``battles: {…}``).
OPTIONS = {
    "description": "Battle logs (inputs.battles).",
    "type": "object",
    "default": {},
    "properties": {
        "anonymous_only": {
            "description": "Count only anonymous battles, as the Chatbot Arena leaderboard does: "
            "a record with anony false is excluded (counted); one without anony is kept.",
            "type": "boolean",
            "default": True,
        },
        "turn_in_item": {
            "description": "Item = <question_id>/turn<turn>: true for MT-bench's human judgments "
            "(turn is the turn judged); false for Chatbot Arena logs (turn counts the "
            "conversation's turns).",
            "type": "boolean",
            "default": False,
        },
    },
    "additionalProperties": False,
}
REQUIRED = ("model_a", "model_b", "winner")
WINNERS = {
    "model_a": (1.0, "a"),
    "model_b": (0.0, "b"),
    "tie": (0.5, "tie"),
    "tie (inconsistent)": (0.5, "tie"),
    "tie (bothbad)": (0.5, "both_bad"),
    "both_bad": (0.5, "both_bad"),
}
NAMED = "named battle (anony is false; anonymous_only counts anonymous battles only)"


def find_runs(folder: Path) -> list[tuple[str, Path]]:
    """Every ``*.json`` and ``*.jsonl`` of the folder, named by file name; the folder
    is flat and any other entry is refused, naming it."""
    return flat_runs(folder, (".json", ".jsonl"), "battles/", by_stem=False)


def detect(path: Path) -> bool:
    """A ``.json`` array or a ``.jsonl`` file whose first record has ``model_a``,
    ``model_b`` and ``winner`` (a ``.jsonl`` with ``outcome`` is the ``long`` format)."""
    suffix = path.suffix.lower()
    if suffix == ".json":
        keys = array_keys(path)
    elif suffix == ".jsonl":
        record = _sniff.first_json_line(path)
        keys = set(record) if record is not None else None
    else:
        return False
    return keys is not None and set(REQUIRED) <= keys and "outcome" not in keys


def files(path: Path) -> list[Path]:
    return [Path(path)]


def _records(path: Path):
    if Path(path).suffix.lower() == ".json":
        return iter_array(path)
    return iter_jsonl(path)


def _assistant_chars(record: dict, field: str, *, file: str, line: int) -> float:
    """Characters of the assistant messages of a conversation; NaN without one."""
    conversation = record.get(field)
    if conversation is None:
        return math.nan
    if not isinstance(conversation, list):
        raise InputError(
            f"expected a list of messages, got {conversation!r:.80}",
            file=file,
            line=line,
            field=field,
        )
    total = 0
    for number, message in enumerate(conversation):
        if not isinstance(message, dict) or not isinstance(message.get("content"), str):
            raise InputError(
                f"expected a message with role and content text, got {message!r:.80}",
                file=file,
                line=line,
                field=f"{field}[{number}]",
            )
        if message.get("role") == "assistant":
            total += len(message["content"])
    return float(total)


def _options(params: dict) -> tuple[bool, bool]:
    options = params.get(NAME) or {}
    anonymous = options.get("anonymous_only", True)
    turn_in_item = options.get("turn_in_item", False)
    return bool(anonymous), bool(turn_in_item)


def read(path: Path, *, params: dict, accounting) -> pd.DataFrame:
    name = relpath(path)
    anonymous_only, turn_in_item = _options(params)
    records = []
    for line, record in _records(path):
        accounting.rows_read += 1
        if not isinstance(record, dict):
            raise InputError(
                "each element of the array must be a JSON object", file=name, line=line
            )
        require_fields(record, REQUIRED, file=name, line=line)
        model_a = _games.side(record, "model_a", file=name, line=line)
        model_b = _games.side(record, "model_b", file=name, line=line)
        winner = record["winner"]
        if not isinstance(winner, str) or winner.strip() not in WINNERS:
            raise InputError(
                f"unknown winner {winner!r:.80} (expected {', '.join(WINNERS)})",
                file=name,
                line=line,
                field="winner",
            )
        outcome, verdict = WINNERS[winner.strip()]
        item = None
        if record.get("question_id") is not None:
            item = require_id(record, "question_id", file=name, line=line)
            if turn_in_item:
                turn = record.get("turn")
                if isinstance(turn, bool) or not isinstance(turn, int) or turn < 1:
                    raise InputError(
                        f"expected a turn number (1, 2), got {turn!r:.80}",
                        file=name,
                        line=line,
                        field="turn",
                    )
                item = f"{item}/turn{turn}"
        anony = record.get("anony")
        if anony is not None and not isinstance(anony, bool):
            raise InputError(
                f"expected true or false, got {anony!r:.80}", file=name, line=line, field="anony"
            )
        judge = _games.optional_text(record, "judge", file=name, line=line)
        category = record.get("category")
        category = category.strip() if isinstance(category, str) else ""
        len_a = _assistant_chars(record, "conversation_a", file=name, line=line)
        len_b = _assistant_chars(record, "conversation_b", file=name, line=line)
        if not _games.distinct(accounting, model_a, model_b, line):
            continue
        if anonymous_only and anony is False:
            accounting.exclude(NAMED, line)
            continue
        accounting.rows_used += 1
        records.append(
            _games.game_row(
                model_a,
                model_b,
                outcome,
                verdict,
                winner,
                source_file=name,
                line=line,
                item_id=item,
                judge=judge,
                category=category,
                len_a=len_a,
                len_b=len_b,
            )
        )
    if accounting.rows_read == 0:
        raise InputError("no battles in this file", file=name)
    return _games.games_frame(records)


def reported(path: Path, *, params: dict) -> pd.DataFrame:
    """A battle log carries no aggregate score."""
    from rederive.io.preference import reported_frame

    return reported_frame([])
