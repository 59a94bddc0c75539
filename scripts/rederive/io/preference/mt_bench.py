"""MT-bench pairwise judgments of FastChat's ``llm_judge`` (``model_judgment/<judge>_pair.jsonl``).

One line per (question, turn, pair of models, judge), written by
``fastchat/llm_judge/common.py:play_a_match_pair``: the judge saw the two
answers in both orders, ``g1`` with ``model_1`` as assistant A and ``g2`` with
``model_2`` as assistant A, and FastChat already wrote each verdict in the
models' terms: ``g1_winner``/``g2_winner`` is ``model_1``, ``model_2``, ``tie``
or ``error`` (no verdict found in the judgment).

How it maps: ``model_a`` = ``model_1``, ``model_b`` = ``model_2`` in both games;
``game`` 1 (``first`` = ``a``) from ``g1_winner``, ``game`` 2 (``first`` = ``b``)
from ``g2_winner``; ``outcome`` 1, 0 or 0.5, ``label`` the winner as written;
``item_id`` = ``<question_id>/turn<turn>`` (the two turns of a question are
judged, and counted, separately); ``judge`` = the judge model (the first
element of ``judge``, ``["gpt-4", "pair-v2"]`` -> ``gpt-4``: the second is the
prompt template, which FastChat picks by question category); ``category`` is
empty and ``len_a``, ``len_b`` NaN (the file does not carry them apart from the
prompts).

An ``error`` verdict is the counted exclusion ``no verdict (error)``. With
``incomplete_pairs: source`` (default) the other game of that line is dropped
too (counted as ``other game of the pair has no verdict``), as FastChat's
``show_result.py`` drops the whole line; ``keep`` keeps it.

The human judgments of MT-bench (``lmsys/mt_bench_human_judgments``) have one
vote per line with ``model_a``, ``model_b``, ``winner``: read them with the
``battles`` format.
"""

from __future__ import annotations

from pathlib import Path

from rederive.errors import InputError, relpath
from rederive.io.formats import _sniff
from rederive.io.jsonl import iter_jsonl, require_fields, require_id, require_unique
from rederive.io.preference import _games
from rederive.io.run_files import nested_runs
from rederive.lazy import pandas as pd

NAME = "mt_bench"
#: Where it comes in the registry (searched, listed): rederive.io.plugins.
ORDER = 30
#: Its folder under raw_dir and what it holds (the schema's ``inputs.mt_bench``).
LAYOUT = (
    "mt_bench/<judge>_pair.jsonl: MT-bench pairwise judgments (g1_winner, g2_winner: both orders)."
)
DESCRIPTION = (
    "MT-bench pairwise judgments (FastChat llm_judge <judge>_pair.jsonl): model_1, "
    "model_2, g1_winner, g2_winner, both orders"
)
REPORTS = False  # the judgment files carry no aggregate: see rederive.io.preference
#: The schema of its block under an analysis (``mt_bench: {…}``).
OPTIONS = {
    "description": "MT-bench pairwise judgment files (inputs.mt_bench).",
    "type": "object",
    "default": {},
    "properties": {
        "incomplete_pairs": {
            "description": "The other game of a line whose one game is an error verdict: source (= drop, as FastChat's show_result.py drops the line), keep or drop; every game left out is counted in data_quality.csv.",
            "type": "string",
            "enum": ["source", "keep", "drop"],
            "default": "source",
        },
    },
    "additionalProperties": False,
}
REQUIRED = ("question_id", "model_1", "model_2", "g1_winner", "g2_winner", "judge")
WINNERS = {"model_1": (1.0, "a"), "model_2": (0.0, "b"), "tie": (0.5, "tie")}
ERROR = "no verdict (error: no [[A]]/[[B]]/[[C]] found in the judgment)"
PARTNER = "other game of the pair has no verdict (FastChat's show_result drops the line)"
SINGLE = "_single.jsonl"


