"""Wide items × models CSV (:func:`rederive.io.tabular.read_matrix_csv`)."""

from __future__ import annotations

from pathlib import Path

from rederive.errors import InputError
from rederive.io.formats import _sniff
from rederive.io.run_files import flat_runs
from rederive.io.tabular import parse_correct, read_matrix_csv
from rederive.lazy import pandas as pd

NAME = "matrix"
#: Where it comes in the registry (searched, listed): rederive.io.plugins.
ORDER = 10

#: Its folder under raw_dir and what it holds (the schema's ``inputs.matrix``).
LAYOUT = "matrix/<name>.csv: items x models, 0/1, blank = missing."
DESCRIPTION = "items × models CSV: first column the item id, one 0/1 column per model"
REPORTS = False  # no harness aggregate: see rederive.io.formats
LONG_COLUMNS = {"model", "item_id", "correct"}


def find_runs(folder: Path) -> list[tuple[str, Path]]:
    """Every ``*.csv`` of the folder (any case), named by file stem.

    The folder is flat: any other entry (a sub-folder, a compressed file,
    anything else) is refused, naming it and what to do.
    """
    return flat_runs(folder, (".csv",), "matrix/", by_stem=True)


def detect(path: Path) -> bool:
    """A ``.csv`` whose header is not a long file's and whose first row's cells are scores."""
    if path.suffix.lower() != ".csv":
        return False
    rows = _sniff.csv_head(path)
    if not rows or len(rows[0]) < 2 or LONG_COLUMNS <= {c.strip() for c in rows[0]}:
        return False
    for row in rows[1:2]:
        if len(row) != len(rows[0]):
            return False
        for cell in row[1:]:
            try:
                parse_correct(cell, file="", line=None, field="")
            except InputError:
                return False
    return True


def files(path: Path) -> list[Path]:
    return [Path(path)]


def read(path: Path, *, params: dict, accounting) -> pd.DataFrame:
    return read_matrix_csv(path, accounting=accounting)


def reported(path: Path, *, params: dict) -> pd.DataFrame:
    """A matrix has no harness aggregate."""
    return pd.DataFrame(columns=["model", "task", "metric", "filter", "value", "file"])
