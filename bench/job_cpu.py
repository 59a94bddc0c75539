"""Where the CPU of a cold build goes: Snakemake itself, each job, each job's imports.

Builds the bundled analyses once in a scratch directory (``config/`` copied,
``raw/`` linked) with a ``sitecustomize`` on ``PYTHONPATH`` that makes every job
process write, as it exits, its rule and its own CPU seconds (user + system from
``getrusage``, read in an ``atexit`` hook: the interpreter's shutdown after it
is not counted). Jobs forked from the job server (:mod:`rederive.jobserver`)
are counted the same way, and the server's own process as ``(job server)``.
The rest of the build's CPU is Snakemake's own process and that shutdown. The
hook also times every outermost ``import`` statement a job runs
(``builtins.__import__``), deferred ones inside functions included: a fresh
job's start-up is mostly those.

Usage::

    .venv/bin/python bench/job_cpu.py [--code CHECKOUT] [--cores 2]

``--code`` builds with another checkout's Snakefile and library (a ``git
archive`` of an earlier commit) for a before/after. Prints one row per rule and
the totals. Never asserted by tests.
"""

from __future__ import annotations

import argparse
import collections
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SNAKEMAKE = Path(sys.executable).with_name("snakemake")

RECORDER = """
import atexit, builtins, os, resource, sys, time

_import = builtins.__import__
_inside = False
_spent = 0.0


def _timed_import(*args, **kwargs):
    # Only the outermost import statement is timed: nested ones are inside it.
    global _inside, _spent
    if _inside:
        return _import(*args, **kwargs)
    _inside = True
    start = time.process_time()
    try:
        return _import(*args, **kwargs)
    finally:
        _spent += time.process_time() - start
        _inside = False


builtins.__import__ = _timed_import


def _forked():
    # A job forked from the job server (rederive.jobserver) starts its own count;
    # its getrusage starts at zero too.
    global _inside, _spent
    _inside, _spent = False, 0.0


os.register_at_fork(after_in_child=_forked)


def _record():
    main = sys.modules.get("__main__")
    job = getattr(main, "snakemake", None)
    spec = getattr(main, "__spec__", None)
    if job is not None:
        rule = job.rule
    elif spec is not None and spec.name == "rederive.jobserver.server":
        rule = "(job server)"
    else:  # Snakemake itself, or a helper process
        return
    usage = resource.getrusage(resource.RUSAGE_SELF)
    with open(os.environ["REDERIVE_JOB_CPU"], "a", encoding="utf-8") as out:
        out.write(f"{rule}\\t{usage.ru_utime + usage.ru_stime:.4f}\\t{_spent:.4f}\\n")


atexit.register(_record)
"""


def build(
    code: Path, work: Path, cores: int
) -> tuple[float, float, list[tuple[str, float, float]]]:
    """(wall s, CPU s of the whole build, [(rule, job CPU s, its imports' CPU s)])."""
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
    return wall, cpu, [(rule, float(seconds), float(imports)) for rule, seconds, imports in jobs]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--code", type=Path, default=REPO, help="checkout to build with")
    parser.add_argument("--cores", type=int, default=2)
    args = parser.parse_args()
    code = args.code.resolve()
    with tempfile.TemporaryDirectory(prefix="rederive-jobcpu-") as scratch:
        work = Path(scratch) / "work"
        shutil.copytree(code / "config", work / "config")
        (work / "raw").symlink_to(code / "raw")
        wall, cpu, jobs = build(code, work, args.cores)
    by_rule: dict[str, list[tuple[float, float]]] = collections.defaultdict(list)
    for rule, seconds, imports in jobs:
        by_rule[rule].append((seconds, imports))
    rows = sorted(
        (
            (sum(s for s, _ in runs), rule, len(runs), sum(i for _, i in runs))
            for rule, runs in by_rule.items()
        ),
        reverse=True,
    )
    job_rows = [r for r in rows if r[1] != "(job server)"]
    job_cpu = sum(r[0] for r in rows)
    import_cpu = sum(r[3] for r in rows)
    print(f"{'rule':<40} {'jobs':>4} {'CPU s':>7} {'imports s':>9}")
    for total, rule, n, imports in rows:
        print(f"{rule:<40} {n:>4} {total:>7.2f} {imports:>9.2f}")
    server = [r for r in rows if r[1] == "(job server)"]
    served = (
        f"; the job server {server[0][0]:.1f} s ({server[0][3]:.1f} s importing once)"
        if server
        else ""
    )
    print(
        f"\nbuild: wall {wall:.1f} s, CPU {cpu:.1f} s; "
        f"{sum(r[2] for r in job_rows)} jobs {sum(r[0] for r in job_rows):.1f} s up to "
        f"their exit{served}; {import_cpu:.1f} s in import statements "
        f"({import_cpu / cpu:.0%} of the build); the rest, {cpu - job_cpu:.1f} s, is "
        "Snakemake's own process and interpreter shutdown"
    )


if __name__ == "__main__":
    main()
