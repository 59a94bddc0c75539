"""Analytic against simulated power, on the bundled data (a check, printed).

Usage::

    .venv/bin/python bench/power_simulation.py [--n-sim 2000] [--figure out.png]

Three designs, each resampled with replacement at several n (the observed paired
data play the truth, the observed difference the true difference):

* unclustered: two ChemBench models (REAL data), items resampled;
* clustered: two SaliTrap models' control TAR (SIMULATED data), seed clusters
  resampled, ratio estimates with the delta-method clustered SE, tested as the
  study tests them (clustered Wald against t with C − 1 df) and checked against
  the t form, down to 10 clusters where the z form is off;
* BH: all 231 ChemBench model pairs tested together and BH-adjusted at q = 0.05,
  average power against the Genovese–Wasserman / Jung approximation.

``--figure`` also draws analytic curves and simulated points (PNG + PDF).
``--scale N`` instead times :func:`rederive.stats.power.comparison_power` on N
synthetic comparisons (19,900: all pairs of 200 models) in the z and the t form.
"""

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))

from rederive.stats.bootstrap import rng_for  # noqa: E402
from rederive.stats.power import (  # noqa: E402
    bh_average_power,
    paired_influence,
    power_two_sided,
    resampled_bh_power,
    resampled_power,
    unit_sd,
    unit_totals,
)


def chembench():
    return pd.read_csv(REPO / "raw/benchmark/matrix/chembench.csv", index_col=0)


def salitrap_pair(a="GPT-5.4", b="GPT-5.5"):
    frames = []
    for model in (a, b):
        rows = [json.loads(x) for x in open(REPO / f"raw/salitrap/runs/{model}.jsonl")]
        f = pd.DataFrame(rows)
        f = f[f["condition"] == "control"]
        valid = ~f["skipped"].astype(bool) & f["error"].isna()
        f = f.assign(
            hit=(valid & (f["judge_label"] == "Strict Pass")).astype(float),
            valid=valid.astype(float),
        )
        frames.append(f.set_index("item_id")[["seed_id", "hit", "valid"]])
    fa, fb = frames
    fb = fb.reindex(fa.index)
    return fa["seed_id"].to_numpy(), fa["hit"], fb["hit"], fa["valid"], fb["valid"]


def design_rows(name, totals, delta, sd, ns, n_sim, seed, test="z"):
    rows = []
    for n in ns:
        sim = resampled_power(totals, n, n_sim=n_sim, rng=rng_for(seed, name, str(n)), test=test)
        analytic = power_two_sided(delta, sd, n, test=test)
        rows.append(
            {
                "design": name,
                "test": test,
                "n": n,
                "analytic": analytic,
                "z_form": power_two_sided(delta, sd, n),
                "simulated": sim,
                "mc_se": math.sqrt(max(sim * (1 - sim), 1e-12) / n_sim),
            }
        )
    return rows


def scale_timing(n_pairs: int, n_units: int, seed: int) -> None:
    """Wall time of the power columns of ``n_pairs`` comparisons, z and t forms."""
    import time

    from rederive.stats.power import comparison_power

    rng = np.random.default_rng(seed)
    sd = rng.uniform(30, 70, n_pairs)
    diff = rng.normal(0, 3, n_pairs)
    significant = np.abs(diff) > 2.5
    for test in ("z", "t"):
        start = time.perf_counter()
        comparison_power(
            diff,
            sd,
            np.full(n_pairs, n_units),
            significant,
            alpha=0.05,
            power=0.8,
            fdr_q=0.05,
            relevant_pp=2.0,
            test=test,
        )
        print(
            f"{n_pairs:,} comparisons of {n_units:,} units, {test} form: "
            f"{time.perf_counter() - start:.1f} s"
        )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-sim", type=int, default=2000)
    parser.add_argument("--bh-sim", type=int, default=300)
    parser.add_argument("--seed", type=int, default=20250107)
    parser.add_argument("--figure", help="PNG path; the PDF goes next to it")
    parser.add_argument("--scale", type=int, help="time N synthetic comparisons instead")
    parser.add_argument("--units", type=int, default=20000, help="units per comparison (--scale)")
    args = parser.parse_args(argv)
    if args.scale:
        scale_timing(args.scale, args.units, args.seed)
        return

    cb = chembench()
    a, b = cb["GPT-4o"], cb["Claude-3 (Opus)"]
    sd = unit_sd(paired_influence(a, b))
    rows = design_rows(
        "ChemBench GPT-4o vs Claude-3 (Opus), items (real)",
        unit_totals(a, b),
        a.mean() - b.mean(),
        sd,
        [200, 400, 800, 1500, 2854],
        args.n_sim,
        args.seed,
    )
    seeds, ha, hb, va, vb = salitrap_pair()
    u = paired_influence(ha, hb, va, vb, clusters=seeds)
    rows += design_rows(
        "SaliTrap GPT-5.4 vs GPT-5.5 TAR, seed clusters (simulated)",
        unit_totals(ha, hb, va, vb, clusters=seeds),
        ha.sum() / va.sum() - hb.sum() / vb.sum(),
        unit_sd(u),
        [10, 20, 50, 100, 200, u.size, 600],
        args.n_sim,
        args.seed,
        test="t",
    )
    scores = cb.to_numpy(float)
    ia, ib = np.triu_indices(scores.shape[1], k=1)
    d = scores[:, ia] - scores[:, ib]
    for n in (200, 500, 1000, 2854):
        sim = resampled_bh_power(
            scores, n, n_sim=args.bh_sim, rng=rng_for(args.seed, "bh", str(n)), q=0.05
        ).mean()
        analytic = bh_average_power(d.mean(axis=0), d.std(axis=0, ddof=1), n, q=0.05)
        rows.append(
            {
                "design": "ChemBench all 231 pairs, BH q=0.05, average power (real)",
                "test": "z",
                "n": n,
                "analytic": analytic,
                "z_form": analytic,
                "simulated": sim,
                "mc_se": float("nan"),
            }
        )
    table = pd.DataFrame(rows)
    table["diff"] = table["simulated"] - table["analytic"]
    with pd.option_context("display.width", 140, "display.max_colwidth", 70):
        print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    if args.figure:
        from rederive.plots.power import draw_check

        draw_check(table, args.figure)


if __name__ == "__main__":
    main()
