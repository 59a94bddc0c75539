"""eval-arena example-level results (crux-eval/eval-arena ``data/*.jsonl``).

One JSON line per (benchmark, model, example): ``benchmark_id, model, example_id,
pass1`` and, in newer files, ``count`` (samples drawn) and ``correct`` (how many
passed); older files carry ``hyperparams``. ``pass1`` is the fraction of the
``count`` samples that passed: eval-arena's unbiased pass@1 estimate for the
example.

How it maps: task = ``benchmark_id``, item = ``example_id``, one row per line with
``correct`` = ``pass1`` (partial credit in [0, 1]) and epoch 1. The samples are not
expanded into ``count`` epochs: the file keeps no per-sample outcome or order, only
their mean, and the item mean -- what every statistic uses -- is ``pass1`` either
way. ``count`` is checked (a whole number ≥ 1) and, with ``correct``, must agree
(``correct / count == pass1``). A null ``pass1`` is the counted exclusion
``missing score (pass1 is null)``; a line with ``count`` 0 is the counted
exclusion ``no samples (count = 0)``.
"""

from __future__ import annotations

from pathlib import Path

from rederive.errors import InputError, relpath
from rederive.io.formats import _sniff
from rederive.io.jsonl import iter_jsonl, require_fields, require_id, require_unique
from rederive.io.tabular import count_score, frame_from_records, graded_row, parse_correct
from rederive.lazy import pandas as pd

NAME = "eval_arena"
#: Where it comes in the registry (searched, listed): rederive.io.plugins.
ORDER = 70

#: Its folder under raw_dir and what it holds (the schema's ``inputs.eval_arena``).
LAYOUT = "eval_arena/<name>.jsonl: eval-arena example-level results."
DESCRIPTION = "eval-arena example-level JSONL: benchmark_id, model, example_id, pass1 (+ count)"
REPORTS = False  # no harness aggregate: see rederive.io.formats
REQUIRED = ("benchmark_id", "model", "example_id", "pass1")
TOLERANCE = 1e-6  # pass1 is written rounded (0.6666666667)


def find_runs(folder: Path) -> list[tuple[str, Path]]:
    """Every ``*.jsonl`` of the folder, named by file name; any other file is refused."""
    runs = []
    for path in sorted(Path(folder).iterdir()):
        if path.name.startswith("."):
            continue
        if path.suffix != ".jsonl" or not path.is_file():
            raise InputError(
                "not an eval-arena results file (*.jsonl): move it out of the folder",
                file=relpath(path),
            )
        runs.append((path.name, path))
    return runs


def detect(path: Path) -> bool:
    if path.suffix != ".jsonl":
        return False
    record = _sniff.first_json_line(path)
    return record is not None and set(REQUIRED) <= set(record)


def files(path: Path) -> list[Path]:
    return [Path(path)]


def _count(record: dict, *, file: str, line: int) -> int | None:
    if "count" not in record or record["count"] is None:
        return None
    count = record["count"]
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise InputError(
            f"count {count!r} is not a whole number of samples", file=file, line=line, field="count"
        )
    return count


def read(path: Path, *, params: dict, accounting) -> pd.DataFrame:
    name = relpath(path)
    records = []
    seen: dict[tuple, int] = {}
    for number, record in iter_jsonl(path):
        accounting.rows_read += 1
        require_fields(record, REQUIRED, file=name, line=number)
        task = require_id(record, "benchmark_id", file=name, line=number)
        model = require_id(record, "model", file=name, line=number)
        item = require_id(record, "example_id", file=name, line=number)
        require_unique(
            seen,
            (model, task, item),
            file=name,
            line=number,
            field="example_id",
            message="(model, benchmark_id, example_id) = {key} already on line {first}",
        )
        count = _count(record, file=name, line=number)
        if count == 0:
            accounting.exclude("no samples (count = 0)", number)
            continue
        score = parse_correct(record["pass1"], file=name, line=number, field="pass1")
        if score is not None and count is not None and record.get("correct") is not None:
            passed = record["correct"]
            if isinstance(passed, bool) or not isinstance(passed, int | float):
                raise InputError(
                    f"correct {passed!r} is not a number of samples",
                    file=name,
                    line=number,
                    field="correct",
                )
            if abs(passed / count - score) > TOLERANCE:
                raise InputError(
                    f"pass1 {score:g} is not correct / count = {passed}/{count}",
                    file=name,
                    line=number,
                    field="pass1",
                )
        if not count_score(accounting, score, "missing score (pass1 is null)", number):
            continue
        records.append(graded_row(model, task, item, score, name, line=number, category=task))
    if accounting.rows_read == 0:
        raise InputError("no results lines in this file", file=name)
    return frame_from_records(records)


def reported(path: Path, *, params: dict) -> pd.DataFrame:
    """eval-arena's data files carry no aggregate score."""
    return pd.DataFrame(columns=["model", "task", "metric", "filter", "value", "file"])
