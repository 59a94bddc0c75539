"""Readers for plain graded-results tables: a wide matrix CSV and a long CSV/JSONL.

Both return the long frame every benchmark reader returns (:data:`COLUMNS`): one
row per (model, item, epoch) with ``correct`` in [0, 1], and the file and line it
came from, so any later error can point back at the cell a user has to fix.

* Matrix CSV: first column is the item id (any header, even blank), every other
  column is one model; cells are 0/1 (or a partial-credit fraction), blank =
  missing. This is the layout of the ChemBench matrix of irt-on-bench.
* Long CSV, JSONL or Parquet: one row per graded answer with ``model, item_id, correct``
  and optional ``task, category, epoch, response, answer`` (``answer``: the answer the
  grader extracted from the response, which maj@k votes with). Rows repeating a
  (model, task, item) without an ``epoch`` column are repeats and get epochs
  1, 2, … in file order; they are averaged within the item downstream.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pyarrow as pa

from rederive.errors import InputError, relpath
from rederive.io import columnar
from rederive.io.accounting import Accounting, ensure_accounting
from rederive.io.jsonl import iter_jsonl, require_fields, require_id, require_unique
from rederive.io.source import CsvRows, width_message
from rederive.lazy import pandas as pd

COLUMNS = [
    "model",
    "task",
    "item_id",
    "category",
    "correct",
    "epoch",
    "source_file",
    "line",
    "doc_hash",
    "response",
    "answer",
]

# Only unambiguous spellings: "yes"/"c"/"correct" could as well be an answer
# text that was meant to be graded, so they are refused, not guessed at.
_TRUE = {"true"}
_FALSE = {"false"}
_MISSING = {"", "na", "nan", "null", "none"}
ALLOWED = "a number in [0, 1], true/false, or blank/NA for a missing score"


def empty_frame() -> pd.DataFrame:
    return frame_from_records([])


def frame_from_records(records: list[dict]) -> pd.DataFrame:
    """Long reader frame with fixed column order and dtypes (stable parquet schema)."""
    frame = pd.DataFrame.from_records(records, columns=COLUMNS)
    for column in (
        "model",
        "task",
        "item_id",
        "category",
        "source_file",
        "doc_hash",
        "response",
        "answer",
    ):
        frame[column] = frame[column].astype("string")
    frame["correct"] = frame["correct"].astype(float)
    frame["epoch"] = frame["epoch"].astype("int64")
    frame["line"] = frame["line"].astype("Int64")
    return frame


def graded_row(
    model: str,
    task: str,
    item_id: str,
    correct: float,
    source_file: str,
    *,
    epoch: int = 1,
    line: int | None = None,
    category: str | None = None,
    doc_hash: str | None = None,
    response: str | None = None,
    answer: str | None = None,
) -> dict:
    """One record of the reader frame (:data:`COLUMNS`); a reader fills what its format has.

    ``response`` is the model's output as logged; ``answer`` the answer the grader
    extracted from it (what maj@k votes with, :mod:`rederive.stats.sampling`), where
    the format logs one.
    """
    return {
        "model": model,
        "task": task,
        "item_id": item_id,
        "category": category,
        "correct": correct,
        "epoch": epoch,
        "source_file": source_file,
        "line": line,
        "doc_hash": doc_hash,
        "response": response,
        "answer": answer,
    }


def count_score(
    accounting: Accounting, score: float | None, missing: str, line: int | None = None
) -> bool:
    """Count one graded row: used when it has a score, else the exclusion ``missing``.

    Returns whether the row has a score (the reader keeps it).
    """
    if score is None:
        accounting.exclude(missing, line)
        return False
    accounting.rows_used += 1
    return True


def parse_correct(value, *, file: str, line: int | None, field: str) -> float | None:
    """A score in [0, 1] from a cell or JSON value; ``None`` for a blank/null cell.

    Accepts numbers in [0, 1], booleans and the words true/false (any case);
    blank, NA, NaN, null and None are a missing score. Anything else, ``yes`` and
    ``correct`` included, is an :class:`InputError`: a score we cannot read must not be
    guessed at (treating it as 0 would bias the model's accuracy down).
    """
    if value is None:
        return None
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float):
        number = float(value)
    else:
        text = str(value).strip()
        if text.lower() in _MISSING:
            return None
        if text.lower() in _TRUE:
            return 1.0
        if text.lower() in _FALSE:
            return 0.0
        try:
            number = float(text)
        except ValueError:
            raise InputError(
                f"score {text!r} is not {ALLOWED}",
                file=file,
                line=line,
                field=field,
            ) from None
    if math.isnan(number):
        return None
    if not 0.0 <= number <= 1.0:
        raise InputError(f"score {number:g} is outside [0, 1]", file=file, line=line, field=field)
    return number


def read_matrix_csv(path: str | Path, *, task: str | None = None, accounting=None) -> pd.DataFrame:
    """Read a wide items × models 0/1 matrix.

    Parameters
    ----------
    path : str or Path
        CSV whose first column is the item id and whose other columns are models.
    task : str, optional
        Task name of every item (default: the file stem), part of the item key.
    accounting : rederive.io.accounting.Accounting, optional
        Counts one row per cell; blank cells are counted as
        ``"missing score (blank cell)"`` exclusions.

    Returns
    -------
    DataFrame
        Columns :data:`COLUMNS`, ``epoch`` = 1.
    """
    name = relpath(path)
    task = task or Path(path).stem
    accounting = ensure_accounting(accounting, file=name)
    records = []
    rows = iter(CsvRows(path))
    try:
        _, header = next(rows)
    except StopIteration:
        raise InputError("empty file: expected a header row", file=name, line=1) from None
    models = [m.strip() for m in header[1:]]
    if not models:
        raise InputError(
            "a matrix needs an item-id column and at least one model column", file=name, line=1
        )
    for position, model in enumerate(models, start=2):
        if not model:
            raise InputError(f"model column {position} has no name", file=name, line=1)
    duplicated = sorted({m for m in models if models.count(m) > 1})
    if duplicated:
        raise InputError(f"model columns appear twice: {', '.join(duplicated)}", file=name, line=1)
    seen: dict[str, int] = {}
    for number, row in rows:
        if not row or all(not cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            raise InputError(width_message(row, header), file=name, line=number)
        item = row[0].strip()
        if not item:
            raise InputError(
                "item id is blank", file=name, line=number, field=header[0] or "column 1"
            )
        require_unique(
            seen,
            item,
            file=name,
            line=number,
            field=header[0] or "column 1",
            message="item id {key!r} already used on line {first}",
        )
        for model, cell in zip(models, row[1:], strict=True):
            accounting.rows_read += 1
            score = parse_correct(cell, file=name, line=number, field=model)
            if count_score(accounting, score, "missing score (blank cell)", number):
                records.append(graded_row(model, task, item, score, name, line=number))
    if not seen:
        raise InputError("the matrix has a header but no item rows", file=name)
    return frame_from_records(records)


_LONG_REQUIRED = ("model", "item_id", "correct")


def _iter_long_csv(path: str | Path, name: str):
    rows = iter(CsvRows(path))
    try:
        _, fields = next(rows)
    except StopIteration:
        raise InputError("empty file: expected a header row", file=name, line=1) from None
    fields = [f.strip() for f in fields]
    for field in _LONG_REQUIRED:
        if field not in fields:
            raise InputError("required column is missing", file=name, line=1, field=field)
    for number, cells in rows:
        if all(not cell.strip() for cell in cells):
            continue
        if len(cells) != len(fields):
            raise InputError(width_message(cells, fields), file=name, line=number)
        yield number, dict(zip(fields, cells, strict=True))


def _text(value) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def read_long(path: str | Path, *, task: str | None = None, accounting=None) -> pd.DataFrame:
    """Read a long CSV (``.csv``), JSONL (``.jsonl``) or Parquet file of graded answers.

    Parameters
    ----------
    path : str or Path
    task : str, optional
        Task of rows without a ``task`` value (default: the file stem).
    accounting : Accounting, optional
        One row per line; a blank/null ``correct`` is the counted exclusion
        ``"missing score"``.

    Returns
    -------
    DataFrame
        Columns :data:`COLUMNS`.
    """
    result = read_long_table(path, task=task, accounting=accounting)
    return columnar.to_frame(result) if isinstance(result, pa.Table) else result


def read_long_table(
    path: str | Path, *, task: str | None = None, accounting=None
) -> pa.Table | pd.DataFrame:
    """:func:`read_long`, but a file the columnar path reads stays in Arrow.

    Returns
    -------
    pyarrow.Table or DataFrame
        The columnar path's table (:data:`rederive.io.columnar.TABLE_SCHEMA`, the
        frame's columns as Arrow types, text columns possibly dictionary arrays),
        or the row reader's frame for a file it must read (JSONL, odd quoting,
        anything with an error, which it raises).
    """
    name = relpath(path)
    default_task = task or Path(path).stem
    accounting = ensure_accounting(accounting, file=name)
    suffix = Path(path).suffix.lower()
    if suffix == ".jsonl":
        rows = _iter_long_jsonl(path, name)
    elif suffix == ".csv":
        # Columnar when the file is clean; anything else (every error included)
        # goes through the row reader below, which names file, line and field.
        fast = columnar.read_csv_table(
            path, name=name, default_task=default_task, accounting=accounting
        )
        if fast is not None:
            return fast
        rows = _iter_long_csv(path, name)
    elif suffix == ".parquet":
        table = columnar.read_parquet_table(path, name=name)
        try:
            return columnar.long_table(
                table,
                np.arange(1, table.num_rows + 1),
                name=name,
                default_task=default_task,
                accounting=accounting,
            )
        except (columnar.NotFast, pa.ArrowException):
            rows = _iter_long_table(table, name)
    else:
        raise InputError("a long results file must end in .csv, .jsonl or .parquet", file=name)
    return _graded_frame(rows, name=name, default_task=default_task, accounting=accounting)


def _graded_frame(rows, *, name: str, default_task: str, accounting) -> pd.DataFrame:
    """Validate ``(line, record)`` pairs one at a time into the reader frame."""
    records = []
    has_epoch = None
    keys: dict[tuple, int] = {}
    read = 0
    for number, row in rows:
        read += 1
        accounting.rows_read += 1
        model = _text(row.get("model"))
        item = _text(row.get("item_id"))
        if model is None:
            raise InputError("model is blank", file=name, line=number, field="model")
        if item is None:
            raise InputError("item_id is blank", file=name, line=number, field="item_id")
        row_task = _text(row.get("task")) or default_task
        score = parse_correct(row.get("correct"), file=name, line=number, field="correct")
        if not count_score(accounting, score, "missing score", number):
            continue
        epoch_text = _text(row.get("epoch"))
        if has_epoch is None:
            has_epoch = epoch_text is not None
        key = (model, row_task, item)
        if has_epoch:
            try:
                epoch = int(str(epoch_text))
            except (TypeError, ValueError):
                raise InputError(
                    f"epoch {epoch_text!r} is not a whole number",
                    file=name,
                    line=number,
                    field="epoch",
                ) from None
            require_unique(
                keys,
                (*key, epoch),
                file=name,
                line=number,
                field="epoch",
                message="(model, task, item_id, epoch) = {key} already on line {first}",
            )
        else:
            if epoch_text is not None:
                raise InputError(
                    "epoch is given on some rows only (the first row has none)",
                    file=name,
                    line=number,
                    field="epoch",
                )
            # Without an epoch column a repeated (model, item) is a repeat.
            epoch = keys.get(key, 0) + 1
            keys[key] = epoch
        records.append(
            graded_row(
                model,
                row_task,
                item,
                score,
                name,
                epoch=epoch,
                line=number,
                category=_text(row.get("category")),
                response=_text(row.get("response")),
                answer=_text(row.get("answer")),
            )
        )
    if read == 0:
        raise InputError("no graded rows in this file", file=name)
    return frame_from_records(records)


def _iter_long_table(table, name):
    """Rows of a Parquet long table as ``(row number, record)``, all-blank rows skipped.

    Model and item ids must be text or integers, as in a JSONL file: a float,
    boolean, list or struct id would otherwise become a name like ``1.0`` or
    ``['m']`` (pandas writes an integer column with a gap as floats).
    """
    for field in _LONG_REQUIRED:
        if field not in table.column_names:
            raise InputError("required column is missing", file=name, field=field)
    number = 0
    for batch in table.to_batches(max_chunksize=65_536):
        for record in batch.to_pylist():
            number += 1
            if all(v is None or (isinstance(v, str) and not v.strip()) for v in record.values()):
                continue
            for field in ("model", "item_id"):
                if record[field] is not None:  # null is reported as blank by read_long
                    require_id(record, field, file=name, line=number)
            yield number, record


def _iter_long_jsonl(path, name):
    for number, record in iter_jsonl(path):
        require_fields(record, _LONG_REQUIRED, file=name, line=number)
        for field in ("model", "item_id"):
            if record[field] is not None:  # null is reported as blank by read_long
                require_id(record, field, file=name, line=number)
        yield number, record
