"""Plan an evaluation: how many items to tell two models apart?

Two ways in, without running the workflow:

``python -m rederive.power --acc-a 0.72 --acc-b 0.68 --corr 0.5``
    from two expected accuracies and the item-level correlation of the two models'
    correctness (0 = unrelated, about 0.3–0.6 for LLMs on one benchmark);

``python -m rederive.power --results results/benchmark [--diff 2]``
    from a finished study folder (its ``tables/power.csv``): the per-unit sd of the
    study's own paired differences, the MDE at its n, and the n needed for ``--diff``
    percentage points (default: the study's ``relevant_pp``).

``python -m rederive.power --noise results/x/tables/noise.csv --target-mde 2``
``python -m rederive.power --between 0.02 --within 0.3 --items 500 --epochs 5 --target-mde 2``
    more epochs or more items? From the between- and within-item variance
    components (a study's ``noise.csv``, or given): the MDE at ``n`` items × ``K``
    epochs, and what reaching the target costs by adding epochs, by adding items,
    and by the cheapest design (:func:`rederive.stats.power.cheapest_design`).

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
    POWER_METHOD,
    binary_difference_sd,
    cheapest_design,
    design_cost,
    design_mde,
    epochs_needed,
    items_needed,
    mde,
    n_needed,
    power_two_sided,
    unpaired_two_proportion_n,
)

#: The program name in usage lines (``rederive <command>`` passes its own).
PROG = "python -m rederive.power"


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
    """Text report: items needed (paired and unpaired), MDE and power at ``n``.

    The z form: two models' 0/1 scores on the same items, every item scored, are
    compared by the exact McNemar test, whose power the normal form gives.
    """
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
    """Text report from a study folder's ``tables/power.csv``.

    The form of the study's tests is read from its ``power_method`` column
    (:func:`rederive.report.power.table_test`): the t form, with ``n − 1`` df,
    when any comparison is a paired or clustered t test.
    """
    from rederive.report.power import table_test

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
    test = table_test(table)

    def mde_at(sd_pp: float, level: float) -> float:
        return mde(sd_pp, n_study, level, power, test=test)

    def units_for(level: float) -> int:
        return int(n_needed(target, med, level, power, test=test))

    ties = table["verdict"].str.startswith("tie")
    under = table["verdict"] == "tie, underpowered"
    lines = [
        f"{folder}: {len(table)} comparisons on {n_study:,} {unit}s (median)",
        f"  per-{unit} sd of the paired difference: median {med:.1f} pp (range {lo:.1f} to {hi:.1f})",
        f"  power of the study's tests: {POWER_METHOD[test]}",
        f"  minimum detectable difference at n = {n_study:,}, {power:.0%} power:",
        f"    one test at alpha = {alpha:g}: {mde_at(med, alpha):.2f} pp",
        f"    at the study's BH level (alpha* = {alpha_bh:.4g}): "
        f"{mde_at(med, alpha_bh):.2f} pp "
        f"(range {mde_at(lo, alpha_bh):.2f} to {mde_at(hi, alpha_bh):.2f})",
        f"  {unit}s needed to detect {target:g} pp (median comparison): "
        f"{units_for(alpha):,} for one test, "
        f"{units_for(alpha_bh):,} at the BH level",
        f"  ties (not significant after BH): {int(ties.sum())}, of which underpowered "
        f"(MDE > {float(table['relevant_pp'].iloc[0]):g} pp): {int(under.sum())}",
    ]
    return "\n".join(lines)


def plan_epochs_or_items(
    var_between: float,
    var_within: float,
    n: int,
    epochs: float,
    *,
    target_pp: float,
    item_cost: float,
    power: float,
    alpha: float,
    label: str = "",
) -> str:
    """Text report: the MDE of ``n`` items × ``epochs``, and three ways to reach ``target_pp``.

    Costs are graded answers (one item answered once = 1) plus ``item_cost`` per
    item; for a pair, epochs and answers are per model.
    """
    vb, vw = max(var_between, 0.0), var_within
    target = target_pp / 100
    now = design_mde(vb, vw, n, epochs, alpha, power)
    floor = design_mde(vb, vw, n, np.inf, alpha, power)
    cost_now = design_cost(n, epochs, item_cost)
    lines = [
        "More epochs or more items? (Miller 2024, arXiv:2411.00640, §3; "
        "Wang 2025, arXiv:2512.21326)",
        *([f"  {label}"] if label else []),
        f"  per item: between-item variance {var_between:.6g} (data noise), "
        f"within-item variance {vw:.6g} per epoch (prediction noise)"
        + (" [negative between estimate planned as 0]" if var_between < 0 else ""),
        f"  now: {n:,} items x {epochs:g} epochs, cost {cost_now:,.0f} "
        f"(1 per graded answer + {item_cost:g} per item)",
        "  tests: paired t (noncentral t, n-1 df) with 2+ epochs; exact McNemar "
        "(normal form) with 1 epoch",
        f"  minimum detectable difference, {power:.0%} power at alpha = {alpha:g}: "
        f"{100 * now:.2f} pp now, {100 * floor:.2f} pp with unlimited epochs "
        "(the data-noise floor)",
    ]
    if now <= target:
        lines.append(f"  target {target_pp:g} pp: already reached")
        return "\n".join(lines)
    k_more = epochs_needed(vb, vw, n, target, alpha, power)
    n_more = int(items_needed(vb, vw, epochs, target, alpha, power))
    cost_items = design_cost(n_more, epochs, item_cost)
    lines.append(f"  target {target_pp:g} pp:")
    if np.isinf(k_more):
        lines.append(f"    more epochs, same {n:,} items: not reachable (floor above the target)")
    else:
        cost_epochs = design_cost(n, k_more, item_cost)
        lines.append(
            f"    more epochs, same {n:,} items: {int(k_more):,} epochs, "
            f"cost {cost_epochs:,.0f} (+{cost_epochs - cost_now:,.0f})"
        )
    lines.append(
        f"    more items, same {epochs:g} epochs: {n_more:,} items, "
        f"cost {cost_items:,.0f} (+{cost_items - cost_now:,.0f})"
    )
    n_best, k_best = cheapest_design(vb, vw, target, item_cost, alpha, power)
    lines.append(
        f"    cheapest design from scratch: {n_best:,} items x {k_best:,} epoch{'s' * (k_best != 1)}, "
        f"cost {design_cost(n_best, k_best, item_cost):,.0f}"
    )
    if not np.isinf(k_more):
        cheaper = "more epochs" if cost_epochs < cost_items else "more items"
        if cost_epochs == cost_items:
            cheaper = "either (equal cost)"
        lines.append(f"  cheaper from here: {cheaper}")
    return "\n".join(lines)


NOISE_COLUMNS = {"level", "model", "model_b", "n_items", "effective_epochs"}
NOISE_COLUMNS |= {"var_between", "var_within", "within_note"}


def components_from_noise(
    path: str | Path, *, model: str | None = None, pair: list[str] | None = None
) -> tuple[float, float, int, float, str]:
    """(between, within, items, epochs, label) of one row of a ``noise.csv``.

    ``model`` picks a model row, ``pair`` a pair row (either order); neither:
    the medians over the pairs whose within part is estimated.
    """
    path = Path(path)
    if not path.exists():
        raise InputError(
            "no noise table here; run the workflow first "
            "(e.g. snakemake --cores 2 results/<analysis>/tables/noise.csv)",
            file=str(path),
        )
    table = read_csv(path, text=["model", "model_b", "level", "within_note"])
    missing = sorted(NOISE_COLUMNS - set(table.columns))
    if missing:
        raise InputError("not a noise table", file=str(path), field=missing[0])
    table["model_b"] = table["model_b"].fillna("").astype(str)
    table["model"] = table["model"].astype(str)
    if model is not None:
        rows = table[(table["level"] == "model") & (table["model"] == model)]
        what = f"model {model}"
    elif pair is not None:
        a, b = pair
        rows = table[
            (table["level"] == "pair")
            & (
                ((table["model"] == a) & (table["model_b"] == b))
                | ((table["model"] == b) & (table["model_b"] == a))
            )
        ]
        what = f"pair {a} vs {b}"
    else:
        rows = table[table["level"] == "pair"]
        what = "pairs"
    if rows.empty:
        raise InputError(f"no row for {what}", file=str(path), field="model")
    usable = rows[np.isfinite(rows["var_within"].astype(float))]
    if usable.empty:
        note = str(rows["within_note"].iloc[0])
        raise InputError(
            f"{what}: within-item variance not estimated ({note})",
            file=str(path),
            field="var_within",
        )
    if model is None and pair is None:
        label = f"{path}: median over {len(usable)} pairs (paired difference, epochs per model)"
    else:
        label = f"{path}: {what}" + (" (paired difference, epochs per model)" if pair else "")
    return (
        float(usable["var_between"].astype(float).median()),
        float(usable["var_within"].astype(float).median()),
        int(round(float(usable["n_items"].median()))),
        float(usable["effective_epochs"].astype(float).median()),
        label,
    )


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Items needed / minimum detectable difference for a paired comparison "
        "of two models (see docs/statistics.md, 'Plan an evaluation').",
        epilog="Exit status: 0 planned, 2 unusable flags or input (a usage line, or a "
        "'rederive: input error' message).",
    )
    src = parser.add_mutually_exclusive_group(required=True)
    src.add_argument("--acc-a", type=float, help="expected accuracy of model A (0-1)")
    src.add_argument("--results", help="a finished study folder, e.g. results/benchmark")
    src.add_argument(
        "--noise", help="a study's tables/noise.csv: plan epochs vs items from its components"
    )
    src.add_argument(
        "--between",
        type=float,
        help="between-item variance of the score or paired difference (score units, 0-1 scale)",
    )
    parser.add_argument(
        "--within", type=float, help="with --between: within-item variance per epoch"
    )
    parser.add_argument("--items", type=int, help="items now (with --noise: default the table's)")
    parser.add_argument(
        "--epochs", type=float, help="epochs per item now (with --noise: default the table's)"
    )
    parser.add_argument(
        "--target-mde", type=float, help="with --noise/--between: MDE to reach, percentage points"
    )
    parser.add_argument(
        "--item-cost",
        type=float,
        default=0.0,
        help="cost of making one more item, in graded answers (default 0: an extra epoch "
        "of an item costs as much as a new item answered once)",
    )
    parser.add_argument("--model", help="with --noise: plan for this model's score")
    parser.add_argument(
        "--pair", nargs=2, metavar=("A", "B"), help="with --noise: plan for this pair"
    )
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


def main(argv=None, prog: str = PROG) -> int:
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    if not (0 < args.power < 1 and 0 < args.alpha < 1):
        parser.error("--power and --alpha must be in (0, 1)")
    try:
        if args.noise is not None or args.between is not None:
            text = _plan_noise(parser, args)
        elif args.results is not None:
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


def _plan_noise(parser: argparse.ArgumentParser, args) -> str:
    if args.target_mde is None or args.target_mde <= 0:
        parser.error("--noise/--between need --target-mde, a positive number of pp")
    if args.item_cost < 0:
        parser.error("--item-cost must be >= 0")
    if args.noise is not None:
        if args.model is not None and args.pair is not None:
            parser.error("--model and --pair exclude each other")
        vb, vw, n, k, label = components_from_noise(args.noise, model=args.model, pair=args.pair)
        n = args.items if args.items is not None else n
        k = args.epochs if args.epochs is not None else k
    else:
        if args.within is None or args.items is None or args.epochs is None:
            parser.error("--between needs --within, --items and --epochs")
        vb, vw, n, k, label = args.between, args.within, args.items, args.epochs, ""
    if vw < 0:
        parser.error("--within must be >= 0")
    if n < 2 or k < 1:
        parser.error("--items must be at least 2 and --epochs at least 1")
    return plan_epochs_or_items(
        vb,
        vw,
        n,
        k,
        target_pp=args.target_mde,
        item_cost=args.item_cost,
        power=args.power,
        alpha=args.alpha,
        label=label,
    )


if __name__ == "__main__":
    sys.exit(main())
