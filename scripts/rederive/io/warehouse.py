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
import numpy as np
import pandas as pd

from rederive.errors import InputError
from rederive.io.batches import in_run_order


def build(
    db_path: str | Path,
    tables: dict[str, pd.DataFrame],
    sql_tables: dict[str, list[tuple[str, dict]]] | None = None,
) -> None:
    """Write ``tables`` (name → DataFrame) into a fresh DuckDB file atomically.

    ``sql_tables`` (name → SELECTs with their parameters, stacked by
    :func:`create_stacked`) are created by DuckDB itself, first, e.g. straight
    from the per-run Parquet files, so their rows never become Python objects.
    """
    with building(db_path) as con:
        for name, statements in (sql_tables or {}).items():
            create_stacked(con, name, statements)
        write_frames(con, tables)


def write_frames(con, tables: dict[str, pd.DataFrame]) -> None:
    """Create one table per DataFrame (name → frame) on ``con``."""
    for name, frame in tables.items():
        con.register("_frame", frame)
        con.execute(f'CREATE TABLE "{name}" AS SELECT * FROM _frame')
        con.unregister("_frame")


#: DuckDB memory limit of a warehouse build (its process stays near it).
BUILD_MEMORY_LIMIT = "4GB"


@contextmanager
def building(db_path: str | Path):
    """A connection to a fresh warehouse file, renamed into place when the block succeeds.

    The block writes its tables on the connection (SQL or frames); on any error
    the partial file is removed and the error propagates.
    """
    db_path = Path(db_path)
    tmp = db_path.with_name(db_path.name + ".tmp")
    for stale in (tmp, Path(str(tmp) + ".wal")):
        stale.unlink(missing_ok=True)
    con = duckdb.connect(str(tmp))
    try:
        # DuckDB's default (80 % of RAM) let one 150 M-row build take 16 GB; under
        # a limit its joins, aggregates and sorts spill to <file>.tmp/ instead.
        con.execute(f"SET memory_limit = '{BUILD_MEMORY_LIMIT}'")
        yield con
        con.execute("CHECKPOINT")
    except BaseException:
        con.close()
        # A failed build (a full disk above all) must not leave its partial
        # file taking the space the next attempt needs.
        for partial in (tmp, Path(str(tmp) + ".wal")):
            partial.unlink(missing_ok=True)
        raise
    con.close()
    os.replace(tmp, db_path)


@contextmanager
def read_only(db_path: str | Path):
    """Read-only connection to a study warehouse, under the build's memory limit.

    Without a limit DuckDB may take 80 % of RAM for one aggregate over a
    150 M-row ``responses`` table (the published check took 12 GB), while the
    workflow runs other jobs beside it; under the limit it spills instead.
    """
    con = duckdb.connect(str(db_path), read_only=True, config={"memory_limit": BUILD_MEMORY_LIMIT})
    try:
        yield con
    finally:
        con.close()


def query(
    db_path: str | Path, sql: str, params=None, *, share_strings: bool = False
) -> pd.DataFrame:
    """Run one SQL query read-only and return a DataFrame.

    With ``share_strings`` the result is fetched in chunks of about 200 k rows
    and equal strings of a text column become one object across all chunks
    (:func:`share_repeated_strings`): the same frame (values, dtypes, order) in a
    fraction of the memory when labels, models and item ids repeat over millions
    of rows, and the full one-object-per-row frame never exists at once.
    """
    with read_only(db_path) as con:
        result = con.execute(sql, params or [])
        if not share_strings:
            return result.df()
        shared: dict[str, dict] = {}
        chunks = []
        while True:
            chunk = result.fetch_df_chunk(_CHUNK_VECTORS)
            if chunk.empty:
                break
            chunks.append(share_repeated_strings(chunk, seen=shared))
        if not chunks:
            # No rows: the plain query gives the empty frame with the right dtypes.
            return con.execute(sql, params or []).df()
        return pd.concat(chunks, ignore_index=True) if len(chunks) > 1 else chunks[0]


# DuckDB vectors (2,048 rows each) per fetched chunk.
_CHUNK_VECTORS = 100


def share_repeated_strings(
    frame: pd.DataFrame, *, seen: dict[str, dict] | None = None
) -> pd.DataFrame:
    """Make equal strings in each text column one object, in place.

    Parquet's string columns come back as one Python object per row (~50 bytes
    each): at 4 M rows × 10 text columns that is ~2.7 GB for values that repeat
    (model, task, item_id, response templates). Values and dtypes are unchanged;
    a column with no repeats, or an object column with missing values (whose
    kind of missing would not survive), is left as it is.

    Parameters
    ----------
    frame : DataFrame
        One labelled run, as read, or one chunk of a query result.
    seen : dict, optional
        Column name -> {value: the object used for it}, carried over the chunks
        of one result so that equal strings are one object across chunks too;
        updated in place. Only object columns take part.

    Returns
    -------
    DataFrame
        ``frame`` itself.
    """
    for name in frame.columns:
        column = frame[name]
        if isinstance(column.dtype, pd.StringDtype):
            codes, uniques = pd.factorize(column.array)
            if len(uniques) < len(column):
                shared = uniques.take(codes, allow_fill=True)
                frame[name] = pd.Series(shared, index=frame.index, dtype=column.dtype)
        elif column.dtype == object:
            codes, uniques = pd.factorize(column.to_numpy())
            if (codes < 0).any() or (seen is None and len(uniques) == len(column)):
                continue
            if seen is not None:
                known = seen.setdefault(name, {})
                shared = np.empty(len(uniques), dtype=object)
                shared[:] = [known.setdefault(value, value) for value in uniques]
                uniques = shared
            frame[name] = pd.Series(uniques.take(codes), index=frame.index, dtype=object)
    return frame


