"""Reviewer mode for SaliTrap: recomputed cells vs the paper, and the identities
that tie the published tables together.

References
----------
SaliTrap (seed paper 000), Tables 1–3 (Tables 5–7: :mod:`.check_experiments`); the published values are the project's
copy in ``raw/salitrap/published/``.
"""

from pathlib import Path

import pandas as pd

from rederive.check import (
    Check,
    compare_cells,
    published_available,
    write_no_published_check,
    write_published_check,
)
from rederive.io.names import read_csv
from rederive.io.source import read_csv_frame
from rederive.printed import read_published
from rederive.report.markdown import cell as md_cell
from rederive.stats.rates import rounding_compatible
from rederive.stats.shared_items import from_frame
from rederive.studies.salitrap.check_experiments import experiment_checks, identity

STUDY = "salitrap"
# Rounding slack when relating printed one-decimal numbers to each other: each
# printed value is off its exact value by at most 0.05.
HALF_UNIT = 0.05


def long_to_wide(rates: pd.DataFrame, metrics: list[str]) -> pd.DataFrame:
    wide = rates[rates["metric"].isin(metrics)].pivot_table(
        index=["model", "dimension"], columns="metric", values="percent", dropna=False
    )
    return wide.reset_index()


def cell_checks(
    published_dir: Path, tables: dict[str, pd.DataFrame], tolerance: float
) -> list[Check]:
    checks = []
    for table, key, published, metrics in (
        ("Table 1", "table1", "salitrap_table1_tar_hfr.csv", ["TAR", "HFR"]),
        ("Table 2", "table2", "salitrap_table2_scr_si.csv", ["SCR", "SI"]),
    ):
        checks += compare_cells(
            STUDY,
            table,
            read_published(published_dir / published, metrics),
            long_to_wide(tables[key], metrics),
            keys=["model", "dimension"],
            quantities=metrics,
            tolerance=tolerance,
        )
    means = ["mean_injected_numbers", "mean_naturalness"]
    pub3 = read_published(published_dir / "salitrap_table3_dataset.csv", ["items", *means])
    # Item counts are exact (ours are whole numbers; the printed integer allows
    # nothing else); the means are compared at their printed decimal.
    for quantities, slack in ((["items"], 0), (means, tolerance)):
        checks += compare_cells(
            STUDY,
            "Table 3",
            pub3,
            tables["table3"],
            keys=["dimension"],
            quantities=quantities,
            tolerance=slack,
        )
    return checks


def published_identities(published_dir: Path) -> list[Check]:
    """Relations the published Tables 1–3 must satisfy among themselves."""
    pub1 = read_csv_frame(published_dir / "salitrap_table1_tar_hfr.csv")
    pub2 = read_csv_frame(published_dir / "salitrap_table2_scr_si.csv")
    pub3 = read_csv_frame(published_dir / "salitrap_table3_dataset.csv").set_index("dimension")
    dims = [d for d in pub3.index if d != "overall"]
    n = pub3["items"]
    checks = [
        identity(
            "Table 3",
            "all dimensions",
            "items: sum of dimensions = overall",
            float(n["overall"]),
            float(n[dims].sum()),
            0,
        )
    ]
    for col in ("mean_injected_numbers", "mean_naturalness"):
        weighted = float((pub3.loc[dims, col] * n[dims]).sum() / n[dims].sum())
        checks.append(
            identity(
                "Table 3",
                "all dimensions",
                f"{col}: item-weighted mean of dimensions = overall",
                float(pub3.loc["overall", col]),
                weighted,
                2 * HALF_UNIT,
            )
        )
    merged = pub1.merge(pub2, on=["model", "dimension"])
    for model, group in merged.groupby("model", sort=False):
        g = group.set_index("dimension")
        for metric in ("TAR", "HFR", "SCR"):
            weighted = float((g.loc[dims, metric] * n[dims]).sum() / n["overall"])
            checks.append(
                identity(
                    "Table 1" if metric != "SCR" else "Table 2",
                    model,
                    f"{metric}: item-weighted mean of dimensions = overall",
                    float(g.loc["overall", metric]),
                    weighted,
                    2 * HALF_UNIT,
                    "assumes no excluded rows (n = Table 3 items)",
                )
            )
        for dimension, row in g.iterrows():
            total = float(row["TAR"] + row["HFR"] + row["SCR"])
            checks.append(
                identity(
                    "Tables 1+2",
                    f"{model} / {dimension}",
                    "TAR + HFR + SCR <= 100 (one label per row)",
                    100.0,
                    total,
                    3 * HALF_UNIT,
                    relation="<=",
                )
            )
            # SI = SC / (SC + CH) implies CH = SCR (100 - SI) / SI. Under the spec's
            # reading (HFR = Hard Fail only) CH must fit in what TAR, HFR and SCR
            # leave; under the strong-failure reading (HFR = Hard Fail + CoT
            # Hijacked, paper labels 1-2) it must fit inside HFR.
            if row["SI"] > 0:
                implied_ch = float(row["SCR"] * (100.0 - row["SI"]) / row["SI"])
                room = 100.0 - total
                note = f"implied CoT Hijacked = SCR (100 - SI) / SI = {implied_ch:.2f}"
                checks.append(
                    identity(
                        "Tables 1+2",
                        f"{model} / {dimension}",
                        "HFR = Hard Fail only: implied CoT Hijacked <= 100 - TAR - HFR - SCR",
                        round(room, 4),
                        round(implied_ch, 4),
                        4 * HALF_UNIT,
                        note,
                        relation="<=",
                    )
                )
                checks.append(
                    identity(
                        "Tables 1+2",
                        f"{model} / {dimension}",
                        "HFR = Hard Fail + CoT Hijacked: implied CoT Hijacked <= HFR",
                        float(row["HFR"]),
                        round(implied_ch, 4),
                        4 * HALF_UNIT,
                        note,
                        relation="<=",
                    )
                )
            denominator = int(n[dimension])
            for metric in ("TAR", "HFR", "SCR"):
                ok = rounding_compatible(float(row[metric]), denominator)
                checks.append(
                    identity(
                        "Table 1" if metric != "SCR" else "Table 2",
                        f"{model} / {dimension}",
                        f"{metric} is k/{denominator} for an integer k",
                        1.0,
                        1.0 if ok else 0.0,
                        0,
                        ""
                        if ok
                        else f"no integer count of {denominator} items rounds to {row[metric]}",
                    )
                )
    return checks


