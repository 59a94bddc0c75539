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

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

from rederive.errors import InputError
from rederive.lazy import pandas as pd

# Files above this size are left to the row reader, which streams (this path
# holds the file's bytes and a few position arrays at once).
MAX_BYTES = 1 << 30

# Exactly the characters str.strip() removes (those whose str.isspace() is true;
# a test recomputes them: listing them here saves 0.1 s at every import).
PY_SPACE = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005"
    "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
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


class Text:
    """One text column as the row reader's ``_text`` sees it, kept in Arrow.

    ``values`` are cleaned strings (stripped like ``str.strip``; blank → null).
    With ``indices`` they are a dictionary and cell ``i`` is
    ``values[indices[i]]``: the dictionary is made distinct and null-free once
    (a blank cell has a null index), so cleaning and equality touch each
    distinct value once whatever the number of rows, and the column is written
    as the dictionary it already is. ``distinct`` says ``values`` already are.
    """

    def __init__(
        self, values: pa.Array, indices: pa.Array | None = None, *, distinct: bool = False
    ):
        if indices is not None and not distinct:
            # Two raw values may clean to one (" a" and "a"), and a blank one to
            # null: re-encode the dictionary so its codes are equal exactly when
            # the cleaned texts are.
            encoded = pc.dictionary_encode(values)
            indices = encoded.indices.take(indices)
            values = encoded.dictionary
        self.values = values
        self.indices = indices

    def __len__(self) -> int:
        return len(self.values if self.indices is None else self.indices)

    def cells(self) -> pa.Array:
        """The cells as they are stored: a dictionary array when there is one."""
        if self.indices is None:
            return self.values
        return pa.DictionaryArray.from_arrays(self.indices, self.values)

    def filled(self, fill: str) -> Text:
        """This column with ``fill`` in every blank cell."""
        if self.indices is None:
            return Text(self.values.fill_null(fill))
        at = pc.index(self.values, fill).as_py()
        values = self.values
        if at < 0:
            at = len(values)
            values = pa.concat_arrays([values, pa.array([fill], values.type)])
        return Text(values, self.indices.fill_null(at), distinct=True)

    def codes(self) -> tuple[np.ndarray, int]:
        """An int64 code per cell (equal exactly when the texts are; -1 for null) and
        the number of distinct texts."""
        if self.indices is not None:
            codes = self.indices.fill_null(-1).to_numpy(zero_copy_only=False)
            return codes.astype(np.int64), len(self.values)
        encoded = pc.dictionary_encode(self.values)
        codes = encoded.indices.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)
        return codes, len(encoded.dictionary)

    def blank(self) -> np.ndarray:
        """Whether each cell is null (blank)."""
        cells = self.values if self.indices is None else self.indices
        return cells.is_null().to_numpy(zero_copy_only=False)


def clean_strings(values: pa.Array) -> pa.Array:
    """``_text`` of each string: stripped of exactly ``str.strip``'s characters, blank → null."""
    trimmed = pc.utf8_trim(values, characters=PY_SPACE)
    return pc.if_else(pc.equal(trimmed, ""), pa.scalar(None, pa.string()), trimmed)


def text(column: pa.ChunkedArray | pa.Array) -> Text:
    """The :class:`Text` of a column of any type.

    Strings are cleaned by Arrow; a column of another type (a Parquet column of
    integers, say) runs ``_text`` once per distinct value, as the row reader does
    on each cell's Python value.
    """
    from rederive.io.tabular import _text

    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    kind = column.type
    if pa.types.is_dictionary(kind):
        values, indices = column.dictionary, column.indices
        kind = values.type
    else:
        values, indices = column, None
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return Text(clean_strings(values.cast(pa.string())), indices)
    if indices is None:
        encoded = pc.dictionary_encode(values)
        values, indices = encoded.dictionary, encoded.indices
    cleaned = pa.array([_text(v) for v in values.to_pylist()], type=pa.string())
    return Text(cleaned, indices)


def dictionary_values(column: pa.ChunkedArray) -> tuple[list, np.ndarray]:
    """A column's distinct values (as Python objects) and each cell's index into
    them; a null cell has index ``len(values)``."""
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    encoded = column if pa.types.is_dictionary(column.type) else pc.dictionary_encode(column)
    values = encoded.dictionary.to_pylist()
    return values, encoded.indices.fill_null(len(values)).to_numpy(zero_copy_only=False)


def scores(column: pa.ChunkedArray, name: str) -> np.ndarray:
    """``parse_correct`` of every cell, NaN for a missing score; NotFast on a bad one."""
    from rederive.io.tabular import parse_correct

    values, codes = dictionary_values(column)
    parsed = []
    for value in values:
        try:
            score = parse_correct(value, file=name, line=None, field="correct")
        except InputError:
            raise NotFast("a score that is not one") from None
        parsed.append(np.nan if score is None else score)
    parsed.append(np.nan)  # null cells (Parquet) are a missing score
    return np.asarray(parsed, dtype=float)[codes]


