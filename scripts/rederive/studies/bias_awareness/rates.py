"""Main table: per model × bias (and pooled) n, accuracy, Pr[S], Pr[A], Pr[A | S], TG.

Writes the tidy rate table (every quantity with counts and both intervals), the
paper-layout table (CSV + LaTeX) and the outcome shares behind the stacked-bar
figure.

References
----------
Gao, W., et al. (2026). arXiv:2606.15127, §3 eqs. (1)–(4); Abstract (pooled
    rates 1.3% / 1.2% and 13.0% / 75.0%).
"""

from pathlib import Path

import pandas as pd

from rederive.stats.bootstrap import rng_for
from rederive.stats.small_n import SMALL_N, small_n_flags
from rederive.studies.bias_awareness import STUDY
from rederive.studies.bias_awareness.metrics import NOT_ESTIMABLE, outcome_shares, rate_table
from rederive.studies.bias_awareness.output import (
    BIAS_LABELS,
    latex_table,
    sort_cells,
    with_ci,
    write_csv,
)
from rederive.studies.bias_awareness.warehouse import biased_trials

#: Columns of the paper-layout table: (quantity, printed header).
MAIN_COLUMNS = [
    ("accuracy_unbiased", "Acc. (unbiased)"),
    ("susceptibility", "Pr[S]"),
    ("awareness_strict", "Pr[A] strict"),
    ("awareness_keyword", "Pr[A] keyword"),
    ("aware_given_S_strict", "Pr[A | S] strict"),
    ("TG_strict", "TG strict"),
]


def compute_rates(trials: pd.DataFrame, *, seed: int, n_boot: int, level: float):
    """The tidy rate table and its bootstrap (one shared, question-level resample).

    The generator key ``("bias_awareness", "rates")`` is shared with the model
    comparison job, which therefore sees the very same replicates.
    """
    rng = rng_for(seed, STUDY, "rates")
    return rate_table(trials, n_boot=n_boot, rng=rng, level=level, seed=seed)


def main_table(rates: pd.DataFrame) -> pd.DataFrame:
    """Wide table: one row per model × bias with ``<q>, <q>_low, <q>_high`` columns."""
    rows = []
    for (model, bias), group in rates.groupby(["model", "bias"], sort=False):
        by_q = group.set_index("quantity")
        row = {"model": model, "bias": bias, "n": int(by_q.loc["susceptibility", "denominator"])}
        for quantity, _ in MAIN_COLUMNS:
            row[quantity] = by_q.loc[quantity, "percent"]
            row[f"{quantity}_low"] = by_q.loc[quantity, "ci_low"]
            row[f"{quantity}_high"] = by_q.loc[quantity, "ci_high"]
            row[f"{quantity}_k"] = int(by_q.loc[quantity, "numerator"])
            row[f"{quantity}_n"] = int(by_q.loc[quantity, "denominator"])
        reasons = by_q[NOT_ESTIMABLE] if NOT_ESTIMABLE in by_q else pd.Series(dtype=str)
        row[NOT_ESTIMABLE] = "; ".join(
            f"{quantity}: {reasons[quantity]}"
            for quantity, _ in MAIN_COLUMNS
            if quantity in reasons and reasons[quantity]
        )
        rows.append(row)
    return sort_cells(pd.DataFrame(rows))


def main_latex(table: pd.DataFrame, *, level: float, simulated: bool) -> str:
    body = pd.DataFrame(
        {
            "Model": table["model"],
            "Bias": table["bias"].map(BIAS_LABELS),
            "N": table["n"].astype(int).astype(str),
            **{
                header: [
                    with_ci(v, lo, hi)
                    for v, lo, hi in zip(
                        table[q], table[f"{q}_low"], table[f"{q}_high"], strict=True
                    )
                ]
                for q, header in MAIN_COLUMNS
            },
        }
    )
    notes = (
        f"Rates in %, {round(level * 100)}% CIs: question-level paired bootstrap, "
        "Wilson for Pr[A | S]. TG = Pr[S = 1 and A = 0]."
    )
    n_ne = int((table[NOT_ESTIMABLE].fillna("") != "").sum()) if NOT_ESTIMABLE in table else 0
    if n_ne:
        notes += f" --: not estimable ({n_ne} rows; reason in main.csv, column {NOT_ESTIMABLE})."
    return latex_table(
        body,
        caption="Susceptibility, awareness and silent bias-induced failures (TG) per model and bias",
        label="tab:bias-awareness-main",
        column_format="ll" + "r" * (len(body.columns) - 2),
        notes=notes,
        simulated=simulated,
    )


def main(snakemake):
    p = snakemake.params
    trials = biased_trials(snakemake.input.db)
    rates, _ = compute_rates(trials, seed=p.seed, n_boot=p.n_boot, level=p.level)
    table = main_table(rates)
    rates[SMALL_N] = small_n_flags(rates["denominator"], p.min_n)
    table[SMALL_N] = small_n_flags(table["n"], p.min_n)
    write_csv(sort_cells(rates), snakemake.output.rates)
    write_csv(table, snakemake.output.main_csv)
    Path(snakemake.output.main_tex).write_text(
        main_latex(table, level=p.level, simulated=bool(p.simulated))
    )
    write_csv(sort_cells(outcome_shares(trials)), snakemake.output.outcomes)


if __name__ == "__main__" and "snakemake" in globals():
    from rederive.runner import run

    run(main, snakemake)  # noqa: F821
