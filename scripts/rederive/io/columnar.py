"""Columnar fast path of the long reader (:func:`rederive.io.tabular.read_long`).

The row-by-row reader validates each line in Python (~10 µs a row: 150 M rows
would be 25 CPU-minutes). Here a whole file is parsed by Arrow's multi-threaded
CSV reader (or read from Parquet) and checked column by column; Python runs
only on each column's distinct values (scores, epochs) and on the few cells
with whitespace at an edge, with the row reader's own functions, so the values
are the same by construction.

This path never reports an error itself. It returns ``None`` whenever the file
has anything the row reader would refuse or that the fast path cannot prove it
reads the same way (a bad score, a blank id, a repeated epoch, a quote in the
middle of a field, a bare carriage return, invalid UTF-8, a field over the csv
module's size limit, …); the caller then runs the row reader, which raises
today's error naming file, line and field. Counted exclusions (missing scores)
are counted here, with the same first line numbers.

Line numbers: a CSV record's line is the physical line it starts on, found
from the newlines outside quotes (quote parity); the parse is used only when
Arrow's row count equals the number of non-empty records so found and every
quote is RFC 4180-clean (opens a field, closes it, or doubles inside one).
A Parquet row's line is its 1-based row number.
"""

from __future__ import annotations

import csv
import io
import sys

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

from rederive.errors import InputError
from rederive.io.accounting import EXAMPLE_LINES

# Files above this size are left to the row reader, which streams (this path
# holds the file's bytes and a few position arrays at once).
MAX_BYTES = 1 << 30

# Exactly the characters str.strip() removes, for Arrow's RE2 regexes.
_PY_SPACE = "".join(f"\\x{{{code:x}}}" for code in range(sys.maxunicode + 1) if chr(code).isspace())
_EDGE_SPACE = f"^[{_PY_SPACE}]|[{_PY_SPACE}]$"
_ALL_SPACE = f"^[{_PY_SPACE}]*$"
_BOM = b"\xef\xbb\xbf"
_COMMA, _NEWLINE, _CR, _QUOTE = 44, 10, 13, 34


class NotFast(Exception):
    """The file needs the row reader (raised inside this module only)."""


def csv_records(data: bytes) -> tuple[np.ndarray, np.ndarray]:
    """Start line and emptiness of each CSV record of ``data`` (BOM removed).

    Raises :class:`NotFast` unless every quote is RFC 4180-clean and every
    carriage return ends a line outside quotes.
    """
    arr = np.frombuffer(data, dtype=np.uint8)
    quotes = np.flatnonzero(arr == _QUOTE)
    if len(quotes) % 2:
        raise NotFast("unbalanced quotes")
    if len(quotes):
        opening, closing = quotes[0::2], quotes[1::2]
        before = np.where(opening > 0, arr[np.maximum(opening - 1, 0)], _NEWLINE)
        escaped_open = np.zeros(len(opening), dtype=bool)
        escaped_open[1:] = closing[:-1] == opening[1:] - 1
        if not np.all((before == _COMMA) | (before == _NEWLINE) | escaped_open):
            raise NotFast("a quote inside an unquoted field")
        after = np.where(closing + 1 < len(arr), arr[np.minimum(closing + 1, len(arr) - 1)], 0)
        after[closing + 1 >= len(arr)] = _NEWLINE
        escaped_close = np.zeros(len(closing), dtype=bool)
        escaped_close[:-1] = opening[1:] == closing[:-1] + 1
        ok = (after == _COMMA) | (after == _NEWLINE) | (after == _CR) | escaped_close
        if not np.all(ok):
            raise NotFast("text after a closing quote")
    returns = np.flatnonzero(arr == _CR)
    if len(returns):
        follows = returns + 1 < len(arr)
        if not follows.all() or not np.all(arr[returns + 1] == _NEWLINE):
            raise NotFast("a carriage return not ending a line")
        if np.any(np.searchsorted(quotes, returns) % 2):
            raise NotFast("a carriage return inside quotes")
    newlines = np.flatnonzero(arr == _NEWLINE)
    outside = np.flatnonzero(np.searchsorted(quotes, newlines) % 2 == 0)
    ends = newlines[outside]
    starts = np.concatenate([[0], ends + 1])
    lines = np.concatenate([[1], outside + 2])
    stops = np.concatenate([ends, [len(arr)]])
    if starts[-1] == len(arr):  # the file ends with a newline
        starts, lines, stops = starts[:-1], lines[:-1], stops[:-1]
    length = stops - starts
    empty = (length == 0) | ((length == 1) & (arr[np.maximum(stops - 1, 0)] == _CR))
    return lines, empty


