"""Plan an evaluation: how many items to tell two models apart?

Two ways in, without running the workflow:

``python -m rederive.power --acc-a 0.72 --acc-b 0.68 --corr 0.5``
    from two expected accuracies and the item-level correlation of the two models'
    correctness (0 = unrelated, about 0.3–0.6 for LLMs on one benchmark);

``python -m rederive.power --results results/benchmark [--diff 2]``
    from a finished study folder (its ``tables/power.csv``): the per-unit sd of the
    study's own paired differences, the MDE at its n, and the n needed for ``--diff``
    percentage points (default: the study's ``relevant_pp``).

Paired analytic variance: Miller (2024), arXiv:2411.00640; unpaired reference:
Fleiss, Levin & Paik (2003) §4.2; BH level: Jung (2005). See
:mod:`rederive.stats.power`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from rederive.errors import InputError
from rederive.io.names import read_csv
from rederive.stats.power import (
    binary_difference_sd,
    mde,
    n_needed,
    power_two_sided,
    unpaired_two_proportion_n,
)


def plan_from_accuracies(
    acc_a: float,
    acc_b: float,
    corr: float,
    *,
    power: float,
    alpha: float,
    n: int | None,
    pairs: int = 1,
) -> str:
    """Text report: items needed (paired and unpaired), MDE and power at ``n``."""
    sd = binary_difference_sd(acc_a, acc_b, corr)
    delta = acc_a - acc_b
    lines = [
        "Paired comparison of two models on the same items (Miller 2024, arXiv:2411.00640)",
        f"  accuracies {100 * acc_a:.1f}% vs {100 * acc_b:.1f}% "
        f"(difference {100 * delta:+.1f} pp), item-level correlation {corr:.2f}",
        f"  per-item sd of the paired difference: {sd:.4f}",
    ]
    if delta == 0:
        lines.append("  the accuracies are equal: no sample size detects a zero difference")
    else:
        paired = int(n_needed(delta, sd, alpha, power))
        unpaired = unpaired_two_proportion_n(acc_a, acc_b, alpha, power)
        lines += [
            f"  items needed, paired, {power:.0%} power at alpha = {alpha:g} (two-sided): "
            f"{paired:,}",
            f"  items needed per model, unpaired two-proportion formula (Fleiss): {unpaired:,}"
            f"  (pairing saves {1 - paired / unpaired:.0%})",
            f"  minimum detectable difference with {paired:,} items: "
            f"{100 * mde(sd, paired, alpha, power):.2f} pp",
        ]
        if pairs > 1:
            # BH over the family tests each pair somewhere between alpha (many true
            # differences) and alpha / pairs (its first rejection, Bonferroni).
            worst = int(n_needed(delta, sd, alpha / pairs, power))
            lines.append(
                f"  as one of {pairs} pairs under Benjamini-Hochberg at {alpha:g}: between "
                f"{paired:,} and {worst:,} items (Bonferroni bound)"
            )
    if n is not None:
        lines += [
            f"  with n = {n:,} items: minimum detectable difference "
            f"{100 * mde(sd, n, alpha, power):.2f} pp, power at the difference "
            f"{power_two_sided(delta, sd, n, alpha):.1%}",
        ]
    return "\n".join(lines)


def plan_from_results(
    folder: str | Path, *, diff_pp: float | None, power: float, alpha: float
) -> str:
    """Text report from a study folder's ``tables/power.csv``."""
    path = Path(folder) / "tables" / "power.csv"
    if not path.exists():
        raise InputError(
            "no power table here; run the workflow for this study first "
            "(e.g. snakemake --cores 2 results/benchmark/tables/power.csv)",
            file=str(path),
        )
    table = read_csv(path)
    needed = {"n_units", "sd_unit_pp", "unit", "diff_pp", "verdict", "alpha_bh", "relevant_pp"}
    missing = sorted(needed - set(table.columns))
    if missing:
        raise InputError("not a power table", file=str(path), field=missing[0])
    sd = table["sd_unit_pp"].to_numpy(float)
    sd = sd[np.isfinite(sd)]
    if sd.size == 0:
        raise InputError("no comparison has a per-unit sd", file=str(path), field="sd_unit_pp")
    n_study = int(np.median(table["n_units"]))
    unit = str(table["unit"].iloc[0])
    alpha_bh = float(table["alpha_bh"].iloc[0])
    target = float(table["relevant_pp"].iloc[0]) if diff_pp is None else diff_pp
    med, lo, hi = float(np.median(sd)), float(sd.min()), float(sd.max())
    ties = table["verdict"].str.startswith("tie")
    under = table["verdict"] == "tie, underpowered"
    lines = [
        f"{folder}: {len(table)} comparisons on {n_study:,} {unit}s (median)",
        f"  per-{unit} sd of the paired difference: median {med:.1f} pp (range {lo:.1f} to {hi:.1f})",
        f"  minimum detectable difference at n = {n_study:,}, {power:.0%} power:",
        f"    one test at alpha = {alpha:g}: {mde(med, n_study, alpha, power):.2f} pp",
        f"    at the study's BH level (alpha* = {alpha_bh:.4g}): "
        f"{mde(med, n_study, alpha_bh, power):.2f} pp "
        f"(range {mde(lo, n_study, alpha_bh, power):.2f} to {mde(hi, n_study, alpha_bh, power):.2f})",
        f"  {unit}s needed to detect {target:g} pp (median comparison): "
        f"{int(n_needed(target, med, alpha, power)):,} for one test, "
        f"{int(n_needed(target, med, alpha_bh, power)):,} at the BH level",
        f"  ties (not significant after BH): {int(ties.sum())}, of which underpowered "
        f"(MDE > {float(table['relevant_pp'].iloc[0]):g} pp): {int(under.sum())}",
    ]
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m rederive.power",
        description="Items needed / minimum detectable difference for a paired comparison "
        "of two models (see docs/statistics.md, 'Plan an evaluation').",
    )
    src = parser.add_mutually_exclusive_group(required=True)
    src.add_argument("--acc-a", type=float, help="expected accuracy of model A (0-1)")
    src.add_argument("--results", help="a finished study folder, e.g. results/benchmark")
    parser.add_argument("--acc-b", type=float, help="expected accuracy of model B (0-1)")
    parser.add_argument(
        "--corr",
        type=float,
        default=0.5,
        help="item-level correlation of the two models' correctness (default 0.5)",
    )
    parser.add_argument("--n", type=int, help="also report the MDE and power at this many items")
    parser.add_argument(
        "--pairs",
        type=int,
        default=1,
        help="number of model pairs tested together with BH (default 1)",
    )
    parser.add_argument(
        "--diff", type=float, help="with --results: difference to detect, percentage points"
    )
    parser.add_argument("--power", type=float, default=0.8, help="target power (default 0.8)")
    parser.add_argument("--alpha", type=float, default=0.05, help="two-sided level (default 0.05)")
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not (0 < args.power < 1 and 0 < args.alpha < 1):
        parser.error("--power and --alpha must be in (0, 1)")
    try:
        if args.results is not None:
            text = plan_from_results(
                args.results, diff_pp=args.diff, power=args.power, alpha=args.alpha
            )
        else:
            if args.acc_b is None:
                parser.error("--acc-a needs --acc-b")
            if args.n is not None and args.n < 2:
                parser.error("--n must be at least 2")
            if args.pairs < 1:
                parser.error("--pairs must be at least 1")
            text = plan_from_accuracies(
                args.acc_a,
                args.acc_b,
                args.corr,
                power=args.power,
                alpha=args.alpha,
                n=args.n,
                pairs=args.pairs,
            )
    except ValueError as err:
        parser.error(str(err))
    except InputError as err:
        print(f"rederive: input error {err}", file=sys.stderr)
        return 2
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
