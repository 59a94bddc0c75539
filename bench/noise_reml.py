"""REML against the moments for unbalanced epochs: accuracy, and the cost at leaderboard size.

Usage::

    .venv/bin/python bench/noise_reml.py                      # both parts
    .venv/bin/python bench/noise_reml.py --part accuracy --reps 1000
    .venv/bin/python bench/noise_reml.py --part speed --models 200 --items 20000

``accuracy``: per replication, items with ``p_i ~ Beta(2, 3)`` (and a U-shaped
``Beta(0.5, 0.5)``), epochs ``K_i`` drawn from 1..8 (unbalanced), 0/1 grades;
both estimators of :mod:`rederive.stats.noise` (``moments``, ``REML``) against the
truth ``σ²_between = Var(p)``, ``σ²_within = E[p (1 − p)]``: bias and RMSE.

``speed``: the noise table of ``--models`` models × ``--items`` items with
epochs 1..8 (unbalanced: REML everywhere), the pairs of the neighbour family
(:mod:`rederive.stats.family`, 2 neighbours and the top, as the benchmark uses
beyond ``all_pairs_up_to``) or all pairs (``--all-pairs``); and statsmodels'
``MixedLM`` REML fit of one model (what the exact estimator replaces), stopped
after ``--mixedlm-timeout`` seconds. Nothing is asserted.
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))

from rederive.stats.family import comparison_family  # noqa: E402
from rederive.stats.noise import (  # noqa: E402
    item_matrices_from_codes,
    item_summary,
    model_components,
    table_from_matrices,
)


def accuracy(reps: int, n_items: int, seed: int) -> None:
    print(f"accuracy: {reps} replications of {n_items} items, epochs uniform on 1..8")
    print("| p_i | estimator | between bias | between RMSE | within bias | within RMSE |")
    print("|---|---|---:|---:|---:|---:|")
    for a, b in ((2.0, 3.0), (0.5, 0.5)):
        mean = a / (a + b)
        true_between = a * b / ((a + b) ** 2 * (a + b + 1))
        true_within = mean - (true_between + mean**2)
        rng = np.random.default_rng(seed)
        got = {"moments": [], "REML": []}
        for _ in range(reps):
            p = rng.beta(a, b, n_items)
            k = rng.integers(1, 9, n_items)
            item = np.repeat(np.arange(n_items), k)
            y = (rng.random(item.size) < p[item]).astype(float)
            summary = item_summary(pd.DataFrame({"model": "m", "item": item, "correct": y}))
            for estimator in got:
                c = model_components(summary, "m", estimator=estimator)
                got[estimator].append((c.var_between, c.var_within))
        for estimator, values in got.items():
            v = np.array(values)
            bias = v.mean(axis=0) - (true_between, true_within)
            rmse = np.sqrt(((v - (true_between, true_within)) ** 2).mean(axis=0))
            print(
                f"| Beta({a:g}, {b:g}) | {estimator} | {bias[0]:+.5f} | {rmse[0]:.5f} | "
                f"{bias[1]:+.5f} | {rmse[1]:.5f} |"
            )


def speed(n_models: int, n_items: int, all_pairs: bool, seed: int, timeout: float) -> None:
    rng = np.random.default_rng(seed)
    k = rng.integers(1, 9, (n_models, n_items))
    model = np.repeat(np.arange(n_models), k.sum(axis=1)).astype(np.int32)
    item = np.concatenate([np.repeat(np.arange(n_items), k[j]) for j in range(n_models)])
    ability = rng.normal(0, 1, n_models)
    difficulty = rng.normal(0, 1.5, n_items)
    p = 1 / (1 + np.exp(-(ability[model] - difficulty[item])))
    correct = (rng.random(model.size) < p).astype(float)
    models = [f"m{j:04d}" for j in range(n_models)]
    items = np.array([f"i{i:06d}" for i in range(n_items)])
    print(f"speed: {n_models} models x {n_items} items, {model.size:,} epochs (1..8 per item)")
    start = time.perf_counter()
    mats = item_matrices_from_codes(model, item.astype(np.int32), correct, models, items)
    print(f"  per-cell summary: {time.perf_counter() - start:.1f} s")
    if all_pairs:
        pairs = None
        n_pairs = n_models * (n_models - 1) // 2
    else:
        family = comparison_family(n_models, all_pairs_up_to=0, neighbours=2)
        pairs = [(models[i], models[j]) for i, j in zip(family.ia, family.ib, strict=True)]
        n_pairs = len(pairs)
    for estimator in ("moments", "REML"):
        start = time.perf_counter()
        table = table_from_matrices(mats, pairs, estimator=estimator)
        took = time.perf_counter() - start
        print(f"  noise table, {estimator}: {took:.1f} s ({n_models} models, {n_pairs:,} pairs)")
    assert len(table) == n_models + n_pairs
    import statsmodels.formula.api as smf

    one = pd.DataFrame({"y": correct[model == 0], "item": item[model == 0]})
    start = time.perf_counter()
    try:
        import signal

        def stop(*_):
            raise TimeoutError

        signal.signal(signal.SIGALRM, stop)
        signal.alarm(int(timeout))
        fit = smf.mixedlm("y ~ 1", one, groups=one["item"]).fit(reml=True)
        signal.alarm(0)
        took = time.perf_counter() - start
        ours = table_from_matrices(mats, [], estimator="REML").iloc[0]
        print(
            f"  statsmodels MixedLM REML, one model ({len(one):,} rows): {took:.1f} s; "
            f"between {float(fit.cov_re.iloc[0, 0]):.6g} vs ours {ours['var_between']:.6g}, "
            f"within {float(fit.scale):.6g} vs ours {ours['var_within']:.6g}"
        )
    except TimeoutError:
        print(f"  statsmodels MixedLM REML, one model ({len(one):,} rows): > {timeout:.0f} s")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=["accuracy", "speed", "both"], default="both")
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--accuracy-items", type=int, default=200)
    parser.add_argument("--models", type=int, default=200)
    parser.add_argument("--items", type=int, default=20000)
    parser.add_argument("--all-pairs", action="store_true")
    parser.add_argument("--mixedlm-timeout", type=float, default=600)
    parser.add_argument("--seed", type=int, default=35)
    args = parser.parse_args(argv)
    if args.part in ("accuracy", "both"):
        accuracy(args.reps, args.accuracy_items, args.seed)
    if args.part in ("speed", "both"):
        speed(args.models, args.items, args.all_pairs, args.seed, args.mixedlm_timeout)


if __name__ == "__main__":
    main()
