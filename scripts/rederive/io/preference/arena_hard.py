"""Arena-Hard-Auto judgment JSONL (``data/<bench>/model_judgment/<judge>/<model>.jsonl``).

One line per question and model: the judge compared the model's answer with the
baseline's twice, once in each order (``games[0]``: the baseline is assistant
A; ``games[1]``: the model is assistant A), each with a label ``A>>B``, ``A>B``,
``A=B``, ``B>A`` or ``B>>A`` (``score``). Two layouts exist:

* 2024 (arena-hard-auto v0.1's ``gen_judgment.py``): ``question_id``,
  ``model``, ``judge``, ``games``; the baseline is not in the file (its
  ``show_result.py --baseline``, ``gpt-4-0314`` for arena-hard-v0.1): name it
  with the option ``baseline``.
* 2025 (v2.0, and the v0.1 judgments as the repository ships them since April
  2025): ``uid``, ``category``, ``judge``, ``model``, ``baseline``, ``games``.

How it maps, as ``show_result.py`` reads the games: ``model_a`` = the
baseline, ``model_b`` = the model, so every game is oriented the same way;
``game`` 1 with ``first`` = ``a`` (the baseline shown first), ``game`` 2 with
``first`` = ``b``. A label is read in its game's order (``A>B`` in game 2 is a
win for the model: ``outcome`` 0, ``verdict`` ``b``); ``>>`` labels have
``strength`` 2 (``show_result.py`` counts them three times, its ``weight``),
``label`` keeps the label as written. ``item_id`` = ``question_id``/``uid``,
``judge`` = ``judge``, ``category`` = ``category`` (2025 layout); the files
hold no output lengths (``len_a``, ``len_b`` NaN). The equivalent spellings
``A<B``, ``A<<B``, ``B<A``, ``B<<A``, ``B=A`` that ``show_result.py`` maps are
read as their ``A…B`` forms.

A game without a verdict is counted, never dropped silently: a null game (the
judge call failed, 2025 layout) is ``no judgment``, a null ``score`` (no label
found in the judgment) is ``no verdict parsed``, any other label is ``unknown
label``. What happens to the *other* game of that question follows the option
``incomplete_pairs``: ``source`` (default) does what the layout's own
``show_result.py`` does -- the 2024 code drops only the game without a verdict
(its weight 0), the 2025 code drops the whole question (both games, the second
counted as ``other game of the question has no verdict``); ``keep`` and ``drop``
choose either for both layouts.
"""

from __future__ import annotations

from pathlib import Path

from rederive.errors import InputError, relpath
from rederive.io.formats import _sniff
from rederive.io.jsonl import iter_jsonl, require_fields, require_id, require_unique
from rederive.io.preference import _games
from rederive.io.run_files import nested_runs
from rederive.lazy import pandas as pd

NAME = "arena_hard"
#: Where it comes in the registry (searched, listed): rederive.io.plugins.
ORDER = 20
#: Its folder under raw_dir and what it holds (the schema's ``inputs.arena_hard``).
LAYOUT = "arena_hard/<judge>/<model>.jsonl: Arena-Hard-Auto judgments, two games per question with positions swapped."
DESCRIPTION = (
    "Arena-Hard-Auto model_judgment/<judge>/<model>.jsonl: two games per question, "
    "positions swapped, labels A>>B … B>>A"
)
REPORTS = False  # the judgment files carry no aggregate: see rederive.io.preference
#: The schema of its block under an analysis (``arena_hard: {…}``).
OPTIONS = {
    "description": "Arena-Hard-Auto judgment files (inputs.arena_hard).",
    "type": "object",
    "default": {},
    "properties": {
        "baseline": {
            "description": "The baseline of judgment files that do not name it (arena-hard-auto's "
            "2024 layout; arena-hard-v0.1's is gpt-4-0314); a file whose lines name their "
            "baseline (2025 layout) is read with its own.",
            "type": ["string", "null"],
            "default": None,
        },
        "incomplete_pairs": {
            "description": "The other game of a question whose one game has no verdict: source does what the layout's own show_result.py does (2024: keep it; 2025: drop the question), keep or drop choose; every game left out is counted in data_quality.csv.",
            "type": "string",
            "enum": ["source", "keep", "drop"],
            "default": "source",
        },
    },
    "additionalProperties": False,
}

#: Label (as read in its game's A/B order) -> (outcome for A, strength).
LABELS = {
    "A>>B": (1.0, 2),
    "A>B": (1.0, 1),
    "A=B": (0.5, 1),
    "B>A": (0.0, 1),
    "B>>A": (0.0, 2),
}
SYNONYMS = {"A<<B": "B>>A", "A<B": "B>A", "B=A": "A=B", "B<A": "A>B", "B<<A": "A>>B"}
NO_JUDGMENT = "no judgment (the judge call failed: the game is null)"
NO_VERDICT = "no verdict parsed from the judgment (score is null)"
UNKNOWN = "unknown label (not one of A>>B, A>B, A=B, B>A, B>>A)"
PARTNER = "other game of the question has no verdict (the pair is dropped)"