def epochs(column: pa.Array) -> np.ndarray:
    """``int(str(epoch))`` of every (non-null) epoch text; NotFast on anything else."""
    values, codes = dictionary_values(column)
    try:
        parsed = np.array([int(str(v)) for v in values] + [0], dtype=np.int64)
    except (TypeError, ValueError, OverflowError):
        raise NotFast("an epoch that is not a whole number") from None
    return parsed[codes]


def row_key(*columns: tuple[np.ndarray, int]) -> np.ndarray:
    """One int64 per row, equal exactly when the rows agree in every column.

    Each column is ``(codes, number of distinct codes)`` with codes from -1.
    """
    key = np.zeros(len(columns[0][0]), dtype=np.int64)
    size = 1
    for codes, n in columns:
        if size * (n + 1) >= 1 << 62:  # renumber: no overflow
            key = pd.factorize(key)[0].astype(np.int64)
            size = int(key.max()) + 1 if len(key) else 1
        key = key * (n + 1) + (codes + 1)
        size *= n + 1
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


def dense(values: np.ndarray) -> tuple[np.ndarray, int]:
    """Codes 0, 1, … of ``values`` and their number (for :func:`row_key`)."""
    codes, uniques = pd.factorize(values)
    return codes.astype(np.int64), len(uniques)


def all_distinct(key: np.ndarray) -> bool:
    """Whether no two of the (non-negative) ``key`` values are equal."""
    if not len(key):
        return True
    top = int(key.max())
    if top < 8 * len(key) + 1024:
        return int(np.bincount(key, minlength=1).max()) <= 1
    return len(np.unique(key)) == len(key)


def _id_type(kind: pa.DataType) -> bool:
    """Whether a column of this type holds ids the row reader takes (text or integers)."""
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    return (
        pa.types.is_string(kind)
        or pa.types.is_large_string(kind)
        or pa.types.is_integer(kind)
        or pa.types.is_null(kind)
    )


def _blank_python(value) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


#: The reader table's Arrow types (those of :func:`rederive.io.tabular.frame_from_records`'
#: frame once converted to Arrow); a text column may come as a dictionary array of
#: them (:func:`plain` decodes it).
TABLE_SCHEMA = pa.schema(
    [
        ("model", pa.string()),
        ("task", pa.string()),
        ("item_id", pa.string()),
        ("category", pa.string()),
        ("correct", pa.float64()),
        ("epoch", pa.int64()),
        ("source_file", pa.string()),
        ("line", pa.int64()),
        ("doc_hash", pa.string()),
        ("response", pa.string()),
        ("answer", pa.string()),
    ]
)


def constant(value: str | None, n: int) -> pa.Array:
    """``n`` copies of one string (a one-value dictionary array), or ``n`` nulls."""
    if value is None:
        return pa.nulls(n, pa.string())
    return pa.DictionaryArray.from_arrays(
        pa.array(np.zeros(n, dtype=np.int32)), pa.array([value], pa.string())
    )


def plain(table: pa.Table) -> pa.Table:
    """``table`` with every dictionary column decoded to its values' type."""
    fields = [
        f.with_type(f.type.value_type) if pa.types.is_dictionary(f.type) else f
        for f in table.schema
    ]
    return table.cast(pa.schema(fields, metadata=table.schema.metadata))


