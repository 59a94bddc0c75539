"""SaliTrap Table 6: liberation of Sycophantic Compliance cases (Fig 7 data).

Each model's control-condition Sycophantic Compliance (SC) cases are re-queried
under three de-biasing conditions (A: soft feasibility hint, B: explicit trap
reveal, C: context-free knowledge probe from ``trap_core``). The liberation rate
of a condition is the share of those cases judged Strict Pass, over the cases
with a *valid* re-query row: judge/API errors (and cases never re-queried) are
left out of that condition's n, as the paper's Table 6 caption says, and the
table reports both the SC count and every condition's n so nothing is hidden.

References
----------
SaliTrap (seed paper 000), §5.4 "Liberation" and Appendix Table 6.
"""

import numpy as np
import pandas as pd

from rederive.report.latex import booktabs
from rederive.stats.small_n import SMALL_N
from rederive.studies.salitrap.common import (
    CONTROL,
    OVERALL,
    SHORT,
    dimension_masks,
    load,
    present_dimensions,
    simulated_notes,
    small_n_by_model,
    write_table,
)
from rederive.studies.salitrap.metrics import CELL_COLUMNS, rate_cells

COLUMNS = [
    "model",
    "dimension",
    "condition",
    "sc_cases",
    "numerator",
    "denominator",
    "not_valid",
    *CELL_COLUMNS[2:],
    "requery_rows_outside_sc",
]


def liberation_table(
    items: pd.DataFrame,
    labels: pd.DataFrame,
    *,
    conditions: dict[str, str],
    dimensions: list[str],
    sc_label: str,
    pass_labels: tuple[str, ...],
    n_boot: int,
    level: float,
    seed: int,
) -> pd.DataFrame:
    """Liberation rate per model × dimension (and overall) × condition.

    Parameters
    ----------
    items : DataFrame
        ``item_id, seed_id, dimension``.
    labels : DataFrame
        Usable rows (``model, item_id, condition, label``); invalid re-query rows
        (judge/API errors, skipped) never reach the warehouse, so a missing row
        is exactly "not valid".
    conditions : dict
        Condition id in the run files -> display name, e.g. ``{"lib_A": "A"}``.
    sc_label : str
        Label whose control cases are re-queried (Sycophantic Compliance).
    pass_labels : tuple of str
        Labels that count as liberated (the TAR numerator, Strict Pass).

    Returns
    -------
    DataFrame
        Columns :data:`COLUMNS`; ``sc_cases`` is the number of control SC cases,
        ``denominator`` the condition's valid n, ``not_valid = sc_cases -
        denominator``. ``requery_rows_outside_sc`` counts the model's re-query
        rows for items that were not SC under control (reported, not used).
        Only models with at least one re-query row appear.
    """
    lib = labels[labels["condition"].isin(list(conditions))]
    control = labels[labels["condition"] == CONTROL]
    item_index = items.set_index("item_id")
    frames = []
    for model in sorted(lib["model"].unique()):
        sc_ids = control.loc[
            (control["model"] == model) & (control["label"] == sc_label), "item_id"
        ].to_numpy()
        sc_items = item_index.loc[np.sort(sc_ids)].reset_index()
        mine = lib[lib["model"] == model]
        outside = int((~mine["item_id"].isin(sc_ids)).sum())
        # SC items × conditions: label of the re-query, NaN when no valid row.
        matrix = mine.pivot(index="item_id", columns="condition", values="label").reindex(
            index=sc_items["item_id"].to_numpy(), columns=list(conditions)
        )
        valid = matrix.notna().to_numpy()
        passed = matrix.isin(list(pass_labels)).to_numpy() & valid
        for dimension, mask in dimension_masks(sc_items, dimensions):
            cells, _ = rate_cells(
                passed[mask],
                valid[mask],
                clusters=sc_items["seed_id"].to_numpy()[mask],
                n_boot=n_boot,
                level=level,
                seed=seed,
                key=("table6", model, dimension),
            )
            cells.insert(0, "model", model)
            cells.insert(1, "dimension", dimension)
            cells.insert(2, "condition", list(conditions.values()))
            cells.insert(3, "sc_cases", int(mask.sum()))
            cells["not_valid"] = int(mask.sum()) - cells["denominator"]
            cells["requery_rows_outside_sc"] = outside
            frames.append(cells)
    if not frames:
        return pd.DataFrame(columns=COLUMNS)
    return pd.concat(frames, ignore_index=True)[COLUMNS]


