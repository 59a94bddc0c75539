"""Time the preference kind's Bradley–Terry stages on a synthetic arena (issue 36).

Issue 36's target: 100 models, 1,000,000 games over 1,000 prompts, scores and
1,000-replicate prompt-bootstrap intervals in at most 60 s of CPU on the 2-core
machine. A seeded arena (:func:`rederive.stats.preference.simulate.simulate_arena`,
Davidson ties, a prompt effect) is drawn first (not timed), then each stage is
timed, wall and CPU (``time.process_time``, all threads):

* ``aggregate``: :func:`rederive.stats.preference.games.pair_counts` — games to
  per-prompt pair counts;
* ``point``: :func:`rederive.stats.preference.bradley_terry.fit_bradley_terry`;
* ``bootstrap``: :func:`rederive.stats.preference.bootstrap.bootstrap_bradley_terry`
  (draws, one product per block of replicates, warm-started batched Newton);
* ``ranking``: :func:`rederive.stats.preference.ranking.score_table` and
  :func:`rederive.stats.preference.ranking.pairwise_table` (all pairs, BH) and
  :func:`rederive.stats.preference.ranking.rank_table`.

Example (bench/README.md)::

    .venv/bin/python bench/preference_scale.py --models 100 --games 1000000 \\
        --prompts 1000 --n-boot 1000
"""

from __future__ import annotations

import argparse
import os
import resource
import time

# One BLAS thread, as every rule job runs (rederive.runner): OpenBLAS threads on
# this shared 2-core machine make 100 x 100 factorisations 300 times slower.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np


def timed(label, fn, rows):
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    rows.append((label, time.perf_counter() - wall, time.process_time() - cpu))
    print(f"{label:10s} wall {rows[-1][1]:7.2f} s   cpu {rows[-1][2]:7.2f} s", flush=True)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", type=int, default=100)
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--prompts", type=int, default=1000)
    parser.add_argument("--n-boot", type=int, default=1000)
    parser.add_argument("--ties", default="half")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    from rederive.stats.preference.bootstrap import bootstrap_bradley_terry
    from rederive.stats.preference.bradley_terry import fit_bradley_terry
    from rederive.stats.preference.games import pair_counts
    from rederive.stats.preference.ranking import pairwise_table, rank_table, score_table
    from rederive.stats.preference.simulate import simulate_arena

    games, truth = simulate_arena(
        args.models,
        args.games,
        args.prompts,
        rng=np.random.default_rng(args.seed),
        tie_nu=0.3,
        prompt_sd=0.3,
    )
    rows = []
    counts = timed("aggregate", lambda: pair_counts(games), rows)
    fit = timed("point", lambda: fit_bradley_terry(counts, ties=args.ties), rows)
    boot = timed(
        "bootstrap",
        lambda: bootstrap_bradley_terry(
            counts, ties=args.ties, n_boot=args.n_boot, seed=args.seed, fit=fit
        ),
        rows,
    )

    def rank():
        scores = score_table(boot, counts)
        pairs = pairwise_table(boot, fdr_q=0.05)
        return rank_table(scores, pairs)

    timed("ranking", rank, rows)
    total_wall = sum(r[1] for r in rows)
    total_cpu = sum(r[2] for r in rows)
    print(f"{'total':10s} wall {total_wall:7.2f} s   cpu {total_cpu:7.2f} s")
    err = np.abs(fit.beta - truth).max()
    print(
        f"models {args.models}, games {args.games:,}, prompts {args.prompts:,}, "
        f"pairs {counts.n_pairs:,}, replicates {args.n_boot} ({boot.n_failed} failed), "
        f"max |beta - truth| {err:.3f}, peak RSS "
        f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB"
    )


if __name__ == "__main__":
    main()
