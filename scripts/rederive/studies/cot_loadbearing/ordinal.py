"""Table 5: sequential ordinal-logistic deviance decomposition on the pooled rows.

Outcome Type A < B < C; terms enter as difficulty (4 levels), perturbation family,
their interaction (the paper's order), and again with family first (shares depend
on entry order). The pool is every production-judge continuation of one model.
Continuations of one problem are not independent, so every term also gets the
problem-clustered Wald test beside the LR (``wald_cluster``, ``p_cluster``,
``design_effect``; :mod:`rederive.studies.cot_loadbearing.deviance`); the shares
are those of the LR deviance drops.

References
----------
Paper 003 (CoT load-bearing), Table 5 and §5.2 (28,584 pooled rows).
"""

import json
import logging
import time

import pandas as pd

from rederive.report.latex import booktabs
from rederive.runner import run
from rederive.studies.cot_loadbearing.common import production_rows, write_csv
from rederive.studies.cot_loadbearing.deviance import (
    factor_dummies,
    interaction,
    sequential_deviance,
)

log = logging.getLogger(__name__)
OUTCOME = {"A": 0, "B": 1, "C": 2}


def decompose(pool: pd.DataFrame, cluster: str | None = "problem_id") -> pd.DataFrame:
    """Both entry orders of the decomposition for one pooled frame.

    ``cluster`` names the column whose values group correlated rows (problems);
    ``None`` leaves out the clustered Wald columns (NaN).
    """
    pool = pool.reset_index(drop=True)
    groups = None if cluster is None else pool[cluster].astype(str).to_numpy()
    y = pool["judge_label"].map(OUTCOME).to_numpy()
    diff = factor_dummies(pool["difficulty"].astype(int), "difficulty")
    fam = factor_dummies(pool["family"], "family")
    inter = interaction(diff, fam)
    cache: dict = {}
    paper = sequential_deviance(
        y,
        {"difficulty": diff, "family": fam, "difficulty:family": inter},
        order_name="paper",
        cache=cache,
        groups=groups,
    )
    reverse = sequential_deviance(
        y,
        {"family": fam, "difficulty": diff, "difficulty:family": inter},
        order_name="family first",
        cache=cache,
        groups=groups,
    )
    out = pd.concat([paper, reverse], ignore_index=True)
    out.insert(1, "n_rows", len(pool))
    return out


def _p(value) -> str:
    if pd.isna(value):
        return "--"
    return f"{value:.2g}" if value > 0 else "<1e-300"


def main(snakemake) -> None:
    p = snakemake.params
    rows = production_rows(snakemake.input.db, p.production)
    models = sorted(rows["model"].unique())
    model = p.pool_model if p.pool_model in models else models[0]
    pool = rows[rows["model"] == model]
    start = time.perf_counter()
    table = decompose(pool)
    seconds = time.perf_counter() - start
    table.insert(0, "model", model)
    timing = {"model": model, "n_rows": len(pool)}
    terms = table[table["term"] != "total"]
    timing["fits"] = int((terms["fit_seconds"] > 0).sum())
    timing["ordinal_fit_seconds"] = float(terms["fit_seconds"].sum())
    timing["slowest_fit_seconds"] = float(terms["fit_seconds"].max())
    timing["total_seconds"] = seconds
    # Wall time varies between runs: it goes to the rule's log (and Snakemake's
    # benchmark file), never into results/, whose files are byte-identical across runs.
    table = table.drop(columns="fit_seconds")
    # Fixed decimals: %.6g would print a log-likelihood of -27271.5123 as -27271.5.
    printed = table.copy()
    for col in ("loglik", "deviance", "delta_deviance", "share_pct", "wald_model", "wald_cluster"):
        printed[col] = [f"{v:.4f}" for v in table[col]]
    printed["design_effect"] = [f"{v:.4f}" for v in table["design_effect"]]
    write_csv(printed, snakemake.output.table)
    body = table[table["order"] == "paper"]
    latex = booktabs(
        pd.DataFrame(
            {
                "Term": body["term"],
                "df": body["df"].astype(str),
                "Delta deviance": body["delta_deviance"],
                "p": [_p(v) for v in body["p_value"]],
                "Share (%)": body["share_pct"],
                "Clustered Wald": body["wald_cluster"],
                "Deff": body["design_effect"],
                "p (clustered)": [_p(v) for v in body["p_cluster"]],
            }
        ),
        caption=f"Sequential ordinal-logistic deviance decomposition ({model}, n = {len(pool):,})",
        label="tab:cot-table5",
        notes="Outcome A < B < C; terms entered top to bottom. p: likelihood-ratio "
        "chi-square (rows as independent); shares are of the LR deviance drops. "
        f"Clustered Wald: the term's coefficients with the problem-clustered sandwich "
        f"covariance ({int(body['n_clusters'].iloc[0]):,} problems), p from F(df, G-1); "
        "Deff = model-based / clustered Wald." + (" SIMULATED data." if p.simulated else ""),
    )
    with open(snakemake.output.table_tex, "w") as handle:
        handle.write(latex)
    log.info(
        "ordinal decomposition on %d rows: %.1f s in fits", len(pool), timing["ordinal_fit_seconds"]
    )
    log.info("timing %s", json.dumps(timing, sort_keys=True))


if __name__ == "__main__" and "snakemake" in globals():
    run(main, snakemake)  # noqa: F821
