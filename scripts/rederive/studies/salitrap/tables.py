"""SaliTrap Tables 1–3 and the data-quality table (CSV + LaTeX).

References
----------
SaliTrap (seed paper 000), Tables 1 (TAR/HFR), 2 (SCR/SI) and 3 (dataset).
"""

from pathlib import Path

import pandas as pd

from rederive.io.shared_quality import (
    digest_sql,
    identical_results_notes,
    move_rows,
    reason_text,
    with_notes,
)
from rederive.io.warehouse import query
from rederive.report.latex import bold_extremes, booktabs
from rederive.stats.rates import round_half_up
from rederive.stats.shared_items import decide
from rederive.stats.small_n import SMALL_N, small_n_flags
from rederive.studies.salitrap.common import (
    CONTROL,
    OVERALL,
    SHORT,
    load,
    present_dimensions,
    simulated_notes,
    write_csv,
)
from rederive.studies.salitrap.metrics import (
    label_matrix,
    metrics_from_config,
    model_order,
    rate_table,
)

# The two rate tables in the paper's layout: metrics, and which end of each
# metric is "best" (bold).
PAPER_TABLES = {
    "table1": {
        "metrics": {"TAR": "max", "HFR": "min"},
        "caption": "SaliTrap Table 1: trap avoidance rate (TAR) and hard-fail rate (HFR), %.",
        "label": "tab:salitrap-tar-hfr",
    },
    "table2": {
        "metrics": {"SCR": "min", "SI": "min"},
        "caption": "SaliTrap Table 2: sycophantic compliance rate (SCR) and sycophancy index (SI), %.",
        "label": "tab:salitrap-scr-si",
    },
}


def wide(
    rates: pd.DataFrame, metrics: list[str], dimensions: list[str], order: list[str]
) -> pd.DataFrame:
    """Paper layout: one row per model, (dimension, metric) columns."""
    table = rates.pivot_table(
        index="model", columns=["dimension", "metric"], values="percent", dropna=False
    )
    columns = [(d, m) for d in [*dimensions, OVERALL] for m in metrics if (d, m) in table.columns]
    return table.reindex(index=order, columns=pd.MultiIndex.from_tuples(columns))


def paper_latex(
    rates, metrics, rules, dimensions, order, *, caption, label, simulated: bool
) -> str:
    table = wide(rates, metrics, dimensions, order)
    body = table.copy()
    # Positional column keys: a dimension name may hold any character.
    body.columns = [f"c{i}" for i in range(len(table.columns))]
    flagged = small_n_models(rates)
    bold = bold_extremes(
        body,
        {c: rules[m] for c, (_, m) in zip(body.columns, table.columns, strict=True)},
        eligible=[model not in flagged for model in table.index],
    )
    body.insert(0, "Model", list(table.index))
    bold.insert(0, "Model", False)
    header = ["Model"] + [f"{SHORT.get(d, d)} {m}" for d, m in table.columns]
    notes = "Bold: best per column. Rates in %, n = valid rows; 95% CIs in the CSV."
    if flagged:
        # Said only when it applies, so tables without a flagged model are unchanged.
        notes += f" Never bold: {len(flagged)} model(s) with too few rows (small n)."
    notes = simulated_notes(notes, simulated)
    return booktabs(body, caption=caption, label=label, bold=bold, header=header, notes=notes)


def small_n_models(rates: pd.DataFrame) -> set[str]:
    """Models flagged ``small_n`` in a rate table (none when it has no such column)."""
    if SMALL_N not in rates.columns:
        return set()
    return set(rates.loc[rates[SMALL_N].astype(bool), "model"])


def table3(items: pd.DataFrame, dimensions: list[str]) -> pd.DataFrame:
    """Items, seeds, mean number of injected numbers and mean naturalness per dimension."""
    rows = []
    for dimension in [*dimensions, OVERALL]:
        sub = items if dimension == OVERALL else items[items["dimension"] == dimension]
        rows.append(
            {
                "dimension": dimension,
                "items": len(sub),
                "seeds": sub["seed_id"].nunique(),
                "mean_injected_numbers": round_half_up(sub["n_injected"].mean()),
                "mean_naturalness": round_half_up(sub["naturalness"].mean()),
                "mean_injected_numbers_exact": sub["n_injected"].mean(),
                "mean_naturalness_exact": sub["naturalness"].mean(),
            }
        )
    return pd.DataFrame(rows)


def sort_rates(rates: pd.DataFrame, order: list[str], dimensions: list[str]) -> pd.DataFrame:
    """Rows in the paper's order: model (by overall TAR), metric, dimension."""
    ranks = {
        "model": {m: i for i, m in enumerate(order)},
        "metric": {m: i for i, m in enumerate(dict.fromkeys(rates["metric"]))},
        "dimension": {d: i for i, d in enumerate([*dimensions, OVERALL])},
    }
    return rates.sort_values(
        ["model", "metric", "dimension"], key=lambda col: col.map(ranks[col.name]), kind="stable"
    ).reset_index(drop=True)


