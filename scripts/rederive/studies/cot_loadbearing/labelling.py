"""Rule baseline vs judge labels, and judge-prompt sensitivity.

References
----------
Paper 003 (CoT load-bearing), §3.3 (judge), §4 (500-sample human check), Figure 3
    (four judge-prompt variants: Type A varies, Type C identical).
Cohen, J. (1960). A coefficient of agreement for nominal scales. *Educ. Psychol.
    Meas.*, 20(1), 37–46.
"""

import numpy as np
import pandas as pd

from rederive.io.warehouse import query
from rederive.runner import run
from rederive.stats.rates import percent
from rederive.studies.cot_loadbearing.common import LABELS, production_rows, write_csv

KEY = [
    "run",
    "model",
    "problem_id",
    "experiment",
    "position",
    "strategy",
    "strength",
    "continuation",
]


def confusion(rows: pd.DataFrame) -> pd.DataFrame:
    """Long confusion counts judge × rule per model (every cell, zeros included)."""
    out = []
    for model, g in rows.groupby("model", sort=True):
        table = pd.crosstab(g["judge_label"], g["rule_label"]).reindex(
            index=LABELS, columns=LABELS, fill_value=0
        )
        for judge in LABELS:
            for rule in LABELS:
                out.append(
                    {
                        "model": model,
                        "judge_label": judge,
                        "rule_label": rule,
                        "count": int(table.loc[judge, rule]),
                    }
                )
    return pd.DataFrame(out)


def _kappa(table: np.ndarray) -> tuple[float, float, float]:
    if table.sum() == 0 or (table.sum(axis=0) > 0).sum() < 2 and (table.sum(axis=1) > 0).sum() < 2:
        return np.nan, np.nan, np.nan
    # statsmodels costs ~1 s to import; only this function needs it.
    from statsmodels.stats.inter_rater import cohens_kappa

    res = cohens_kappa(table, return_results=True)
    return float(res.kappa), float(res.kappa_low), float(res.kappa_upp)


def agreement(rows: pd.DataFrame) -> pd.DataFrame:
    """Agreement and Cohen's κ of rule vs judge: three-way and C vs non-C."""
    out = []
    for model, g in rows.groupby("model", sort=True):
        for scheme, judge, rule in (
            ("A/B/C", g["judge_label"], g["rule_label"]),
            ("C vs non-C", g["judge_label"].eq("C"), g["rule_label"].eq("C")),
            (
                "A vs B (both non-C)",
                g["judge_label"].where(g["judge_label"] != "C"),
                g["rule_label"].where(g["judge_label"] != "C"),
            ),
        ):
            ok = judge.notna() & rule.notna()
            j, r = judge[ok].astype(str), rule[ok].astype(str)
            levels = sorted(set(j) | set(r))
            table = pd.crosstab(j, r).reindex(index=levels, columns=levels, fill_value=0).to_numpy()
            kappa, lo, hi = _kappa(table)
            agree = int((j == r).sum())
            out.append(
                {
                    "model": model,
                    "scheme": scheme,
                    "n": int(ok.sum()),
                    "agree": agree,
                    "agreement_pct": percent(agree, int(ok.sum())),
                    "kappa": kappa,
                    "kappa_low": lo,
                    "kappa_high": hi,
                }
            )
    return pd.DataFrame(out)


def judge_sensitivity(all_rows: pd.DataFrame, production: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Shares under every judge variant on the continuations re-labelled by all of them.

    The sample is the set of continuations (matched on ``KEY``) that carry a label
    under every variant; keys that are not unique within a variant are left out and
    counted, since they cannot be matched.

    Returns
    -------
    shares : one row per model × variant: n, A/B/C counts and percent, A share of
        the non-C rows, and whether each row's C / non-C label equals production's.
    summary : per model: variants, Type A range (all rows and non-C rows), C identical.
    """
    rows = all_rows.assign(strength=all_rows["strength"].fillna(""))
    shares, summary = [], []
    for model, g in rows.groupby("model", sort=True):
        variants = sorted(g["judge_variant"].unique())
        if len(variants) < 2:
            continue
        dup = g.duplicated(KEY + ["judge_variant"], keep=False)
        clean = g[~dup]
        wide = clean.pivot(index=KEY, columns="judge_variant", values="judge_label").dropna()
        prod_c = wide[production] == "C"
        for v in variants:
            lab = wide[v]
            n = len(lab)
            counts = {k: int((lab == k).sum()) for k in LABELS}
            shares.append(
                {
                    "model": model,
                    "judge_variant": v,
                    "n": n,
                    **{f"n_{k}": counts[k] for k in LABELS},
                    **{f"{k}_pct": percent(counts[k], n) for k in LABELS},
                    "A_of_nonC_pct": percent(counts["A"], counts["A"] + counts["B"]),
                    "C_rows_match_production": bool(((lab == "C") == prod_c).all()),
                    "unmatched_duplicate_keys": int(dup[g["judge_variant"] == v].sum()),
                }
            )
        s = pd.DataFrame([r for r in shares if r["model"] == model])
        summary.append(
            {
                "model": model,
                "n": int(s["n"].iloc[0]),
                "n_variants": len(variants),
                "A_min_pct": s["A_pct"].min(),
                "A_max_pct": s["A_pct"].max(),
                "A_of_nonC_min_pct": s["A_of_nonC_pct"].min(),
                "A_of_nonC_max_pct": s["A_of_nonC_pct"].max(),
                "C_counts_identical": bool(s["n_C"].nunique() == 1),
                "C_rows_identical": bool(s["C_rows_match_production"].all()),
            }
        )
    share_cols = [
        "model",
        "judge_variant",
        "n",
        "n_A",
        "n_B",
        "n_C",
        "A_pct",
        "B_pct",
        "C_pct",
        "A_of_nonC_pct",
        "C_rows_match_production",
        "unmatched_duplicate_keys",
    ]
    summary_cols = [
        "model",
        "n",
        "n_variants",
        "A_min_pct",
        "A_max_pct",
        "A_of_nonC_min_pct",
        "A_of_nonC_max_pct",
        "C_counts_identical",
        "C_rows_identical",
    ]
    return pd.DataFrame(shares, columns=share_cols), pd.DataFrame(summary, columns=summary_cols)


def main(snakemake) -> None:
    p = snakemake.params
    rows = production_rows(snakemake.input.db, p.production)
    write_csv(confusion(rows), snakemake.output.confusion)
    write_csv(agreement(rows), snakemake.output.agreement)
    all_rows = query(snakemake.input.db, "SELECT * FROM continuations ORDER BY run, line")
    shares, summary = judge_sensitivity(all_rows, p.production)
    write_csv(shares, snakemake.output.judge)
    write_csv(summary, snakemake.output.judge_summary)


if __name__ == "__main__" and "snakemake" in globals():
    run(main, snakemake)  # noqa: F821
