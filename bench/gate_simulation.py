"""The gate's type-I error at the margin and its power, by simulation (printed; a figure).

Usage::

    .venv/bin/python bench/gate_simulation.py [--n-sim 20000] [--seed 34] [--figure out.png]

The gate (:mod:`rederive.stats.gate`) calls a candidate ``not worse`` when the
lower bound of its two-sided ``level`` interval lies above −margin: a one-sided
test at ``(1 − level)/2``. At a true difference of exactly −margin that call is
a type-I error and must happen at most ``(1 − level)/2`` of the time (0.025 at
0.95); ``worse`` (upper bound below −margin) is the mirror test and must happen
at that rate too, and ``better`` at a true difference of 0 likewise. Each design
is simulated ``--n-sim`` times per setting with its true difference known
exactly, and decided by the library's own interval functions:

* **0/1 scores, unclustered**: the four cells of the paired 2×2 table drawn from
  a multinomial (baseline accuracy 0.5, discordant share ψ), decided by Tango's
  score test (:func:`rederive.stats.gate.tango_statistic` at −margin, which is
  the interval's decision) and :func:`rederive.stats.gate.mcnemar_one_sided`.
  Beside it, the calls of two intervals the gate does not use, to show why:
  Newcombe's hybrid score interval (method 10) and the exact *conditional*
  interval (Clopper–Pearson on the discordant split, mapped by the observed ψ̂);
* **fractional scores**: K = 4 epochs per item, item accuracies uniform on
  [0.1, 0.9], the candidate's the baseline's (or, for 30% of items, an
  independent draw) plus Δ, decided by the paired t interval
  (:func:`rederive.stats.clustered.paired_differences` without clusters);
* **clustered 0/1 scores**: C clusters of 8 items, item accuracies
  ``0.5 + 0.3 tanh(u_c + e_i)`` with a cluster effect ``u_c ~ N(0, 0.8²)``,
  the candidate's as above, decided by the clustered t interval with C − 1 df.

In every design the candidate's expected accuracy is the baseline's plus Δ
exactly, item by item in expectation, so −margin is the true boundary.
Monte-Carlo error of a rate r: √(r(1 − r)/n_sim).

The power curves (``--figure``) are the share of simulated studies that pass
(better or not worse) and that are worse, against the true Δ, with the
analytic one-sided power drawn beside them in the form the gate's MDE and
items needed use (:func:`rederive.stats.gate.gate`): the normal form
``Φ((Δ + margin)√n / sd − z_{1−α/2})`` for 0/1 scores (Tango's interval), the
noncentral t with ``n − 1`` df (fractional) and ``C − 1`` df (clustered),
``P(T > t_{1−α/2})`` at noncentrality ``(Δ + margin)√n / sd``; the z form's
curve is printed beside the t designs' for comparison.

The MDE check (printed with ``--figure``) simulates each of those designs at a
true distance from the margin equal to the gate's MDE
(:func:`rederive.stats.power.mde` with the gate's form, and with the z form):
the share that pass must be the target power, 0.80.
"""

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))

from rederive.stats.bootstrap import rng_for  # noqa: E402
from rederive.stats.clustered import clustered_ratio, paired_differences, t_interval  # noqa: E402
from rederive.stats.gate import mcnemar_one_sided, tango_statistic  # noqa: E402
from rederive.stats.power import T_TEST, Z_TEST, mde  # noqa: E402

LEVEL = 0.95
ALPHA = round((1 - LEVEL) / 2, 12)
BATCH = 2000


# --- 0/1, unclustered ----------------------------------------------------------------


def binary_tables(rng, n: int, delta: float, psi: float, n_sim: int, p_base: float = 0.5):
    """Cells (both, cand_only, base_only, neither) of ``n_sim`` studies of ``n`` items."""
    cand_only, base_only = (psi + delta) / 2, (psi - delta) / 2
    both = p_base - base_only
    probs = [both, cand_only, base_only, 1 - both - cand_only - base_only]
    return rng.multinomial(n, probs, size=n_sim).T


def conditional_bounds(cand_only, base_only, n, level):
    """Exact conditional interval: Clopper–Pearson on π = b/(b+c), mapped by ψ̂ = m/n."""
    m = cand_only + base_only
    a = (1 - level) / 2
    with np.errstate(invalid="ignore"):
        lo = np.where(cand_only > 0, stats.beta.ppf(a, cand_only, base_only + 1), 0.0)
        hi = np.where(base_only > 0, stats.beta.ppf(1 - a, cand_only + 1, base_only), 1.0)
    return (m / n) * (2 * lo - 1), (m / n) * (2 * hi - 1)


