"""Run one study on generated data of growing size; print wall, CPU and peak RSS.

Usage::

    .venv/bin/python bench/scale.py                                  # 20x2k ... 200x20k
    .venv/bin/python bench/scale.py --sizes 20x2000 100x10000 --cores 2
    .venv/bin/python bench/scale.py --study salitrap --sizes 50x5000
    .venv/bin/python bench/scale.py --sizes 200x20000 --stages core      # core stage only
    .venv/bin/python bench/scale.py --sizes 200x20000 --file-format parquet
    .venv/bin/python bench/scale.py --sizes 5000x30000 --stages ingest --raw /tmp/big  # reuse data

After the benchmark study's stages, DuckDB reads the same long files in one
query (every column as text, aggregated) and its CPU is printed beside the
ingest stage's, the yardstick of a columnar ingest: once for whole processes
(the ingest jobs against one DuckDB process) and once for the work alone (one
process each, ``ingest_batch`` over every file against the query, process start
and imports excluded), with the ratios.

For each size (models x items) the data come from ``rederive.simulate.scale``
(seeded, Rasch), in a scratch directory. The workflow runs in two stages in the
same directory: ``core`` (ingest, warehouse, accuracy/tables with bootstrap CIs,
all pairs with BH, failure sets/Jaccard, data quality) and then ``rest`` (IRT,
figures, published check, summary); ``--stages ingest`` runs the ingest jobs alone
(``snakemake --until``), for the ingest ratio without the hour-scale stages, and
``--raw`` reuses a folder ``rederive.simulate.scale`` wrote before. Each stage prints its wall time, the CPU time
of all its processes and the peak RSS of the largest single process; then each
rule's Snakemake benchmark TSVs (results/benchmarks/) are summed: jobs, wall
(sum over jobs), CPU, and the largest max_rss of any of its jobs.
Nothing is asserted: timings depend on the machine and on what else runs.
"""

from __future__ import annotations

import argparse
import csv
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SNAKEMAKE = Path(sys.executable).with_name("snakemake")
DEFAULT_SIZES = ["20x2000", "50x5000", "100x10000", "200x20000"]
INGEST_RULE = {"benchmark": "ingest_benchmark_batch", "salitrap": "ingest_salitrap_batch"}
CORE_TARGETS = {
    "benchmark": [
        "results/benchmark/tables/accuracy.csv",
        "results/benchmark/tables/ranking.csv",
        "results/benchmark/tables/failed_by_all.csv",
        "results/benchmark/tables/data_quality.csv",
    ],
    "salitrap": [
        "results/salitrap/tables/table1_tar_hfr.csv",
        "results/salitrap/tables/pairwise_tar.csv",
        "results/salitrap/tables/ranking.csv",
        "results/salitrap/tables/table5_pairs.csv",
        "results/salitrap/tables/data_quality.csv",
    ],
}


