"""Names are data: reading and writing the project's CSVs without changing a name.

Model, item, task and category names come from users' files and are kept as
text, byte for byte, through every CSV the workflow writes and reads back:

* **No NA-like coercion.** ``NA``, ``None``, ``null``, ``nan``, ``N/A`` and
  ``n/a`` are names (or a check's status), not missing values. Only an empty
  cell is missing in a name column (a reader refuses a blank name, so an empty
  cell there can only mean "no value", e.g. an item without a category).
* **No numeric coercion.** A checkpoint called ``1000`` stays the string
  ``"1000"``; read as the integer 1000 it would no longer match the ``"1000"``
  the warehouse and every lookup by name hold.
* Columns that are not names keep pandas' usual parsing (numbers, and its
  default NA spellings for a missing number), so numeric outputs read exactly
  as before.

Formula-like names
------------------
A name whose first character is ``=``, ``+``, ``-`` or ``@`` (``=HYPERLINK(…)``,
``-1.5-instruct``, ``@org/model``) is written to the CSVs **as it is**: this
project does not neutralise spreadsheet formulas (no leading ``'``, no
quoting trick). The CSVs are data for programs, and a name must round-trip
byte-exact: a prefixed or altered name would no longer match the raw files,
the warehouse, the figures and the published tables it is compared with, and a
legitimate name such as ``-v2`` would be changed for every user to protect one
way of opening the file. The risk (OWASP "CSV injection") exists only when a
CSV is opened in a spreadsheet program that evaluates formulas: open the
``results/`` CSVs in such a program with formula evaluation off, or import them
as text (e.g. LibreOffice: "Format quoted field as text"; Excel: Data → From
Text/CSV), and do not run a workflow on names from an untrusted source whose
outputs you then open in a spreadsheet without that precaution.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from pathlib import Path

from rederive.lazy import pandas as pd

# pandas' own list of NA spellings (its read_csv default); kept for the
# columns that are not names so that their parsing does not change.

#: Columns that hold a name (model, item, task, category, …) in the project's
#: CSVs and in the side tables users supply (models.csv, items.csv, published/).
ID_COLUMNS = frozenset(
    {
        # models
        "model",
        "model_a",
        "model_b",
        "a",
        "b",
        "model_id",
        "model_name",
        "paper_name",
        "first_model",
        "last_model",
        # items, tasks, categories and the labels data define
        "item",
        "item_id",
        "item_key",
        "doc_id",
        "sample_id",
        "seed_id",
        "question_id",
        "problem_id",
        "task",
        "category",
        "group",
        "dimension",
        "dataset",
        "subject",
        "lineage",
        "family",
        "vendor",
        "run",
    }
)

#: Missing-value spellings of a name column: only the empty cell.
NAME_NA = ("",)


def header_of(text: str) -> list[str]:
    """Column names of CSV ``text`` (its first record; ``[]`` when empty)."""
    return next(csv.reader(io.StringIO(text)), [])


def text_options(columns: Iterable[str], text: Iterable[str] = ()) -> dict:
    """``pandas.read_csv`` keyword arguments that keep name columns as text.

    Parameters
    ----------
    columns : iterable of str
        The file's header.
    text : iterable of str, optional
        Further columns to keep as text (a check's ``status``, …), beside
        :data:`ID_COLUMNS`.

    Returns
    -------
    dict
        ``dtype``, ``keep_default_na`` and per-column ``na_values``: a name
        column is ``str`` with only the empty cell missing; every other column
        gets pandas' default NA spellings, i.e. is parsed as it would be
        without these options.
    """
    columns = list(columns)
    names = ID_COLUMNS | set(text)
    kept = [c for c in columns if c in names]
    return {
        "dtype": dict.fromkeys(kept, str),
        "keep_default_na": False,
        "na_values": {
            c: list(NAME_NA if c in names else pd._libs.parsers.STR_NA_VALUES) for c in columns
        },
    }


def merge_options(columns: Iterable[str], kwargs: dict, text: Iterable[str] = ()) -> dict:
    """``kwargs`` for ``read_csv`` with :func:`text_options` added where the caller set none.

    A caller that chooses its own NA handling (``keep_default_na``,
    ``na_values``) or reads every column as one dtype keeps its choice; a
    ``dtype`` dict is merged, the caller's entries winning.
    """
    if "keep_default_na" in kwargs or "na_values" in kwargs:
        return kwargs
    dtype = kwargs.get("dtype")
    if dtype is not None and not isinstance(dtype, dict):
        return kwargs
    options = text_options(columns, text)
    options["dtype"].update(dtype or {})
    return {**kwargs, **options}


def read_csv(path: str | Path, *, text: Iterable[str] = (), **kwargs) -> pd.DataFrame:
    """``pandas.read_csv`` of a CSV this workflow wrote, names kept as text.

    Parameters
    ----------
    path : str or Path
    text : iterable of str, optional
        Columns beyond :data:`ID_COLUMNS` to keep as text.
    **kwargs
        Passed to ``pandas.read_csv`` (see :func:`merge_options`).
    """
    with open(path, encoding="utf-8", newline="") as handle:
        header = next(csv.reader(handle), [])
    return pd.read_csv(path, **merge_options(header, kwargs, text))


def write_csv(frame: pd.DataFrame, path: str | Path, *, float_format: str | None = None) -> None:
    """Deterministic CSV (no index, ``\\n`` line ends), names written as they are.

    The csv module quotes a name holding a comma, quote or line break, so every
    name reads back byte-exact with :func:`read_csv`; formula-like names are
    not altered (see the module docstring).
    """
    frame.to_csv(path, index=False, lineterminator="\n", float_format=float_format)