def labelled_sql(paths, extra: str = "") -> tuple[str, dict]:
    """A SELECT of the per-run labelled Parquet files stacked in run order.

    The same rows, columns and order as :func:`read_labelled` (columns unioned by
    name, in order of first appearance), for DuckDB to copy without pandas;
    ``extra`` is appended to the select list (``", task || ':' || item_id AS k"``).
    """
    files = in_run_order(paths)
    return (
        f"SELECT *{extra} FROM read_parquet($files, union_by_name = true)",
        {"files": files},
    )


def stacked_statements(paths, copies: dict[str, dict], extra: str = "") -> list[tuple[str, dict]]:
    """SELECTs that stack the per-run labelled files in run order, as :func:`labelled_sql`
    does, when some of them are verbatim copies of the raw file.

    ``copies`` maps a run to its copy's info (:class:`rederive.io.verbatim.Copy`,
    kept in the run's accounting). Consecutive labelled tables are one
    :func:`labelled_sql`, consecutive copies of one schema one
    :func:`rederive.io.verbatim.select_sql`; :func:`create_stacked` runs them in
    order. Without copies it is :func:`labelled_sql` alone.
    """
    from rederive.io import verbatim

    segments: list[tuple[str | None, list[str], list[dict]]] = []
    for path in in_run_order(paths):
        run = Path(path).name.removesuffix(".parquet")
        info = copies.get(run)
        schema = None if info is None else repr(info["columns"])
        if not segments or segments[-1][0] != schema:
            segments.append((schema, [], []))
        segments[-1][1].append(path)
        segments[-1][2].append({**info, "run": run} if info is not None else {})
    return [
        labelled_sql(files, extra) if schema is None else verbatim.select_sql(files, infos, extra)
        for schema, files, infos in segments
    ] or [labelled_sql([], extra)]


def create_stacked(con, table: str, statements: list[tuple[str, dict]]) -> None:
    """``CREATE TABLE table`` from :func:`stacked_statements`' SELECTs, rows in their order.

    Columns are the union by name, in order of first appearance (as
    ``read_parquet(union_by_name = true)`` gives them over all the files);
    one statement is one ``CREATE TABLE AS``.
    """
    if len(statements) == 1:
        sql, params = statements[0]
        con.execute(f'CREATE TABLE "{table}" AS {sql}', params)
        return
    columns: dict[str, str] = {}
    for sql, params in statements:
        for name, kind, *_ in con.execute(f"DESCRIBE {sql}", params).fetchall():
            columns.setdefault(name, kind)
    quoted = ", ".join(f"{_identifier(name)} {kind}" for name, kind in columns.items())
    con.execute(f'CREATE TABLE "{table}" ({quoted})')
    for sql, params in statements:
        con.execute(f'INSERT INTO "{table}" BY NAME {sql}', params)


def _identifier(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def read_labelled(
    paths, *, share_strings: bool = False, columns: list[str] | None = None
) -> pd.DataFrame:
    """The per-run ``labelled/<run>.parquet`` files stacked in run order.

    Run order is file-name order (:func:`rederive.io.batches.in_run_order`),
    whichever ingest batch folder a file is in.

    An empty frame (no columns) when ``paths`` is empty; callers that need at
    least one run say so themselves. ``share_strings`` applies
    :func:`share_repeated_strings` to each file before stacking (same values,
    a fraction of the memory at millions of rows). ``columns`` reads only those
    of the listed columns a file has.
    """
    import pyarrow.parquet as pq

    frames = []
    for path in in_run_order(paths):
        if columns is None:
            frame = pd.read_parquet(path)
        else:
            present = set(pq.read_schema(path).names)
            frame = pd.read_parquet(path, columns=[c for c in columns if c in present])
        frames.append(share_repeated_strings(frame) if share_strings else frame)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def check_one_run_per_model(
    frame: pd.DataFrame, *, advice: str, file: str | None = None, field: str | None = None
) -> None:
    """Refuse a ``model`` whose rows come from more than one ``run``.

    A paired design allows one response per model and cell, so a second run file
    of the same model is ambiguous rather than a repeat.

    Parameters
    ----------
    frame : DataFrame
        Stacked labelled rows with ``model`` and ``run`` columns.
    advice : str
        How to fix it, appended to the message.
    file : str, optional
        File named in the error; default ``runs/<second run>.jsonl``.
    field : str, optional
        Field named in the error.

    Raises
    ------
    InputError
        For the first such model (models in sorted order).
    """
    owners = frame.groupby("model")["run"].unique()
    for model, runs in owners.items():
        if len(runs) > 1:
            runs = sorted(runs)
            raise InputError(
                f"model {model!r} appears in several run files ({', '.join(runs)}); {advice}",
                file=file if file is not None else f"runs/{runs[1]}.jsonl",
                field=field,
            )
