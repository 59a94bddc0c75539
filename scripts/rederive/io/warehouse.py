"""DuckDB warehouse helpers.

One rule per study owns ``results/<study>/<study>.duckdb`` and builds it in a
temporary file that is renamed into place, so a reader never sees a half-written
database and a failed build leaves no stale file for Snakemake to trust. Every
later step opens it read-only (DuckDB allows any number of read-only readers).
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path

import duckdb
import pandas as pd


def build(db_path: str | Path, tables: dict[str, pd.DataFrame]) -> None:
    """Write ``tables`` (name → DataFrame) into a fresh DuckDB file atomically."""
    db_path = Path(db_path)
    tmp = db_path.with_name(db_path.name + ".tmp")
    for stale in (tmp, Path(str(tmp) + ".wal")):
        stale.unlink(missing_ok=True)
    con = duckdb.connect(str(tmp))
    try:
        for name, frame in tables.items():
            con.register("_frame", frame)
            con.execute(f'CREATE TABLE "{name}" AS SELECT * FROM _frame')
            con.unregister("_frame")
        con.execute("CHECKPOINT")
    finally:
        con.close()
    os.replace(tmp, db_path)


@contextmanager
def read_only(db_path: str | Path):
    """Read-only connection to a study warehouse."""
    con = duckdb.connect(str(db_path), read_only=True)
    try:
        yield con
    finally:
        con.close()


def query(db_path: str | Path, sql: str, params=None) -> pd.DataFrame:
    """Run one SQL query read-only and return a DataFrame."""
    with read_only(db_path) as con:
        return con.execute(sql, params or []).df()
