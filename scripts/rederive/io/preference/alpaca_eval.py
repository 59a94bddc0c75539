"""AlpacaEval ``annotations.json`` (``results/<model>/<annotator>/annotations.json``).

One JSON array per file, one record per instruction: ``instruction``,
``output_1`` and ``generator_1`` (the baseline), ``output_2`` and
``generator_2`` (the model evaluated), ``preference``, ``annotator``,
``dataset`` and the annotator's own fields (``raw_completion``, prices).

How it maps (tatsu-lab/alpaca_eval, ``metrics/helpers.py``):

* ``model_a`` = ``generator_1`` (the baseline), ``model_b`` = ``generator_2``;
* ``preference`` is 1 (the baseline's output preferred) to 2 (the model's),
  fractional for the weighted annotators (``weighted_alpaca_eval_gpt4_turbo``:
  the judge's probability), 1.5 a tie; ``outcome = 2 - preference``. A
  ``preference`` of 0 is AlpacaEval's old code for identical outputs, which it
  reads as 1.5: a tie here too. ``verdict`` is ``a``/``b``/``tie`` for exactly
  1/2/1.5 (or 0), ``graded`` otherwise; ``label`` is the number as written.
* A null (or NaN) ``preference`` -- the annotator gave none -- is the counted
  exclusion ``missing preference``: AlpacaEval drops it from ``n_total`` too.
  A preference outside 1..2 (other than 0) is an error.
* ``item_id`` = ``instruction`` (AlpacaEval joins outputs on it), exactly as
  written; ``category`` = ``dataset``; ``judge`` = ``annotator``; ``game`` 1;
  ``first`` is unknown (AlpacaEval shows the two outputs in a random order per
  instruction and does not store which came first).
* ``len_a``, ``len_b`` = the number of characters (Unicode code points) of
  ``output_1`` and ``output_2``: what ``pandas.Series.str.len`` gives, the
  length AlpacaEval 2's length-controlled GLM uses.
* The baseline's own file (``generator_1 == generator_2``, the baseline
  against itself) is read with every row a counted exclusion (``same model on
  both sides``).
* With the option ``model_name: folder`` the model is named by its results
  folder (``results/<name>/<annotator>/annotations.json``) instead of
  ``generator_2``: AlpacaEval names the leaderboard row and that folder by the
  ``--name`` it was run with, which may differ from the outputs' generator (its
  ``NullModel``'s annotations say ``generator_2: example``). The accounting
  notes each file where the two differ.

``reported``: AlpacaEval writes ``leaderboard.csv`` beside the annotations; its
row of each model (win_rate, standard_error, …) as printed. :func:`read_leaderboard`
reads any AlpacaEval leaderboard CSV (the repository's
``src/alpaca_eval/leaderboards/data_AlpacaEval_2/*.csv``) for ``published/``.
"""

from __future__ import annotations

import math
from pathlib import Path

from rederive.errors import InputError, relpath
from rederive.io.jsonl import require_fields, require_unique
from rederive.io.preference import _games
from rederive.io.preference._jsonarray import iter_array
from rederive.io.preference._sniffing import array_keys
from rederive.io.run_files import RunFilesError, unread_problem
from rederive.io.source import CsvRows, width_message
from rederive.lazy import pandas as pd

NAME = "alpaca_eval"
#: Where it comes in the registry (searched, listed): rederive.io.plugins.
ORDER = 10
#: Its folder under raw_dir and what it holds (the schema's ``inputs.alpaca_eval``).
LAYOUT = "alpaca_eval/**/annotations.json: AlpacaEval annotations (instruction, generator_1 = the baseline, generator_2, preference 1..2)."
DESCRIPTION = (
    "AlpacaEval annotations.json (results/<model>/<annotator>/): instruction, "
    "generator_1 (baseline), generator_2, preference 1..2"
)
REQUIRED = ("instruction", "output_1", "generator_1", "output_2", "generator_2", "preference")
ANNOTATIONS = "annotations.json"
LEADERBOARD = "leaderboard.csv"
MODEL_OUTPUTS = "model_outputs.json"
#: The schema of its block under an analysis (``alpaca_eval: {…}``).
OPTIONS = {
    "description": "AlpacaEval annotations (inputs.alpaca_eval).",
    "type": "object",
    "default": {},
    "properties": {
        "model_name": {
            "description": "What names the model evaluated: generator -- the annotations' "
            "generator_2; folder -- its results folder (results/<name>/<annotator>/"
            "annotations.json), which is what names its row of AlpacaEval's leaderboard "
            "(AlpacaEval's NullModel says generator_2: example). The accounting notes every "
            "file where the two differ.",
            "type": "string",
            "enum": ["generator", "folder"],
            "default": "generator",
        },
    },
    "additionalProperties": False,
}
MISSING = "missing preference (the annotator gave none; AlpacaEval leaves it out of n_total)"
#: The leaderboard columns :func:`read_leaderboard` returns, as printed.
LEADERBOARD_COLUMNS = [
    "win_rate",
    "standard_error",
    "length_controlled_winrate",
    "n_total",
    "avg_length",
]