def text_values(column: pa.ChunkedArray) -> np.ndarray:
    """``_text`` of every cell (stripped like ``str.strip``; blank or null → None).

    A column with few distinct values (model, task, labels) runs ``_text`` once
    per value and its cells share one object per value; others are converted
    whole, and only cells with whitespace at an edge go through Python.
    """
    from rederive.io.tabular import _text

    text = pa.types.is_string(column.type) or pa.types.is_large_string(column.type)
    encoded = pc.dictionary_encode(column).combine_chunks() if len(column) else None
    if encoded is None or not text or len(encoded.dictionary) * 8 <= len(column):
        if encoded is None:
            return np.empty(0, dtype=object)
        uniques = np.empty(len(encoded.dictionary) + 1, dtype=object)
        uniques[:-1] = [_text(v) for v in encoded.dictionary.to_pylist()]
        codes = encoded.indices.fill_null(len(encoded.dictionary)).to_numpy()
        return uniques[codes]
    values = column.to_numpy(zero_copy_only=False).astype(object, copy=False)
    edge = pc.match_substring_regex(column, _EDGE_SPACE).fill_null(False)
    blank = pc.equal(column, "").fill_null(True).to_numpy(zero_copy_only=False)
    values[blank] = None
    for i in np.flatnonzero(edge.to_numpy(zero_copy_only=False)):
        values[i] = _text(values[i])
    return values


def blank_cells(column: pa.ChunkedArray) -> np.ndarray:
    """Whether each cell is blank as the row reader sees it (null, or only whitespace)."""
    if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
        mask = pc.match_substring_regex(column, _ALL_SPACE)
        return mask.fill_null(True).to_numpy(zero_copy_only=False)
    return column.is_null().to_numpy(zero_copy_only=False)


def scores(column: pa.ChunkedArray, name: str) -> np.ndarray:
    """``parse_correct`` of every cell, NaN for a missing score; NotFast on a bad one."""
    from rederive.io.tabular import parse_correct

    encoded = pc.dictionary_encode(column).combine_chunks()
    parsed = []
    for value in encoded.dictionary.to_pylist():
        try:
            score = parse_correct(value, file=name, line=None, field="correct")
        except InputError:
            raise NotFast("a score that is not one") from None
        parsed.append(np.nan if score is None else score)
    parsed.append(np.nan)  # null cells (Parquet) are a missing score
    codes = encoded.indices.fill_null(len(encoded.dictionary)).to_numpy()
    return np.asarray(parsed, dtype=float)[codes]


def epochs(texts: np.ndarray) -> np.ndarray:
    """``int(str(epoch))`` of every (non-None) epoch text; NotFast on anything else."""
    codes, uniques = pd.factorize(texts)
    try:
        parsed = np.array([int(str(v)) for v in uniques] + [0], dtype=np.int64)
    except (TypeError, ValueError, OverflowError):
        raise NotFast("an epoch that is not a whole number") from None
    return parsed[codes]


def row_key(*columns: np.ndarray) -> np.ndarray:
    """One int64 per row, equal exactly when the rows agree in every column."""
    key = np.zeros(len(columns[0]), dtype=np.int64)
    for values in columns:
        codes, uniques = pd.factorize(values)
        key = key * (len(uniques) + 1) + codes
        key = pd.factorize(key)[0].astype(np.int64)  # renumber: no overflow
    return key


