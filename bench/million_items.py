"""One model with a million items (a long CSV) through the whole benchmark build;
print the wall time and the peak RSS of every rule.

Usage::

    .venv/bin/python bench/million_items.py                  # 1,000,000 items
    .venv/bin/python bench/million_items.py --items 200000 --cores 2 --keep /tmp/m

The long CSV (``model,item_id,correct``, seeded) is written to a scratch
directory with its own ``config/``; the workflow runs there with this
repository's Snakefile. Peak RSS per rule comes from Snakemake's benchmark TSVs
(``results/benchmarks/``). Nothing is asserted: timings depend on the machine.
"""

from __future__ import annotations

import argparse
import csv
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import yaml

REPO = Path(__file__).resolve().parents[1]
SNAKEMAKE = Path(sys.executable).with_name("snakemake")


def write_long(path: Path, n_items: int, seed: int = 0) -> None:
    correct = (np.random.default_rng(seed).random(n_items) < 0.6).astype(int)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as handle:
        handle.write("model,item_id,correct\n")
        handle.writelines(f"m1,q{i},{c}\n" for i, c in enumerate(correct))


def rule_peaks(results: Path) -> list[tuple[str, float, float]]:
    rows = []
    for tsv in sorted((results / "benchmarks").rglob("*.tsv")):
        with tsv.open() as handle:
            last = list(csv.DictReader(handle, delimiter="\t"))[-1]
        rss = float(last["max_rss"]) if last["max_rss"] not in ("-", "NA") else float("nan")
        rows.append((str(tsv.relative_to(results / "benchmarks")), float(last["s"]), rss))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--keep", type=Path, help="scratch directory to keep (default: temp)")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="million-"))
    work.mkdir(parents=True, exist_ok=True)
    shutil.copytree(REPO / "config", work / "config", dirs_exist_ok=True)
    write_long(work / "raw" / "long" / "scores.csv", args.items)
    entry = {"kind": "benchmark", "label": f"{args.items:,} items", "raw_dir": "raw"}
    (work / "million.yaml").write_text(
        yaml.safe_dump({"analyses": {"million": entry}, "build": ["million"]})
    )
    cmd = [str(SNAKEMAKE), "-s", str(REPO / "Snakefile"), "--directory", str(work)]
    cmd += ["--configfile", str(work / "million.yaml"), "--cores", str(args.cores)]
    start = time.time()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=work)
    wall = time.time() - start
    print(f"items: {args.items:,}  exit: {proc.returncode}  wall: {wall:.0f} s")
    if proc.returncode:
        print(proc.stderr[-3000:])
    print(f"{'job':<28} {'wall s':>8} {'peak RSS MB':>12}")
    for name, seconds, rss in rule_peaks(work / "results"):
        print(f"{name:<28} {seconds:>8.1f} {rss:>12.0f}")
    if not args.keep:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
