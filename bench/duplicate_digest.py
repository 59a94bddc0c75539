"""Time the benchmark's duplicate check (``model_digests``) on a synthetic warehouse.

Usage::

    .venv/bin/python bench/duplicate_digest.py --models 1000 --items 30000
    .venv/bin/python bench/duplicate_digest.py --models 1000 --items 30000 --copies

Writes a ``responses`` table of ``models x items`` graded rows (seeded; model m
right with probability 0.3 + 0.4 m / models) into a scratch DuckDB file and
times :func:`rederive.studies.benchmark.quality.model_digests` on it, read-only
under the build's memory limit as the rule reads it. ``--copies`` gives every
model the same rows (the worst case: every model has a twin, so the distinct
items of each are counted too). Nothing is asserted: timings depend on the machine.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import duckdb

from rederive.studies.benchmark.quality import model_digests


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=1000)
    parser.add_argument("--items", type=int, default=30000)
    parser.add_argument("--copies", action="store_true", help="every model the same rows")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "bench.duckdb"
        score = "i % 3 = 0" if args.copies else f"random() < 0.3 + 0.4 * m / {args.models}"
        with duckdb.connect(str(path)) as con:
            con.execute("SELECT setseed(0.25)")
            con.execute(
                f"""
                CREATE TABLE responses AS
                SELECT 'run-' || m AS run, 'model-' || m AS model, 'task:' || i AS item_key,
                       0::BIGINT AS epoch, ({score})::DOUBLE AS correct
                FROM range({args.models}) t(m), range({args.items}) s(i)
                """
            )
        wall, cpu = time.perf_counter(), time.process_time()
        models = model_digests(path)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    twins = int(models.duplicated("digest", keep=False).sum())
    print(
        f"{args.models:,} models x {args.items:,} items ({args.models * args.items / 1e6:.0f} M "
        f"rows): {wall:.1f} s wall, {cpu:.1f} s CPU of this process; models with a twin: {twins:,}"
    )


if __name__ == "__main__":
    main()
