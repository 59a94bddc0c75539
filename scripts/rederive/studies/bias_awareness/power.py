"""Rule ``estimate_bias_awareness_power``: could the design tell the models apart on
Pr[S], Pr[A] and TG?

Differences, intervals and BH decisions are read from ``comparisons.csv``; the
per-question sd of each paired difference is the linearised sd of the two rate
ratios, from the very numerator/denominator columns the rate bootstrap resamples
(:func:`rederive.studies.bias_awareness.metrics.design_matrices`), clustered by
question as that bootstrap is (Miller 2024 §2.2, §3.2). The comparisons are tested
with the clustered Wald statistic against t with C − 1 df, so power, MDE and units
needed take the noncentral-t form with ``n_units − 1`` df.

References
----------
Miller, E. (2024). Adding error bars to evals. arXiv:2411.00640.
"""

from pathlib import Path

import pandas as pd

from rederive.io.names import read_csv
from rederive.report.power import (
    design_of,
    headline_check,
    power_frame,
    power_settings,
    write_power,
)
from rederive.stats.power import T_TEST, paired_unit_sds
from rederive.stats.small_n import small_n_mask
from rederive.studies.bias_awareness.metrics import design_matrices
from rederive.studies.bias_awareness.warehouse import biased_trials


def power_table(
    trials: pd.DataFrame, comparisons: pd.DataFrame, *, alpha, power, fdr_q, relevant_pp
):
    keys, num, den = design_matrices(trials)
    column = {key: j for j, key in enumerate(keys)}
    index = [
        (column[(row.a, row.bias, row.quantity)], column[(row.b, row.bias, row.quantity)])
        for row in comparisons.itertuples(index=False)
    ]
    sds, units = paired_unit_sds(num, index, den, clusters=trials["question_id"].to_numpy())
    sds = 100 * sds
    return power_frame(
        comparisons[["quantity", "bias", "a", "b"]],
        unit="question",
        n_units=units,
        diff_pp=comparisons["diff"],
        ci_low_pp=comparisons["ci_low"],
        ci_high_pp=comparisons["ci_high"],
        ci_source="comparisons.csv (paired question bootstrap)",
        significant=comparisons["reject"].fillna(False).astype(bool),
        sd_pp=sds,
        sd_source="per-trial indicators clustered by question (warehouse; delta method)",
        alpha=alpha,
        power=power,
        fdr_q=fdr_q,
        relevant_pp=relevant_pp,
        test=T_TEST,
        excluded=small_n_mask(comparisons),
    )


#: The abstract's two contrasts: similar susceptibility, very different awareness.
HEADLINE_QUANTITIES = ("susceptibility", "awareness_strict")


def headline_checks(table: pd.DataFrame, published_file, *, alpha: float, power: float) -> list:
    """Published check: could N = 1,500 trials per model detect the abstract's contrasts?

    Reported differences from the headline file (pooled over biases); the
    per-question sd is the pooled comparison's in ``power.csv``. For the
    "similar susceptibility" claim the row shows how large a difference the
    sample could have missed.
    """
    from rederive.studies.bias_awareness import POOLED

    path = Path(published_file)
    if not path.exists():
        return []
    pub = read_csv(path)
    out = []
    for quantity in HEADLINE_QUANTITIES:
        rows = pub[(pub["quantity"] == quantity) & (pub["bias"] == POOLED)]
        if len(rows) != 2:
            continue
        (a, va), (b, vb) = rows[["model", "value"]].itertuples(index=False)
        mine = table[
            (table["quantity"] == quantity)
            & (table["bias"] == POOLED)
            & (table["a"].isin([a, b]))
            & (table["b"].isin([a, b]))
        ]
        if mine.empty:
            continue
        row = mine.iloc[0]
        out.append(
            headline_check(
                "bias_awareness",
                f"{a} vs {b} {quantity} (pooled)",
                va - vb,
                **design_of(row),
                alpha=alpha,
                power=power,
                note=f"MDE {row['mde_pp']:.2f} pp: the smallest difference this sample detects.",
            )
        )
    return out


def main(snakemake):
    p = snakemake.params
    comparisons = read_csv(snakemake.input.comparisons)
    table = power_table(
        biased_trials(snakemake.input.db),
        comparisons,
        **power_settings(p.power, fdr_q=p.fdr_q),
    )
    write_power(table, snakemake.output.power, snakemake.output.curve)


if __name__ == "__main__" and "snakemake" in globals():
    from rederive.runner import run

    run(main, snakemake)  # noqa: F821
