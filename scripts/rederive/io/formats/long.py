"""Long CSV or JSONL of graded answers (:func:`rederive.io.tabular.read_long`)."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from rederive.errors import relpath
from rederive.io import verbatim
from rederive.io.formats import _sniff
from rederive.io.run_files import flat_runs
from rederive.io.tabular import read_long, read_long_table
from rederive.lazy import pandas as pd

NAME = "long"
#: Where it comes in the registry (searched, listed): rederive.io.plugins.
ORDER = 20

#: Its folder under raw_dir and what it holds (the schema's ``inputs.long``).
LAYOUT = (
    "long/<name>.csv|.jsonl: model, item_id, correct [, task, category, epoch, response, answer]."
)
DESCRIPTION = (
    "long CSV/JSONL/Parquet: model, item_id, correct (+ task, category, epoch, response, answer)"
)
#: What the reader keeps as each sample's extracted answer (rederive.io.formats).
ANSWERS = "the optional answer column (the answer the grader extracted)"
REPORTS = False  # no harness aggregate: see rederive.io.formats
REQUIRED = {"model", "item_id", "correct"}


def find_runs(folder: Path) -> list[tuple[str, Path]]:
    """Every ``*.csv``, ``*.jsonl`` and ``*.parquet`` of the folder (any case), named
    by file name (``x.csv`` and ``x.jsonl`` are two runs).

    The folder is flat: any other entry is refused, naming it and what to do.
    """
    return flat_runs(folder, (".csv", ".jsonl", ".parquet"), "long/", by_stem=False)


def detect(path: Path) -> bool:
    """A ``.csv`` whose header, a ``.jsonl`` whose first record, or a ``.parquet`` whose
    schema has model, item_id, correct."""
    suffix = path.suffix.lower()
    if suffix == ".csv":
        rows = _sniff.csv_head(path)
        return bool(rows) and REQUIRED <= {c.strip() for c in rows[0]}
    if suffix == ".jsonl":
        record = _sniff.first_json_line(path)
        return record is not None and REQUIRED <= set(record)
    if suffix == ".parquet":
        try:
            names = pq.read_schema(path).names
        except (pa.ArrowException, OSError):
            return False
        return REQUIRED <= set(names)
    return False


def files(path: Path) -> list[Path]:
    return [Path(path)]


def read(path: Path, *, params: dict, accounting) -> pd.DataFrame:
    return read_long(path, accounting=accounting)


def read_table(path: Path, *, params: dict, accounting) -> pa.Table | pd.DataFrame:
    """:func:`read`, kept in Arrow when the columnar path reads the file."""
    return read_long_table(path, accounting=accounting)


def read_verbatim(path: Path, *, params: dict, accounting) -> verbatim.Copy | None:
    """A clean Parquet file as its own labelled file (:mod:`rederive.io.verbatim`),
    or ``None`` for :func:`read_table` to read."""
    if Path(path).suffix.lower() != ".parquet":
        return None
    return verbatim.read_long_parquet(
        path, name=relpath(path), default_task=Path(path).stem, fmt=NAME, accounting=accounting
    )


def reported(path: Path, *, params: dict) -> pd.DataFrame:
    """A long file has no harness aggregate."""
    return pd.DataFrame(columns=["model", "task", "metric", "filter", "value", "file"])
