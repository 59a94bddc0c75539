"""The one place input files are opened, decoded and iterated.

Every reader of a user's file (JSONL, CSV, JSON, the content hash) goes through
this module, so each format inherits the same checks and the same messages:

* the path must be a regular file: a directory named ``x.jsonl`` or a FIFO is
  refused before anything reads it (hashing included);
* compressed or binary content under a text name (gzip, zip, bzip2, xz, zstd,
  UTF-16, NUL bytes) is named as such instead of failing later as bad UTF-8;
* text is decoded as UTF-8 one line at a time, so an invalid byte is reported on
  its own line (not line 1, not without a line); a UTF-8 byte-order mark at the
  start of the file is dropped (Excel writes one);
* CSV parse errors, including a field longer than the csv module's limit, carry
  the line where the record starts.

Every problem is a :class:`~rederive.errors.InputError` naming the file and, where
the format has lines, the line.
"""

from __future__ import annotations

import csv
import io
import json
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from rederive.errors import InputError, relpath
from rederive.io.names import merge_options
from rederive.lazy import pandas as pd

BOM = "\ufeff"
SNIFF_BYTES = 4096

# Leading bytes of formats that are sometimes renamed to .jsonl/.csv by mistake.
_MAGIC = (
    (b"\x1f\x8b", "gzip-compressed", "decompress it first (gunzip)"),
    (b"PK\x03\x04", "a zip archive", "extract it first"),
    (b"BZh", "bzip2-compressed", "decompress it first (bunzip2)"),
    (b"\xfd7zXZ\x00", "xz-compressed", "decompress it first (unxz)"),
    (b"\x28\xb5\x2f\xfd", "zstd-compressed", "decompress it first (unzstd)"),
    (b"\xff\xfe", "UTF-16 text", "save it as UTF-8"),
    (b"\xfe\xff", "UTF-16 text", "save it as UTF-8"),
)


def check_file(path: str | Path) -> str:
    """Refuse anything but an existing regular file; return its display name.

    Raises
    ------
    InputError
        Missing path, directory, or special file (FIFO, socket, device), which
        would otherwise hang or fail with an OS traceback when opened.
    """
    name = relpath(path)
    try:
        mode = Path(path).stat().st_mode
    except FileNotFoundError:
        raise InputError("file not found", file=name) from None
    except OSError as exc:
        raise InputError(f"cannot read file ({exc.strerror})", file=name) from None
    if stat.S_ISDIR(mode):
        raise InputError(
            "is a directory, not a file: move it out of the input folder or rename it", file=name
        )
    if not stat.S_ISREG(mode):
        raise InputError("is not a regular file (a pipe, socket or device?)", file=name)
    return name


@contextmanager
def open_binary(path: str | Path):
    """Open a checked regular file for reading bytes (``with open_binary(p) as fh``)."""
    name = check_file(path)
    try:
        handle = open(path, "rb")
    except OSError as exc:
        raise InputError(f"cannot read file ({exc.strerror})", file=name) from None
    with handle:
        yield handle


def refuse_binary(head: bytes, *, file: str) -> None:
    """Refuse compressed/binary content by its first bytes (``head``)."""
    for magic, what, advice in _MAGIC:
        if head.startswith(magic):
            raise InputError(f"the file is {what}, not plain UTF-8 text: {advice}", file=file)


def _decode(raw: bytes, *, file: str, line: int) -> str:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        byte = raw[exc.start : exc.start + 1].hex()
        raise InputError(
            f"not valid UTF-8 (byte 0x{byte} at byte {exc.start + 1} of the line): "
            "save the file as UTF-8",
            file=file,
            line=line,
        ) from None
    if "\x00" in text:
        raise InputError("NUL byte: binary data, not text", file=file, line=line)
    return text


def iter_text_lines(path: str | Path) -> Iterator[str]:
    """Decoded lines of a text file, line endings kept (``csv`` needs them).

    The generator raises :class:`InputError` with the 1-based line number of an
    undecodable line; a leading byte-order mark is removed.
    """
    with open_binary(path) as handle:
        name = relpath(path)
        refuse_binary(handle.peek(SNIFF_BYTES)[:SNIFF_BYTES], file=name)
        for number, raw in enumerate(handle, start=1):
            text = _decode(raw, file=name, line=number)
            if number == 1 and text.startswith(BOM):
                text = text[len(BOM) :]
            yield text


