"""Ingest batches: which job ingests which run, and where its per-run files land.

One Snakemake job per run file costs ~0.5-1 s of startup whatever the file's
size, and Snakemake's own scheduling grows with the job count; at hundreds of
runs that dominates the ingest. So each study ingests its runs in at most
``ingest_batches`` jobs, ``results/<study>/ingested/<batch>/``, each holding the
per-run files one job per run used to write::

    labelled/<run>.parquet   accounting/<run>.json   reported/<run>.csv (benchmark)
    manifest.json            the runs the job ingested

A run has a labelled and an accounting file; a run without a file of another
kind (a format with no harness aggregate has nothing to report) is listed in
the manifest under ``absent`` instead: at thousands of runs an empty file a
run is thousands of file creations.

A run's batch is a stable hash of its id alone, so adding, removing or changing
one run re-runs only its batch, whatever other runs are present.

Snakemake tracks the folder, not the files in it, so a per-run file deleted or
dropped into a folder later would go unnoticed; readers check each folder
against its manifest and stop with the file named instead of silently reading
one run less or one more.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterable
from pathlib import Path

from rederive.errors import InputError

# The per-run files of a batch, by kind: sub-folder and file suffix. The file
# names are those of the one-job-per-run layout, so sorting them by name gives
# the same run order (and the same tables) as before.
SUFFIXES = {"labelled": ".parquet", "accounting": ".json", "reported": ".csv"}


def batch_of(run: str, n_batches: int) -> str:
    """The batch of ``run``: ``b00`` ... , from a CRC-32 of the run id.

    Not Python's ``hash``, which is salted per process: the assignment must be
    the same in every Snakemake invocation.

    Parameters
    ----------
    run : str
        Run id.
    n_batches : int
        Number of batches (at least 1, at most 100: two digits).

    Returns
    -------
    str
        ``b`` and the two-digit batch number.
    """
    if not 1 <= n_batches <= 100:
        raise ValueError(f"n_batches must be 1-100, got {n_batches}")
    return f"b{zlib.crc32(run.encode()) % n_batches:02d}"


def group_runs(runs: Iterable[str], n_batches: int) -> dict[str, list[str]]:
    """The batches that have runs, in name order, each with its runs sorted.

    Parameters
    ----------
    runs : iterable of str
        Run ids.
    n_batches : int
        Number of batches.

    Returns
    -------
    dict of str to list of str
        Batch name to its run ids; batches without a run are absent.
    """
    groups: dict[str, list[str]] = {}
    for run in sorted(runs):
        groups.setdefault(batch_of(run, n_batches), []).append(run)
    return dict(sorted(groups.items()))


def run_file(batch_dir: str | Path, kind: str, run: str) -> Path:
    """Path of one run's file of ``kind`` (``labelled``, ``accounting``, ``reported``)."""
    return Path(batch_dir) / kind / f"{run}{SUFFIXES[kind]}"


def in_run_order(paths: Iterable[str | Path]) -> list[str]:
    """``paths`` sorted by file name, i.e. by run, whichever batch folder holds them.

    Parameters
    ----------
    paths : iterable of str or Path
        Per-run files.

    Returns
    -------
    list of str
        Sorted by (file name, full path).
    """
    return sorted(map(str, paths), key=lambda p: (Path(p).name, p))


MANIFEST = "manifest.json"


def per_run_files(batch_dirs: Iterable[str | Path], kind: str) -> list[str]:
    """Every run's file of ``kind`` across ``batch_dirs``, in run order.

    Each folder must hold exactly the files of the runs in its manifest.

    Parameters
    ----------
    batch_dirs : iterable of str or Path
        ``results/<study>/ingested/<batch>`` folders.
    kind : str
        ``labelled``, ``accounting`` or ``reported``.

    Returns
    -------
    list of str
        Paths, sorted as :func:`in_run_order`.

    Raises
    ------
    InputError
        A folder without its manifest, a manifest run without its file, or a
        file of no manifest run; the message names the file and the fix.
    """
    suffix = SUFFIXES[kind]
    files = []
    for batch_dir in map(Path, batch_dirs):
        redo = (
            f"the folder {batch_dir} was changed after its ingest job wrote it; delete "
            "that folder and run snakemake again to re-ingest its runs"
        )
        manifest = batch_dir / MANIFEST
        if not manifest.is_file():
            raise InputError(f"missing ingest manifest: {redo}", file=manifest)
        listed = json.loads(manifest.read_text())
        absent = set(listed.get("absent", {}).get(kind, []))
        expected = [run_file(batch_dir, kind, run) for run in listed["runs"] if run not in absent]
        for path in expected:
            if not path.is_file():
                raise InputError(f"missing per-run file: {redo}", file=path)
        folder = batch_dir / kind
        present = (
            {p for p in folder.iterdir() if p.name.endswith(suffix)} if folder.is_dir() else set()
        )
        for path in sorted(present - set(expected)):
            raise InputError(f"per-run file of no ingested run: {redo}", file=path)
        files += expected
    return in_run_order(files)


def prepare(batch_dir: str | Path, kinds: Iterable[str], runs: Iterable[str]) -> None:
    """Create the batch folder's sub-folders and its manifest of ``runs``.

    Snakemake creates no sub-folder in a directory output, and deletes the whole
    folder when the job fails, so a manifest written first never outlives a
    failed ingest.
    """
    batch_dir = Path(batch_dir)
    for kind in kinds:
        (batch_dir / kind).mkdir(parents=True, exist_ok=True)
    manifest = {"runs": sorted(runs)}
    (batch_dir / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")


#: Per-run files every ingested run has (:func:`finish` refuses a run without one).
ALWAYS = ("labelled", "accounting")


def finish(batch_dir: str | Path, kinds: Iterable[str]) -> None:
    """List, in the manifest, the runs without a file of each optional kind.

    Called when the job has written every run's files; :func:`per_run_files`
    then expects exactly the others.

    Raises
    ------
    InputError
        A run without its labelled or accounting file (a bug in the kind's
        ingest, named with the file).
    """
    batch_dir = Path(batch_dir)
    manifest = json.loads((batch_dir / MANIFEST).read_text())
    absent = {}
    for kind in kinds:
        folder = batch_dir / kind
        have = {p.name for p in folder.iterdir()} if folder.is_dir() else set()
        missing = [r for r in manifest["runs"] if f"{r}{SUFFIXES[kind]}" not in have]
        if missing and kind in ALWAYS:
            raise InputError("the ingest wrote no file for this run", file=folder / missing[0])
        if missing:
            absent[kind] = missing
    if absent:
        manifest["absent"] = absent
        (batch_dir / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
