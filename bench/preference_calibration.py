"""Calibration of the preference kind's paired test of two Bradley–Terry scores.

Simulated arenas (:func:`rederive.stats.preference.simulate.simulate_arena`) with
a block of models of equal true strength: every pair inside the block is a true
null. For each arena the pairs are tested three ways at alpha = 0.05:

* ``prompt``: Wald z with the prompt-bootstrap SE of the paired difference (what
  :func:`rederive.stats.preference.ranking.pairwise_table` does);
* ``game``: the same with a game-level bootstrap (item ids dropped: the arena
  notebooks' and Arena-Hard's resampling unit);
* ``model``: Wald z with the model-based covariance
  (:func:`rederive.stats.preference.bradley_terry.model_covariance`).

The share of null pairs rejected is printed per method and prompt effect
(``--prompt-sd``; 0 means games are independent), with its binomial standard
error. A calibrated test rejects about 5 %.

Example (bench/README.md)::

    .venv/bin/python bench/preference_calibration.py --arenas 200 --prompt-sd 0 0.5
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np
from scipy import stats


def null_pvalues(games, null_models, n_boot, seed):
    from rederive.stats.preference.bootstrap import bootstrap_bradley_terry
    from rederive.stats.preference.bradley_terry import fit_bradley_terry, model_covariance
    from rederive.stats.preference.games import pair_counts

    out = {}
    for label, frame in (("prompt", games), ("game", games.drop(columns="item_id"))):
        counts = pair_counts(frame)
        boot = bootstrap_bradley_terry(counts, n_boot=n_boot, seed=seed)
        idx = [counts.models.index(m) for m in null_models]
        ia, ib = np.triu_indices(len(idx), 1)
        ia, ib = np.array(idx)[ia], np.array(idx)[ib]
        diff = boot.fit.beta[ia] - boot.fit.beta[ib]
        se = np.nanstd(boot.replicates[:, ia] - boot.replicates[:, ib], axis=0, ddof=1)
        out[label] = 2 * stats.norm.sf(np.abs(diff / se))
        if label == "prompt":
            fit = fit_bradley_terry(counts)
            cov = model_covariance(fit, counts)
            var = cov[ia, ia] + cov[ib, ib] - 2 * cov[ia, ib]
            out["model"] = 2 * stats.norm.sf(np.abs(diff / np.sqrt(var)))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--arenas", type=int, default=200)
    parser.add_argument("--models", type=int, default=12)
    parser.add_argument("--null-block", type=int, default=5)
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--prompts", type=int, default=200)
    parser.add_argument("--n-boot", type=int, default=200)
    parser.add_argument("--prompt-sd", type=float, nargs="+", default=[0.0, 0.5])
    args = parser.parse_args()

    from rederive.stats.preference.simulate import simulate_arena

    print(
        f"{args.arenas} arenas x {args.models} models, {args.games:,} games over "
        f"{args.prompts} prompts; {args.null_block} models of equal strength "
        f"({args.null_block * (args.null_block - 1) // 2} null pairs each); B = {args.n_boot}"
    )
    for sd in args.prompt_sd:
        rejected = {"prompt": [], "game": [], "model": []}
        for arena in range(args.arenas):
            rng = np.random.default_rng([arena, int(sd * 1000)])
            strengths = np.concatenate(
                [np.zeros(args.null_block), rng.normal(0, 1, args.models - args.null_block)]
            )
            games, _ = simulate_arena(
                args.models,
                args.games,
                args.prompts,
                rng=rng,
                strengths=strengths,
                tie_nu=0.3,
                prompt_sd=sd,
            )
            null = [f"m{k:03d}" for k in range(args.null_block)]
            for label, p in null_pvalues(games, null, args.n_boot, arena).items():
                rejected[label].extend(p < 0.05)
        for label, flags in rejected.items():
            share = np.mean(flags)
            se = np.sqrt(share * (1 - share) / len(flags))
            print(
                f"prompt_sd {sd:4.2f}  {label:6s}  rejected {100 * share:5.1f} % "
                f"(+/- {100 * se:.1f}) of {len(flags)} null pairs"
            )


if __name__ == "__main__":
    main()