def occurrence(key: np.ndarray) -> np.ndarray:
    """1 for a key's first row, 2 for its second, … in row order."""
    order = np.argsort(key, kind="stable")
    ordered = key[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    run = np.arange(len(key)) - np.repeat(starts, np.diff(np.r_[starts, len(key)]))
    result = np.empty(len(key), dtype=np.int64)
    result[order] = run + 1
    return result


def long_frame(
    table: pa.Table, lines: np.ndarray, *, name: str, default_task: str, accounting
) -> pd.DataFrame:
    """The reader frame of a long table whose columns are the file's fields.

    ``lines`` holds each row's line. Raises :class:`NotFast` on anything the row
    reader would refuse; counts into ``accounting`` only when it succeeds.
    """
    from rederive.io.tabular import _LONG_REQUIRED, COLUMNS

    fields = table.column_names
    if len(set(fields)) != len(fields) or not set(_LONG_REQUIRED) <= set(fields):
        raise NotFast("duplicated or missing columns")
    # A row is skipped when every cell is blank; only rows with a blank model can be.
    model = text_values(table["model"])
    blank = pd.isna(model)
    if blank.any():
        candidates = np.flatnonzero(blank)
        subset = table.take(pa.array(candidates))
        for column in subset.columns:
            blank[candidates] &= blank_cells(column)
    if blank.any():
        table = table.filter(pa.array(~blank))
        lines = lines[~blank]
        model = model[~blank]
    n_read = table.num_rows
    if n_read == 0:
        raise NotFast("no graded rows")
    item = text_values(table["item_id"])
    if any(v is None for v in pd.unique(model)) or any(v is None for v in pd.unique(item)):
        raise NotFast("a blank model or item_id")
    score = scores(table["correct"], name)
    missing = np.isnan(score)
    task = text_values(table["task"]) if "task" in fields else np.full(n_read, None, object)
    task[pd.isna(task)] = default_task
    epoch_text = text_values(table["epoch"]) if "epoch" in fields else np.full(n_read, None, object)
    keep = ~missing
    model, item, task, epoch_text, lines_kept = (
        a[keep] for a in (model, item, task, epoch_text, lines)
    )
    given = ~pd.isna(epoch_text)
    key = row_key(model, task, item)
    if len(model) and given[0]:
        if not given.all():
            raise NotFast("an epoch missing")
        epoch = epochs(epoch_text)
        if len(np.unique(np.stack([key, epoch]), axis=1)[0]) != len(key):
            raise NotFast("a repeated epoch")
    else:
        if given.any():
            raise NotFast("an epoch on some rows only")
        # Without an epoch column a repeated (model, item) is a repeat.
        epoch = occurrence(key)

    def optional(field):
        if field not in fields:
            return np.full(int(keep.sum()), None, dtype=object)
        column = table[field].filter(pa.array(keep))
        return text_values(column)

    n_kept = int(keep.sum())
    constant = np.empty(1, dtype=object)
    constant[0] = name

    def strings(values):
        return pd.array(values, dtype="string")

    frame = pd.DataFrame(
        {
            "model": strings(model),
            "task": strings(task),
            "item_id": strings(item),
            "category": strings(optional("category")),
            "correct": score[keep].astype(float),
            "epoch": epoch.astype("int64"),
            "source_file": strings(constant.take(np.zeros(n_kept, dtype=np.intp))),
            "line": pd.array(lines_kept.astype("int64"), dtype="Int64"),
            "doc_hash": strings(np.full(n_kept, None, dtype=object)),
            "response": strings(optional("response")),
        },
        columns=COLUMNS,
    )
    accounting.rows_read += n_read
    accounting.rows_used += int(keep.sum())
    if missing.any():
        # The counts of Accounting.exclude without a Python call per excluded row.
        reason = "missing score"
        accounting.excluded[reason] += int(missing.sum())
        examples = accounting.example_lines[reason]
        room = max(EXAMPLE_LINES - len(examples), 0)
        examples.extend(int(line) for line in lines[missing][:room])
    return frame


def read_csv_long(path, *, name: str, default_task: str, accounting) -> pd.DataFrame | None:
    """The reader frame of a long CSV, or ``None`` when the row reader must read it."""
    from rederive.io import source

    try:
        source.check_file(path)
        with open(path, "rb") as handle:
            data = handle.read(MAX_BYTES + 1)
        if len(data) > MAX_BYTES or b"\x00" in data:
            return None
        source.refuse_binary(data[: source.SNIFF_BYTES], file=name)
        if data.startswith(_BOM):
            data = data[len(_BOM) :]
        lines, empty = csv_records(data)
        if not len(lines) or empty[0]:
            return None
        header_end = lines[1] if len(lines) > 1 else None
        head_text = data.split(b"\n", 1)[0] if header_end == 2 or header_end is None else None
        if head_text is None:
            return None  # a header over several lines
        header = next(csv.reader([head_text.decode("utf-8").rstrip("\r")]))
        fields = [f.strip() for f in header]
        limit = csv.field_size_limit()
        table = pa_csv.read_csv(
            io.BytesIO(data),
            read_options=pa_csv.ReadOptions(column_names=header, skip_rows=1),
            parse_options=pa_csv.ParseOptions(newlines_in_values=True, ignore_empty_lines=True),
            convert_options=pa_csv.ConvertOptions(
                column_types={h: pa.string() for h in header},
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
            ),
        )
        data_lines = lines[1:][~empty[1:]]
        if table.num_rows != len(data_lines) or len(set(header)) != len(header):
            return None
        for column in table.columns:
            if table.num_rows and (pc.max(pc.binary_length(column)).as_py() or 0) > limit:
                return None
        table = table.rename_columns(fields)
        return long_frame(
            table, data_lines, name=name, default_task=default_task, accounting=accounting
        )
    except (NotFast, InputError, pa.ArrowException, UnicodeDecodeError, csv.Error, OSError):
        return None


def read_parquet_table(path, *, name: str) -> pa.Table:
    """A Parquet file's table, unreadable ones as an :class:`InputError`."""
    import pyarrow.parquet as pq

    from rederive.io import source

    source.check_file(path)
    try:
        return pq.read_table(path)
    except (pa.ArrowException, OSError) as exc:
        raise InputError(f"not a readable Parquet file ({exc})", file=name) from None
