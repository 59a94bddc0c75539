"""Two versions of one results table, compared row by row and cell by cell.

Tables are compared as the CSV prints them: every cell is text, so two builds
agree exactly when they printed the same characters (the workflow's tables are
deterministic, and floats are compared at the precision the CSV prints). With a
``tolerance`` (results from another machine), two cells that both read as
numbers agree when they differ by at most that much.

Rows are matched by their *key*: the shortest run of leading identifier columns
(text or integer columns such as ``model``, ``a, b``, ``task, metric, model``,
``n``) that names every row once in both versions. A leading ``order`` or
``rank`` column is a position, not an identity, and is tried last, so a model
that moves up the ranking is one row whose cells changed rather than every row
of the table. A table without such columns is compared row by row by position.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

from rederive.io.csv_text import Table, parse_table

__all__ = [
    "CellChange",
    "TableDiff",
    "cells_agree",
    "compare_tables",
    "key_text",
    "parse_table",
    "row_key",
]

#: Leading columns that say where a row sits, not what it is.
POSITION_COLUMNS = ("order", "rank")
#: Columns that describe a row's content, never name it (a file's hash).
NOT_KEYS = frozenset({"sha256"})
#: Columns of flags: never part of a key.
FLAG_VALUES = frozenset({"True", "False", ""})
MAX_KEY_COLUMNS = 8
#: Tables whose rows have a declared identity (used when unique in both versions):
#: a published check row is its table, kind, item and quantity, whichever of
#: them happen to be constant in one build; a gate row likewise.
DECLARED_KEYS = {
    "published_check.csv": ["table", "kind", "item", "quantity"],
    # A gate row is its baseline, candidate and scope (overall, or one task).
    "gate.csv": ["baseline", "candidate", "scope", "task"],
}


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _identifier_column(values: list[str]) -> bool:
    """Text or integers (no decimals, no exponent), not a column of flags."""
    if all(v in FLAG_VALUES for v in values):
        return False
    for v in values:
        if v and _is_number(v) and not v.lstrip("+-").isdigit():
            return False
    return True


def _unique(table: Table, indices: list[int]) -> bool:
    seen = set()
    for r in table.rows:
        key = tuple(r[i] if i < len(r) else "" for i in indices)
        if key in seen:
            return False
        seen.add(key)
    return True


def row_key(old: Table, new: Table, declared: list[str] | None = None) -> list[str]:
    """The key columns shared by both versions (empty: compare by position).

    ``declared`` is used when both versions have its columns and it is unique
    in each. Otherwise candidates are the identifier columns of both versions
    in the new table's order, constant columns skipped, position columns
    (``order``, ``rank``) last; the key is the shortest prefix of them that is
    unique in each.
    """
    if declared and all(c in old.columns and c in new.columns for c in declared):
        if _unique(old, [old.columns.index(c) for c in declared]) and _unique(
            new, [new.columns.index(c) for c in declared]
        ):
            return list(declared)
    shared = [c for c in new.columns if c in old.columns]
    candidates = []
    for name in shared:
        values = old.column(name) + new.column(name)
        if name in NOT_KEYS or (len(set(values)) <= 1 and len(old.rows) + len(new.rows) > 2):
            continue
        if _identifier_column(values):
            candidates.append(name)
    ordered = [c for c in candidates if c not in POSITION_COLUMNS] + [
        c for c in candidates if c in POSITION_COLUMNS
    ]
    for size in range(1, min(len(ordered), MAX_KEY_COLUMNS) + 1):
        names = ordered[:size]
        if _unique(old, [old.columns.index(c) for c in names]) and _unique(
            new, [new.columns.index(c) for c in names]
        ):
            return names
    return []


def key_text(key: dict[str, str]) -> str:
    """A row key as one CSV cell: a JSON object, column order kept."""
    return json.dumps(key, ensure_ascii=False, separators=(", ", ": "))


@dataclass
class CellChange:
    key: dict[str, str]
    column: str
    old: str
    new: str


@dataclass
class TableDiff:
    """What changed in one table between two versions."""

    name: str
    key: list[str]
    columns_added: list[str] = field(default_factory=list)
    columns_removed: list[str] = field(default_factory=list)
    rows_added: list[dict[str, str]] = field(default_factory=list)
    rows_removed: list[dict[str, str]] = field(default_factory=list)
    cells: list[CellChange] = field(default_factory=list)
    n_rows_old: int = 0
    n_rows_new: int = 0

    @property
    def changed(self) -> bool:
        return bool(
            self.columns_added
            or self.columns_removed
            or self.rows_added
            or self.rows_removed
            or self.cells
        )

    @property
    def rows_changed(self) -> int:
        return len({key_text(c.key) for c in self.cells})


def cells_agree(old: str, new: str, tolerance: float = 0.0) -> bool:
    """Same text, or (with a tolerance) two numbers at most ``tolerance`` apart."""
    if old == new:
        return True
    if tolerance <= 0:
        return False
    try:
        a, b = float(old), float(new)
    except ValueError:
        return False
    if math.isnan(a) and math.isnan(b):
        return True
    return abs(a - b) <= tolerance


def compare_tables(name: str, old: Table, new: Table, *, tolerance: float = 0.0) -> TableDiff:
    """Rows added, removed and changed (by key), and columns added or removed."""
    key = row_key(old, new, DECLARED_KEYS.get(name.rsplit("/", 1)[-1]))
    diff = TableDiff(
        name=name,
        key=key,
        columns_added=[c for c in new.columns if c not in old.columns],
        columns_removed=[c for c in old.columns if c not in new.columns],
        n_rows_old=len(old.rows),
        n_rows_new=len(new.rows),
    )
    shared = [c for c in new.columns if c in old.columns]

    def index(table: Table) -> dict[tuple, dict[str, str]]:
        out = {}
        for position, record in enumerate(table.records(), start=1):
            ident = tuple(record.get(c, "") for c in key) if key else (str(position),)
            out[ident] = record
        return out

    def key_of(ident: tuple) -> dict[str, str]:
        return dict(zip(key, ident, strict=True)) if key else {"row": ident[0]}

    before, after = index(old), index(new)
    for ident, record in after.items():
        if ident not in before:
            diff.rows_added.append(key_of(ident))
            continue
        previous = before[ident]
        for column in shared:
            if column in key:
                continue
            was, now = previous.get(column, ""), record.get(column, "")
            if not cells_agree(was, now, tolerance):
                diff.cells.append(CellChange(key_of(ident), column, was, now))
    diff.rows_removed = [key_of(ident) for ident in before if ident not in after]
    return diff
