"""A clean Parquet long file is its own labelled file.

The long reader (:func:`rederive.io.columnar.long_table`) turns a file into the
labelled table: text stripped (blank → null), rows with a missing score
dropped (and counted), blank tasks given the file's default task, epochs
numbered, and the per-run columns ``run, format, source_file, line, doc_hash,
metric`` added. On a Parquet file whose cells that cleaning leaves as they
are, writing that table again is most of the ingest's cost (4.3 of 13 ms a
30,000-row run, where DuckDB reads the whole run in 1.3 ms) and changes no
value. So the ingest copies such a file's bytes as the run's labelled file
(:func:`read_long_parquet` decides, and counts the run as the reader would),
records what the rewrite would have added (:class:`Copy`'s ``info``, kept in
the run's accounting JSON), and the warehouse's SQL adds it while reading
(:func:`select_sql`): the same rows, values, types and order as from the
rewritten file, which tests/io/test_verbatim.py checks table for table.

A file is copied when every one of these holds, and otherwise rewritten (the
rewrite raises the reader's errors, with file, line and field):

* column names distinct, also ignoring case (DuckDB binds names without case),
  with ``model, item_id, correct``; none spelled like a long column in another
  case or like one of DuckDB's file columns (``filename``, ``file_row_number``,
  ``file_index``);
* every column of a plain type (text, integer, float, boolean, null, or a
  dictionary of text): a column DuckDB might read otherwise sends the file to
  the rewrite;
* ``model`` and ``item_id`` text or integers, never null; ``task`` text or null;
  ``category``, ``response`` and ``answer`` text, integers or null; ``epoch`` integers or
  null; ``correct`` numbers or booleans in [0, 1], null or NaN for a missing
  score, at least one score present;
* no text cell blank, with whitespace at an edge, or invalid UTF-8 (the
  cleaning would change it);
* (model, task, item_id) distinct among the scored rows when no epoch is given,
  (model, task, item_id, epoch) with every epoch given otherwise (repeats
  numbered 1, 2, … are the rewrite's job).

The copy is the file's bytes as hashed for the accounting, so the ingested
folder stays what the raw file was when it was read.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from rederive.io import columnar

#: The long file's columns, and those of them that may be absent.
LONG_COLUMNS = (
    "model",
    "item_id",
    "correct",
    "task",
    "category",
    "epoch",
    "response",
    "answer",
)
REQUIRED = ("model", "item_id", "correct")
#: Columns DuckDB's Parquet reader adds to every file.
VIRTUAL = {"filename", "file_row_number", "file_index"}
#: Files above this size are rewritten (a copy holds the file's bytes at once).
MAX_BYTES = columnar.MAX_BYTES


@dataclass(frozen=True)
class Copy:
    """A run whose labelled file is the raw file's bytes.

    ``info`` says what the rewrite would have added: ``format``, ``metric``,
    ``source_file`` (the reader's name of the file), ``default_task`` and
    ``columns`` (every column's name and Arrow type: files of one schema are
    read by one query).
    """

    data: bytes
    sha256: str
    info: dict


class NotVerbatim(Exception):
    """The file must be rewritten (raised inside this module only)."""


def _plain_type(kind: pa.DataType) -> bool:
    if pa.types.is_dictionary(kind):
        return _text_type(kind.value_type)
    return (
        _text_type(kind)
        or pa.types.is_integer(kind)
        or pa.types.is_float32(kind)
        or pa.types.is_float64(kind)
        or pa.types.is_boolean(kind)
        or pa.types.is_null(kind)
    )


def _text_type(kind: pa.DataType) -> bool:
    return pa.types.is_string(kind) or pa.types.is_large_string(kind)


def _value_type(kind: pa.DataType) -> pa.DataType:
    return kind.value_type if pa.types.is_dictionary(kind) else kind


def check_schema(schema: pa.Schema) -> None:
    """Raise :class:`NotVerbatim` unless the columns qualify (names and types)."""
    names = schema.names
    lowered = [n.lower() for n in names]
    if len(set(lowered)) != len(lowered):
        raise NotVerbatim("two columns differ only in case")
    for name, low in zip(names, lowered, strict=True):
        if low in VIRTUAL or (low in LONG_COLUMNS and name != low):
            raise NotVerbatim(f"column {name!r}")
    if not set(REQUIRED) <= set(names):
        raise NotVerbatim("a required column is missing")
    allowed = {
        "model": (_text_type, pa.types.is_integer),
        "item_id": (_text_type, pa.types.is_integer),
        "task": (_text_type, pa.types.is_null),
        "category": (_text_type, pa.types.is_integer, pa.types.is_null),
        "response": (_text_type, pa.types.is_integer, pa.types.is_null),
        "answer": (_text_type, pa.types.is_integer, pa.types.is_null),
        "epoch": (pa.types.is_integer, pa.types.is_null),
        "correct": (
            pa.types.is_integer,
            pa.types.is_float32,
            pa.types.is_float64,
            pa.types.is_boolean,
            pa.types.is_null,
        ),
    }
    for field in schema:
        if not _plain_type(field.type):
            raise NotVerbatim(f"column {field.name!r} of type {field.type}")
        tests = allowed.get(field.name)
        if tests and not any(test(_value_type(field.type)) for test in tests):
            raise NotVerbatim(f"column {field.name!r} of type {field.type}")


def _cells(column: pa.ChunkedArray) -> tuple[pa.Array, pa.Array | None]:
    """A column's values and, for a dictionary column, each cell's index into them."""
    column = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if pa.types.is_dictionary(column.type):
        if column.dictionary.null_count:
            raise NotVerbatim("a null dictionary value")
        return column.dictionary, column.indices
    return column, None


# The first and the last UTF-8 byte of every character str.strip() removes: a
# string whose first and last bytes are outside these has no such character at
# either edge, so only the few others need the exact check.
_EDGE_FIRST = np.zeros(256, dtype=bool)
_EDGE_FIRST[[c.encode()[0] for c in columnar.PY_SPACE]] = True
_EDGE_LAST = np.zeros(256, dtype=bool)
_EDGE_LAST[[c.encode()[-1] for c in columnar.PY_SPACE]] = True


def _check_clean(values: pa.Array) -> None:
    """NotVerbatim unless every non-null string is valid UTF-8, not blank, and without
    whitespace at an edge: exactly the strings the reader's cleaning keeps as they are.

    Runs over the strings' offsets and edge bytes (no string is copied or hashed:
    a column of long distinct replies costs its UTF-8 validation only).
    """
    if not _text_type(values.type):
        return  # integers and nulls: nothing to clean
    try:
        values.validate(full=True)
    except pa.ArrowInvalid:
        raise NotVerbatim("invalid UTF-8") from None
    values = values.cast(pa.string())
    if values.null_count:
        values = values.drop_null()
    if not len(values):
        return
    offsets = np.frombuffer(values.buffers()[1], np.int32, len(values) + 1, 4 * values.offset)
    starts, stops = offsets[:-1], offsets[1:]
    if np.any(stops == starts):
        raise NotVerbatim("a blank cell")
    data = np.frombuffer(values.buffers()[2], np.uint8)
    suspect = _EDGE_FIRST[data[starts]] | _EDGE_LAST[data[stops - 1]]
    if suspect.any():
        # utf8_trim over exactly str.strip's characters (columnar.clean_strings).
        doubtful = values.filter(pa.array(suspect))
        if not pc.utf8_trim(doubtful, characters=columnar.PY_SPACE).equals(doubtful):
            raise NotVerbatim("whitespace at an edge")


def _text(column: pa.ChunkedArray) -> columnar.Text:
    """A checked column (:func:`_check_clean`) as :class:`rederive.io.columnar.Text`,
    for its codes in the keys."""
    values, indices = _cells(column)
    if pa.types.is_null(values.type):
        return columnar.Text(pa.nulls(len(values), pa.string()))
    if pa.types.is_integer(values.type):
        # Integers read as their decimal text (str() or DuckDB's CAST alike):
        # equal exactly when the numbers are.
        if indices is None:
            encoded = pc.dictionary_encode(values)
            values, indices = encoded.dictionary, encoded.indices
        return columnar.Text(values, indices)
    return columnar.Text(values.cast(pa.string()), indices)


def _scores(column: pa.ChunkedArray) -> np.ndarray:
    """Every score as float64, NaN where missing; NotVerbatim outside [0, 1]."""
    column = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if pa.types.is_null(column.type):
        return np.full(len(column), np.nan)
    number = pc.cast(column, pa.float64())
    scores = number.to_numpy(zero_copy_only=False)
    if number.null_count:
        scores = np.where(number.is_null().to_numpy(zero_copy_only=False), np.nan, scores)
    present = scores[~np.isnan(scores)]
    if len(present) and not (present.min() >= 0.0 and present.max() <= 1.0):
        raise NotVerbatim("a score outside [0, 1]")
    return scores


def check_rows(table: pa.Table, *, default_task: str) -> tuple[int, np.ndarray]:
    """The rows a copy keeps: NotVerbatim unless the cleaning would change nothing.

    Returns the number of rows read and the mask of missing scores.
    """
    n_read = table.num_rows
    fields = table.column_names
    for field in ("model", "item_id", "task", "category", "response", "answer"):
        if field not in fields:
            continue
        values, indices = _cells(table[field])
        if field in ("model", "item_id") and (values if indices is None else indices).null_count:
            raise NotVerbatim(f"a null {field}")
        _check_clean(values)
    missing = np.isnan(_scores(table["correct"]))
    keep = ~missing
    n_kept = int(keep.sum())
    if n_read == 0 or n_kept == 0:
        raise NotVerbatim("no graded rows")
    kept_rows = None if n_kept == n_read else pa.array(keep)

    def kept(codes: tuple[np.ndarray, int]) -> tuple[np.ndarray, int]:
        return (codes[0] if kept_rows is None else codes[0][keep]), codes[1]

    epoch = None
    if "epoch" in fields:
        values = table["epoch"].combine_chunks()
        if not pa.types.is_null(values.type):
            values = values if kept_rows is None else values.filter(kept_rows)
            if values.null_count not in (0, n_kept):
                raise NotVerbatim("an epoch missing")
            if values.null_count == 0:
                encoded = pc.dictionary_encode(values)
                epoch = (
                    encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64),
                    len(encoded.dictionary),
                )
    items = table["item_id"].combine_chunks()
    if epoch is None and not pa.types.is_dictionary(items.type):
        # Every scored item once: no key repeats, whatever the model and task.
        if len(pc.unique(items if kept_rows is None else items.filter(kept_rows))) == n_kept:
            return n_read, missing
    task_codes = (np.zeros(n_kept, dtype=np.int64), 1)
    if "task" in fields:
        task_codes = kept(_text(table["task"]).filled(default_task).codes())
    model_codes = kept(_text(table["model"]).codes())
    key = columnar.row_key(model_codes, task_codes, kept(_text(items).codes()))
    if epoch is not None:
        key = columnar.row_key(columnar.dense(key), epoch)
    if not columnar.all_distinct(columnar.dense(key)[0]):
        raise NotVerbatim("a repeated key")
    return n_read, missing


def repeated_text(metadata: pq.FileMetaData) -> list[str]:
    """The long file's text columns to read as dictionaries: those stored in under
    4 bytes a value in every row group.

    Plain Parquet text takes 4 bytes of length and the text itself a value, so
    only a dictionary-encoded column of few distinct values is that small (a
    model's name, a task, a handful of reply templates). Read as its dictionary,
    each distinct value is checked once; a column of mostly distinct values
    (item ids, real replies) is read plain, since a dictionary would hash every
    value (1.8 against 2.5 ms a 30,000-row run with four reply texts, 7.9
    against 5.8 ms with distinct 200-byte ones).
    """
    schema = metadata.schema
    names = [schema.column(i).name for i in range(len(schema))]
    chosen = []
    for name in ("model", "task", "category", "response", "answer"):
        if name not in names or schema.column(names.index(name)).physical_type != "BYTE_ARRAY":
            continue
        chunks = [
            metadata.row_group(g).column(names.index(name)) for g in range(metadata.num_row_groups)
        ]
        if all(c.total_uncompressed_size < 4 * c.num_values for c in chunks):
            chosen.append(name)
    return chosen


def read_long_parquet(path, *, name: str, default_task: str, fmt: str, accounting) -> Copy | None:
    """The :class:`Copy` of a long Parquet file that qualifies, else ``None``.

    Counts the run into ``accounting`` (rows read and used, missing scores
    with their first row numbers) only when it returns a copy; ``None`` leaves
    the file, untouched, to the reader, which raises any error it has.
    """
    try:
        if Path(path).stat().st_size > MAX_BYTES:
            return None
        data = Path(path).read_bytes()
        metadata = pq.read_metadata(pa.BufferReader(data))
        handle = pq.ParquetFile(
            pa.BufferReader(data), metadata=metadata, read_dictionary=repeated_text(metadata)
        )
        schema = handle.schema_arrow
        check_schema(schema)
        present = [c for c in LONG_COLUMNS if c in schema.names]
        table = handle.read(columns=present, use_threads=False)
        table = table.unify_dictionaries().combine_chunks()
        n_read, missing = check_rows(table, default_task=default_task)
    except (NotVerbatim, pa.ArrowException, OSError):
        return None
    accounting.rows_read += n_read
    accounting.rows_used += n_read - int(missing.sum())
    if missing.any():
        accounting.exclude_rows("missing score", np.flatnonzero(missing) + 1)
    info = {
        "format": fmt,
        "metric": "correct",
        "source_file": name,
        "default_task": default_task,
        "columns": [[f.name, str(f.type)] for f in schema],
    }
    return Copy(data, hashlib.sha256(data).hexdigest(), info)


def _column(info: dict, name: str) -> bool:
    return any(column == name for column, _ in info["columns"])


def select_sql(files: list[str], infos: list[dict], extra: str = "") -> tuple[str, dict]:
    """One SELECT of copied files of one schema: the labelled rows, in file order.

    ``files`` are the copies in run order, ``infos`` their :class:`Copy` info
    (all with the same ``columns``) with ``run`` added; ``extra`` is appended to
    the select list as in :func:`rederive.io.warehouse.labelled_sql`. Columns
    and types are those DuckDB reads from a rewritten labelled file.
    """
    first = infos[0]
    if any(info["columns"] != first["columns"] for info in infos):
        raise ValueError("select_sql takes copies of one schema")

    def per_file(key: str) -> str:
        return f"list_extract(${key}, CAST(file_index AS BIGINT) + 1)"

    def text(column: str) -> str:
        return f'CAST("{column}" AS VARCHAR)' if _column(first, column) else "CAST(NULL AS VARCHAR)"

    task = per_file("default_tasks")
    if _column(first, "task"):
        task = f"coalesce({text('task')}, {task})"
    epoch = (
        'coalesce(CAST("epoch" AS BIGINT), 1)' if _column(first, "epoch") else "CAST(1 AS BIGINT)"
    )
    score = 'CAST("correct" AS DOUBLE)'
    columns = {
        "run": per_file("runs"),
        "format": per_file("formats"),
        "model": text("model"),
        "task": task,
        "item_id": text("item_id"),
        "category": text("category"),
        "correct": score,
        "epoch": epoch,
        "source_file": per_file("source_files"),
        "line": "CAST(file_row_number AS BIGINT) + 1",
        "doc_hash": "CAST(NULL AS VARCHAR)",
        "response": text("response"),
        "answer": text("answer"),
        "metric": per_file("metrics"),
    }
    select = ", ".join(f'{sql} AS "{name}"' for name, sql in columns.items())
    # The labelled columns first, so that `extra` sees them by these names.
    sql = (
        f"SELECT *{extra} FROM (SELECT {select} "
        f"FROM read_parquet($files, file_row_number = true) "
        f"WHERE {score} IS NOT NULL AND NOT isnan({score}))"
    )
    params = {
        "files": list(files),
        "runs": [info["run"] for info in infos],
        "formats": [info["format"] for info in infos],
        "default_tasks": [info["default_task"] for info in infos],
        "source_files": [info["source_file"] for info in infos],
        "metrics": [info["metric"] for info in infos],
    }
    return sql, params
