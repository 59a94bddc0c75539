"""Where the CPU of a cold build goes: Snakemake itself, each job, each job's imports.

Builds the bundled analyses once in a scratch directory (``config/`` copied,
``raw/`` linked) with a ``sitecustomize`` on ``PYTHONPATH`` that makes every job
process write, as it exits, its rule and its own CPU seconds (user + system from
``getrusage``, read in an ``atexit`` hook: the interpreter's shutdown after it
is not counted). The rest of the build's CPU is Snakemake's own process and that
shutdown. Then, for every script the build ran, it reads in fresh interpreters
(median of ``--repeats``) the CPU spent once ``snakemake.script`` and the
script's module are imported: what every job of that rule pays before any work.

Usage::

    .venv/bin/python bench/job_cpu.py [--code CHECKOUT] [--cores 2] [--repeats 3]

``--code`` builds with another checkout's Snakefile and library (a ``git
archive`` of an earlier commit) for a before/after. Prints one row per rule and
the totals. Never asserted by tests.
"""

from __future__ import annotations

import argparse
import collections
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SNAKEMAKE = Path(sys.executable).with_name("snakemake")

RECORDER = """
import atexit, os, resource, sys

def _record():
    job = getattr(sys.modules.get("__main__"), "snakemake", None)
    if job is None:  # not a job: Snakemake itself, or a helper process
        return
    usage = resource.getrusage(resource.RUSAGE_SELF)
    with open(os.environ["REDERIVE_JOB_CPU"], "a", encoding="utf-8") as out:
        out.write(f"{job.rule}\\t{usage.ru_utime + usage.ru_stime:.4f}\\t{sys.argv[0]}\\n")

atexit.register(_record)
"""


def build(code: Path, work: Path, cores: int) -> tuple[float, float, list[tuple[str, float]]]:
    """(wall s, CPU s of the whole build, [(rule, job CPU s)]) of one cold build."""
    hooks = work.parent / "hooks"
    hooks.mkdir()
    (hooks / "sitecustomize.py").write_text(RECORDER, encoding="utf-8")
    records = work.parent / "jobs.tsv"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(code / "scripts"), str(hooks)]),
        "REDERIVE_JOB_CPU": str(records),
    }
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(
        [str(SNAKEMAKE), "-s", str(code / "Snakefile"), "--directory", str(work)]
        + ["--cores", str(cores)],
        capture_output=True,
        text=True,
        env=env,
        cwd=work,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"the build failed:\n{proc.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    jobs = [line.split("\t") for line in records.read_text(encoding="utf-8").splitlines()]
    return wall, cpu, [(rule, float(seconds)) for rule, seconds, _ in jobs]


def scripts_of(code: Path) -> dict[str, str]:
    """rule -> the module its ``script:`` runs, read from the rule files."""
    out: dict[str, str] = {}
    rule = None
    for smk in sorted((code / "rules").glob("*.smk")):
        for line in smk.read_text(encoding="utf-8").splitlines():
            stripped = line.strip()
            if stripped.startswith("rule ") and stripped.endswith(":"):
                rule = stripped[5:-1]
            elif rule and stripped.startswith('"../scripts/') and stripped.endswith('.py"'):
                path = stripped.strip('"').removeprefix("../scripts/").removesuffix(".py")
                out[rule] = path.replace("/", ".")
                rule = None
    return out


def import_cpu(code: Path, module: str, repeats: int) -> float:
    """Median CPU s a fresh interpreter has spent once the job preamble and ``module``
    are imported (read inside the process, as a job's own figure is)."""
    env = {**os.environ, "PYTHONPATH": str(code / "scripts")}
    probe = (
        f"import resource, snakemake.script, {module}\n"
        "u = resource.getrusage(resource.RUSAGE_SELF)\n"
        "print(u.ru_utime + u.ru_stime)"
    )
    times = [
        float(
            subprocess.run(
                [sys.executable, "-c", probe], check=True, env=env, capture_output=True, text=True
            ).stdout
        )
        for _ in range(repeats)
    ]
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--code", type=Path, default=REPO, help="checkout to build with")
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    code = args.code.resolve()
    with tempfile.TemporaryDirectory(prefix="rederive-jobcpu-") as scratch:
        work = Path(scratch) / "work"
        work.mkdir()
        (work / "config").mkdir()
        for item in (code / "config").iterdir():
            target = work / "config" / item.name
            if item.is_dir():
                subprocess.run(["cp", "-r", str(item), str(target)], check=True)
            else:
                target.write_bytes(item.read_bytes())
        (work / "raw").symlink_to(code / "raw")
        wall, cpu, jobs = build(code, work, args.cores)
    by_rule: dict[str, list[float]] = collections.defaultdict(list)
    for rule, seconds in jobs:
        by_rule[rule].append(seconds)
    modules = scripts_of(code)
    rows = []
    for rule, seconds in by_rule.items():
        start = import_cpu(code, modules[rule], args.repeats) if rule in modules else float("nan")
        rows.append((sum(seconds), rule, len(seconds), statistics.median(seconds), start))
    rows.sort(reverse=True)
    job_cpu = sum(r[0] for r in rows)
    start_cpu = sum(r[2] * r[4] for r in rows if r[4] == r[4])
    print(f"{'rule':<40} {'jobs':>4} {'CPU s/job':>9} {'import s':>8} {'CPU s':>7}")
    for total, rule, n, per_job, start in rows:
        print(f"{rule:<40} {n:>4} {per_job:>9.2f} {start:>8.2f} {total:>7.2f}")
    print(
        f"\nbuild: wall {wall:.1f} s, CPU {cpu:.1f} s; {len(jobs)} jobs {job_cpu:.1f} s up to "
        f"their exit, of which importing their modules {start_cpu:.1f} s "
        f"({start_cpu / cpu:.0%} of the build); the rest, {cpu - job_cpu:.1f} s, is "
        "Snakemake's own process and the jobs' interpreter shutdown"
    )


if __name__ == "__main__":
    main()
