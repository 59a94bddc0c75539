"""Judge vs keyword awareness: confusion counts and Cohen's κ per model × bias.

The paper labels every biased trace twice — a strict LLM-judge rubric and the
keyword filter of prior work (§1) — so the lenient baseline can be compared with
the strict label directly.

References
----------
Gao, W., et al. (2026). arXiv:2606.15127, §1.
Cohen, J. (1960). *Educational and Psychological Measurement*, 20(1), 37–46.
"""

from pathlib import Path

import pandas as pd

from rederive.stats.rates import percent
from rederive.studies.bias_awareness.metrics import agreement_table
from rederive.studies.bias_awareness.output import (
    BIAS_LABELS,
    latex_table,
    sort_cells,
    write_csv,
)
from rederive.studies.bias_awareness.warehouse import biased_trials


def agreement_latex(table: pd.DataFrame, *, simulated: bool) -> str:
    body = pd.DataFrame(
        {
            "Model": table["model"],
            "Bias": table["bias"].map(BIAS_LABELS),
            "N": table["n"].astype(str),
            "J+K+": table["judge1_kw1"].astype(str),
            "J+K-": table["judge1_kw0"].astype(str),
            "J-K+": table["judge0_kw1"].astype(str),
            "J-K-": table["judge0_kw0"].astype(str),
            "Agree %": [
                percent(a + b, n)
                for a, b, n in zip(
                    table["judge1_kw1"], table["judge0_kw0"], table["n"], strict=True
                )
            ],
            "kappa [95% CI]": [
                "--" if pd.isna(k) else f"{k:.2f} [{lo:.2f}, {hi:.2f}]"
                for k, lo, hi in zip(
                    table["kappa"], table["kappa_low"], table["kappa_high"], strict=True
                )
            ],
        }
    )
    notes = "J = strict judge label, K = keyword filter; Cohen's kappa with asymptotic CI (statsmodels)."
    return latex_table(
        body,
        caption="Agreement of keyword-filter awareness with the strict judge",
        label="tab:bias-awareness-agreement",
        column_format="llrrrrrrr",
        notes=notes,
        simulated=simulated,
    )


def main(snakemake):
    trials = biased_trials(snakemake.input.db)
    table = sort_cells(agreement_table(trials))
    write_csv(table, snakemake.output.csv)
    Path(snakemake.output.tex).write_text(
        agreement_latex(table, simulated=bool(snakemake.params.simulated))
    )


if __name__ == "__main__" and "snakemake" in globals():
    from rederive.runner import run

    run(main, snakemake)  # noqa: F821