def find_runs(folder: Path) -> list[tuple[str, Path]]:
    """Every ``*.jsonl`` below ``folder`` (``<judge>/<model>.jsonl``), named by its
    relative path without the suffix; any other file is refused, naming it."""
    return nested_runs(folder, ".jsonl", "arena_hard/")


def detect(path: Path) -> bool:
    """A ``.jsonl`` whose first record has ``games``, ``model`` and ``question_id``/``uid``."""
    if path.suffix.lower() != ".jsonl":
        return False
    record = _sniff.first_json_line(path)
    return (
        record is not None
        and {"games", "model"} <= set(record)
        and bool({"question_id", "uid"} & set(record))
    )


def files(path: Path) -> list[Path]:
    return [Path(path)]


def _options(params: dict) -> tuple[str | None, str]:
    options = params.get(NAME) or {}
    return options.get("baseline"), _games.incomplete_option(options, fmt=NAME)


def _label(game, *, file: str, line: int, field: str) -> tuple[str | None, str | None]:
    """(label as written, its canonical form) of one game; a reason instead when none."""
    if game is None:
        return None, NO_JUDGMENT
    if not isinstance(game, dict):
        raise InputError(
            f"expected a game object, got {game!r:.80}", file=file, line=line, field=field
        )
    if "score" not in game:
        raise InputError("required field is missing", file=file, line=line, field=f"{field}.score")
    score = game["score"]
    if score is None:
        return None, NO_VERDICT
    if not isinstance(score, str):
        raise InputError(
            f"expected a label such as 'A>B', got {score!r:.80}",
            file=file,
            line=line,
            field=f"{field}.score",
        )
    canonical = SYNONYMS.get(score.strip(), score.strip())
    if canonical not in LABELS:
        return score, UNKNOWN
    return score, None


def read(path: Path, *, params: dict, accounting) -> pd.DataFrame:
    name = relpath(path)
    option_baseline, incomplete = _options(params)
    records, seen = [], {}
    for line, record in iter_jsonl(path):
        accounting.rows_read += 2
        layout_2024 = "question_id" in record
        key = "question_id" if layout_2024 else "uid"
        require_fields(record, (key, "model", "games"), file=name, line=line)
        item = require_id(record, key, file=name, line=line)
        model = _games.side(record, "model", file=name, line=line)
        if "baseline" in record:
            baseline = _games.side(record, "baseline", file=name, line=line)
        elif option_baseline:
            baseline = str(option_baseline).strip()
        else:
            raise InputError(
                "this judgment file does not name its baseline (arena-hard-auto's 2024 "
                "layout): give it as the option arena_hard: {baseline: <model>} "
                "(gpt-4-0314 for arena-hard-v0.1)",
                file=name,
                line=line,
                field="baseline",
            )
        judge = _games.optional_text(record, "judge", file=name, line=line)
        category = _games.optional_text(record, "category", file=name, line=line) or ""
        require_unique(
            seen,
            (item, model, judge),
            file=name,
            line=line,
            field=key,
            message="question {key[0]!r} of model {key[1]!r} is already judged on line {first}",
        )
        games = record["games"]
        if not isinstance(games, list) or len(games) != 2:
            raise InputError(
                f"expected a list of the two games (both orders), got {games!r:.80}",
                file=name,
                line=line,
                field="games",
            )
        judged = [_label(games[i], file=name, line=line, field=f"games[{i}]") for i in range(2)]
        if not _games.distinct(accounting, baseline, model, line, games=2):
            continue
        drop_partner = incomplete == "drop" or (incomplete == "source" and not layout_2024)
        missing = [reason for _, reason in judged if reason is not None]
        for number, (label, reason) in enumerate(judged, start=1):
            if reason is not None:
                accounting.exclude(reason, line)
                continue
            if missing and drop_partner:
                accounting.exclude(PARTNER, line)
                continue
            outcome, strength = LABELS[SYNONYMS.get(label.strip(), label.strip())]
            if number == 2:  # the model was assistant A
                outcome = 1.0 - outcome
            accounting.rows_used += 1
            records.append(
                _games.game_row(
                    baseline,
                    model,
                    outcome,
                    _games.verdict_of(outcome),
                    label,
                    source_file=name,
                    line=line,
                    strength=strength,
                    item_id=item,
                    judge=judge,
                    game=number,
                    first="a" if number == 1 else "b",
                    category=category,
                )
            )
    if accounting.rows_read == 0:
        raise InputError("no judgment lines in this file", file=name)
    return _games.games_frame(records)


def reported(path: Path, *, params: dict) -> pd.DataFrame:
    """The judgment files carry no aggregate score."""
    from rederive.io.preference import reported_frame

    return reported_frame([])