def long_table(
    table: pa.Table, lines: np.ndarray, *, name: str, default_task: str, accounting
) -> pa.Table:
    """The reader table (:data:`TABLE_SCHEMA`) of a long table whose columns are the
    file's fields.

    ``lines`` holds each row's line. Raises :class:`NotFast` on anything the row
    reader would refuse; counts into ``accounting`` only when it succeeds.
    """
    from rederive.io.tabular import _LONG_REQUIRED

    fields = table.column_names
    if len(set(fields)) != len(fields) or not set(_LONG_REQUIRED) <= set(fields):
        raise NotFast("duplicated or missing columns")
    for field in ("model", "item_id"):
        if not _id_type(table.schema.field(field).type):
            raise NotFast("an id column that is neither text nor integers")
    # A row is skipped when every cell is blank; only rows with a blank model can be.
    model = text(table["model"])
    blank = model.blank()
    if blank.any():
        candidates = np.flatnonzero(blank)
        subset = table.take(pa.array(candidates))
        for column in subset.columns:
            blank[candidates] &= [_blank_python(v) for v in column.to_pylist()]
        if blank.any():
            keep_rows = pa.array(~blank)
            table = table.filter(keep_rows)
            lines = lines[~blank]
            model = text(table["model"])
    n_read = table.num_rows
    if n_read == 0:
        raise NotFast("no graded rows")
    item = text(table["item_id"])
    if model.blank().any() or item.blank().any():
        raise NotFast("a blank model or item_id")
    score = scores(table["correct"], name)
    missing = np.isnan(score)
    keep = ~missing
    n_kept = int(keep.sum())
    kept = pa.array(keep) if missing.any() else None

    def kept_cells(column: Text) -> pa.Array:
        cells = column.cells()
        return cells if kept is None else cells.filter(kept)

    def kept_codes(column: Text | None) -> tuple[np.ndarray, int]:
        if column is None:
            return np.zeros(n_kept, dtype=np.int64), 1
        codes, n = column.codes()
        return (codes if kept is None else codes[keep]), n

    # A blank task is the default task.
    task = text(table["task"]).filled(default_task) if "task" in fields else None
    epoch_text = text(table["epoch"]) if "epoch" in fields else None
    key = row_key(kept_codes(model), kept_codes(task), kept_codes(item))
    given = (
        np.zeros(n_kept, dtype=bool)
        if epoch_text is None
        else ~kept_cells(epoch_text).is_null().to_numpy(zero_copy_only=False)
    )
    if n_kept and given[0]:
        if not given.all():
            raise NotFast("an epoch missing")
        epoch = epochs(kept_cells(epoch_text).cast(pa.string()))
        if not all_distinct(row_key(dense(key), dense(epoch))):
            raise NotFast("a repeated epoch")
    else:
        if given.any():
            raise NotFast("an epoch on some rows only")
        # Without an epoch column a repeated (model, item) is a repeat.
        epoch = np.ones(n_kept, dtype=np.int64) if all_distinct(key) else occurrence(key)

    def optional(field):
        return kept_cells(text(table[field])) if field in fields else constant(None, n_kept)

    result = pa.Table.from_arrays(
        [
            kept_cells(model),
            kept_cells(task) if task is not None else constant(default_task, n_kept),
            kept_cells(item),
            optional("category"),
            pa.array(score[keep], pa.float64()),
            pa.array(epoch, pa.int64()),
            constant(name, n_kept),
            pa.array(np.asarray(lines)[keep].astype(np.int64)),
            constant(None, n_kept),
            optional("response"),
            optional("answer"),
        ],
        names=TABLE_SCHEMA.names,
    )
    accounting.rows_read += n_read
    accounting.rows_used += n_kept
    if missing.any():
        accounting.exclude_rows("missing score", np.asarray(lines)[missing])
    return result


def to_frame(table: pa.Table) -> pd.DataFrame:
    """The reader frame (:func:`rederive.io.tabular.frame_from_records`' dtypes) of a
    reader table."""
    frame = plain(table).to_pandas(types_mapper={pa.string(): pd.StringDtype()}.get)
    frame["line"] = frame["line"].astype("Int64")
    return frame


def long_frame(
    table: pa.Table, lines: np.ndarray, *, name: str, default_task: str, accounting
) -> pd.DataFrame:
    """:func:`long_table` as the reader frame."""
    return to_frame(
        long_table(table, lines, name=name, default_task=default_task, accounting=accounting)
    )


def read_csv_long(path, *, name: str, default_task: str, accounting) -> pd.DataFrame | None:
    """The reader frame of a long CSV, or ``None`` when the row reader must read it."""
    table = read_csv_table(path, name=name, default_task=default_task, accounting=accounting)
    return None if table is None else to_frame(table)


# Arrow parses a CSV in blocks of this size; every column is read as a
# dictionary, so text work runs once per distinct value.
_BLOCK = 1 << 26
_DICTIONARY = pa.dictionary(pa.int32(), pa.string())


def read_csv_table(path, *, name: str, default_task: str, accounting) -> pa.Table | None:
    """The reader table of a long CSV, or ``None`` when the row reader must read it."""
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
        if len(set(header)) != len(header):
            return None
        limit = csv.field_size_limit()
        table = pa_csv.read_csv(
            pa.py_buffer(data),
            read_options=pa_csv.ReadOptions(
                column_names=header, skip_rows=1, block_size=_BLOCK, use_threads=False
            ),
            parse_options=pa_csv.ParseOptions(newlines_in_values=True, ignore_empty_lines=True),
            convert_options=pa_csv.ConvertOptions(
                column_types={h: _DICTIONARY for h in header},
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
            ),
        )
        data_lines = lines[1:][~empty[1:]]
        if table.num_rows != len(data_lines):
            return None
        if table.num_rows:
            table = table.unify_dictionaries().combine_chunks()
            for column in table.columns:
                values = column.chunk(0).dictionary
                if len(values) and (pc.max(pc.binary_length(values)).as_py() or 0) > limit:
                    return None
        table = table.rename_columns(fields)
        return long_table(
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
        # Text columns as dictionaries: cleaning and keys then run once per
        # distinct value (the values are the same as read plain), and the
        # labelled file is written from them without hashing again. Item ids
        # are mostly distinct: a dictionary costs more than it saves there.
        metadata = pq.read_metadata(path)
        text = [
            f.name
            for f in metadata.schema.to_arrow_schema()
            if (pa.types.is_string(f.type) or pa.types.is_large_string(f.type))
            and f.name != "item_id"
        ]
        with pq.ParquetFile(path, metadata=metadata, read_dictionary=text) as handle:
            return handle.read(use_threads=False)
    except (pa.ArrowException, OSError) as exc:
        raise InputError(f"not a readable Parquet file ({exc})", file=name) from None
