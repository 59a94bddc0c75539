"""Print timings of the expensive pieces and of whole workflow runs.

Usage::

    .venv/bin/python bench/run_benchmarks.py                 # everything
    .venv/bin/python bench/run_benchmarks.py --only bootstrap irt
    .venv/bin/python bench/run_benchmarks.py --only workflow --studies salitrap

Timings are wall-clock on whatever machine runs this; they are printed, never
asserted (tests do not time things). The workflow benchmark runs in a scratch
directory with config/ copied and raw/ linked, so results/ here is untouched.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
IRT_EPOCHS = 1000  # the ceiling of salitrap's default; the stopping rule ends it sooner
sys.path.insert(0, str(REPO / "scripts"))

from rederive.stats.bootstrap import bootstrap_ratio, pairwise_differences, rng_for  # noqa: E402


def timed(fn, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def bench_bootstrap() -> list[tuple[str, float]]:
    rng = np.random.default_rng(0)
    rows = []
    for n_items, n_models, n_clusters in [(1145, 12, 400), (2854, 22, 2854), (21238, 3, 4691)]:
        outcome = (rng.random((n_items, n_models)) < 0.4).astype(float)
        clusters = rng.integers(0, n_clusters, n_items)

        def run(outcome=outcome, clusters=clusters, n_models=n_models):
            boot = bootstrap_ratio(
                outcome, np.ones_like(outcome), clusters=clusters, n_boot=2000, rng=rng_for(1)
            )
            pairwise_differences(range(n_models), boot.estimate, boot.replicates)

        rows.append(
            (
                f"bootstrap 2,000 reps + all pairs: {n_items} rows x {n_models} models, {n_clusters} clusters",
                timed(run),
            )
        )
    return rows


def bench_irt() -> list[tuple[str, float]]:
    try:
        from rederive.stats import irt
    except ImportError as exc:  # the IRT step is optional in a partial checkout
        return [(f"IRT unavailable: {exc}", float("nan"))]
    rng = np.random.default_rng(0)
    rows = []
    import pandas as pd

    for n_models, n_items in [(12, 1145), (22, 2854)]:
        theta = rng.normal(0, 1, n_models)[:, None]
        b = rng.normal(0, 1, n_items)[None, :]
        data = (rng.random((n_models, n_items)) < 1 / (1 + np.exp(-(theta - b)))).astype(float)
        frame = pd.DataFrame(
            data,
            index=[f"m{i}" for i in range(n_models)],
            columns=[f"i{j}" for j in range(n_items)],
        )
        start = time.perf_counter()
        fit = irt.fit_1pl(frame, epochs=IRT_EPOCHS, lr=0.02, seed=1)
        rows.append(
            (
                f"1PL fit (MML start + py-irt SVI, {fit.epochs_used} of at most "
                f"{IRT_EPOCHS} epochs, 1 thread), {n_models} x {n_items}",
                time.perf_counter() - start,
            )
        )
    rows += bench_ability_bootstrap(irt, pd)
    return rows


def bench_ability_bootstrap(irt, pd, n_models=200, n_items=20_000, n_boot=100):
    """The ability bootstrap at 4 M cells: chunked per-replicate path vs all at once."""
    rng = np.random.default_rng(1)
    theta = rng.normal(0, 1, n_models)[:, None]
    b = rng.normal(0, 1.5, n_items)
    data = (rng.random((n_models, n_items)) < 1 / (1 + np.exp(-(theta - b[None, :])))).astype(float)
    frame = pd.DataFrame(data, columns=[f"i{j}" for j in range(n_items)])
    difficulty = pd.Series(b, index=frame.columns)
    timings, replicates = {}, {}
    chunked_from = irt._CHUNKED_FROM_CELLS
    for path, threshold in (("chunked", chunked_from), ("all at once", n_models * n_items + 1)):
        irt._CHUNKED_FROM_CELLS = threshold
        try:
            start = time.perf_counter()
            boot = irt.bootstrap_ability(frame, difficulty, n_boot=n_boot, seed=1)
            timings[path] = time.perf_counter() - start
            replicates[path] = boot.replicates
        finally:
            irt._CHUNKED_FROM_CELLS = chunked_from
    gap = float(np.max(np.abs(replicates["chunked"] - replicates["all at once"])))
    label = f"ability bootstrap {n_models} x {n_items:,}, {n_boot} replicates"
    return [
        (f"{label}, {path} (x{2000 // n_boot} for 2,000)", seconds)
        for path, seconds in timings.items()
    ] + [(f"{label}, largest replicate difference between the paths", gap, "")]


def swap_one_run(raw: Path) -> str:
    """Stand-in for swapping a run: drop the last 10 rows of the last control run file."""
    run = sorted(p for p in (raw / "salitrap" / "runs").glob("*.jsonl") if "__" not in p.name)[-1]
    lines = run.read_text().splitlines(keepends=True)
    run.write_text("".join(lines[:-10]))
    return run.name


def _job_seconds(work: Path) -> dict[str, tuple[float, int]]:
    """(wall seconds, file mtime) of every job run so far, from its ``benchmark:`` file."""
    out = {}
    for tsv in sorted((work / "results" / "benchmarks").rglob("*.tsv")):
        lines = tsv.read_text().splitlines()
        if len(lines) > 1:
            job = str(tsv.relative_to(work / "results" / "benchmarks"))
            out[job] = (float(lines[1].split("\t")[0]), tsv.stat().st_mtime_ns)
    return out


def bench_workflow(studies: list[str] | None, cores: int, swap: bool) -> list[tuple[str, float]]:
    snakemake = Path(sys.executable).with_name("snakemake")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        shutil.copytree(REPO / "config", work / "config")
        if swap:
            shutil.copytree(REPO / "raw", work / "raw")
        else:
            os.symlink(REPO / "raw", work / "raw")
        cmd = [
            str(snakemake),
            "-s",
            str(REPO / "Snakefile"),
            "--directory",
            str(work),
            "--cores",
            str(cores),
            "--quiet",
            "all",
        ]
        if studies:
            cmd += ["--config", f"build={studies!r}".replace("'", '"')]
        label = ",".join(studies) if studies else "all studies"
        start = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True)
        cold = time.perf_counter() - start
        if proc.returncode != 0:
            print(proc.stderr[-3000:], file=sys.stderr)
            raise SystemExit("workflow run failed")
        rows.append((f"workflow cold run ({label}, --cores {cores})", cold))
        cold_jobs = _job_seconds(work)
        start = time.perf_counter()
        subprocess.run(cmd, capture_output=True, text=True, check=True)
        rows.append((f"workflow no-op re-run ({label})", time.perf_counter() - start))
        if swap:
            name = swap_one_run(work / "raw")
            start = time.perf_counter()
            subprocess.run(cmd, capture_output=True, text=True, check=True)
            swapped = time.perf_counter() - start
            rows.append((f"workflow after swapping salitrap run {name} ({label})", swapped))
            # The ratio depends on the scope of the cold build: all studies (what
            # `snakemake --cores 8` builds) or only the study the run belongs to.
            rows.append(
                (f"  swap / cold, both {label} (issue 12 target <= 0.25)", swapped / cold, "")
            )
            # However well Snakemake packs the jobs, a swap cannot cost less than the
            # share of the cold build's work that lies in the jobs it reruns.
            rerun = [job for job, run in _job_seconds(work).items() if run != cold_jobs.get(job)]
            share = sum(cold_jobs[job][0] for job in rerun if job in cold_jobs) / sum(
                seconds for seconds, _ in cold_jobs.values()
            )
            rows.append(
                (
                    f"  rerun by the swap: {len(rerun)} of {len(cold_jobs)} jobs, their share "
                    "of the cold build's job time",
                    share,
                    "",
                )
            )
        rows += [(f"  job {job}", run[0]) for job, run in _job_seconds(work).items()]
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--only",
        nargs="*",
        choices=["bootstrap", "irt", "workflow"],
        default=["bootstrap", "irt", "workflow"],
    )
    parser.add_argument("--studies", nargs="*", default=None)
    parser.add_argument("--cores", type=int, default=os.cpu_count() or 2)
    parser.add_argument(
        "--swap", action="store_true", help="also time a rebuild after changing one salitrap run"
    )
    args = parser.parse_args()
    rows = []
    if "bootstrap" in args.only:
        rows += bench_bootstrap()
    if "irt" in args.only:
        rows += bench_irt()
    if "workflow" in args.only:
        rows += bench_workflow(args.studies, args.cores, args.swap)
    width = max(len(row[0]) for row in rows)
    for name, value, *unit in rows:
        shown = f"{value:8.1e}" if 0 < abs(value) < 0.01 else f"{value:8.2f}"
        print(f"{name:<{width}}  {shown}{(unit or [' s'])[0]}")


if __name__ == "__main__":
    main()
