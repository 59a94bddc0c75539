"""Rule ``estimate_salitrap_power``: could the study tell each model pair's control
TAR apart?

Differences, intervals and BH decisions come from ``pairwise_tar.csv``; the per-unit
sd of each paired difference is the linearised (delta-method) sd of the two TAR
ratios over seed clusters, from the same label matrix and metric definition the
comparison job uses (Miller 2024 §2.2 and §3.2). Unit: a seed cluster (the
bootstrap's resampling unit), so n is the number of seeds. The comparison's test is
the clustered Wald test against t with C − 1 df, so power, MDE and units needed
take the noncentral-t form with ``n_units − 1`` df (:mod:`rederive.stats.power`).

References
----------
Miller, E. (2024). Adding error bars to evals. arXiv:2411.00640.
"""

from pathlib import Path

import pandas as pd

from rederive.io.names import read_csv
from rederive.report.power import (
    design_of,
    headline_check,
    power_frame,
    power_settings,
    write_power,
)
from rederive.stats.power import T_TEST, paired_unit_sds
from rederive.stats.small_n import small_n_mask
from rederive.studies.salitrap.common import CONTROL, load
from rederive.studies.salitrap.metrics import count_rows, label_matrix, metrics_from_config


def power_table(items, labels, pairs, *, metrics_config, alpha, power, fdr_q, relevant_pp):
    matrix = label_matrix(labels, items, CONTROL)
    hit, den = count_rows(matrix.to_numpy(), metrics_from_config(metrics_config)["TAR"])
    column = {m: j for j, m in enumerate(matrix.columns)}
    index = [
        (column[a], column[b]) for a, b in zip(pairs["model_a"], pairs["model_b"], strict=True)
    ]
    sds, units = paired_unit_sds(hit, index, den, clusters=items["seed_id"].to_numpy())
    sds = 100 * sds
    return power_frame(
        pairs[["model_a", "model_b"]],
        unit="seed cluster",
        n_units=units,
        diff_pp=pairs["diff_pp"],
        ci_low_pp=pairs["ci_low"],
        ci_high_pp=pairs["ci_high"],
        ci_source="pairwise_tar.csv (paired seed-cluster bootstrap)",
        significant=pairs["significant"].fillna(False).astype(bool),
        sd_pp=sds,
        sd_source="per-item labels clustered by seed (warehouse; delta method)",
        alpha=alpha,
        power=power,
        fdr_q=fdr_q,
        relevant_pp=relevant_pp,
        test=T_TEST,
        excluded=small_n_mask(pairs),
    )


def headline_checks(table: pd.DataFrame, published_dir, *, alpha: float, power: float) -> list:
    """Published check: could the paper's seeds separate its two top models' overall TAR?

    The reported difference is from the paper's Table 1 (overall TAR of the two
    highest rows); the per-seed sd is that pair's in ``power.csv``.
    """
    path = Path(published_dir) / "salitrap_table1_tar_hfr.csv"
    if not path.exists() or table.empty:
        return []
    pub = read_csv(path)
    top = pub[pub["dimension"] == "overall"].sort_values("TAR", ascending=False).head(2)
    if len(top) < 2:
        return []
    (a, tar_a), (b, tar_b) = top[["model", "TAR"]].itertuples(index=False)
    pair = table[
        ((table["model_a"] == a) & (table["model_b"] == b))
        | ((table["model_a"] == b) & (table["model_b"] == a))
    ]
    if pair.empty:
        return []
    row = pair.iloc[0]
    return [
        headline_check(
            "salitrap",
            f"{a} vs {b} (top two, Table 1 overall TAR)",
            tar_a - tar_b,
            **design_of(row),
            alpha=alpha,
            power=power,
            note="The paper prints point estimates only.",
        )
    ]


def main(snakemake):
    p = snakemake.params
    items, labels = load(snakemake.input.db)
    pairs = read_csv(snakemake.input.pairs)
    table = power_table(
        items,
        labels,
        pairs,
        metrics_config=p.metrics,
        **power_settings(p.power, fdr_q=p.fdr_q),
    )
    write_power(table, snakemake.output.power, snakemake.output.curve)


if __name__ == "__main__" and "snakemake" in globals():
    from rederive.runner import run

    run(main, snakemake)  # noqa: F821