def find_runs(folder: Path) -> list[tuple[str, Path]]:
    """Every ``annotations.json`` below ``folder``, named by its folder's relative path
    (``<model>/<annotator>``; the folder's own name when it is one).

    AlpacaEval's ``model_outputs.json`` and ``leaderboard.csv`` are its companions
    (not runs); any other file is refused, naming it.
    """
    folder = Path(folder)
    runs, problems = [], []
    for path in sorted(p for p in folder.rglob("*") if not p.is_dir()):
        if any(part.startswith(".") for part in path.relative_to(folder).parts):
            continue
        if path.name == ANNOTATIONS:
            rel = path.parent.relative_to(folder)
            runs.append((str(rel) if str(rel) != "." else folder.name, path))
        elif path.name not in {MODEL_OUTPUTS, LEADERBOARD}:
            problems.append(unread_problem(path, ANNOTATIONS, "alpaca_eval/"))
    if problems:
        raise RunFilesError(folder, problems)
    return runs


def detect(path: Path) -> bool:
    """A ``.json`` array whose first record has AlpacaEval's ``instruction`` and ``output_1``."""
    if path.suffix.lower() != ".json" or not path.is_file():
        return False
    keys = array_keys(path)
    return keys is not None and {"instruction", "output_1"} <= keys


def files(path: Path) -> list[Path]:
    """The annotations and, when AlpacaEval wrote them, its ``leaderboard.csv`` beside
    them (read by :func:`reported`) and the model's ``model_outputs.json`` above them."""
    path = Path(path)
    companions = [path.parent / LEADERBOARD, path.parent.parent / MODEL_OUTPUTS]
    return [path, *(p for p in companions if p.is_file())]


def _preference(value, *, file: str, line: int) -> tuple[float, str, str] | None:
    """(outcome, verdict, label) of a preference; None when it is missing."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(
            f"expected a preference from 1 to 2, got {value!r:.80}",
            file=file,
            line=line,
            field="preference",
        )
    label = repr(value)
    if value == 0:
        return 0.5, "tie", label
    if not 1 <= value <= 2:
        raise InputError(
            f"preference {value!r} is outside 1..2 (1: output_1 preferred, 2: output_2; "
            "0 or 1.5: a tie)",
            file=file,
            line=line,
            field="preference",
        )
    outcome = 2.0 - float(value)
    return outcome, _games.verdict_of(outcome), label


def _folder_model(path: Path, name: str) -> str:
    """The model's results folder: ``<name>`` of ``<name>/<annotator>/annotations.json``."""
    folder = Path(path).resolve().parent.parent.name
    if not folder:
        raise InputError(
            "model_name: folder needs the layout <model>/<annotator>/annotations.json", file=name
        )
    return folder


