"""Where propagation happens: C rate by perturbation position (with a trend test),
by remaining steps after the perturbation, by perturbation strength, and across
MMLU subjects.

References
----------
Paper 003 (CoT load-bearing), §5.3 (position and remaining-step gradients), Table 6
    (strength sweep), §7 (MMLU per-subject spread).
Agresti, A. (2013). *Categorical Data Analysis*, 3rd ed., §3.4.6 (linear-by-linear
    association / Cochran–Armitage trend test).
"""

import numpy as np
import pandas as pd
from scipy import stats
from statsmodels.stats.contingency_tables import Table

from rederive.report.latex import booktabs
from rederive.runner import run
from rederive.studies.cot_loadbearing.common import (
    clustered_shares,
    production_rows,
    round_ci,
    write_csv,
)

POSITIONS = ("early", "mid", "late")


def c_rates(
    frame: pd.DataFrame, by: list[str], *, n_boot: int, seed: int, key: str
) -> pd.DataFrame:
    long = clustered_shares(frame, by, n_boot=n_boot, seed=seed, key=key)
    if long.empty:
        # No row of this experiment (e.g. the one model given did not run the
        # strength sweep): a header-only table, not a KeyError.
        columns = [*by, "n", "C_pct", "n_C", "ci_low", "ci_high", "boot_low", "boot_high"]
        columns += ["n_clusters", "method"]
        return pd.DataFrame(columns=[*columns, "n_boot", "seed"])
    long = round_ci(long[long["label"] == "C"])
    return (
        long.drop(columns="label")
        .rename(columns={"pct": "C_pct", "count": "n_C"})
        .reset_index(drop=True)
    )


def trend_test(frame: pd.DataFrame, scores=(0.0, 1.0, 2.0)) -> dict:
    """Linear trend of the C rate over ordered positions (early < mid < late).

    statsmodels' linear-by-linear association test on the position × (C, not C)
    table; with two outcome columns it is the Cochran–Armitage trend test. The
    z statistic is signed so that a rate falling from early to late is positive,
    as the paper reports it.
    """
    counts = np.array(
        [
            [
                ((frame["position"] == p) & (frame["judge_label"] == "C")).sum(),
                ((frame["position"] == p) & (frame["judge_label"] != "C")).sum(),
            ]
            for p in POSITIONS
        ],
        dtype=float,
    )
    present = counts.sum(axis=1) > 0
    if present.sum() < 2:
        return {"z": np.nan, "p_value": np.nan}
    result = Table(counts[present]).test_ordinal_association(
        row_scores=np.asarray(scores)[present], col_scores=np.array([1.0, 0.0])
    )
    z = -float(result.zscore)
    return {"z": z, "p_value": float(2 * stats.norm.sf(abs(z)))}


def remaining_bin(values: pd.Series, bins: list[list]) -> pd.Series:
    """Label of the configured bin ``[lo, hi]`` (``hi`` null = open) for each value."""
    labels = pd.Series(pd.NA, index=values.index, dtype="object")
    for lo, hi in bins:
        inside = (values >= lo) & (True if hi is None else values <= hi)
        labels[inside] = f"{lo}+" if hi is None else (f"{lo}" if lo == hi else f"{lo}-{hi}")
    return labels


def subject_summary(subjects: pd.DataFrame, min_n: int) -> pd.DataFrame:
    """Spread of per-subject C rates: number of subjects, min, max, max/min ratio."""
    out = []
    for model, group in subjects.groupby("model", sort=True):
        g = group[group["n"] >= min_n]
        lo, hi = g["C_pct"].min(), g["C_pct"].max()
        out.append(
            {
                "model": model,
                "n_subjects": len(g),
                "min_n": min_n,
                "C_min_pct": lo,
                "C_min_subject": g.loc[g["C_pct"].idxmin(), "subject"] if len(g) else "",
                "C_max_pct": hi,
                "C_max_subject": g.loc[g["C_pct"].idxmax(), "subject"] if len(g) else "",
                "ratio": hi / lo if lo > 0 else np.nan,
            }
        )
    return pd.DataFrame(out)


def main(snakemake) -> None:
    p = snakemake.params
    rows = production_rows(snakemake.input.db, p.production)
    main_rows = rows[rows["experiment"] == "main"]

    position = c_rates(
        main_rows, ["model", "position"], n_boot=p.n_boot, seed=p.seed, key="position"
    )
    position["order"] = position["position"].map({k: i for i, k in enumerate(POSITIONS)})
    position = position.sort_values(["model", "order"]).drop(columns="order")
    write_csv(position, snakemake.output.position)
    trend = pd.DataFrame(
        [
            {
                "model": m,
                **trend_test(g),
                "n": len(g),
                "test": "Cochran-Armitage (linear-by-linear)",
            }
            for m, g in main_rows.groupby("model")
        ]
    )
    write_csv(trend, snakemake.output.trend)

    binned = main_rows.assign(
        remaining=remaining_bin(main_rows["remaining_steps"], p.remaining_bins)
    )
    remaining = c_rates(
        binned.dropna(subset=["remaining"]),
        ["model", "remaining"],
        n_boot=p.n_boot,
        seed=p.seed,
        key="remaining",
    )
    order = {
        lab: i
        for i, lab in enumerate(
            remaining_bin(pd.Series([b[0] for b in p.remaining_bins]), p.remaining_bins)
        )
    }
    remaining = (
        remaining.assign(order=remaining["remaining"].map(order))
        .sort_values(["model", "order"])
        .drop(columns="order")
    )
    write_csv(remaining, snakemake.output.remaining)

    sweep = rows[rows["experiment"] == "strength"]
    sweep = sweep.assign(
        condition=np.where(sweep["dataset"] == "bbh", "bbh-" + sweep["subject"], sweep["dataset"])
    )
    strength = c_rates(
        sweep, ["model", "condition", "strength"], n_boot=p.n_boot, seed=p.seed, key="strength"
    )
    strength = strength.assign(
        order=strength["strength"].map({"subtle": 0, "moderate": 1, "obvious": 2})
    )
    strength = strength.sort_values(["model", "condition", "order"]).drop(columns="order")
    write_csv(strength, snakemake.output.strength)
    body = pd.DataFrame(
        {
            "Model": strength["model"],
            "Task": strength["condition"],
            "Strength": strength["strength"],
            "n": strength["n"].astype(str),
            "Type C": [
                f"{a:.1f} [{b:.1f}, {c:.1f}]"
                for a, b, c in strength[["C_pct", "ci_low", "ci_high"]].to_numpy()
            ],
        }
    )
    note = "Numeric perturbation strength sweep." + (" SIMULATED data." if p.simulated else "")
    with open(snakemake.output.strength_tex, "w") as handle:
        handle.write(
            booktabs(
                body,
                caption="Error propagation by perturbation strength",
                label="tab:cot-strength",
                notes=note,
            )
        )

    mmlu = main_rows[main_rows["dataset"] == "mmlu"]
    subjects = c_rates(mmlu, ["model", "subject"], n_boot=p.n_boot, seed=p.seed, key="subject")
    write_csv(subjects.sort_values(["model", "C_pct", "subject"]), snakemake.output.subjects)
    write_csv(subject_summary(subjects, p.min_subject_n), snakemake.output.subject_summary)


if __name__ == "__main__" and "snakemake" in globals():
    run(main, snakemake)  # noqa: F821
