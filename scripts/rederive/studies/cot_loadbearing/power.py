"""Rule ``estimate_cot_loadbearing_power``: could the design separate numeric from
text perturbations (Table 2's contrast)?

The study compares no models or arms with a test; its headline design contrast is
Table 2's: the share of Type C continuations (the error propagates) after a numeric
against a text perturbation, on GSM8K and on one hard BBH subtask, per model. The
two shares are read from ``table2_decoupling.csv``; their difference's per-problem
sd is the linearised sd of the two ratios over problem clusters (both families
perturb the same problems, so the contrast is paired by problem), from the rows
:func:`rederive.studies.cot_loadbearing.shares.decoupling_rows` selects for the
table. Because the study reports no test of the contrast, its interval (normal,
from that sd), z-test p-value and BH decision (at ``fdr_q`` over the rows)
are computed here and labelled so; power, MDE and units needed are those of that
z test (the normal form).

References
----------
Miller, E. (2024). Adding error bars to evals. arXiv:2411.00640, §2.2, §3.2.
"""

import numpy as np
import pandas as pd
from scipy.stats import norm

from rederive.io.names import read_csv
from rederive.report.power import (
    design_of,
    headline_check,
    power_frame,
    power_settings,
    write_power,
)
from rederive.stats.multitest import bh_adjust
from rederive.stats.power import Z_TEST, paired_influence, unit_sd
from rederive.studies.cot_loadbearing.common import production_rows
from rederive.studies.cot_loadbearing.shares import decoupling_rows

A, B = "numeric", "text"


def contrasts(rows: pd.DataFrame, table2: pd.DataFrame, *, level: float) -> pd.DataFrame:
    """Numeric − text C share per (model, condition): difference, sd, CI, p."""
    wide = table2.pivot(index=["model", "condition"], columns="perturbation", values="C_pct")
    out = []
    if not {A, B} <= set(wide.columns):
        rows = rows.iloc[0:0]  # one family only: no contrast to assess
    for (model, condition), group in rows.groupby(["model", "condition"], sort=True):
        if (model, condition) not in wide.index or wide.loc[(model, condition)].isna().any():
            continue
        is_c = (group["judge_label"] == "C").to_numpy(float)
        is_a = (group["perturbation"] == A).to_numpy(float)
        is_b = (group["perturbation"] == B).to_numpy(float)
        u = paired_influence(
            is_c * is_a, is_c * is_b, is_a, is_b, clusters=group["problem_id"].astype(str)
        )
        sd = 100 * unit_sd(u)
        se = sd / np.sqrt(u.size) if u.size else np.nan  # no unit: no sd, no interval
        diff = float(wide.loc[(model, condition), A] - wide.loc[(model, condition), B])
        z = norm.ppf(0.5 + level / 2)
        out.append(
            {
                "model": model,
                "condition": condition,
                "contrast": f"{A} - {B}",
                "n_units": u.size,
                "diff_pp": diff,
                "ci_low_pp": diff - z * se,
                "ci_high_pp": diff + z * se,
                "p_value": 2 * norm.sf(abs(diff) / se) if se > 0 else np.nan,
                "sd_pp": sd,
            }
        )
    columns = ["model", "condition", "contrast", "n_units", "diff_pp", "ci_low_pp", "ci_high_pp"]
    return pd.DataFrame(out, columns=[*columns, "p_value", "sd_pp"])


def power_table(rows, table2, *, alpha, power, fdr_q, relevant_pp, level=0.95):
    c = contrasts(rows, table2, level=level)
    reject, qvalues = bh_adjust(c["p_value"].to_numpy(), fdr_q)
    ids = c[["model", "condition", "contrast"]].assign(p_value=c["p_value"], q_value=qvalues)
    return power_frame(
        ids,
        unit="problem",
        n_units=c["n_units"],
        diff_pp=c["diff_pp"],
        ci_low_pp=c["ci_low_pp"],
        ci_high_pp=c["ci_high_pp"],
        ci_source="normal interval from the problem-clustered sd (computed here; the study tests no contrast)",
        significant=reject,
        sd_pp=c["sd_pp"],
        sd_source="per-continuation labels clustered by problem (warehouse; delta method)",
        alpha=alpha,
        power=power,
        fdr_q=fdr_q,
        relevant_pp=relevant_pp,
        test=Z_TEST,
    )


def headline_checks(table: pd.DataFrame, published: pd.DataFrame, *, alpha, power) -> list:
    """Published check: could Table 2's samples detect its numeric-vs-text contrasts?

    ``published`` is the long published table (``table, item, quantity, value``);
    for each condition of the main model with both families printed, the reported
    numeric − text difference against the MDE from that contrast's per-problem sd.
    """
    t2 = published[(published["table"] == "table2") & (published["quantity"] == "C_pct")]
    parts = t2["item"].str.split(" / ", expand=True)
    if parts.shape[1] < 3:
        return []
    t2 = t2.assign(model=parts[0], condition=parts[1], family=parts[2])
    out = []
    for (model, condition), group in t2.groupby(["model", "condition"], sort=True):
        values = group.set_index("family")["value"]
        if not {A, B} <= set(values.index):
            continue
        mine = table[
            (table["model"] == model)
            & (table["condition"].str.split("-").str[0] == condition.split("-")[0])
        ]
        if mine.empty:
            continue
        row = mine.iloc[0]
        out.append(
            headline_check(
                "cot_loadbearing",
                f"{model} / {condition}: {A} - {B} Type C share",
                float(values[A]) - float(values[B]),
                **design_of(row),
                alpha=alpha,
                power=power,
                note="Table 2 prints the two shares; the contrast is the design's headline.",
            )
        )
    return out


def main(snakemake):
    p = snakemake.params
    rows = decoupling_rows(production_rows(snakemake.input.db, p.production), p.subject)
    table2 = read_csv(snakemake.input.table2)
    table = power_table(
        rows,
        table2,
        **power_settings(p.power, fdr_q=p.fdr_q),
    )
    write_power(table, snakemake.output.power, snakemake.output.curve)


if __name__ == "__main__" and "snakemake" in globals():
    from rederive.runner import run

    run(main, snakemake)  # noqa: F821
