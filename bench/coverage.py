"""Coverage of cluster intervals with few clusters: percentile bootstrap vs clustered t.

Usage::

    .venv/bin/python bench/coverage.py [--reps 2000] [--n-boot 999] [--seed 22]

Simulated clustered 0/1 data, two models scored on the same items. Cluster sizes
are drawn uniformly from 2..8 (mean 5, like SaliTrap's seed clusters). Each
model's item score is ``1[θ_m + u_c + e_i + ε_mi > 0]`` with a cluster effect
``u_c ~ N(0, ICC)``, an item effect ``e_i ~ N(0, (1 − ICC)/2)`` shared by both
models (so the pair is correlated, as real model pairs are) and noise
``ε ~ N(0, (1 − ICC)/2)``: the latent variance is 1, so the true rate is exactly
``Φ(θ_m)`` and ``ICC`` is the latent intra-cluster correlation. Model A has rate
``p``, model B ``p − 0.05``; the paired difference is exactly 0.05.

Per setting (clusters C × ICC × p) and replication, it computes 95% intervals for
the rate of A and for the paired difference A − B:

* ``percentile`` (rate and difference): the percentile cluster bootstrap the
  studies used (:func:`rederive.stats.bootstrap.bootstrap_ratio`, ``n_boot``
  resamples of clusters, both models in one resample);
* ``wilson-t`` (rate; the method the rate tables use now): the Wilson score
  interval on the effective n from the linearised cluster-robust SE, t with
  C − 1 df (:func:`rederive.stats.clustered.clustered_wilson`);
* ``wald-t`` (rate): R̂ ± t_{C−1} · SE, the same SE, symmetric;
* ``t`` (difference; the method the pair tables use now): d̂ ± t_{C−1} · SE with
  the C/(C−1) factor (:mod:`rederive.stats.clustered`);
* ``z`` (difference): the same SE with the normal quantile (no df correction).

and prints the share of 95% intervals that contain the truth, with its
Monte-Carlo standard error ``sqrt(cov (1 − cov) / reps)``. Figures are in
bench/README.md ("Coverage with few clusters").
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))

from rederive.stats.bootstrap import bootstrap_ratio, percentile_ci, rng_for  # noqa: E402
from rederive.stats.clustered import (  # noqa: E402
    clustered_ratio,
    clustered_wilson,
    paired_differences,
    t_interval,
)

CLUSTERS = (20, 30, 50, 100, 300)
ICCS = (0.1, 0.3)
RATES = (0.7, 0.9)
DELTA = 0.05
LEVEL = 0.95
#: (quantity, method) columns in print order.
COLUMNS = (
    ("rate", "percentile"),
    ("rate", "wilson-t"),
    ("rate", "wald-t"),
    ("diff", "percentile"),
    ("diff", "t"),
    ("diff", "z"),
)


def simulate(rng, n_clusters: int, icc: float, p: float):
    """One data set: (scores of A and B as an (n, 2) array, cluster label per row)."""
    sizes = rng.integers(2, 9, n_clusters)
    cluster = np.repeat(np.arange(n_clusters), sizes)
    n = cluster.size
    rest = (1.0 - icc) / 2.0
    shared = rng.normal(0, np.sqrt(icc), n_clusters)[cluster] + rng.normal(0, np.sqrt(rest), n)
    theta = stats.norm.ppf([p, p - DELTA])
    noise = rng.normal(0, np.sqrt(rest), (n, 2))
    return (theta + shared[:, None] + noise > 0).astype(float), cluster


def covers(lo, hi, truth) -> np.ndarray:
    return (lo <= truth) & (truth <= hi)


def one_setting(n_clusters, icc, p, *, reps, n_boot, seed):
    """Coverage per (quantity, method) of :data:`COLUMNS` for one setting."""
    rng = rng_for(seed, "coverage", n_clusters, icc, p)
    hits = dict.fromkeys(COLUMNS, 0)
    z = stats.norm.ppf(0.5 + LEVEL / 2)
    for _ in range(reps):
        scores, cluster = simulate(rng, n_clusters, icc, p)
        ones = np.ones_like(scores)
        boot = bootstrap_ratio(scores, ones, clusters=cluster, n_boot=n_boot, rng=rng)
        lo, hi = percentile_ci(boot.replicates, LEVEL)
        d_lo, d_hi = percentile_ci(boot.replicates[:, [0]] - boot.replicates[:, [1]], LEVEL)
        fit = clustered_ratio(scores, ones, clusters=cluster)
        est, se, c = fit.estimate[:1], fit.se[:1], fit.n_clusters[:1]
        w_lo, w_hi = clustered_wilson(est, se, [scores.shape[0]], c, LEVEL)
        t_lo, t_hi = t_interval(est, se, c, LEVEL)
        diff, d_se, d_c = paired_differences(fit, [0], [1])
        td_lo, td_hi = t_interval(diff, d_se, d_c, LEVEL)
        intervals = {
            ("rate", "percentile"): (lo[0], hi[0]),
            ("rate", "wilson-t"): (w_lo[0], w_hi[0]),
            ("rate", "wald-t"): (t_lo[0], t_hi[0]),
            ("diff", "percentile"): (d_lo[0], d_hi[0]),
            ("diff", "t"): (td_lo[0], td_hi[0]),
            ("diff", "z"): (diff[0] - z * d_se[0], diff[0] + z * d_se[0]),
        }
        for (quantity, method), (a, b) in intervals.items():
            truth = p if quantity == "rate" else DELTA
            hits[quantity, method] += bool(covers(a, b, truth))
    return {key: value / reps for key, value in hits.items()}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2000)
    parser.add_argument("--n-boot", type=int, default=999)
    parser.add_argument("--seed", type=int, default=22)
    parser.add_argument("--clusters", type=int, nargs="+", default=list(CLUSTERS))
    args = parser.parse_args(argv)
    start = time.perf_counter()
    print(
        f"95% interval coverage, {args.reps} replications per setting, "
        f"bootstrap B = {args.n_boot}; cluster sizes 2..8; A − B = {DELTA} "
        f"(MC error = sqrt(cov(1 − cov)/reps), ±0.005 at 0.95 and 2000 reps)"
    )
    print(f"{'C':>4} {'ICC':>4} {'p':>4} | " + " | ".join(f"{q} {m:>10}" for q, m in COLUMNS))
    worst = dict.fromkeys(COLUMNS, 1.0)
    for n_clusters in args.clusters:
        for icc in ICCS:
            for p in RATES:
                cov = one_setting(
                    n_clusters, icc, p, reps=args.reps, n_boot=args.n_boot, seed=args.seed
                )
                cells = []
                for key in COLUMNS:
                    c = cov[key]
                    worst[key] = min(worst[key], c)
                    cells.append(f"{c:.3f} ± {np.sqrt(c * (1 - c) / args.reps):.3f}")
                print(f"{n_clusters:>4} {icc:>4} {p:>4} | " + " | ".join(cells), flush=True)
    print("worst setting: " + ", ".join(f"{q} {m} {v:.3f}" for (q, m), v in worst.items()))
    print(f"elapsed {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
