"""Time the parts of the 1PL rule and of the item analysis on a seeded Rasch matrix.

Usage::

    .venv/bin/python bench/irt_scale.py --models 1000 --items 10000 --parts mml boot
    flock /tmp/rederive-big.lock /usr/bin/time -v \\
        .venv/bin/python bench/irt_scale.py --models 5000 --items 30000 --parts mml boot items

The matrix is what ``load_scores`` gives the rules: items x models, float64 0/1
(with ``--missing`` a share of cells NaN), abilities and difficulties N(0, 1).
Parts: ``mml`` (the marginal-ML start, :func:`rederive.stats.irt_mml.rasch_mml`),
``pyirt`` (py-irt's SVI from that start, ``--epochs`` steps at most), ``boot``
(the one-step ability bootstrap, ``--n-boot`` replicates), ``items``
(:func:`rederive.stats.items.item_analysis`, its own marginal-ML fit included),
``rule`` (the whole ``fit_benchmark_irt`` computation, :func:`..irt.fit`). Each
prints wall, CPU and the process's peak RSS so far (the matrix included, so run
one part per process under ``/usr/bin/time -v`` for a part's own peak).
Timings are printed, never asserted.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))


def rasch_matrix(n_models: int, n_items: int, *, seed: int = 24, missing: float = 0.0):
    """Items x models float64 0/1 DataFrame (NaN cells with ``missing``), drawn a block at a time."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(0.0, 1.0, n_models)
    b = rng.normal(0.0, 1.0, n_items)
    out = np.empty((n_items, n_models))
    block = max(1, 2_000_000 // n_models)
    for lo in range(0, n_items, block):
        hi = min(lo + block, n_items)
        p = 1.0 / (1.0 + np.exp(b[lo:hi, None] - theta[None, :]))
        out[lo:hi] = rng.random((hi - lo, n_models)) < p
        if missing > 0:
            out[lo:hi][rng.random((hi - lo, n_models)) < missing] = np.nan
    matrix = pd.DataFrame(
        out,
        index=pd.Index([f"i{j:05d}" for j in range(n_items)], name="item_key"),
        columns=pd.Index([f"m{i:04d}" for i in range(n_models)], name="model"),
    )
    return matrix, theta, b


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class Part:
    def __init__(self, name: str):
        self.name = name

    def __enter__(self):
        self.wall, self.cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc):
        wall = time.perf_counter() - self.wall
        cpu = time.process_time() - self.cpu
        print(
            f"{self.name:<28} wall {wall:8.1f} s  cpu {cpu:8.1f} s  peak RSS so far {peak_mib():8.0f} MiB",
            flush=True,
        )


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", type=int, default=1000)
    ap.add_argument("--items", type=int, default=10000)
    ap.add_argument("--missing", type=float, default=0.0)
    ap.add_argument("--parts", nargs="+", default=["mml", "boot", "items"])
    ap.add_argument("--n-boot", type=int, default=2000)
    ap.add_argument("--epochs", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=24)
    ap.add_argument("--pyirt-max-cells", type=int, default=10_000_000)
    args = ap.parse_args(argv)

    from rederive.stats.irt_mml import bootstrap_mml_ability, rasch_mml
    from rederive.studies.benchmark.irt import dichotomise

    with Part("generate"):
        matrix, theta, _ = rasch_matrix(
            args.models, args.items, seed=args.seed, missing=args.missing
        )
    print(
        f"{args.models} models x {args.items} items, missing {args.missing:.3f} "
        f"({matrix.size:,} cells); after generation {peak_mib():.0f} MiB",
        flush=True,
    )
    with Part("dichotomise"):
        responses, _ = dichotomise(matrix)
    mml = None
    if {"mml", "boot"} & set(args.parts):
        with Part("mml"):
            mml = rasch_mml(responses)
        r = np.corrcoef(mml.ability.to_numpy(), theta)[0, 1]
        print(f"  mml: {mml.n_iter} iterations, sigma {mml.sigma:.4f}, r(ability, truth) {r:.4f}")
    if "pyirt" in args.parts:
        from rederive.stats.irt import fit_1pl

        with Part("mml + py-irt SVI"):
            fit = fit_1pl(responses, epochs=args.epochs, lr=0.02, seed=20250107)
        print(
            f"  py-irt: {fit.epochs_used} epochs, {fit.fit_seconds:.1f} s SVI, "
            f"{fit.fit_seconds / max(fit.epochs_used, 1):.3f} s per epoch"
        )
    if "boot" in args.parts:
        with Part(f"bootstrap B={args.n_boot}"):
            boot = bootstrap_mml_ability(responses, mml, n_boot=args.n_boot, seed=20250107)
        print(
            f"  bootstrap: {boot.hessian} information, median se_boot "
            f"{np.nanmedian(boot.table['se_boot']):.4f}"
        )
    if "items" in args.parts:
        from rederive.stats.items import item_analysis

        with Part("item analysis"):
            table = item_analysis(responses)
        print(f"  items: {int((table['n_flags'] > 0).sum())} flagged")
    if "rule" in args.parts:
        from rederive.studies.benchmark.irt import fit

        items = pd.DataFrame({"item_key": matrix.index})
        with Part("fit_benchmark_irt (fit)"):
            ability, _, summary = fit(
                matrix,
                items,
                epochs=args.epochs,
                lr=0.02,
                priors="hierarchical",
                seed=20250107,
                n_boot=args.n_boot,
                level=0.95,
                cluster_by="none",
                pyirt_max_cells=args.pyirt_max_cells,
            )
        note = summary["note"].iloc[0] if "note" in summary else ""
        print(f"  rule: {int(ability['rank'].notna().sum())} ranked; note {note!r}")


if __name__ == "__main__":
    main()
