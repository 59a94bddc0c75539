"""Rule ``ingest_benchmark_batch``: read each run of one batch
(``rederive.io.batches``) in its native format, validate it, and write the long
labelled table, its accounting and the harness's reported scores.

Every reader returns the same long frame (model, task, item_id, category, correct
in [0, 1], epoch, source_file, line, doc_hash, response); this step only chooses
the reader and records provenance.
"""

import functools
import hashlib
from pathlib import Path

import pyarrow as pa

from rederive.errors import relpath
from rederive.io import batches, columnar, formats
from rederive.io.accounting import Accounting, ingest_sources
from rederive.io.hashing import sha256_file
from rederive.lazy import pandas as pd
from rederive.runner import run


def content_hash(files: list[Path]) -> str:
    """SHA-256 of a run: of the file, or of the names and hashes of a folder's files."""
    if len(files) == 1:
        return sha256_file(files[0])
    digest = hashlib.sha256()
    for path in sorted(files):
        digest.update(f"{path.name}\t{sha256_file(path)}\n".encode())
    return digest.hexdigest()


def read_run(fmt: str, path: Path, *, params: dict, accounting: Accounting):
    """The reader of ``fmt`` (:mod:`rederive.io.formats`) with the study's reader settings.

    A format with ``read_table`` (the long format) may return an Arrow table
    (:data:`rederive.io.columnar.TABLE_SCHEMA`; text columns may be dictionary
    arrays) instead of the frame.
    """
    module = formats.get(fmt)
    reader = getattr(module, "read_table", module.read)
    return reader(path, params=params, accounting=accounting)


def label(frame: "pd.DataFrame", run_id: str, fmt: str) -> "pd.DataFrame":
    """The labelled frame of a reader frame: ``run`` and ``format`` first, ``metric`` last."""
    if "metric" not in frame.columns:
        # Formats without a per-sample metric name: the score is the file's 0/1 or
        # partial credit, called "correct" in the tables.
        frame["metric"] = pd.array(["correct"] * len(frame), dtype="string")
    frame.insert(0, "run", run_id)
    frame.insert(1, "format", fmt)
    return frame


@functools.cache
def labelled_schema() -> pa.Schema:
    """The Arrow schema, pandas metadata included, that ``to_parquet`` gives a
    labelled frame of the reader table's columns (:func:`label` of one row)."""
    from rederive.io.tabular import frame_from_records, graded_row

    template = label(frame_from_records([graded_row("m", "t", "i", 1.0, "f", line=1)]), "r", "f")
    return pa.Schema.from_pandas(template, preserve_index=False)


def label_table(table: pa.Table, run_id: str, fmt: str) -> pa.Table:
    """:func:`label` of a reader table, in Arrow: the same columns, values and pandas
    metadata (text columns may stay dictionary arrays: the file read back is
    the frame ``to_parquet`` writes)."""
    n = table.num_rows
    columns = [columnar.constant(run_id, n), columnar.constant(fmt, n), *table.columns]
    columns.append(columnar.constant("correct", n))
    template = labelled_schema()
    fields = [field.with_type(column.type) for field, column in zip(template, columns, strict=True)]
    return pa.Table.from_arrays(columns, schema=pa.schema(fields, metadata=template.metadata))


REPORTED_COLUMNS = formats.REPORTED_COLUMNS


def reported(fmt: str, path: Path, *, params: dict) -> "pd.DataFrame":
    """The harness's own aggregate score(s) for the run, to check ours against."""
    scores = formats.get(fmt).reported(path, params=params)
    return scores.reindex(columns=REPORTED_COLUMNS)


def ingest(
    run_id: str,
    fmt: str,
    path: Path,
    files: list[Path],
    params: dict,
    *,
    arrow: bool = False,
    copy: bool = False,
):
    """One run's labelled frame and accounting.

    With ``arrow`` a run the columnar path read comes back as an Arrow table
    (:func:`label_table`: the same Parquet file, without a pandas frame between).
    With ``copy`` a run whose raw file is already its labelled rows (a clean
    Parquet long file, :mod:`rederive.io.verbatim`) comes back as that file's
    bytes, its accounting saying what the warehouse adds while reading it.
    """
    accounting = Accounting(
        study="benchmark", run=run_id, file=relpath(path), sha256="", format=fmt
    )
    module = formats.get(fmt)
    if copy and hasattr(module, "read_verbatim") and files == [Path(path)]:
        verbatim = module.read_verbatim(path, params=params, accounting=accounting)
        if verbatim is not None:
            # The accounting's hash is of exactly the bytes copied.
            accounting.sha256 = verbatim.sha256
            accounting.verbatim = verbatim.info
            accounting.check_balance()
            return verbatim.data, accounting
    accounting.sha256 = content_hash(files)
    frame = read_run(fmt, path, params=params, accounting=accounting)
    if isinstance(frame, pa.Table):
        # A run with no row left keeps the pandas path: its empty text
        # columns' Parquet types are pandas' own.
        if arrow and frame.num_rows:
            frame = label_table(frame, run_id, fmt)
        else:
            frame = label(columnar.to_frame(frame), run_id, fmt)
    else:
        frame = label(frame, run_id, fmt)
    accounting.check_balance()
    return frame, accounting


def ingest_with_reported(source: dict, readers: dict, batch: str):
    """Ingest one run (``source``: run, format, path, files); write the harness's
    reported scores into the batch folder (a format without any writes no file)
    and return (labelled frame, Arrow table or the bytes of a verbatim copy,
    accounting)."""
    run_id, fmt, path = source["run"], source["format"], Path(source["path"])
    files = [Path(p) for p in source["files"]]
    frame, accounting = ingest(run_id, fmt, path, files, readers, arrow=True, copy=True)
    if not getattr(formats.get(fmt), "REPORTS", True):
        # Nothing to report: the batch's manifest lists the run as without one.
        return frame, accounting
    target = batches.run_file(batch, "reported", run_id)
    scores = reported(fmt, path, params=readers)
    scores.insert(0, "run", run_id)
    if scores.empty:
        # What to_csv writes of a frame without rows, at a fraction of its cost.
        target.write_text(",".join(["run", *REPORTED_COLUMNS]) + "\n")
    else:
        scores.to_csv(target, index=False, float_format="%.12g", lineterminator="\n")
    return frame, accounting


def main(snakemake):
    ingest_sources(snakemake, ingest_with_reported)


if __name__ == "__main__" and "snakemake" in globals():
    run(main, snakemake)  # noqa: F821
