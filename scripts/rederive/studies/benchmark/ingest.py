"""Rule ``ingest_benchmark_batch``: read each run of one batch
(``rederive.io.batches``) in its native format, validate it, and write the long
labelled table, its accounting and the harness's reported scores.

Every reader returns the same long frame (model, task, item_id, category, correct
in [0, 1], epoch, source_file, line, doc_hash, response); this step only chooses
the reader and records provenance.
"""

import hashlib
import logging
from pathlib import Path

import pandas as pd

from rederive.errors import relpath
from rederive.io import batches, inspect_log, lm_eval
from rederive.io.accounting import Accounting, write_ingested
from rederive.io.hashing import sha256_file
from rederive.io.inspect_log import read_eval_log
from rederive.io.lm_eval import read_lm_eval_model_dir
from rederive.io.tabular import read_long, read_matrix_csv
from rederive.io.zipread import ZipLimits
from rederive.runner import run

log = logging.getLogger(__name__)


def content_hash(files: list[Path]) -> str:
    """SHA-256 of a run: of the file, or of the names and hashes of a folder's files."""
    if len(files) == 1:
        return sha256_file(files[0])
    digest = hashlib.sha256()
    for path in sorted(files):
        digest.update(f"{path.name}\t{sha256_file(path)}\n".encode())
    return digest.hexdigest()


def read_run(fmt: str, path: Path, *, params: dict, accounting: Accounting):
    """Dispatch to the reader of ``fmt`` with the study's reader settings."""
    if fmt == "matrix":
        return read_matrix_csv(path, accounting=accounting)
    if fmt == "long":
        return read_long(path, accounting=accounting)
    if fmt == "lm_eval":
        return read_lm_eval_model_dir(
            path,
            filter_name=params["lm_eval"].get("filter"),
            metrics=params["lm_eval"]["metrics"],
            accounting=accounting,
        )
    if fmt == "inspect":
        return read_eval_log(
            path,
            scorer=params["inspect"].get("scorer"),
            reducer=params["inspect"].get("reducer"),
            category_field=params["inspect"].get("category_field"),
            limits=ZipLimits.from_params(params.get("zip_limits")),
            accounting=accounting,
        )
    raise ValueError(f"unknown input format {fmt!r}")


REPORTED_COLUMNS = ["model", "task", "metric", "filter", "value", "file"]


def reported(fmt: str, path: Path, *, params: dict) -> pd.DataFrame:
    """The harness's own aggregate score(s) for the run, to check ours against."""
    if fmt == "lm_eval":
        return lm_eval.reported_scores(
            path, filter_name=params["lm_eval"].get("filter"), metrics=params["lm_eval"]["metrics"]
        )
    if fmt == "inspect":
        return inspect_log.reported_scores(
            path,
            scorer=params["inspect"].get("scorer"),
            reducer=params["inspect"].get("reducer"),
            limits=ZipLimits.from_params(params.get("zip_limits")),
        )
    return pd.DataFrame(columns=REPORTED_COLUMNS)


def ingest(run_id: str, fmt: str, path: Path, files: list[Path], params: dict):
    accounting = Accounting(
        study="benchmark", run=run_id, file=relpath(path), sha256=content_hash(files)
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


def ingest_source(source: dict, readers: dict, batch: str) -> None:
    """Ingest one run (``source``: run, format, path, files) into the batch folder."""
    run_id, fmt, path = source["run"], source["format"], Path(source["path"])
    log.info("run %s: %s (%s)", run_id, path, fmt)
    frame, accounting = ingest(run_id, fmt, path, [Path(p) for p in source["files"]], readers)
    write_ingested(
        frame,
        accounting,
        batches.run_file(batch, "labelled", run_id),
        batches.run_file(batch, "accounting", run_id),
    )
    scores = reported(fmt, path, params=readers)
    scores.insert(0, "run", run_id)
    scores.to_csv(
        batches.run_file(batch, "reported", run_id),
        index=False,
        float_format="%.12g",
        lineterminator="\n",
    )


def main(snakemake):
    batch = snakemake.output.ingested
    batches.prepare(
        batch,
        ("labelled", "accounting", "reported"),
        [source["run"] for source in snakemake.params.sources],
    )
    for source in snakemake.params.sources:
        ingest_source(dict(source), dict(snakemake.params.readers), batch)


if __name__ == "__main__" and "snakemake" in globals():
    run(main, snakemake)  # noqa: F821
