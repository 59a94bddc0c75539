"""Paired model comparisons: differences in Pr[S], Pr[A] and TG, clustered t p, BH.

Differences are paired by question. Interval and p come from the
question-clustered SE (Wald statistic against t with C − 1 df,
:mod:`rederive.stats.clustered`); the percentile bootstrap interval, from the same
question-level resamples as the rate table (same seed and generator key), stays
in ``boot_low``/``boot_high``.

References
----------
Gao, W., et al. (2026). arXiv:2606.15127, Abstract and §1 ("similar
    susceptibility, markedly different awareness").
Benjamini, Y. & Hochberg, Y. (1995). *JRSS B*, 57(1), 289–300.
"""

from pathlib import Path

import pandas as pd

from rederive.stats.small_n import SMALL_N
from rederive.studies.bias_awareness.metrics import NOT_ESTIMABLE, model_comparisons
from rederive.studies.bias_awareness.output import (
    BIAS_LABELS,
    latex_table,
    with_ci,
    write_csv,
)
from rederive.studies.bias_awareness.rates import compute_rates
from rederive.studies.bias_awareness.warehouse import biased_trials

QUANTITY_LABELS = {
    "susceptibility": "Pr[S]",
    "awareness_strict": "Pr[A] strict",
    "awareness_keyword": "Pr[A] keyword",
    "TG_strict": "TG strict",
}


def _p(value) -> str:
    return "--" if pd.isna(value) else f"{value:.4f}"


def comparisons_latex(table: pd.DataFrame, *, simulated: bool) -> str:
    body = pd.DataFrame(
        {
            "Quantity": table["quantity"].map(QUANTITY_LABELS),
            "Bias": table["bias"].map(BIAS_LABELS),
            "Contrast": table["a"] + " - " + table["b"],
            "Diff. (pp)": [
                with_ci(d, lo, hi)
                for d, lo, hi in zip(table["diff"], table["ci_low"], table["ci_high"], strict=True)
            ],
            "p": [_p(v) for v in table["p_value"]],
            "q (BH)": [_p(v) for v in table["q_value"]],
        }
    )
    notes = (
        "Paired by question; interval and two-sided p from the question-clustered SE "
        "(t with C-1 df); BH over all rows"
    )
    left_out = []
    if NOT_ESTIMABLE in table:
        n_ne = int((table[NOT_ESTIMABLE].fillna("") != "").sum())
        if n_ne:
            left_out.append(f"{n_ne} with a rate that is not estimable (reason in comparisons.csv)")
    if SMALL_N in table:
        n_small = int(table[SMALL_N].astype(bool).sum())
        if n_small:
            left_out.append(f"{n_small} with a rate below the minimum n ({SMALL_N})")
    notes += " except " + " and ".join(left_out) + ", shown as --." if left_out else "."
    return latex_table(
        body,
        caption="Model differences (percentage points), paired by question",
        label="tab:bias-awareness-comparisons",
        column_format="lllrrr",
        notes=notes,
        simulated=simulated,
    )


def main(snakemake):
    p = snakemake.params
    trials = biased_trials(snakemake.input.db)
    rates, boot = compute_rates(trials, seed=p.seed, n_boot=p.n_boot, level=p.level)
    table = model_comparisons(rates, boot, fdr_q=p.fdr_q, min_n=p.min_n)
    table["n_boot"] = p.n_boot
    table["seed"] = p.seed
    write_csv(table, snakemake.output.csv)
    Path(snakemake.output.tex).write_text(comparisons_latex(table, simulated=bool(p.simulated)))


if __name__ == "__main__" and "snakemake" in globals():
    from rederive.runner import run

    run(main, snakemake)  # noqa: F821