def generate(study: str, n_models: int, n_items: int, out: Path, file_format: str) -> float:
    start = time.perf_counter()
    extra = ["--file-format", file_format] if study == "benchmark" else []
    subprocess.run(
        [
            sys.executable,
            "-m",
            "rederive.simulate.scale",
            "--study",
            study,
            "--models",
            str(n_models),
            "--items",
            str(n_items),
            "--out",
            str(out),
            *extra,
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return time.perf_counter() - start


# DuckDB's own reader on the same files, every column parsed as text and
# aggregated (nothing materialised): the speed a columnar ingest can aim at.
# It prints the CPU of the query alone (all threads), process start and
# `import duckdb` excluded.
DUCKDB_READ = """
import sys, time, duckdb
from pathlib import Path
threads = int(sys.argv[2])
files = sorted(str(p) for p in Path(sys.argv[1]).iterdir() if p.suffix in {".csv", ".parquet"})
con = duckdb.connect()
con.execute(f"SET threads = {threads}")
reader = (
    "read_parquet($files)" if files[0].endswith(".parquet")
    else "read_csv($files, all_varchar = true, header = true)"
)
columns = [r[0] for r in con.execute(f"DESCRIBE SELECT * FROM {reader}", {"files": files[:1]}).fetchall()]
aggregates = ", ".join(f'max(length(CAST("{c}" AS VARCHAR)))' for c in columns)
start = time.process_time()
con.execute(f"SELECT count(*), {aggregates} FROM {reader}", {"files": files}).fetchall()
print(time.process_time() - start)
"""

# rederive's ingest of the same files in one process (the rule's own
# ingest_batch over every run), its CPU printed with process start and imports
# excluded: the work the ingest jobs do, without their per-job start.
INGEST_READ = """
import sys, tempfile, time
from pathlib import Path
from rederive.io.accounting import ingest_batch
from rederive.studies.benchmark.ingest import ingest_with_reported
folder = Path(sys.argv[1])
files = sorted(p for p in folder.iterdir() if p.suffix in {".csv", ".parquet"})
sources = {p.name: {"run": p.name, "format": "long", "path": str(p), "files": [str(p)]} for p in files}
with tempfile.TemporaryDirectory() as out:
    start = time.process_time()
    ingest_batch(
        out, list(sources), [s["path"] for s in sources.values()],
        lambda run, _path: ingest_with_reported(sources[run], {}, out),
        kinds=("labelled", "accounting", "reported"), root=str(folder.parent), analysis="scale",
    )
    print(time.process_time() - start)
"""


def cpu_of(code: str, *args: str) -> dict:
    """Wall and CPU of a Python snippet's process, and the CPU it prints (its work alone)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", code, *args], check=True, stdout=subprocess.PIPE, text=True
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    work = float(proc.stdout.strip().splitlines()[-1])
    return {"wall": time.perf_counter() - start, "cpu": cpu, "work": work}


def duckdb_read(folder: Path, cores: int) -> dict:
    """Wall and CPU of DuckDB reading every long file of ``folder`` in one query."""
    return cpu_of(DUCKDB_READ, str(folder), str(cores))


def ingest_read(folder: Path) -> dict:
    """Wall and CPU of rederive's ingest of every long file of ``folder`` in one process."""
    return cpu_of(INGEST_READ, str(folder))


def side_by_side(jobs: dict, folder: Path, cores: int, file_format: str) -> str:
    """The ingest stage beside DuckDB's read of the same files, as a Markdown table.

    Two comparisons: whole processes (the Snakemake ingest jobs, each with its
    start and imports, against one DuckDB process), and the work alone (one
    process each, process start and imports excluded).
    """
    duck = duckdb_read(folder, cores)
    ours = ingest_read(folder)
    rows = [
        (
            f"whole processes ({jobs['jobs']} ingest jobs / one DuckDB process)",
            jobs["cpu"],
            duck["cpu"],
        ),
        ("work alone (one process each, start and imports excluded)", ours["work"], duck["work"]),
        ("one process each, start and imports included", ours["cpu"], duck["cpu"]),
    ]
    lines = [
        f"\ningest of the same {file_format} files, CPU s (DuckDB: {cores} threads)\n",
        "| measure | rederive ingest | DuckDB read | ratio |",
        "|---|---:|---:|---:|",
    ]
    for label, mine, theirs in rows:
        lines.append(f"| {label} | {mine:.2f} | {theirs:.2f} | {mine / theirs:.1f}x |")
    return "\n".join(lines)


def copied(work: Path, study: str) -> str:
    """How many runs' labelled files are verbatim copies of the raw file
    (:mod:`rederive.io.verbatim`) rather than rewritten tables."""
    import json

    records = [
        json.loads(p.read_text())
        for p in (work / "results" / study / "ingested").glob("*/accounting/*.json")
    ]
    n_copied = sum(1 for r in records if r.get("verbatim"))
    return f"\nlabelled files: {n_copied:,} of {len(records):,} runs copied verbatim"


def measured(cmd: list[str], cwd: Path) -> None:
    """Run ``cmd``; print its exit code, CPU seconds and peak RSS as the last stderr line.

    Run in a fresh Python process per stage: RUSAGE_CHILDREN's ru_maxrss is the
    largest RSS of any one descendant ever waited for, so it must start from zero.
    """
    proc = subprocess.run(
        cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    sys.stderr.write(proc.stderr[-4000:])
    sys.stderr.write(f"\n{proc.returncode} {usage.ru_utime + usage.ru_stime} {usage.ru_maxrss}\n")


def run_stage(
    work: Path, study: str, raw: Path, cores: int, targets: list[str], until: str | None = None
) -> dict:
    """Run snakemake once; wall, CPU (user+sys of all its processes) and peak process RSS.

    With ``until``, only that rule's jobs and what they need (``--until``).
    """
    cmd = [
        str(SNAKEMAKE),
        "-s",
        str(REPO / "Snakefile"),
        "--directory",
        str(work),
        "--cores",
        str(cores),
        "--quiet",
        "all",
        *(["--until", until] if until else []),
        "--config",
        f"build=[{study}]",
        f"analyses={{{study}: {{raw_dir: {raw}}}}}",
        "--",
        *targets,
    ]
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, __file__, "--measure", str(work), "--", *cmd],
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - start
    code, cpu, maxrss_kib = proc.stderr.strip().splitlines()[-1].split()
    if code != "0":
        sys.exit(f"snakemake failed in {work}:\n{proc.stderr[-4000:]}")
    return {"wall": wall, "cpu": float(cpu), "peak_mib": int(maxrss_kib) / 1024}


def per_rule(work: Path, study: str) -> dict[str, dict]:
    """Sum Snakemake's benchmark TSVs by rule (results/benchmarks/<study>/<rule>[/<batch>].tsv)."""
    root = work / "results" / "benchmarks" / study
    rules: dict[str, dict] = defaultdict(lambda: {"jobs": 0, "wall": 0.0, "cpu": 0.0, "rss": 0.0})
    for path in sorted(root.rglob("*.tsv")):
        rel = path.relative_to(root)
        name = rel.parts[0] if len(rel.parts) > 1 else rel.stem
        with open(path) as handle:
            for row in csv.DictReader(handle, delimiter="\t"):
                entry = rules[name]
                entry["jobs"] += 1
                entry["wall"] += float(row["s"])
                entry["cpu"] += float(row["cpu_time"])
                entry["rss"] = max(entry["rss"], float(row["max_rss"]))
    return dict(rules)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--study", choices=sorted(CORE_TARGETS), default="benchmark")
    parser.add_argument("--sizes", nargs="+", default=DEFAULT_SIZES, help="MODELSxITEMS")
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument(
        "--file-format",
        choices=["csv", "parquet"],
        default="csv",
        help="benchmark study: long/<model>.csv (default) or .parquet",
    )
    parser.add_argument("--keep", type=Path, help="work under this folder and keep it")
    parser.add_argument(
        "--stages", nargs="+", choices=["ingest", "core", "rest"], default=["core", "rest"]
    )
    parser.add_argument(
        "--raw", type=Path, help="the raw folder of an earlier `rederive.simulate.scale` run"
    )
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("command", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.measure:
        measured(args.command, args.measure)
        return

    base = args.keep or Path(tempfile.mkdtemp(prefix="rederive-scale-"))
    try:
        for size in args.sizes:
            n_models, n_items = (int(v) for v in size.lower().split("x"))
            work = base / f"{args.study}-{size}"
            shutil.rmtree(work, ignore_errors=True)
            work.mkdir(parents=True)
            shutil.copytree(REPO / "config", work / "config")
            raw = args.raw or work / "raw"
            made = "given" if args.raw else "generated in {:.0f} s"
            if not args.raw:
                made = made.format(generate(args.study, n_models, n_items, raw, args.file_format))
            print(
                f"\n## {args.study} {n_models} models x {n_items:,} items = "
                f"{n_models * n_items:,} rows ({made})"
            )
            targets = {"ingest": ["all"], "core": CORE_TARGETS[args.study], "rest": ["all"]}
            until = {"ingest": INGEST_RULE[args.study]}
            stages = {
                name: run_stage(work, args.study, raw, args.cores, targets[name], until.get(name))
                for name in args.stages
            }
            print("| stage | wall s | CPU s | peak RSS MiB |\n|---|---:|---:|---:|")
            for name, stage in stages.items():
                print(
                    f"| {name} | {stage['wall']:.0f} | {stage['cpu']:.0f} | "
                    f"{stage['peak_mib']:.0f} |"
                )
            print(
                "\n| rule | jobs | wall s (sum) | CPU s | max RSS MiB |\n|---|---:|---:|---:|---:|"
            )
            for name, r in sorted(
                per_rule(work, args.study).items(), key=lambda kv: -kv[1]["wall"]
            ):
                print(
                    f"| {name} | {r['jobs']} | {r['wall']:.1f} | {r['cpu']:.1f} | {r['rss']:.0f} |"
                )
            rules = per_rule(work, args.study)
            ingest = INGEST_RULE[args.study]
            if args.study == "benchmark" and ingest in rules:
                print(side_by_side(rules[ingest], raw / "long", args.cores, args.file_format))
                print(copied(work, args.study))
            sys.stdout.flush()
            if not args.keep:
                shutil.rmtree(work)
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
