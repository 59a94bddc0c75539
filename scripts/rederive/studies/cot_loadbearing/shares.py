"""Type A/B/C shares: Table 1 (per dataset), per-model comparison, Table 2 (decoupling).

References
----------
Paper 003 (CoT load-bearing), Table 1, Table 2, §5.6 (cross-model replication).
"""

import pandas as pd

from rederive.io.warehouse import query
from rederive.report.latex import booktabs
from rederive.runner import run
from rederive.stats.rates import percent
from rederive.stats.small_n import SMALL_N, small_n_flags
from rederive.studies.cot_loadbearing.common import (
    ci_text,
    clustered_shares,
    production_rows,
    round_ci,
    wide_shares,
    write_csv,
)

DATASET_ORDER = {"gsm8k": 0, "mmlu": 1, "bbh": 2, "all": 3}
FAMILY_NAME = {"math": "numeric", "conceptual": "text"}


def main_shares(
    rows: pd.DataFrame, baselines: pd.DataFrame, *, n_boot: int, seed: int
) -> pd.DataFrame:
    """Table 1 for every model: per dataset and overall, base accuracy and A/B/C with CIs."""
    main = rows[rows["experiment"] == "main"]
    per_ds = clustered_shares(main, ["model", "dataset"], n_boot=n_boot, seed=seed, key="table1")
    overall = clustered_shares(
        main.assign(dataset="all"), ["model", "dataset"], n_boot=n_boot, seed=seed, key="table1"
    )
    wide = wide_shares(round_ci(pd.concat([per_ds, overall])), ["model", "dataset"])
    base = baselines.copy()
    total = base.groupby("model")[["n_problems", "n_correct", "n_baselines"]].sum().reset_index()
    base = pd.concat([base, total.assign(dataset="all")], ignore_index=True)
    base["base_accuracy_pct"] = [
        percent(c, p) for c, p in zip(base["n_correct"], base["n_problems"], strict=True)
    ]
    table = base.merge(wide, on=["model", "dataset"], how="outer")
    table["order"] = table["dataset"].map(DATASET_ORDER)
    table = (
        table.sort_values(["model", "order"])
        .drop(columns="order")
        .rename(columns={"n": "n_labelled"})
    )
    table["n_boot"] = n_boot
    table["seed"] = seed
    return table.reset_index(drop=True)


def decoupling_rows(rows: pd.DataFrame, subject: str) -> pd.DataFrame:
    """The continuations behind Table 2, with ``condition`` and ``perturbation``."""
    keep = rows[rows["experiment"].isin(["main", "decoupling"])]
    gsm = keep[keep["dataset"] == "gsm8k"].assign(condition="gsm8k")
    hard = keep[(keep["dataset"] == "bbh") & (keep["subject"] == subject)].assign(
        condition=f"bbh-{subject}"
    )
    both = pd.concat([gsm, hard], ignore_index=True)
    both["perturbation"] = both["family"].map(FAMILY_NAME)
    return both


def decoupling(rows: pd.DataFrame, subject: str, *, n_boot: int, seed: int) -> pd.DataFrame:
    """Table 2: C rate by perturbation family on GSM8K and on one hard BBH subtask."""
    both = decoupling_rows(rows, subject)
    long = clustered_shares(
        both, ["model", "condition", "perturbation"], n_boot=n_boot, seed=seed, key="table2"
    )
    long = round_ci(long[long["label"] == "C"])
    return (
        long.drop(columns="label")
        .rename(columns={"pct": "C_pct", "count": "n_C"})
        .reset_index(drop=True)
    )


def _latex(
    body: pd.DataFrame,
    *,
    caption: str,
    label: str,
    note: str,
    simulated: bool,
    simulated_note: str = "SIMULATED data.",
) -> str:
    """Booktabs table whose notes say so when the data is simulated."""
    notes = f"{note} {simulated_note}" if simulated else note
    return booktabs(body, caption=caption, label=label, notes=notes)


