"""Rule ``ingest_benchmark_batch``: read each run of one batch
(``rederive.io.batches``) in its native format, validate it, and write the long
labelled table, its accounting and the harness's reported scores.

Every reader returns the same long frame (model, task, item_id, category, correct
in [0, 1], epoch, source_file, line, doc_hash, response); this step only chooses
the reader and records provenance.
"""

import hashlib
from pathlib import Path

import pandas as pd

from rederive.errors import relpath
from rederive.io import batches, formats
from rederive.io.accounting import Accounting, ingest_batch
from rederive.io.hashing import sha256_file
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
    """The reader of ``fmt`` (:mod:`rederive.io.formats`) with the study's reader settings."""
    return formats.get(fmt).read(path, params=params, accounting=accounting)


REPORTED_COLUMNS = formats.REPORTED_COLUMNS


def reported(fmt: str, path: Path, *, params: dict) -> pd.DataFrame:
    """The harness's own aggregate score(s) for the run, to check ours against."""
    scores = formats.get(fmt).reported(path, params=params)
    return scores.reindex(columns=REPORTED_COLUMNS)


def ingest(run_id: str, fmt: str, path: Path, files: list[Path], params: dict):
    accounting = Accounting(
        study="benchmark",
        run=run_id,
        file=relpath(path),
        sha256=content_hash(files),
        format=fmt,
    )
    frame = read_run(fmt, path, params=params, accounting=accounting)
    if "metric" not in frame.columns:
        # Formats without a per-sample metric name: the score is the file's 0/1 or
        # partial credit, called "correct" in the tables.
        frame["metric"] = pd.array(["correct"] * len(frame), dtype="string")
    frame.insert(0, "run", run_id)
    frame.insert(1, "format", fmt)
    accounting.check_balance()
    return frame, accounting


def ingest_with_reported(source: dict, readers: dict, batch: str):
    """Ingest one run (``source``: run, format, path, files); write the harness's
    reported scores into the batch folder and return (labelled frame, accounting)."""
    run_id, fmt, path = source["run"], source["format"], Path(source["path"])
    frame, accounting = ingest(run_id, fmt, path, [Path(p) for p in source["files"]], readers)
    scores = reported(fmt, path, params=readers)
    scores.insert(0, "run", run_id)
    scores.to_csv(
        batches.run_file(batch, "reported", run_id),
        index=False,
        float_format="%.12g",
        lineterminator="\n",
    )
    return frame, accounting


def main(snakemake):
    batch = snakemake.output.ingested
    sources = {source["run"]: dict(source) for source in snakemake.params.sources}
    readers = dict(snakemake.params.readers)
    ingest_batch(
        batch,
        list(sources),
        [source["path"] for source in sources.values()],
        lambda run, _path: ingest_with_reported(sources[run], readers, batch),
        kinds=("labelled", "accounting", "reported"),
        root=snakemake.params.raw_dir,
        analysis=snakemake.wildcards.analysis,
    )


if __name__ == "__main__" and "snakemake" in globals():
    run(main, snakemake)  # noqa: F821