def find_runs(folder: Path) -> list[tuple[str, Path]]:
    """Every ``*.jsonl`` below ``folder`` except FastChat's single-answer gradings
    (``*_single.jsonl``, not pairwise), named by relative path without the suffix;
    any other file is refused, naming it."""
    return nested_runs(
        folder, ".jsonl", "mt_bench/", passed_over=lambda path: path.name.endswith(SINGLE)
    )


def detect(path: Path) -> bool:
    """A ``.jsonl`` whose first record has ``model_1``, ``model_2`` and ``g1_winner``."""
    if path.suffix.lower() != ".jsonl":
        return False
    record = _sniff.first_json_line(path)
    return record is not None and {"model_1", "model_2", "g1_winner"} <= set(record)


def files(path: Path) -> list[Path]:
    return [Path(path)]


def _judge(record: dict, *, file: str, line: int) -> str:
    value = record["judge"]
    if isinstance(value, list) and value and isinstance(value[0], str) and value[0].strip():
        return value[0].strip()
    if isinstance(value, str) and value.strip():
        return value.strip()
    raise InputError(
        f"expected the judge ([model, prompt] or a name), got {value!r:.80}",
        file=file,
        line=line,
        field="judge",
    )


def _turn(record: dict, *, file: str, line: int) -> int:
    turn = record.get("turn", 1)
    if isinstance(turn, bool) or not isinstance(turn, int) or turn < 1:
        raise InputError(
            f"expected a turn number (1, 2), got {turn!r:.80}", file=file, line=line, field="turn"
        )
    return turn


def _winner(record: dict, field: str, *, file: str, line: int) -> tuple[float, str] | None:
    value = record[field]
    if value == "error":
        return None
    if not isinstance(value, str) or value not in WINNERS:
        raise InputError(
            f"unknown winner {value!r:.80} (expected model_1, model_2, tie or error)",
            file=file,
            line=line,
            field=field,
        )
    return WINNERS[value]


def read(path: Path, *, params: dict, accounting) -> pd.DataFrame:
    name = relpath(path)
    incomplete = _games.incomplete_option(params.get(NAME) or {}, fmt=NAME)
    records, seen = [], {}
    for line, record in iter_jsonl(path):
        accounting.rows_read += 2
        require_fields(record, REQUIRED, file=name, line=line)
        question = require_id(record, "question_id", file=name, line=line)
        model_a = _games.side(record, "model_1", file=name, line=line)
        model_b = _games.side(record, "model_2", file=name, line=line)
        judge = _judge(record, file=name, line=line)
        turn = _turn(record, file=name, line=line)
        verdicts = [_winner(record, f"g{g}_winner", file=name, line=line) for g in (1, 2)]
        item = f"{question}/turn{turn}"
        require_unique(
            seen,
            (item, model_a, model_b, judge),
            file=name,
            line=line,
            field="question_id",
            message="{key[0]} of {key[1]} vs {key[2]} by {key[3]} is already judged on line {first}",
        )
        if not _games.distinct(accounting, model_a, model_b, line, games=2):
            continue
        drop_partner = incomplete in {"source", "drop"} and None in verdicts
        for number, verdict in enumerate(verdicts, start=1):
            if verdict is None:
                accounting.exclude(ERROR, line)
                continue
            if drop_partner:
                accounting.exclude(PARTNER, line)
                continue
            outcome, code = verdict
            accounting.rows_used += 1
            records.append(
                _games.game_row(
                    model_a,
                    model_b,
                    outcome,
                    code,
                    record[f"g{number}_winner"],
                    source_file=name,
                    line=line,
                    item_id=item,
                    judge=judge,
                    game=number,
                    first="a" if number == 1 else "b",
                )
            )
    if accounting.rows_read == 0:
        raise InputError("no judgment lines in this file", file=name)
    return _games.games_frame(records)


def reported(path: Path, *, params: dict) -> pd.DataFrame:
    """The judgment files carry no aggregate score."""
    from rederive.io.preference import reported_frame

    return reported_frame([])