def _count_text(value) -> str:
    """A count for LaTeX; "--" for a model listed in baselines.csv without a run."""
    return "--" if pd.isna(value) else str(int(value))


def latex_table1(table: pd.DataFrame, model: str, simulated: bool) -> str:
    t = table[table["model"] == model]
    body = pd.DataFrame(
        {
            "Dataset": t["dataset"].str.upper(),
            "Base acc.": t["base_accuracy_pct"],
            "n": t["n_labelled"].map(_count_text),
            "Type A": [ci_text(*r) for r in t[["A_pct", "A_lo", "A_hi"]].to_numpy()],
            "Type B": [ci_text(*r) for r in t[["B_pct", "B_lo", "B_hi"]].to_numpy()],
            "Type C": [ci_text(*r) for r in t[["C_pct", "C_lo", "C_hi"]].to_numpy()],
        }
    )
    return _latex(
        body,
        caption=f"Continuation behaviour by dataset ({model})",
        label="tab:cot-table1",
        note="95% CIs: clustered Wilson (effective n from the problem-clustered SE, "
        "t with C-1 df); percentile problem bootstrap in table1.csv (*_boot_lo/_hi).",
        simulated=simulated,
        simulated_note="SIMULATED data (seeded generator calibrated to the published aggregates).",
    )


def latex_models(table: pd.DataFrame, simulated: bool) -> str:
    t = table.copy()
    body = pd.DataFrame(
        {
            "Model": t["model"],
            "Dataset": t["dataset"].str.upper(),
            "Base acc.": t["base_accuracy_pct"],
            "n": t["n_labelled"].map(_count_text),
            "A": t["A_pct"],
            "B": t["B_pct"],
            "C": t["C_pct"],
        }
    )
    return _latex(
        body,
        caption="Type A/B/C shares per model",
        label="tab:cot-models",
        note="Percent of labelled continuations (production judge).",
        simulated=simulated,
    )


def latex_table2(table: pd.DataFrame, simulated: bool) -> str:
    body = pd.DataFrame(
        {
            "Model": table["model"],
            "Task": table["condition"],
            "Perturbation": table["perturbation"],
            "n": table["n"].astype(str),
            "Type C": [ci_text(*r) for r in table[["C_pct", "ci_low", "ci_high"]].to_numpy()],
        }
    )
    return _latex(
        body,
        caption="Error propagation by perturbation family and task",
        label="tab:cot-table2",
        note="Decoupling perturbation type from task difficulty. 95% CIs: clustered "
        "Wilson (effective n from the problem-clustered SE, t with C-1 df); percentile "
        "problem bootstrap in table2.csv (boot_low/boot_high).",
        simulated=simulated,
    )


def main(snakemake) -> None:
    p = snakemake.params
    rows = production_rows(snakemake.input.db, p.production)
    baselines = query(snakemake.input.db, "SELECT * FROM baselines ORDER BY model, dataset")
    table = main_shares(rows, baselines, n_boot=p.n_boot, seed=p.seed)
    table[SMALL_N] = small_n_flags(table["n_labelled"].fillna(0), p.min_n)
    write_csv(table, snakemake.output.table1)
    # A model of baselines.csv without a run file has no labelled row to show.
    with_rows = sorted(set(table.loc[table["n_labelled"].notna(), "model"]))
    model = p.main_model if p.main_model in with_rows else with_rows[0]
    with open(snakemake.output.table1_tex, "w") as handle:
        handle.write(latex_table1(table, model, p.simulated))
    with open(snakemake.output.models_tex, "w") as handle:
        handle.write(latex_models(table, p.simulated))
    dec = decoupling(rows, p.decoupling_subject, n_boot=p.n_boot, seed=p.seed)
    write_csv(dec, snakemake.output.table2)
    with open(snakemake.output.table2_tex, "w") as handle:
        handle.write(latex_table2(dec, p.simulated))


if __name__ == "__main__" and "snakemake" in globals():
    run(main, snakemake)  # noqa: F821
