"""SaliTrap Table 7: prompt interventions P1–P3 against the control run (Fig 8 data).

For each model that has intervention rows: TAR and HFR under control (taken
from the main control run, i.e. the numbers of Table 1) and under each prompt
intervention, plus the change in TAR against control *paired by item*, with the
seed-clustered t interval and Wald/t p-value of :mod:`rederive.stats.clustered`
(no resampling floor under the p); the percentile bootstrap interval, control and
intervention sharing every resample of seed clusters, stays in ``boot_low`` /
``boot_high``.

References
----------
SaliTrap (seed paper 000), §5.5 "Prompt interventions" and Appendix Table 7.
"""

import numpy as np
import pandas as pd

from rederive.report.latex import booktabs
from rederive.stats.bootstrap import percentile_ci
from rederive.stats.clustered import T_METHOD, paired_differences, t_interval, t_pvalue
from rederive.stats.rates import round_half_up
from rederive.stats.small_n import SMALL_N
from rederive.studies.salitrap.common import (
    CONTROL,
    control_order,
    load,
    model_rank,
    simulated_notes,
    small_n_by_model,
    write_table,
)
from rederive.studies.salitrap.metrics import (
    CELL_COLUMNS,
    count_rows,
    metrics_from_config,
    rate_cells,
)

METRICS = ["TAR", "HFR"]

COLUMNS = ["model", "condition", "metric", *CELL_COLUMNS[:5], "p_value", *CELL_COLUMNS[5:]]


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
        numerator/denominator and carries the paired, seed-clustered t p-value.
    """
    models = sorted(labels.loc[labels["condition"].isin(conditions), "model"].unique())
    clusters = items["seed_id"].to_numpy()
    all_conditions = [CONTROL, *conditions]
    frames = []
    for model in models:
        mine = labels[labels["model"] == model]
        matrix = mine.pivot(index="item_id", columns="condition", values="label").reindex(
            index=items["item_id"].to_numpy(), columns=all_conditions
        )
        # A model without a control run still gets its rates, but no changes.
        present = [c for c in all_conditions if matrix[c].notna().any()]
        counted = [count_rows(matrix[present].to_numpy(), metrics[name]) for name in METRICS]
        cells, boot = rate_cells(
            np.hstack([num for num, _ in counted]),
            np.hstack([den for _, den in counted]),
            clusters=clusters,
            n_boot=n_boot,
            level=level,
            seed=seed,
            key=("table7", model),
        )
        cells.insert(0, "model", model)
        cells.insert(1, "condition", present * len(METRICS))
        cells.insert(2, "metric", np.repeat(METRICS, len(present)))
        cells["p_value"] = np.nan
        frames.append(cells)
        if CONTROL in present:
            frames.append(tar_changes(boot, model, present, cells.iloc[0], level))
    if not frames:
        return pd.DataFrame(columns=COLUMNS)
    return pd.concat(frames, ignore_index=True)[COLUMNS]


def tar_changes(boot, model: str, present: list[str], control: pd.Series, level: float):
    """TAR of each intervention minus control TAR, paired by item.

    Columns ``0..len(present)-1`` of ``boot`` are the TAR of ``present``
    (control first); both columns of a difference come from the same resampled
    seed clusters. ``control`` is the control TAR row (its CI settings are copied).
    """
    est = boot.estimate[: len(present)] * 100.0
    reps = boot.replicates[:, : len(present)] * 100.0
    delta = est[1:] - est[0]
    delta_reps = reps[:, 1:] - reps[:, [0]]
    b_lo, b_hi = percentile_ci(delta_reps, level)
    later = np.arange(1, len(present))
    diff, se, n_clusters = paired_differences(boot.clustered, later, np.zeros_like(later))
    lo, hi = t_interval(100.0 * diff, 100.0 * se, n_clusters, level)
    return pd.DataFrame(
        {
            "model": model,
            "condition": present[1:],
            "metric": "TAR_delta",
            "numerator": np.nan,
            "denominator": np.nan,
            # Difference of the exact rates, rounded once (not of two rounded rates).
            "percent": [round_half_up(d) for d in delta],
            "ci_low": [round_half_up(v) for v in lo],
            "ci_high": [round_half_up(v) for v in hi],
            "p_value": t_pvalue(diff, se, n_clusters),
            "ci_method": f"{T_METHOD}, {control['n_clusters']} seed clusters, paired by item",
            "boot_low": [round_half_up(v) for v in b_lo],
            "boot_high": [round_half_up(v) for v in b_hi],
            "n_clusters": control["n_clusters"],
            "n_boot": control["n_boot"],
            "seed": control["seed"],
        },
        columns=COLUMNS,
    )


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
    notes = simulated_notes(
        "Control = the main control run (Table 1). TAR change = intervention TAR minus control "
        "TAR, percentage points; paired-by-item 95% CIs and p-values in the CSV.",
        simulated,
    )
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
        **p.bootstrap,
    )
    table[SMALL_N] = table["model"].map(small_n_by_model(labels, items, p.min_n)).astype(bool)
    order = control_order(labels, metrics["TAR"].numerator)
    write_table(snakemake, order_rows(table, order, conditions), latex)


if __name__ == "__main__" and "snakemake" in globals():
    from rederive.runner import run

    run(main, snakemake)  # noqa: F821
