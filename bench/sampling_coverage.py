"""Coverage of pass@k and pass^k intervals over items: bootstrap, t, clustered Wilson.

Usage::

    .venv/bin/python bench/sampling_coverage.py [--reps 2000] [--n-boot 999] [--seed 35]
    .venv/bin/python bench/sampling_coverage.py --items 20 --samples 8 --reps 500   # quick

Simulated items: each item's success probability ``p_i`` is drawn from a Beta
distribution (the "spread"), each of its ``N`` samples is correct with
probability ``p_i``; a model's pass@k is then the population value
``1 − E[(1 − p)^k] = 1 − B(a, b + k) / B(a, b)`` and its pass^k
``E[p^k] = B(a + k, b) / B(a, b)`` (exact, items drawn at random). Spreads:

* ``U(0.3, 0.4)``  — agent tasks (τ-bench airline gpt-4o: 21 of 50 tasks
  never pass in 4 trials, 13 always do): mostly all-or-nothing items;
* ``J(0.5, 0.5)``  — the Jeffreys U shape (code benchmarks' per-problem pass rates);
* ``M(2, 3)``      — a moderate, unimodal spread (math with sampling noise).

Per (spread, N samples, n items, replication) it draws one data set, computes
the per-item unbiased estimates at every k = 1..8 with :mod:`rederive.stats.sampling`,
and the 95% intervals of :func:`rederive.stats.sampling.item_intervals`:

* ``bootstrap`` — percentile item bootstrap (``n_boot`` resamples);
* ``t``         — mean ± t_{n−1} · SD/√n, clipped to [0, 1] (the delta method:
  the estimate is a mean, its linearisation is exact);
* ``wilson``    — the clustered Wilson of :func:`rederive.stats.clustered.clustered_wilson`
  (effective n = R̂(1 − R̂)/SE², at most the samples ``n · N``), the form accuracy
  uses with clusters;
* ``wilson-items`` — the same with the effective n at most the items ``n`` (a
  per-item estimate in [0, 1] has variance at most R̂(1 − R̂), so this is the
  Wilson interval of ``n`` Bernoulli items: never narrower than the data allow
  near 0 or 1, wider than needed where samples average out within items);
* ``wilson-hybrid`` — ``wilson`` where the SE is positive, ``wilson-items``
  where it is 0 (every per-item estimate equal, typically all 0 for a rare
  pass^k): then the data carry no design effect and each item counts once.

It prints, per n and method, the coverage (share of intervals containing the
truth) at each k averaged over spreads and N, the worst cell, and the mean
width; its Monte-Carlo SE is ``sqrt(cov (1 − cov) / reps)`` (0.005 at 2,000).
Figures are in bench/README.md ("Coverage of pass@k and pass^k intervals").
Nothing is asserted.
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy.special import betaln

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))

from rederive.stats.bootstrap import rng_for  # noqa: E402
from rederive.stats.clustered import clustered_wilson  # noqa: E402
from rederive.stats.sampling import item_intervals, pass_at_k, pass_hat_k  # noqa: E402

SPREADS = {"U(0.3,0.4)": (0.3, 0.4), "J(0.5,0.5)": (0.5, 0.5), "M(2,3)": (2.0, 3.0)}
ITEMS = (20, 50, 200)
SAMPLES = (8, 16)
KS = tuple(range(1, 9))
METHODS = ("bootstrap", "t", "wilson", "wilson-items", "wilson-hybrid")
LEVEL = 0.95


def truth(a: float, b: float, metric: str, k: int) -> float:
    if metric == "pass@k":
        return 1.0 - float(np.exp(betaln(a, b + k) - betaln(a, b)))
    return float(np.exp(betaln(a + k, b) - betaln(a, b)))


def one_setting(a, b, n_items, n_samples, reps, n_boot, seed, spread):
    """Hits and widths, shape (methods, metrics, ks), summed over replications."""
    columns = [(metric, k) for metric in ("pass@k", "pass^k") for k in KS]
    table = {
        (metric, k): (pass_at_k if metric == "pass@k" else pass_hat_k)(
            n_samples, np.arange(n_samples + 1), k
        )
        for metric, k in columns
    }
    target = np.array([truth(a, b, metric, k) for metric, k in columns])
    hits = np.zeros((len(METHODS), len(columns)))
    widths = np.zeros_like(hits)
    rng = rng_for(seed, "data", spread, n_items, n_samples)
    for rep in range(reps):
        p = rng.beta(a, b, n_items)
        c = rng.binomial(n_samples, p)
        values = np.column_stack([table[col][c] for col in columns])
        got = item_intervals(
            values, n_boot=n_boot, rng=rng_for(seed, "boot", spread, n_items, n_samples, rep)
        )
        bounds = {
            "bootstrap": (got["boot_low"].to_numpy(), got["boot_high"].to_numpy()),
            "t": (got["t_low"].to_numpy(), got["t_high"].to_numpy()),
        }
        for method, cap in (("wilson", n_items * n_samples), ("wilson-items", n_items)):
            bounds[method] = clustered_wilson(
                got["estimate"], got["se"], np.full(len(columns), cap), got["n_clusters"]
            )
        # With SE 0 (every per-item estimate equal) the data say nothing of the
        # design effect: the hybrid then credits one Bernoulli trial per item.
        rows = np.where(got["se"].to_numpy() > 0, n_items * n_samples, n_items)
        bounds["wilson-hybrid"] = clustered_wilson(
            got["estimate"], got["se"], rows, got["n_clusters"]
        )
        for m, method in enumerate(METHODS):
            low, high = bounds[method]
            hits[m] += (low <= target) & (target <= high)
            widths[m] += high - low
    return hits, widths


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2000)
    parser.add_argument("--n-boot", type=int, default=999)
    parser.add_argument("--seed", type=int, default=35)
    parser.add_argument("--items", type=int, nargs="+", default=list(ITEMS))
    parser.add_argument("--samples", type=int, nargs="+", default=list(SAMPLES))
    args = parser.parse_args(argv)
    start = time.time()
    results = {}
    for n_items in args.items:
        for n_samples in args.samples:
            for spread, (a, b) in SPREADS.items():
                hits, widths = one_setting(
                    a, b, n_items, n_samples, args.reps, args.n_boot, args.seed, spread
                )
                results[(n_items, n_samples, spread)] = (hits / args.reps, widths / args.reps)
    print(
        f"reps {args.reps}, B = {args.n_boot}, seed {args.seed}, "
        f"{time.time() - start:.0f} s; coverage of 95% intervals (MC SE "
        f"{np.sqrt(0.95 * 0.05 / args.reps):.4f})"
    )
    for metric_index, metric in enumerate(("pass@k", "pass^k")):
        cols = slice(metric_index * len(KS), (metric_index + 1) * len(KS))
        print(f"\n{metric}: coverage by k, mean over spreads and N (worst cell in brackets)")
        print("| n | method | " + " | ".join(f"k={k}" for k in KS) + " | worst | mean width |")
        print("|---:|---|" + "---:|" * (len(KS) + 2))
        for n_items in args.items:
            for m, method in enumerate(METHODS):
                cells = np.array(
                    [
                        results[(n_items, s, spread)][0][m, cols]
                        for s in args.samples
                        for spread in SPREADS
                    ]
                )
                width = np.mean(
                    [
                        results[(n_items, s, spread)][1][m, cols]
                        for s in args.samples
                        for spread in SPREADS
                    ]
                )
                worst = cells.min()
                where = np.unravel_index(cells.argmin(), cells.shape)
                setting = [(s, spread) for s in args.samples for spread in SPREADS][where[0]]
                print(
                    f"| {n_items} | {method} | "
                    + " | ".join(f"{v:.3f}" for v in cells.mean(axis=0))
                    + f" | {worst:.3f} (N={setting[0]}, {setting[1]}, k={KS[where[1]]}) "
                    f"| {width:.3f} |"
                )


if __name__ == "__main__":
    main()
