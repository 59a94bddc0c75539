"""Rule ``report_changes``: record this build of an analysis in its history and
report what changed since the previous one (``results/<name>/changes/``).

Runs after every table, check and audit of the analysis; it reads them, adds a
history entry when the build differs from the newest one (by content, inputs,
settings or code), and writes changes.csv, changes.md and changes.json. It
writes no table, so keeping history never changes one.
"""

import csv
import json
from pathlib import Path

from rederive.changes.history import History
from rederive.changes.manifest import build_manifest
from rederive.changes.report import CSV_COLUMNS, compare_snapshots
from rederive.changes.snapshots import MemorySnapshot
from rederive.io.content_keys import CACHE_FILE, ContentKeys
from rederive.provenance import git_state

REPO = Path(__file__).resolve().parents[3]
LOCK_FILE = REPO / "envs" / "requirements.lock"


def code_state(library: str) -> dict:
    """Commit, dirty flag, the kind's library hash and the lock file's hash."""
    keys = ContentKeys()
    return {
        **git_state(REPO),
        "library": library,
        "lock": keys.file(LOCK_FILE) if LOCK_FILE.is_file() else "missing",
    }


def input_hashes(paths) -> dict[str, str]:
    """SHA-256 of each input file, from the workflow's content-key cache (the
    DAG build hashed every source already; a cache miss hashes the file)."""
    keys = ContentKeys(CACHE_FILE)
    return {str(p): keys.file(p) for p in paths}


def write_rows(rows: list[dict], path: str) -> None:
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=CSV_COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def record_build(
    *,
    analysis: str,
    kind: str,
    label: str,
    results: Path,
    outputs: list[str],
    manifest: dict,
    keep: int,
):
    """Add the build to the history; return its change report."""
    contents = {Path(p).relative_to(results).as_posix(): Path(p).read_bytes() for p in outputs}
    history = History(results / "history")
    previous, current = history.record(manifest, contents)
    snapshot = MemorySnapshot(manifest, contents)
    if previous is current:
        report = compare_snapshots(
            analysis,
            kind,
            previous,
            snapshot,
            old_name=f"build {previous.number}",
            new_name=f"this build (the same as build {previous.number})",
        )
    else:
        report = compare_snapshots(
            analysis,
            kind,
            previous,
            snapshot,
            old_name=f"build {previous.number}" if previous else None,
            new_name=f"build {current.number}",
        )
    return report, history


def main(snakemake):
    params = snakemake.params
    analysis = snakemake.wildcards.analysis
    results = Path("results") / analysis
    manifest = build_manifest(
        analysis=analysis,
        kind=params.kind,
        settings=dict(params.settings),
        raw_dir=params.raw_dir,
        run_files={run: list(files) for run, files in dict(params.run_files).items()},
        file_hashes=input_hashes(snakemake.input.raw),
        code=code_state(params.code_version),
        headline=dict(params.headline),
    )
    report, history = record_build(
        analysis=analysis,
        kind=params.kind,
        label=params.label,
        results=results,
        outputs=list(snakemake.input.outputs),
        manifest=manifest,
        keep=params.keep,
    )
    write_rows(report.rows(), snakemake.output.csv)
    Path(snakemake.output.md).write_text(report.markdown(params.label) + "\n", encoding="utf-8")
    Path(snakemake.output.json).write_text(
        json.dumps(report.summary(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    # Pruned last: the report read the previous build's files from the history.
    history.prune(params.keep)


if __name__ == "__main__" and "snakemake" in globals():
    from rederive.runner import run

    run(main, snakemake)  # noqa: F821
