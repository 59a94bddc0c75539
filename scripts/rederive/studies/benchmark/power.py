"""Rule ``estimate_benchmark_power``: could the benchmark tell each model pair apart?

Differences, intervals and BH decisions are read from ``pairwise.csv``; the
per-unit sd of each pair's paired difference comes from the item-level scores in
the warehouse (clustered like the study's bootstrap, ``cluster_by``), Miller
(2024) §3.2. A tie (not significant after BH) is ``underpowered`` when the smallest
difference the study could detect at its BH level exceeds ``relevant_pp``. Each
pair's power takes the form of the test ``pairwise.csv`` ran (``p_method``): the
z form for the exact McNemar test, the noncentral t with ``n_units − 1`` df for
the paired t and the clustered t.

References
----------
Miller, E. (2024). Adding error bars to evals. arXiv:2411.00640.
"""

import numpy as np
import pandas as pd

from rederive.io.names import read_csv
from rederive.report.power import (
    design_of,
    headline_check,
    power_frame,
    power_settings,
    write_power,
)
from rederive.runner import run
from rederive.stats.power import paired_unit_sds, power_test_of
from rederive.stats.small_n import small_n_mask
from rederive.studies.benchmark.common import clusters_for, load_scores

UNIT = {"none": "item", "category": "category cluster", "group": "group cluster"}


def pair_sds(matrix: pd.DataFrame, clusters, pairs: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Per-unit sd (percentage points) and number of units of each pair's difference."""
    column = {m: j for j, m in enumerate(matrix.columns)}
    index = [(column[a], column[b]) for a, b in zip(pairs["a"], pairs["b"], strict=True)]
    sds, units = paired_unit_sds(matrix.to_numpy(dtype=float), index, clusters=clusters)
    return 100 * sds, units


def power_table(matrix, items, pairs, *, cluster_by: str, alpha, power, fdr_q, relevant_pp):
    clusters = clusters_for(items, cluster_by)
    sds, units = pair_sds(matrix, clusters, pairs)
    return power_frame(
        pairs[["a", "b"]],
        unit=UNIT[cluster_by],
        n_units=units,
        diff_pp=100 * pairs["diff"].to_numpy(),
        ci_low_pp=pairs["ci_low_pct"],
        ci_high_pp=pairs["ci_high_pct"],
        ci_source=f"pairwise.csv ({pairs['ci_method'].iloc[0] if len(pairs) else 'no pair'})",
        significant=pairs["significant"].fillna(False).astype(bool),
        sd_pp=sds,
        sd_source="per-item paired scores (warehouse)",
        alpha=alpha,
        power=power,
        fdr_q=fdr_q,
        relevant_pp=relevant_pp,
        excluded=small_n_mask(pairs),
        test=[power_test_of(m) for m in pairs["p_method"]],
    )


def headline_checks(table: pd.DataFrame, *, alpha: float, power: float) -> list:
    """Published check: could the benchmark separate its two top-ranked models?

    ``pairwise.csv`` lists the pair (rank 1, rank 2) first; the published scores
    equal ours (see the cell checks), so the reported difference is that row's.
    """
    if table.empty:
        return []
    row = table.iloc[0]
    return [
        headline_check(
            "benchmark",
            f"{row['a']} vs {row['b']} (top two)",
            row["diff_pp"],
            **design_of(row),
            alpha=alpha,
            power=power,
            note="Headline: the ranking's first place.",
        )
    ]


def main(snakemake):
    p = snakemake.params
    matrix, items = load_scores(snakemake.input.db)
    pairs = read_csv(snakemake.input.pairwise)
    table = power_table(
        matrix,
        items,
        pairs,
        cluster_by=p.cluster_by,
        **power_settings(p.power, fdr_q=p.fdr_q),
    )
    write_power(table, snakemake.output.power, snakemake.output.curve)


if __name__ == "__main__" and "snakemake" in globals():
    run(main, snakemake)  # noqa: F821