def newcombe_bounds(both, cand_only, base_only, neither, level):
    """Newcombe's hybrid score interval (method 10), the alternative measured beside Tango's."""
    a, b, c, d = (np.asarray(x, dtype=float) for x in (both, cand_only, base_only, neither))
    n = a + b + c + d
    p1, p2 = (a + b) / n, (a + c) / n
    l1, u1 = proportion_confint(a + b, n, alpha=1 - level, method="wilson")
    l2, u2 = proportion_confint(a + c, n, alpha=1 - level, method="wilson")
    margins = (a + b) * (c + d) * (a + c) * (b + d)
    cross = a * d - b * c
    cross = np.where(cross > n / 2, cross - n / 2, np.where(cross >= 0, 0.0, cross))
    with np.errstate(invalid="ignore", divide="ignore"):
        phi = np.where(margins > 0, cross / np.sqrt(margins), 0.0)
    down = (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2
    up = (u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2
    return p1 - p2 - np.sqrt(np.maximum(down, 0)), p1 - p2 + np.sqrt(np.maximum(up, 0))


def binary_verdicts(tables, n: int, margin: float):
    """The gate's decisions (Tango's score test at −margin, exact McNemar at 0), and the
    non-inferiority calls Newcombe's and the exact conditional interval would make."""
    both, cand_only, base_only, neither = tables
    z = tango_statistic(cand_only, base_only, n, -margin)
    crit = stats.norm.isf(ALPHA)
    worse = z < -crit
    p_better = np.array(
        [mcnemar_one_sided(b, c) for b, c in zip(cand_only, base_only, strict=True)]
    )
    n_low, n_high = newcombe_bounds(both, cand_only, base_only, neither, LEVEL)
    c_low, _ = conditional_bounds(cand_only, base_only, n, LEVEL)
    return {
        "worse": worse,
        "better": (p_better < ALPHA) & ~worse,
        "not_worse": z > crit,
        "newcombe_not_worse": n_low > -margin,
        "newcombe_worse": n_high < -margin,
        "conditional_not_worse": c_low > -margin,
        "sd": np.sqrt(
            np.maximum((cand_only + base_only) / n - ((cand_only - base_only) / n) ** 2, 0)
        ),
    }


# --- fractional and clustered: the library's t intervals on many studies at once ---------


def item_probabilities(rng, n: int, n_sim: int, clusters=None):
    """Baseline and candidate true accuracies (before Δ), shape (n, n_sim)."""
    if clusters is None:
        base = rng.uniform(0.1, 0.9, (n, n_sim))
        other = rng.uniform(0.1, 0.9, (n, n_sim))
    else:
        u = rng.normal(0, 0.8, (clusters.max() + 1, n_sim))[clusters]
        base = 0.5 + 0.3 * np.tanh(u + rng.normal(0, 0.5, (n, n_sim)))
        other = 0.5 + 0.3 * np.tanh(u + rng.normal(0, 0.5, (n, n_sim)))
    same = rng.random((n, n_sim)) < 0.7
    return base, np.where(same, base, other)


def t_verdicts(rng, n: int, delta: float, margin: float, n_sim: int, *, epochs=1, clusters=None):
    out = {"worse": [], "better": [], "not_worse": [], "sd": []}
    for start in range(0, n_sim, BATCH):
        k = min(BATCH, n_sim - start)
        p_base, p_cand = item_probabilities(rng, n, k, clusters)
        base = rng.binomial(epochs, p_base) / epochs
        cand = rng.binomial(epochs, p_cand + delta) / epochs
        fit = clustered_ratio(np.hstack([cand, base]), np.ones((n, 2 * k)), clusters=clusters)
        diff, se, n_units = paired_differences(fit, np.arange(k), k + np.arange(k))
        low, high = t_interval(diff, se, n_units, LEVEL)
        out["worse"].append(high < -margin)
        out["better"].append((low > 0) & ~(high < -margin))
        out["not_worse"].append(low > -margin)
        out["sd"].append(se * np.sqrt(n_units))
    return {key: np.concatenate(value) for key, value in out.items()}


# --- the settings ------------------------------------------------------------------------

DESIGNS = [
    # name, kind, items, margin_pp, extra
    ("0/1, psi 0.20", "binary", 500, 1.0, {"psi": 0.20}),
    ("0/1, psi 0.20", "binary", 2000, 1.0, {"psi": 0.20}),
    ("0/1, psi 0.18 (ChemBench size)", "binary", 2854, 1.0, {"psi": 0.18}),
    ("0/1, psi 0.30", "binary", 200, 5.0, {"psi": 0.30}),
    ("0/1, psi 0.05 (close models)", "binary", 1000, 2.0, {"psi": 0.05}),
    ("0/1, psi 0.04 (close models)", "binary", 3000, 3.0, {"psi": 0.04}),
    ("fractional, K = 4", "fractional", 100, 2.0, {"epochs": 4}),
    ("fractional, K = 4", "fractional", 500, 2.0, {"epochs": 4}),
    ("clustered 0/1, C = 20 x 8", "clustered", 160, 5.0, {"clusters": 20}),
    ("clustered 0/1, C = 50 x 8", "clustered", 400, 2.0, {"clusters": 50}),
]


def simulate(design, delta: float, n_sim: int, rng) -> dict:
    name, kind, n, margin_pp, extra = design
    margin = margin_pp / 100
    if kind == "binary":
        return binary_verdicts(binary_tables(rng, n, delta, extra["psi"], n_sim), n, margin)
    if kind == "fractional":
        return t_verdicts(rng, n, delta, margin, n_sim, epochs=extra["epochs"])
    clusters = np.repeat(np.arange(extra["clusters"]), n // extra["clusters"])
    return t_verdicts(rng, n, delta, margin, n_sim, clusters=clusters)


def size_table(n_sim: int, seed: int) -> pd.DataFrame:
    rows = []
    for i, design in enumerate(DESIGNS):
        name, kind, n, margin_pp, _ = design
        at_margin = simulate(design, -margin_pp / 100, n_sim, rng_for(seed, "margin", i))
        at_zero = simulate(design, 0.0, n_sim, rng_for(seed, "zero", i))
        row = {
            "design": name,
            "items": n,
            "margin_pp": margin_pp,
            "not_worse_at_margin": at_margin["not_worse"].mean(),
            "worse_at_margin": at_margin["worse"].mean(),
            "better_at_0": at_zero["better"].mean(),
        }
        for other in ("newcombe_not_worse", "newcombe_worse", "conditional_not_worse"):
            if other in at_margin:
                row[f"{other}_at_margin"] = at_margin[other].mean()
        rows.append(row)
    table = pd.DataFrame(rows)
    se = math.sqrt(ALPHA * (1 - ALPHA) / n_sim)
    for column in ("not_worse_at_margin", "worse_at_margin", "better_at_0"):
        table[f"{column}_z"] = (table[column] - ALPHA) / se
    return table


CURVE_DESIGNS = [DESIGNS[1], DESIGNS[6], DESIGNS[8]]


def units_of(design) -> int:
    """Independent units behind the interval: items, or clusters."""
    return design[2] if design[1] != "clustered" else design[4]["clusters"]


def test_of(design) -> str:
    """The power form the gate uses for the design: z for Tango's interval, else t."""
    return Z_TEST if design[1] == "binary" else T_TEST


def one_sided_power(distance, sd: float, units: int, test: str):
    """Power of the one-sided test at ALPHA against a true distance from the margin
    (positive: the candidate is better than −margin): normal, or noncentral t with
    ``units − 1`` df. Negative distances give the power of the mirror test."""
    ncp = np.asarray(distance, dtype=float) * math.sqrt(units) / sd
    if test == Z_TEST:
        return stats.norm.cdf(ncp - stats.norm.isf(ALPHA))
    df = units - 1
    return stats.nct.sf(stats.t.isf(ALPHA, df), df, ncp)


def power_curves(n_sim: int, seed: int) -> pd.DataFrame:
    rows = []
    for i, design in enumerate(CURVE_DESIGNS):
        margin = design[3] / 100
        units, test = units_of(design), test_of(design)
        for j, delta in enumerate(np.linspace(-3 * margin, 3 * margin, 13)):
            v = simulate(design, float(delta), n_sim, rng_for(seed, "power", i, j))
            sd = float(np.nanmean(v["sd"]))
            rows.append(
                {
                    "design": f"{design[0]}, {design[2]} items, margin {design[3]:g} pp",
                    "form": test,
                    "delta_pp": 100 * delta,
                    "margin_pp": design[3],
                    "pass": float(np.mean(v["not_worse"] | v["better"])),
                    "better": float(np.mean(v["better"])),
                    "worse": float(np.mean(v["worse"])),
                    "pass_analytic": float(one_sided_power(delta + margin, sd, units, test)),
                    "worse_analytic": float(one_sided_power(-(delta + margin), sd, units, test)),
                    "pass_z": float(one_sided_power(delta + margin, sd, units, Z_TEST)),
                }
            )
    return pd.DataFrame(rows)


def mde_check(n_sim: int, seed: int, power: float = 0.8) -> pd.DataFrame:
    """Pass rate at a true distance from the margin equal to the MDE, per form.

    The per-unit sd comes from a pilot simulation at the margin (the sd the gate
    would estimate); the MDE is :func:`rederive.stats.power.mde` at two-sided
    ``1 − level``, the gate's call.
    """
    rows = []
    for i, design in enumerate(CURVE_DESIGNS):
        margin = design[3] / 100
        units = units_of(design)
        pilot = simulate(design, -margin, n_sim, rng_for(seed, "mde-sd", i))
        sd = float(np.nanmean(pilot["sd"]))
        for test in dict.fromkeys((test_of(design), Z_TEST)):
            detectable = float(mde(sd, units, 1 - LEVEL, power, test=test))
            v = simulate(design, detectable - margin, n_sim, rng_for(seed, "mde", i, test))
            rows.append(
                {
                    "design": f"{design[0]}, {design[2]} items, margin {design[3]:g} pp",
                    "units": units,
                    "form": test + (" (the gate's)" if test == test_of(design) else ""),
                    "mde_pp": 100 * detectable,
                    "pass_at_mde": float(np.mean(v["not_worse"] | v["better"])),
                    "target": power,
                }
            )
    table = pd.DataFrame(rows)
    table["z"] = (table["pass_at_mde"] - power) / math.sqrt(power * (1 - power) / n_sim)
    return table


def draw(curves: pd.DataFrame, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    designs = list(dict.fromkeys(curves["design"]))
    fig, axes = plt.subplots(1, len(designs), figsize=(4.2 * len(designs), 3.6), sharey=True)
    for ax, design in zip(axes, designs, strict=True):
        c = curves[curves["design"] == design]
        ax.plot(c["delta_pp"], c["pass"], "o", color="C0", label="pass (better or not worse)")
        form = "normal (z)" if c["form"].iloc[0] == Z_TEST else "noncentral t"
        ax.plot(c["delta_pp"], c["pass_analytic"], "-", color="C0", alpha=0.6, label=form)
        if c["form"].iloc[0] != Z_TEST:
            ax.plot(
                c["delta_pp"], c["pass_z"], ":", color="C0", alpha=0.6, label="z form (not used)"
            )
        ax.plot(c["delta_pp"], c["worse"], "s", color="C3", label="worse")
        ax.plot(c["delta_pp"], c["worse_analytic"], "-", color="C3", alpha=0.6)
        ax.plot(c["delta_pp"], c["better"], "^", color="C2", label="better")
        ax.axvline(-c["margin_pp"].iloc[0], color="grey", ls=":", lw=1)
        ax.axhline(ALPHA, color="grey", ls="--", lw=0.8)
        ax.set_title(design, fontsize=9)
        ax.set_xlabel("true difference candidate − baseline (pp)")
        ax.legend(fontsize=6.5, loc="upper left")
    axes[0].set_ylabel("share of simulated studies")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n-sim", type=int, default=20000, help="studies per setting")
    parser.add_argument("--curve-sim", type=int, default=4000, help="studies per curve point")
    parser.add_argument("--seed", type=int, default=34)
    parser.add_argument("--figure", type=Path, help="write the power curves here (PNG)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    table = size_table(args.n_sim, args.seed)
    se = math.sqrt(ALPHA * (1 - ALPHA) / args.n_sim)
    pd.set_option("display.width", 200)
    print(
        f"level {LEVEL}: each one-sided test at {ALPHA}; {args.n_sim} studies per setting, "
        f"Monte-Carlo SE at {ALPHA}: {se:.4f}"
    )
    print(table.to_string(index=False, float_format=lambda x: f"{x:.4f}"))
    if args.figure:
        curves = power_curves(args.curve_sim, args.seed)
        print(curves.to_string(index=False, float_format=lambda x: f"{x:.3f}"))
        draw(curves, args.figure)
        print(f"figure: {args.figure}")
        check = mde_check(args.curve_sim, args.seed)
        print(f"pass rate at the MDE ({args.curve_sim} studies each; target 0.80):")
        print(check.to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    print(f"{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
