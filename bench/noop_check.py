"""What the check for damaged intermediates costs a run with nothing to do.

Builds the bundled analyses twice in scratch directories, once with this
checkout and once with another checkout of the code (``--base``, e.g. the commit
before the check, from ``git worktree add`` or ``git archive``), then times no-op
runs of the two alternately, so that load from other processes falls on both
alike. Also times, in process, the check itself over every stamped output
(stat only), the same check when every file must be hashed again (as after a
copy of ``results/``), and the end-of-run refresh of a whole build.

Usage::

    .venv/bin/python bench/noop_check.py --base /tmp/rederive-base [--repeats 7]
        [--config 'build=[benchmark]'] [--cores 2]

Prints wall seconds and CPU seconds (user + system of the snakemake process and
its children) per run: medians and the spread. Never asserted by tests.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SNAKEMAKE = Path(sys.executable).with_name("snakemake")


def command(code: Path, work: Path, extra: list[str], cores: int) -> list[str]:
    return [
        str(SNAKEMAKE),
        "-s",
        str(code / "Snakefile"),
        "--directory",
        str(work),
        "--cores",
        str(cores),
        *extra,
    ]


def timed_run(code: Path, work: Path, extra: list[str], cores: int) -> tuple[float, float, str]:
    """(wall s, CPU s of the children, stderr) of one snakemake run with ``code``."""
    env = {**os.environ, "PYTHONPATH": str(code / "scripts")}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(
        command(code, work, extra, cores), capture_output=True, text=True, env=env, cwd=work
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        print(proc.stderr[-3000:], file=sys.stderr)
        raise SystemExit(f"snakemake failed with {code}")
    return wall, cpu, proc.stderr


def prepare(code: Path, root: Path, label: str) -> Path:
    """A working directory with ``code``'s config/ (the code before the check
    looks for it there) and the bundled raw/ linked."""
    work = root / label
    work.mkdir()
    shutil.copytree(code / "config", work / "config")
    os.symlink(REPO / "raw", work / "raw")
    return work


def check_in_process(work: Path) -> list[tuple[str, float]]:
    """The check over every stamped output of ``work``, timed in process."""
    sys.path.insert(0, str(REPO / "scripts"))
    from rederive.io import intact

    cwd = os.getcwd()
    os.chdir(work)
    try:
        stamps = sorted(intact.STAMPS.rglob("*.json"))
        outputs = [intact._load(s)["output"] for s in stamps]
        n_files = sum(len(intact.output_files(o)) for o in outputs)
        size = sum(p.stat().st_size for o in outputs for p in intact.output_files(o).values())
        start = time.perf_counter()
        assert all(intact.check(o) is None for o in outputs)
        stat_only = time.perf_counter() - start
        # Every file's stat changed (Snakemake's touch after a whole build): the
        # end-of-run refresh records the new stats.
        for output in outputs:
            for path in intact.output_files(output).values():
                os.utime(path)
        start = time.perf_counter()
        assert intact.refresh(0.0) == n_files
        refresh = time.perf_counter() - start
        # Every file's inode changed too (a copy of results/): each is hashed once.
        shutil.copytree("results", "results.copy")
        shutil.rmtree("results")
        os.rename("results.copy", "results")
        start = time.perf_counter()
        assert all(intact.check(o) is None for o in outputs)
        rehash = time.perf_counter() - start
    finally:
        os.chdir(cwd)
    return [
        (f"outputs stamped: {len(outputs)} ({n_files} files, {size / 2**20:.1f} MiB)", 0.0),
        ("check of every output, stat only (a no-op's share), s", stat_only),
        ("end-of-run refresh after every output was touched, s", refresh),
        ("check of every output after a copy of results/ (every file hashed), s", rehash),
    ]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", type=Path, required=True, help="checkout of the code before")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--config", default=None, help="e.g. 'build=[benchmark]'")
    args = parser.parse_args(argv)
    extra = ["--config", args.config] if args.config else []
    codes = {"before": args.base.resolve(), "after": REPO}
    with tempfile.TemporaryDirectory() as tmp:
        works = {label: prepare(code, Path(tmp), label) for label, code in codes.items()}
        for label, code in codes.items():
            wall, cpu, _ = timed_run(code, works[label], extra, args.cores)
            print(f"build ({label}): {wall:.1f} s wall, {cpu:.1f} s CPU", flush=True)
        times = {label: [] for label in codes}
        for _ in range(args.repeats):
            for label, code in codes.items():
                wall, cpu, stderr = timed_run(code, works[label], extra, args.cores)
                assert "Nothing to be done" in stderr, stderr[-2000:]
                times[label].append((wall, cpu))
        for label, runs in times.items():
            walls = sorted(w for w, _ in runs)
            cpus = sorted(c for _, c in runs)
            print(
                f"no-op ({label}, {len(runs)} runs): wall median {statistics.median(walls):.2f} s "
                f"[{walls[0]:.2f}-{walls[-1]:.2f}], CPU median {statistics.median(cpus):.2f} s "
                f"[{cpus[0]:.2f}-{cpus[-1]:.2f}]"
            )
        for name, value in check_in_process(works["after"]):
            print(f"{name}: {value:.3f}" if value else name)
        shutil.rmtree(works["before"], ignore_errors=True)


if __name__ == "__main__":
    main()
