"""Rule ``ingest_preference_batch``: read each run of one ingest batch with its format's
reader (:mod:`rederive.io.preference`), and write its labelled games, its
accounting and the source's own aggregate numbers.

Every reader returns the games frame (:data:`rederive.io.preference.COLUMNS`), one
row per judged game in file order, each row read counted as used or excluded
(:class:`rederive.io.accounting.Accounting`, which must balance); this step adds
the run and its format and records provenance (the files' SHA-256).
"""

import hashlib
from pathlib import Path

from rederive.errors import relpath
from rederive.io import batches, preference
from rederive.io.accounting import Accounting, ingest_sources
from rederive.io.hashing import sha256_file
from rederive.lazy import pandas as pd
from rederive.runner import run


def content_hash(files: list[Path]) -> str:
    """SHA-256 of a run: of its file, or of the names and hashes of its files."""
    if len(files) == 1:
        return sha256_file(files[0])
    digest = hashlib.sha256()
    for path in sorted(files):
        digest.update(f"{path.name}\t{sha256_file(path)}\n".encode())
    return digest.hexdigest()


def label(games: "pd.DataFrame", run_id: str, fmt: str) -> "pd.DataFrame":
    """The labelled frame: ``run`` and ``format``, then the games frame's columns."""
    out = games.copy()
    out.insert(0, "run", pd.array([run_id] * len(out), dtype="string"))
    out.insert(1, "format", pd.array([fmt] * len(out), dtype="string"))
    return out


def ingest(source: dict, readers: dict):
    """One run's labelled games and accounting (``source``: run, format, path, files)."""
    run_id, fmt, path = source["run"], source["format"], Path(source["path"])
    files = [Path(p) for p in source["files"]]
    accounting = Accounting(
        study="preference",
        run=run_id,
        file=relpath(path),
        sha256=content_hash(files),
        format=fmt,
    )
    games = preference.get(fmt).read(path, params=readers, accounting=accounting)
    accounting.check_balance()
    return label(games, run_id, fmt), accounting


def ingest_with_reported(source: dict, readers: dict, batch: str):
    """:func:`ingest`, and the source's own numbers into the batch folder (a format
    that never has any, ``REPORTS = False``, writes no file)."""
    games, accounting = ingest(source, readers)
    module = preference.get(source["format"])
    if getattr(module, "REPORTS", True):
        numbers = module.reported(Path(source["path"]), params=readers)
        numbers.insert(0, "run", source["run"])
        numbers.to_csv(
            batches.run_file(batch, "reported", source["run"]),
            index=False,
            float_format="%.17g",
            lineterminator="\n",
        )
    return games, accounting


def main(snakemake):
    ingest_sources(snakemake, ingest_with_reported)


if __name__ == "__main__" and "snakemake" in globals():
    run(main, snakemake)  # noqa: F821
