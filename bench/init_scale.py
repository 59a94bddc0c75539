"""What ``rederive init`` and the ``rederive`` command cost.

``init``: a seeded folder of long CSV runs (one file per model, every model on
the same items of ``--tasks`` tasks, 0/1 grades) is written to a scratch
folder, then ``rederive.cli.init.init_config`` is timed stage by stage in this
process: the walk (format detection), reading every run, planning (grouping
and the folder selection checked by the workflow's discovery), rendering and
validation. Peak RSS is the process's.

``start``: wall of ``python -m rederive.cli --help`` and of ``python -m
rederive.cli diff --help`` (the dispatcher, then the dispatcher plus one
wrapped module), medians of ``--repeats`` runs.

Usage::

    .venv/bin/python bench/init_scale.py init [--models 200 --items 5000 --tasks 4]
    .venv/bin/python bench/init_scale.py start [--repeats 15]

Never asserted by tests.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def write_folder(folder: Path, models: int, items: int, tasks: int, seed: int) -> int:
    rng = np.random.default_rng(seed)
    runs = folder / "runs"
    runs.mkdir(parents=True)
    per_task = items // tasks
    task = np.repeat([f"task{t}" for t in range(tasks)], per_task)
    item = np.tile(np.arange(per_task), tasks)
    size = 0
    for m in range(models):
        correct = rng.random(len(task)) < 0.6
        lines = ["model,task,item_id,correct"]
        lines += [f"m{m:04d},{t},{i},{int(c)}" for t, i, c in zip(task, item, correct, strict=True)]
        path = runs / f"m{m:04d}.csv"
        path.write_text("\n".join(lines) + "\n")
        size += path.stat().st_size
    return size


def bench_init(args) -> None:
    from rederive.analyses import resolve_analysis
    from rederive.cli import workflow
    from rederive.cli.grouping import read_content
    from rederive.cli.plan import make_plan
    from rederive.cli.render import render
    from rederive.cli.scan import scan
    from rederive.io import formats

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "evals"
        size = write_folder(folder, args.models, args.items, args.tasks, args.seed)
        print(
            f"{args.models} runs x {args.items} items ({args.tasks} tasks): "
            f"{size / 2**20:.1f} MiB of long CSV"
        )
        kinds = workflow.kinds()
        defaults = resolve_analysis(
            "x", {"kind": "benchmark", "raw_dir": "."}, workflow.SCHEMA_DIR, kinds
        )
        params = {k: defaults[k] for k in (*formats.names(), "zip_limits") if k in defaults}
        stages = {}
        start = cpu = None

        def tick(name):
            nonlocal start, cpu
            now, now_cpu = time.perf_counter(), time.process_time()
            if start is not None:
                stages[name] = (now - start, now_cpu - cpu)
            start, cpu = now, now_cpu

        tick("")
        found = scan(folder)
        tick("walk + detect")
        items: dict[str, set[str]] = {}
        contents = {r.path: read_content(r, params, items) for r in found.of("benchmark")}
        tick("read every run")
        plan = make_plan(
            found,
            contents,
            items,
            kinds,
            workflow.SCHEMA_DIR,
            name="evals",
            label="evals",
            taken=set(),
        )
        tick("group + select (discovery)")
        render(plan, found, command="rederive run --cores 8 --configfile c.yaml")
        tick("render")
        for name, (wall, cpu_s) in stages.items():
            print(f"  {name:<28} wall {wall:7.2f} s   CPU {cpu_s:7.2f} s")
        total = sum(w for w, _ in stages.values())
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"  {'total':<28} wall {total:7.2f} s   peak RSS {peak:.0f} MiB")


def bench_start(args) -> None:
    for argv in (["--help"], ["diff", "--help"], ["init", "--help"]):
        walls = []
        for _ in range(args.repeats):
            t = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "rederive.cli", *argv], capture_output=True, check=True
            )
            walls.append(time.perf_counter() - t)
        print(
            f"python -m rederive.cli {' '.join(argv):<14} median {statistics.median(walls):.3f} s "
            f"(min {min(walls):.3f}, max {max(walls):.3f}, {args.repeats} runs)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("what", choices=("init", "start"))
    parser.add_argument("--models", type=int, default=200)
    parser.add_argument("--items", type=int, default=5000)
    parser.add_argument("--tasks", type=int, default=4)
    parser.add_argument("--seed", type=int, default=41)
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    bench_init(args) if args.what == "init" else bench_start(args)


if __name__ == "__main__":
    main()