#: What a model left out of the shared item set misses (data_quality.csv reason).
SHARED_SCOPE = "failure sets, Table 5, IRT; its own rates keep the rows"


def shared_items_quality(db, quality: pd.DataFrame, matrix: pd.DataFrame, **settings):
    """``quality`` with the control rows of every model left out of the shared item
    set (:mod:`rederive.stats.shared_items`) moved from ``used`` to its reason."""
    left = decide(matrix.notna(), **settings).excluded
    if left.empty:
        return quality
    rows = query(
        db,
        "SELECT run, model, count(*) AS n FROM labels WHERE condition = ? AND label IS NOT NULL "
        "AND item_id IN (SELECT item_id FROM items) GROUP BY run, model ORDER BY run, model",
        [CONTROL],
    )
    why = dict(zip(left["model"], left["reason"], strict=True))
    rows = rows[rows["model"].isin(list(why))]
    moved = pd.DataFrame(
        {
            "run": rows["run"],
            "reason": [reason_text(m, why[m], SHARED_SCOPE) for m in rows["model"]],
            "rows": rows["n"].astype("int64"),
        }
    )
    return move_rows(quality, moved)


def duplicate_notes(db) -> pd.DataFrame:
    """Notes (:mod:`rederive.io.shared_quality`) on two models whose labels are
    identical item by item and condition by condition (and not all one label)."""
    labels = query(
        db,
        f"SELECT model, arg_min(run, rowid) AS run, count(DISTINCT item_id) AS n_items, "
        f"count(DISTINCT label) > 1 AS varies, {digest_sql('item_id, condition, label')} "
        "AS digest FROM labels WHERE model IS NOT NULL GROUP BY model ORDER BY model",
    )
    return identical_results_notes(labels, what="labels")


def build(
    db,
    *,
    dimensions,
    n_boot,
    level,
    seed,
    metrics=None,
    min_n: int = 1,
    shared_items: str = "exclude_partial",
    partial_share: float = 0.9,
):
    """Compute Tables 1–3 and data quality from the warehouse.

    Every row of Tables 1–2 carries ``small_n``: whether its model has fewer than
    ``min_n`` valid control rows (:mod:`rederive.stats.small_n`).
    """
    items, labels = load(db)
    matrix = label_matrix(labels, items, CONTROL)
    present = present_dimensions(items, dimensions)
    t1, t2 = (
        rate_table(
            matrix,
            items,
            list(spec["metrics"]),
            dimensions=present,
            n_boot=n_boot,
            level=level,
            seed=seed,
            key=name,
            metrics=metrics,
        )
        for name, spec in PAPER_TABLES.items()
    )
    order = model_order(t1)
    small = dict(zip(matrix.columns, small_n_flags(matrix.notna().sum(axis=0), min_n), strict=True))
    t1, t2 = (sort_rates(t, order, present) for t in (t1, t2))
    for t in (t1, t2):
        t[SMALL_N] = t["model"].map(small).astype(bool)
    quality = query(db, "SELECT * FROM accounting ORDER BY run, reason")
    quality = shared_items_quality(
        db, quality, matrix, min_n=min_n, partial_share=partial_share, mode=shared_items
    )
    quality = with_notes(quality, duplicate_notes(db))
    return t1, t2, table3(items, present), quality, order, present


def main(snakemake):
    p = snakemake.params
    out = snakemake.output
    t1, t2, t3, quality, order, present = build(
        snakemake.input.db,
        dimensions=list(p.dimensions.values()),
        **p.bootstrap,
        metrics=metrics_from_config(p.metrics),
        min_n=p.min_n,
        shared_items=p.shared_items,
        partial_share=p.partial_share,
    )
    simulated = bool(p.simulated)
    write_csv(t3, out.table3_csv)
    write_csv(quality, out.quality)
    for name, rates in (("table1", t1), ("table2", t2)):
        spec = PAPER_TABLES[name]
        write_csv(rates, getattr(out, f"{name}_csv"))
        Path(getattr(out, f"{name}_tex")).write_text(
            paper_latex(
                rates,
                list(spec["metrics"]),
                spec["metrics"],
                present,
                order,
                caption=spec["caption"],
                label=spec["label"],
                simulated=simulated,
            )
        )
    body = t3[["dimension", "items", "mean_injected_numbers", "mean_naturalness"]].copy()
    body["dimension"] = body["dimension"].map(lambda d: SHORT.get(d, d))
    Path(snakemake.output.table3_tex).write_text(
        booktabs(
            body,
            caption="SaliTrap Table 3: items per dimension, mean injected numbers and naturalness.",
            label="tab:salitrap-dataset",
            decimals={"items": 0, "mean_injected_numbers": 1, "mean_naturalness": 1},
            header=["Dimension", "Items", "Injected numbers", "Naturalness"],
        )
    )


if __name__ == "__main__" and "snakemake" in globals():
    from rederive.runner import run

    run(main, snakemake)  # noqa: F821