def read(path: Path, *, params: dict, accounting) -> pd.DataFrame:
    name = relpath(path)
    by_folder = (params.get(NAME) or {}).get("model_name", "generator") == "folder"
    folder_model = _folder_model(path, name) if by_folder else None
    renamed: set[str] = set()
    records, seen = [], {}
    for line, record in iter_array(path):
        accounting.rows_read += 1
        if not isinstance(record, dict):
            raise InputError(
                "each element of the array must be a JSON object", file=name, line=line
            )
        require_fields(record, REQUIRED, file=name, line=line)
        instruction = record["instruction"]
        if not isinstance(instruction, str) or not instruction.strip():
            raise InputError(
                f"expected the instruction text, got {instruction!r:.80}",
                file=name,
                line=line,
                field="instruction",
            )
        require_unique(
            seen,
            instruction,
            file=name,
            line=line,
            field="instruction",
            message="the same instruction is already annotated on line {first}",
        )
        baseline = _games.side(record, "generator_1", file=name, line=line)
        model = _games.side(record, "generator_2", file=name, line=line)
        if folder_model is not None and model != folder_model:
            renamed.add(model)
            model = folder_model
        len_a = _games.text_length(record["output_1"], file=name, line=line, field="output_1")
        len_b = _games.text_length(record["output_2"], file=name, line=line, field="output_2")
        judged = _preference(record["preference"], file=name, line=line)
        judge = _games.optional_text(record, "annotator", file=name, line=line)
        category = _games.optional_text(record, "dataset", file=name, line=line) or ""
        if not _games.distinct(accounting, baseline, model, line):
            continue
        if judged is None:
            accounting.exclude(MISSING, line)
            continue
        outcome, verdict, label = judged
        accounting.rows_used += 1
        records.append(
            _games.game_row(
                baseline,
                model,
                outcome,
                verdict,
                label,
                source_file=name,
                line=line,
                item_id=instruction,
                judge=judge,
                category=category,
                len_a=len_a,
                len_b=len_b,
            )
        )
    if accounting.rows_read == 0:
        raise InputError("no annotations in this file (an empty array)", file=name)
    for generator in sorted(renamed):
        accounting.notes.append(
            f"model named {folder_model} by its results folder (model_name: folder); "
            f"its annotations' generator_2 is {generator}"
        )
    return _games.games_frame(records)


def read_leaderboard(path: str | Path) -> pd.DataFrame:
    """An AlpacaEval leaderboard CSV: each model's numbers exactly as printed.

    Parameters
    ----------
    path : str or Path
        ``leaderboard.csv`` as AlpacaEval writes it: the first column (unnamed)
        is the model, then ``win_rate``, ``standard_error``, ``n_wins``, …

    Returns
    -------
    DataFrame
        ``model`` and :data:`LEADERBOARD_COLUMNS` as text, exactly as printed
        (blank: ``<NA>``; a column the file lacks, as older leaderboards lack
        ``length_controlled_winrate``, is all ``<NA>``), and ``line``; in file
        order.

    Raises
    ------
    InputError
        No ``win_rate``/``standard_error`` column, a blank or repeated model,
        a ragged row.
    """
    name = relpath(path)
    rows = iter(CsvRows(path))
    try:
        _, header = next(rows)
    except StopIteration:
        raise InputError("empty file: expected a header row", file=name, line=1) from None
    header = [cell.strip() for cell in header]
    for column in ("win_rate", "standard_error"):
        if column not in header[1:]:
            raise InputError(
                "not an AlpacaEval leaderboard (no such column)", file=name, line=1, field=column
            )
    where = {column: header.index(column) for column in LEADERBOARD_COLUMNS if column in header}
    records, seen = [], {}
    for line, cells in rows:
        if not cells or all(not cell.strip() for cell in cells):
            continue
        if len(cells) != len(header):
            raise InputError(width_message(cells, header), file=name, line=line)
        model = cells[0].strip()
        if not model:
            raise InputError(
                "model name is blank", file=name, line=line, field=header[0] or "column 1"
            )
        require_unique(seen, model, file=name, line=line, field=header[0] or "model")
        record = {"model": model, "line": line}
        for column in LEADERBOARD_COLUMNS:
            text = cells[where[column]].strip() if column in where else ""
            record[column] = text or None
        records.append(record)
    frame = pd.DataFrame(records, columns=["model", *LEADERBOARD_COLUMNS, "line"])
    for column in ("model", *LEADERBOARD_COLUMNS):
        frame[column] = frame[column].astype("string")
    frame["line"] = frame["line"].astype("int64")
    return frame


def reported(path: Path, *, params: dict) -> pd.DataFrame:
    """The ``leaderboard.csv`` AlpacaEval wrote beside the annotations, long: one row
    per (model, metric) with the printed number; empty when there is none."""
    from rederive.io.preference import reported_frame

    board = Path(path).parent / LEADERBOARD
    if not board.is_file():
        return reported_frame([])
    frame = read_leaderboard(board)
    rows = []
    for row in frame.itertuples(index=False):
        for column in LEADERBOARD_COLUMNS:
            text = getattr(row, column)
            if pd.isna(text):
                continue
            try:
                value = float(text)
            except ValueError:
                raise InputError(
                    f"{text!r} is not a number", file=relpath(board), line=row.line, field=column
                ) from None
            rows.append(
                {"model": row.model, "metric": column, "value": value, "file": relpath(board)}
            )
    return reported_frame(rows)
