"""Cost of the sampling rule's job at scale: the warehouse's samples with their
answers, the per-model reasons, and the table.

Usage::

    .venv/bin/python bench/sampling_workflow.py                         # 200 x 5,000 x 4
    .venv/bin/python bench/sampling_workflow.py --models 50 --items 2000 --epochs 8

Seeded Rasch-like 0/1 grades for ``--models`` × ``--items`` × ``--epochs``
samples with an extracted answer each (the right one, or one of three wrong
ones), written as one labelled Parquet file and built into a warehouse the way
``build_benchmark_warehouse`` does (outside the timings). Then, timed one after
the other with the peak RSS of the process: ``load_epochs`` without and with the
answers, :func:`rederive.studies.benchmark.sampling.gather` (fractional grades,
answer conflicts, format notes, counts) and
:func:`~rederive.studies.benchmark.sampling.table` (pass@k, pass^k, maj@k at
k = 1, 2, 4 and avg@n) with B = ``--n-boot`` — the job
``analyse_benchmark_sampling`` runs. Nothing is asserted.
"""

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))

from rederive.io import warehouse  # noqa: E402
from rederive.studies.benchmark import sampling as study  # noqa: E402
from rederive.studies.benchmark import warehouse as wh  # noqa: E402
from rederive.studies.benchmark.common import load_epochs  # noqa: E402


def peak_gib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def labelled(n_models: int, n_items: int, epochs: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    ability = rng.normal(0, 1, n_models)
    difficulty = rng.normal(0, 1.5, n_items)
    m, i, e = np.meshgrid(np.arange(n_models), np.arange(n_items), np.arange(epochs), indexing="ij")
    m, i, e = m.ravel(), i.ravel(), e.ravel()
    p = 1 / (1 + np.exp(-(ability[m] - difficulty[i])))
    correct = (rng.random(m.size) < p).astype(float)
    wrong = rng.integers(0, 3, m.size)
    answer = np.where(correct == 1, "right", np.array(["w0", "w1", "w2"])[wrong])
    models = np.array([f"model-{j:04d}" for j in range(n_models)], dtype=object)
    return pd.DataFrame(
        {
            "run": models[m],
            "format": "long",
            "model": models[m],
            "task": "bench",
            "item_id": pd.Series(i).astype(str).to_numpy(),
            "category": None,
            "correct": correct,
            "epoch": e + 1,
            "source_file": "bench.parquet",
            "line": np.arange(m.size) + 1,
            "doc_hash": None,
            "response": None,
            "answer": answer,
            "metric": "correct",
        }
    )


def timed(label: str, function):
    start = time.perf_counter()
    value = function()
    print(f"  {label}: {time.perf_counter() - start:.1f} s (peak RSS {peak_gib():.2f} GiB)")
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=200)
    parser.add_argument("--items", type=int, default=5000)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--n-boot", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=35)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sampling-bench-") as scratch:
        frame = labelled(args.models, args.items, args.epochs, args.seed)
        path = Path(scratch) / "labelled.parquet"
        frame.to_parquet(path, index=False)
        n = len(frame)
        del frame
        db = Path(scratch) / "bench.duckdb"
        with warehouse.building(db) as con:
            warehouse.create_stacked(con, "responses", wh.responses_sql([str(path)]))
            warehouse.write_frames(con, wh.build_in(con, None, "require_equal"))
        print(
            f"{args.models} models x {args.items:,} items x {args.epochs} epochs = {n:,} samples "
            f"in the warehouse (peak RSS {peak_gib():.2f} GiB)"
        )
        timed("load_epochs without answers", lambda: load_epochs(db, scored_only=True, zeros=False))
        epochs = timed(
            "load_epochs with answers",
            lambda: load_epochs(db, scored_only=True, zeros=False, answers=True),
        )
        long = timed("the long frame (Epochs.frame)", epochs.frame)
        items = warehouse.query(db, "SELECT item_key FROM items")["item_key"].tolist()
        formats = dict.fromkeys(long["model"].unique(), "long")
        samples = timed(
            "gather (grades, answer conflicts, notes, counts)",
            lambda: study.gather(long, items, formats),
        )
        table = timed(
            f"table (3 metrics x k = [1, 2, 4] + avg@n, B = {args.n_boot})",
            lambda: study.table(
                samples, ks=[1, 2, 4], n_boot=args.n_boot, seed=1, level=0.95, interval="wilson"
            ),
        )
        print(f"  rows: sampling.csv {len(table):,}")


if __name__ == "__main__":
    main()