def read_text(path: str | Path) -> str:
    """Whole decoded text of a file (for formats parsed in one piece, e.g. JSON)."""
    return "".join(iter_text_lines(path))


def read_json(path: str | Path):
    """Parsed JSON document of a whole file, errors naming the line."""
    text = read_text(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"malformed JSON ({exc.msg} at column {exc.colno})", file=relpath(path), line=exc.lineno
        ) from None
    except RecursionError:
        raise InputError(
            "JSON nested too deeply", file=relpath(path), line=_deep_line(text)
        ) from None


def _deep_line(text: str, limit: int = 500) -> int | None:
    """1-based line where brackets outside strings first nest ``limit`` deep."""
    depth, line, in_string, escaped = 0, 1, False, False
    for char in text:
        if char == "\n":
            line += 1
        elif in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth >= limit:
                return line
        elif char in "]}":
            depth -= 1
    return None


class CsvRows:
    """Iterate a CSV file as ``(line, cells)``, ``line`` being where the record starts.

    Use as ``for line, cells in CsvRows(path)``; the first row is the header.
    Decoding errors name the physical line; csv errors (unbalanced quote, a
    field longer than ``csv.field_size_limit()``) name the record's first line.
    """

    def __init__(self, path: str | Path):
        self.path = path
        self.name = relpath(path)

    def __iter__(self) -> Iterator[tuple[int, list[str]]]:
        reader = csv.reader(iter_text_lines(self.path))
        while True:
            start = reader.line_num + 1
            try:
                cells = next(reader)
            except StopIteration:
                return
            except csv.Error as exc:
                raise InputError(self._explain(exc), file=self.name, line=start) from None
            yield start, cells

    @staticmethod
    def _explain(exc: csv.Error) -> str:
        text = str(exc)
        if "field larger than field limit" in text:
            return (
                f"a CSV field is longer than {csv.field_size_limit():,} characters "
                '(an opening quote " without its closing quote swallows the rest of '
                "the file; otherwise shorten the field)"
            )
        if "new-line character seen in unquoted field" in text:
            return (
                "lines end in a bare carriage return (old Mac format) or a field holds "
                "one unquoted: save the file with LF or CRLF line endings"
            )
        return f"malformed CSV ({text})"


def width_message(cells: list[str], header: list[str]) -> str:
    """Message for a CSV record whose cell count differs from the header's."""
    message = f"row has {len(cells)} cells, the header has {len(header)}"
    if len(cells) < len(header) and any("\n" in cell for cell in cells):
        message += ' (a quote " without its closing quote runs over the following lines)'
    return message


def read_csv_frame(path: str | Path, **kwargs) -> pd.DataFrame:
    """``pandas.read_csv`` of a checked, decoded file (BOM dropped).

    For small side tables (models.csv, items.csv, baselines.csv, published
    tables). The file is first walked with :class:`CsvRows`, so a ragged row or
    an unbalanced quote is reported on its line; pandas then parses the same
    text with ``kwargs``. Name columns (:data:`rederive.io.names.ID_COLUMNS`)
    stay text unless ``kwargs`` choose their own NA handling or one dtype for
    every column (:func:`rederive.io.names.merge_options`).
    """

    name = relpath(path)
    rows = iter(CsvRows(path))
    try:
        _, header = next(rows)
    except StopIteration:
        raise InputError("empty file: expected a header row", file=name, line=1) from None
    for number, cells in rows:
        if cells and len(cells) != len(header):
            raise InputError(width_message(cells, header), file=name, line=number)
    try:
        return pd.read_csv(io.StringIO(read_text(path)), **merge_options(header, kwargs))
    except (pd.errors.ParserError, csv.Error, ValueError) as exc:
        message = " ".join(str(exc).split())
        raise InputError(f"malformed CSV ({message})", file=name) from None
