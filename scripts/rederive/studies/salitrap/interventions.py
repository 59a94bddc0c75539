"""SaliTrap Table 7: prompt interventions P1–P3 against the control run (Fig 8 data).

For each model that has intervention rows: TAR and HFR under control (taken
from the main control run, i.e. the numbers of Table 1) and under each prompt
intervention, plus the change in TAR against control with a bootstrap interval
and p-value *paired by item*: control and intervention columns share every
resample of seed clusters.

References
----------
SaliTrap (seed paper 000), §5.5 "Prompt interventions" and Appendix Table 7.
"""

from pathlib import Path

import numpy as np
import pandas as pd

from rederive.report.latex import booktabs
from rederive.stats.bootstrap import bootstrap_pvalue, bootstrap_ratio, percentile_ci, rng_for
from rederive.stats.rates import percent, round_half_up
from rederive.studies.salitrap.common import (
    CONTROL,
    control_order,
    is_simulated,
    load,
    model_rank,
    write_csv,
)
from rederive.studies.salitrap.metrics import metrics_from_config

COLUMNS = [
    "model",
    "condition",
    "metric",
    "numerator",
    "denominator",
    "percent",
    "ci_low",
    "ci_high",
    "p_value",
    "ci_method",
    "n_clusters",
    "n_boot",
    "seed",
]


def intervention_table(
    items: pd.DataFrame,
    labels: pd.DataFrame,
    *,
    conditions: list[str],
    metrics: dict,
    n_boot: int,
    level: float,
    seed: int,
) -> pd.DataFrame:
    """TAR, HFR and TAR − control TAR per model × condition.

    Parameters
    ----------
    items : DataFrame
        ``item_id, seed_id`` (all items; each condition's n is its valid rows).
    labels : DataFrame
        Usable rows with ``model, item_id, condition, label``.
    conditions : list of str
        Intervention conditions in table order (``P1``, ``P2``, ``P3``).
    metrics : dict
        Metric definitions (:func:`~rederive.studies.salitrap.metrics.metrics_from_config`);
        uses ``TAR`` and ``HFR``.

    Returns
    -------
    DataFrame
        Columns :data:`COLUMNS`; metric ``TAR_delta`` (percentage points) has no
        numerator/denominator and carries the paired bootstrap p-value.
    """
    models = sorted(labels.loc[labels["condition"].isin(conditions), "model"].unique())
    clusters = items["seed_id"].to_numpy()
    all_conditions = [CONTROL, *conditions]
    rows = []
    for model in models:
        mine = labels[labels["model"] == model]
        matrix = mine.pivot(index="item_id", columns="condition", values="label").reindex(
            index=items["item_id"].to_numpy(), columns=all_conditions
        )
        # A model without a control run still gets its rates, but no changes.
        present = [c for c in all_conditions if matrix[c].notna().any()]
        values = matrix[present].to_numpy()
        valid = pd.notna(values)
        num, den = [], []
        for name in ("TAR", "HFR"):
            metric = metrics[name]
            num.append(np.isin(values, metric.numerator) & valid)
            den.append(
                valid if metric.denominator is None else np.isin(values, metric.denominator) & valid
            )
        boot = bootstrap_ratio(
            np.hstack(num),
            np.hstack(den),
            clusters=clusters,
            n_boot=n_boot,
            rng=rng_for(seed, "table7", model),
        )
        reps = boot.replicates * 100.0
        lo, hi = percentile_ci(reps, level)
        method = f"percentile, bootstrap over {boot.n_clusters} seed clusters"
        base = dict(ci_method=method, n_clusters=boot.n_clusters, n_boot=n_boot, seed=seed)
        for m_index, name in enumerate(("TAR", "HFR")):
            for c_index, condition in enumerate(present):
                col = m_index * len(present) + c_index
                k = int(num[m_index][:, c_index].sum())
                n = int(den[m_index][:, c_index].sum())
                rows.append(
                    {
                        "model": model,
                        "condition": condition,
                        "metric": name,
                        "numerator": k,
                        "denominator": n,
                        "percent": percent(k, n),
                        "ci_low": round_half_up(lo[col]),
                        "ci_high": round_half_up(hi[col]),
                        "p_value": np.nan,
                        **base,
                    }
                )
        if CONTROL in present:
            # Column 0 is control TAR; the change is paired because both columns
            # come from the same resampled seed clusters.
            est = boot.estimate[: len(present)] * 100.0
            delta = est[1:] - est[0]
            delta_reps = reps[:, 1 : len(present)] - reps[:, [0]]
            d_lo, d_hi = percentile_ci(delta_reps, level)
            p_values = bootstrap_pvalue(delta, delta_reps)
            for c_index, condition in enumerate(present[1:]):
                rows.append(
                    {
                        "model": model,
                        "condition": condition,
                        "metric": "TAR_delta",
                        "numerator": np.nan,
                        "denominator": np.nan,
                        # Difference of the exact rates, rounded once (not of two
                        # rounded rates).
                        "percent": round_half_up(delta[c_index]),
                        "ci_low": round_half_up(d_lo[c_index]),
                        "ci_high": round_half_up(d_hi[c_index]),
                        "p_value": p_values[c_index],
                        **base,
                        "ci_method": method + ", paired by item",
                    }
                )
    return pd.DataFrame(rows, columns=COLUMNS)