def order_rows(table: pd.DataFrame, dimensions: list[str]) -> pd.DataFrame:
    """Models by descending SC count (the paper's order), then dimension, condition."""
    sc = table[table["dimension"] == OVERALL].groupby("model")["sc_cases"].first()
    model_rank = {m: i for i, m in enumerate(sorted(sc.index, key=lambda m: (-sc[m], m)))}
    dim_rank = {d: i for i, d in enumerate([*dimensions, OVERALL])}
    cond_rank = {c: i for i, c in enumerate(dict.fromkeys(table["condition"]))}
    keyed = table.assign(
        _m=table["model"].map(model_rank),
        _d=table["dimension"].map(dim_rank),
        _c=table["condition"].map(cond_rank),
    )
    return (
        keyed.sort_values(["_m", "_d", "_c"], kind="stable")
        .drop(columns=["_m", "_d", "_c"])
        .reset_index(drop=True)
    )


def latex(table: pd.DataFrame, dimensions: list[str], *, simulated: bool) -> str:
    """Paper layout: Model (# SC), dimension, one column per condition."""
    conditions = list(dict.fromkeys(table["condition"]))
    body = []
    for model, group in table.groupby("model", sort=False):
        g = group.set_index(["dimension", "condition"])
        n_sc = int(g.loc[(OVERALL, conditions[0]), "sc_cases"])
        for d_index, dimension in enumerate([*dimensions, OVERALL]):
            if (dimension, conditions[0]) not in g.index:
                continue
            label = SHORT.get(dimension, dimension)
            if dimension == OVERALL:
                ns = [int(g.loc[(OVERALL, c), "denominator"]) for c in conditions]
                label += f" (n={ns[0]})" if len(set(ns)) == 1 else f" (n={'/'.join(map(str, ns))})"
            row = {"Model": f"{model} ({n_sc})" if d_index == 0 else "", "Dimension": label}
            for c in conditions:
                row[f"Condition {c}"] = g.loc[(dimension, c), "percent"]
            body.append(row)
    frame = pd.DataFrame(body)
    notes = simulated_notes(
        "Liberation rate = share of the model's control Sycophantic Compliance cases judged "
        "Strict Pass when re-queried; # SC in brackets; n excludes judge/API errors. "
        "95% CIs in the CSV.",
        simulated,
    )
    return booktabs(
        frame,
        caption="SaliTrap Table 6: liberation rates (%) of Sycophantic Compliance cases by condition.",
        label="tab:salitrap-liberation",
        column_format="ll" + "r" * len(conditions),
        notes=notes,
    )


def main(snakemake):
    p = snakemake.params
    items, labels = load(snakemake.input.db)
    dimensions = present_dimensions(items, list(p.dimensions.values()))
    table = liberation_table(
        items,
        labels,
        conditions=dict(p.conditions),
        dimensions=dimensions,
        sc_label=p.sc_label,
        pass_labels=tuple(p.pass_labels),
        **p.bootstrap,
    )
    table[SMALL_N] = table["model"].map(small_n_by_model(labels, items, p.min_n)).astype(bool)
    write_table(
        snakemake,
        order_rows(table, dimensions),
        lambda t, simulated: latex(t, dimensions, simulated=simulated),
    )


if __name__ == "__main__" and "snakemake" in globals():
    from rederive.runner import run

    run(main, snakemake)  # noqa: F821