#: The published tables every check reads (Table 5's all-fail list is optional).
PUBLISHED_FILES = (
    "salitrap_table1_tar_hfr.csv",
    "salitrap_table2_scr_si.csv",
    "salitrap_table3_dataset.csv",
    "salitrap_table5_pairs.csv",
    "salitrap_table6_liberation.csv",
    "salitrap_table7_interventions.csv",
)
TITLE = "SaliTrap: published-number check"


def main(snakemake):
    published_dir = Path(snakemake.params.published_dir)
    if not published_available(published_dir, PUBLISHED_FILES):
        write_no_published_check(
            snakemake.output.csv,
            snakemake.output.md,
            title=TITLE,
            folder=published_dir,
            analysis=snakemake.wildcards.analysis,
        )
        return
    tables = {
        "table1": read_csv(snakemake.input.table1),
        "table2": read_csv(snakemake.input.table2),
        "table3": read_csv(snakemake.input.table3),
    }
    checks = cell_checks(published_dir, tables, snakemake.params.tolerance)
    checks += published_identities(published_dir)
    ours = {
        name: read_csv(getattr(snakemake.input, name))
        for name in ("failure_pairs", "table5", "failed_by_all", "table6", "table7")
        if hasattr(snakemake.input, name)
    }
    checks += experiment_checks(published_dir, ours, snakemake.params.tolerance)
    # Power of the paper's headline comparison (rederive.studies.salitrap.power).
    from rederive.studies.salitrap.power import headline_checks

    level = snakemake.params.power
    checks += headline_checks(
        read_csv(snakemake.input.power),
        published_dir,
        alpha=level["alpha"],
        power=level["target"],
    )
    preamble = (
        "Recomputed values (`ours`) against the paper's printed values (`published`), and identities the "
        "published tables must satisfy among themselves (`identity`: `published` is the printed value, `ours` "
        "what the other printed numbers imply). A failing identity is a finding about the paper."
    )
    if hasattr(snakemake.input, "shared_items"):
        left_out = from_frame(read_csv(snakemake.input.shared_items, text=("reason",))).note()
        if left_out:
            # Model names in prose: escaped like table cells (a "|" or a line break
            # in a name must not start a table or a heading in the report).
            preamble += (
                f" {md_cell(left_out)} Their Table 5 pairs are not computed (shared_items.csv)."
            )
    simulated_note = (
        "**The raw data behind `ours` is simulated** (calibrated to the published tables), so cell "
        "checks show how well the simulator reproduces the paper, not that the paper is right."
    )
    write_published_check(
        checks,
        snakemake.output.csv,
        snakemake.output.md,
        analysis=snakemake.wildcards.analysis,
        title=TITLE,
        preamble=preamble,
        data_note=simulated_note if snakemake.params.simulated else "",
        separator="\n\n",
    )


if __name__ == "__main__" and "snakemake" in globals():
    from rederive.runner import run

    run(main, snakemake)  # noqa: F821