def order_rows(table: pd.DataFrame, order: list[str], conditions: list[str]) -> pd.DataFrame:
    cond_rank = {c: i for i, c in enumerate([CONTROL, *conditions])}
    metric_rank = {"TAR": 0, "HFR": 1, "TAR_delta": 2}
    keyed = table.assign(
        _m=model_rank(order, table),
        _c=table["condition"].map(cond_rank),
        _k=table["metric"].map(metric_rank),
    )
    return (
        keyed.sort_values(["_m", "model", "_c", "_k"], kind="stable")
        .drop(columns=["_m", "_c", "_k"])
        .reset_index(drop=True)
    )


def latex(table: pd.DataFrame, *, simulated: bool) -> str:
    """Paper layout: model, condition, TAR, HFR, TAR change vs control."""
    wide = table.pivot_table(
        index=["model", "condition"], columns="metric", values="percent", sort=False
    )
    body = []
    last = None
    for (model, condition), row in wide.iterrows():
        delta = row.get("TAR_delta", np.nan)
        body.append(
            {
                "Model": model if model != last else "",
                "Condition": "Control" if condition == CONTROL else condition,
                "TAR": row["TAR"],
                "HFR": row["HFR"],
                "TAR change": "--" if pd.isna(delta) else f"{delta:+.1f}",
            }
        )
        last = model
    notes = (
        "Control = the main control run (Table 1). TAR change = intervention TAR minus control "
        "TAR, percentage points; paired-by-item 95% CIs and p-values in the CSV."
    )
    if simulated:
        notes += " Computed from SIMULATED data calibrated to the published tables."
    return booktabs(
        pd.DataFrame(body, columns=["Model", "Condition", "TAR", "HFR", "TAR change"]),
        caption="SaliTrap Table 7: TAR and HFR (%) under control and prompt interventions P1-P3.",
        label="tab:salitrap-interventions",
        column_format="llrrr",
        notes=notes,
    )


def main(snakemake):
    p = snakemake.params
    items, labels = load(snakemake.input.db)
    metrics = metrics_from_config(p.metrics)
    conditions = list(p.conditions)
    table = intervention_table(
        items,
        labels,
        conditions=conditions,
        metrics=metrics,
        n_boot=p.n_boot,
        level=p.level,
        seed=p.seed,
    )
    order = control_order(labels, metrics["TAR"].numerator)
    table = order_rows(table, order, conditions)
    write_csv(table, snakemake.output.csv)
    Path(snakemake.output.tex).write_text(latex(table, simulated=is_simulated(p.raw_dir)))


if __name__ == "__main__" and "snakemake" in globals():
    from rederive.runner import run

    run(main, snakemake)  # noqa: F821
