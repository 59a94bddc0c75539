"""What keeping history and writing change reports costs a cold build.

Usage::

    .venv/bin/python bench/history_cost.py [--cores 2] [--keep DIR]

Builds the bundled analyses (tables, checks and change reports; no figures or
site, whose cost does not depend on history) from scratch in a scratch folder
(config/ copied, raw/ linked), then reads Snakemake's per-job benchmark TSVs:
the seconds of the ``report_changes`` jobs against those of every job, and
the size of each analysis's ``history/`` after one build. Then it swaps one run
(41 replies of GPT-4o in tag_sycophancy, as docs/changes.md does), rebuilds and
reports the same for that rebuild. Printed, never asserted.
"""

import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SNAKEMAKE = Path(sys.executable).with_name("snakemake")
ANALYSES = ["salitrap", "tag_sycophancy", "bias_awareness", "cot_loadbearing", "benchmark"]


def build(work: Path, cores: int) -> float:
    start = time.monotonic()
    subprocess.run(
        [
            str(SNAKEMAKE),
            "-s",
            str(REPO / "Snakefile"),
            "--directory",
            str(work),
            "--cores",
            str(cores),
            "--quiet",
            "all",
            "--",
            *[f"results/{name}/changes/changes.json" for name in ANALYSES],
        ],
        check=True,
        cwd=work,
    )
    return time.monotonic() - start


def job_seconds(work: Path, since: float) -> tuple[float, float]:
    """Seconds of every job, and of the report_changes jobs, run after ``since``.

    The TSV's ``s`` (each job's own wall time, start to end of its process):
    its ``cpu_time`` is sampled and reads 0 for jobs under a second.
    """
    total = changes = 0.0
    for tsv in (work / "results" / "benchmarks").rglob("*.tsv"):
        if tsv.stat().st_mtime < since:
            continue
        with tsv.open() as handle:
            row = next(csv.DictReader(handle, delimiter="\t"))
        seconds = float(row["s"])
        total += seconds
        if tsv.stem == "report_changes":
            changes += seconds
    return total, changes


def folder_kb(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 1024


def swap_tag_run(raw: Path) -> None:
    path = raw / "tag_sycophancy" / "runs" / "GPT-4o.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    changed = 0
    for row in rows:
        if (
            changed < 41
            and row["arm"] == "tag"
            and row["response"].lstrip("*").lower().startswith("no")
        ):
            row["response"] = "Yes."
            changed += 1
    path.unlink()  # raw/ is a copy: never write through to the repository's files
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    os.utime(path, (1577836800, 1577836800))


def report(label: str, work: Path, since: float, wall: float) -> None:
    total, changes = job_seconds(work, since)
    print(
        f"{label}: wall {wall:.0f} s; jobs {total:.1f} s, of which report_changes "
        f"{changes:.2f} s ({100 * changes / total:.1f}%)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--keep", help="build here and keep it (default: a temporary folder)")
    args = parser.parse_args()
    work = Path(args.keep or tempfile.mkdtemp(prefix="rederive-history-"))
    work.mkdir(parents=True, exist_ok=True)
    shutil.copytree(REPO / "config", work / "config", dirs_exist_ok=True)
    shutil.copytree(REPO / "raw", work / "raw", dirs_exist_ok=True)
    started = time.time()
    report("cold build", work, started, build(work, args.cores))
    for name in ANALYSES:
        history = work / "results" / name / "history"
        tables = sum(
            folder_kb(work / "results" / name / sub) for sub in ("tables", "check", "audit")
        )
        print(
            f"  {name}: history/ {folder_kb(history):.0f} KB after one build (tables, checks and audits: {tables:.0f} KB uncompressed)"
        )
    swap_tag_run(work / "raw")
    started = time.time()
    report("rebuild after a swapped run", work, started, build(work, args.cores))
    print(
        " ", json.loads((work / "results/tag_sycophancy/changes/changes.json").read_text())["line"]
    )
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
