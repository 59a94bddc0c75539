"""Cost of the sampling statistics at leaderboard size: counts, table, comparisons.

Usage::

    .venv/bin/python bench/sampling_scale.py                          # 200 x 20,000 x 4
    .venv/bin/python bench/sampling_scale.py --models 50 --items 5000 --epochs 8

Seeded Rasch-like 0/1 grades for ``--models`` × ``--items`` × ``--epochs``
samples, with an extracted answer per sample (the right one, or one of three
wrong ones), as one long frame; then, timed one after the other with the peak
RSS of the process: :func:`rederive.stats.sampling.sample_counts`,
:func:`~rederive.stats.sampling.sampling_table` (pass@k, pass^k, maj@k at k = 1,
2, 4 and avg@n; B = ``--n-boot``, then without the bootstrap columns),
:func:`~rederive.stats.sampling.sampling_pairwise`
and :func:`~rederive.stats.sampling.sampling_ranking` of pass@k at k = 2 (the
neighbour family beyond 30 models, as the benchmark's default). Nothing is asserted.
"""

import argparse
import resource
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))

from rederive.stats.sampling import (  # noqa: E402
    PASS_AT_K,
    sample_counts,
    sampling_pairwise,
    sampling_ranking,
    sampling_table,
)


def peak_gib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def long_frame(n_models: int, n_items: int, epochs: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    ability = rng.normal(0, 1, n_models)
    difficulty = rng.normal(0, 1.5, n_items)
    m, i, e = np.meshgrid(np.arange(n_models), np.arange(n_items), np.arange(epochs), indexing="ij")
    m, i, e = m.ravel(), i.ravel(), e.ravel()
    p = 1 / (1 + np.exp(-(ability[m] - difficulty[i])))
    correct = (rng.random(m.size) < p).astype(np.int8)
    wrong = rng.integers(1, 4, m.size)
    answer = np.where(correct == 1, 0, wrong)
    models = np.array([f"model-{j:04d}" for j in range(n_models)], dtype=object)
    items = np.array([f"item-{j:06d}" for j in range(n_items)], dtype=object)
    answers = np.array(["42", "41", "43", "44"], dtype=object)
    return pd.DataFrame(
        {
            "model": models[m],
            "item_id": items[i],
            "epoch": e.astype(np.int16),
            "correct": correct,
            "answer": answers[answer],
        }
    )


def timed(label: str, fn):
    start = time.perf_counter()
    out = fn()
    print(f"  {label}: {time.perf_counter() - start:.1f} s (peak RSS {peak_gib():.2f} GiB)")
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=200)
    parser.add_argument("--items", type=int, default=20000)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--n-boot", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=35)
    args = parser.parse_args(argv)
    long = long_frame(args.models, args.items, args.epochs, args.seed)
    print(
        f"{args.models} models x {args.items:,} items x {args.epochs} epochs = "
        f"{len(long):,} samples (peak RSS {peak_gib():.2f} GiB)"
    )
    frames = [long]
    del long
    counts = timed("sample_counts", lambda: sample_counts(frames.pop()))
    ks = [k for k in (1, 2, 4) if k <= args.epochs]
    table = timed(
        f"sampling_table (3 metrics x k = {ks} + avg@n, B = {args.n_boot})",
        lambda: sampling_table(counts, ks=ks, n_boot=args.n_boot, seed=args.seed),
    )
    timed(
        "sampling_table without the bootstrap columns (n_boot = 0)",
        lambda: sampling_table(counts, ks=ks, n_boot=0, seed=args.seed),
    )
    family = dict(all_pairs_up_to=30, neighbours=2)
    pairs = timed(
        "sampling_pairwise (pass@k, k = 2)",
        lambda: sampling_pairwise(
            counts, PASS_AT_K, 2, n_boot=args.n_boot, seed=args.seed, fdr_q=0.05, min_n=20, **family
        ),
    )
    timed(
        "sampling_ranking (pass@k, k = 2)",
        lambda: sampling_ranking(
            counts, pairs, PASS_AT_K, 2, n_boot=args.n_boot, seed=args.seed, min_n=20
        ),
    )
    print(f"  rows: sampling.csv {len(table):,}, pairs {len(pairs):,}")


if __name__ == "__main__":
    main()
