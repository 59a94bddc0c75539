"""All pairwise model differences in control TAR with BH-adjusted q-values, and
a ranking that marks models not separable from their neighbours.

Each pairwise difference is paired by item (both models' rates come from the
same items) and clustered by seed. The interval and the p-value are the
clustered t of :mod:`rederive.stats.clustered` (linearised seed-clustered SE with
the C/(C−1) factor, t with C − 1 df): it covers at its level from 20 clusters up,
where the percentile cluster bootstrap falls short (bench/coverage.py), and its p
has no resampling floor. The percentile bootstrap interval over seed clusters
(one resample shared by every model, so also paired) stays in ``boot_low`` /
``boot_high``. The family of all K(K−1)/2 pairs is adjusted with
Benjamini–Hochberg at the configured q.

References
----------
SaliTrap (seed paper 000), Table 1 (overall TAR); the comparisons go beyond the
paper, which reports point estimates only.
Benjamini, Y. & Hochberg, Y. (1995). *JRSS B*, 57(1), 289–300.
"""

from pathlib import Path

import numpy as np
import pandas as pd

from rederive.report.latex import booktabs
from rederive.stats.bootstrap import bootstrap_ratio, pairwise_differences, rng_for
from rederive.stats.clustered import T_METHOD, clustered_ratio, pairwise_t
from rederive.stats.multitest import bh_adjust
from rederive.stats.rates import percent, round_half_up
from rederive.stats.small_n import SMALL_N, excluded_note, pair_mask, small_n_flags
from rederive.studies.salitrap.common import CONTROL, load, simulated_notes, write_csv
from rederive.studies.salitrap.metrics import count_rows, label_matrix, metrics_from_config

PAIR_COLUMNS = [
    "model_a",
    "model_b",
    "tar_a",
    "tar_b",
    "diff_pp",
    "ci_low",
    "ci_high",
    "ci_method",
    "boot_low",
    "boot_high",
    "p_value",
    "p_method",
    "q_value",
    "significant",
    SMALL_N,
    "fdr_q",
    "n_clusters",
    "n_boot",
    "seed",
]


def pairwise_tar(
    items: pd.DataFrame,
    matrix: pd.DataFrame,
    *,
    metric,
    n_boot: int,
    level: float,
    seed: int,
    q: float,
    min_n: int = 1,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Paired, seed-clustered comparison of every model pair's TAR.

    A model with fewer than ``min_n`` valid control rows is small-n
    (:mod:`rederive.stats.small_n`): its pairs keep their difference, CI and p
    but are left out of the BH family (q NaN, never significant).

    Parameters
    ----------
    items : DataFrame
        ``seed_id`` per row of ``matrix``.
    matrix : DataFrame
        Items × models control labels.
    metric : Metric
        The TAR definition from config.
    q : float
        Benjamini–Hochberg false discovery rate.

    Returns
    -------
    pairs : DataFrame
        One row per unordered pair, ``model_a`` ranked above ``model_b``.
    estimates : DataFrame
        ``model, numerator, denominator, tar`` in descending TAR order.
    """
    hit, den = count_rows(matrix.to_numpy(), metric)
    boot = bootstrap_ratio(
        hit, den, clusters=items["seed_id"].to_numpy(), n_boot=n_boot, rng=rng_for(seed, "pairs")
    )
    estimates = pd.DataFrame(
        {
            "model": list(matrix.columns),
            "numerator": hit.sum(axis=0).astype(int),
            "denominator": den.sum(axis=0).astype(int),
            "tar_exact": boot.estimate * 100,
        }
    )
    estimates["tar"] = [
        percent(k, n) for k, n in zip(estimates.numerator, estimates.denominator, strict=True)
    ]
    estimates[SMALL_N] = small_n_flags(estimates["denominator"], min_n)
    # Columns in rank order, so every pair reads (higher-ranked, lower-ranked) and
    # its difference as "a beats b by".
    ranked = estimates.sort_values(["tar_exact", "model"], ascending=[False, True], kind="stable")
    order = ranked.index.to_numpy()
    diffs = pairwise_differences(
        ranked["model"], boot.estimate[order] * 100, boot.replicates[:, order] * 100, level
    )
    seeds = items["seed_id"].to_numpy()
    tests = pairwise_t(clustered_ratio(hit, den, clusters=seeds), ranked["model"], order, level)
    small = pair_mask(
        diffs["a"], diffs["b"], dict(zip(ranked["model"], ranked[SMALL_N], strict=True))
    )
    reject, qvals = bh_adjust(np.where(small, np.nan, tests["p_value"].to_numpy()), q)
    tar = ranked.set_index("model")["tar"]
    pairs = pd.DataFrame(
        {
            "model_a": diffs["a"],
            "model_b": diffs["b"],
            "tar_a": tar.reindex(diffs["a"]).to_numpy(),
            "tar_b": tar.reindex(diffs["b"]).to_numpy(),
            "diff_pp": [round_half_up(d) for d in diffs["diff"]],
            "ci_low": [round_half_up(100 * v) for v in tests["t_low"]],
            "ci_high": [round_half_up(100 * v) for v in tests["t_high"]],
            "ci_method": f"{T_METHOD}, {boot.n_clusters} seed clusters, paired by item",
            "boot_low": [round_half_up(v) for v in diffs["ci_low"]],
            "boot_high": [round_half_up(v) for v in diffs["ci_high"]],
            "p_value": tests["p_value"],
            "p_method": f"clustered Wald, {T_METHOD}",
            "q_value": qvals,
            "significant": reject,
            SMALL_N: small,
            "fdr_q": q,
            "n_clusters": boot.n_clusters,
            "n_boot": n_boot,
            "seed": seed,
        },
        columns=PAIR_COLUMNS,
    )
    return pairs, ranked.reset_index(drop=True)


def ranking(pairs: pd.DataFrame, estimates: pd.DataFrame) -> pd.DataFrame:
    """Rank models by TAR; flag neighbours the BH-adjusted comparison cannot separate.

    ``tier`` starts at 1 and increases whenever a model is significantly below
    the model ranked just above it, so models sharing a tier are not separable
    from their neighbours at the configured FDR. Small-n models are listed after
    the ranked ones with no rank or tier.
    """
    key = {
        (a, b): row
        for a, b, row in zip(pairs.model_a, pairs.model_b, pairs.itertuples(), strict=True)
    }
    small = (
        estimates[SMALL_N].astype(bool)
        if SMALL_N in estimates
        else pd.Series(False, index=estimates.index)
    )
    unranked = estimates[small]
    estimates = estimates[~small].reset_index(drop=True)
    models = list(estimates["model"])
    rows, tier = [], 1
    for i, model in enumerate(models):
        above = key.get((models[i - 1], model)) if i > 0 else None
        below = key.get((model, models[i + 1])) if i + 1 < len(models) else None
        if above is not None and above.significant:
            tier += 1
        est = estimates.iloc[i]
        rows.append(
            {
                "rank": i + 1,
                "model": model,
                "tar": est["tar"],
                "numerator": int(est["numerator"]),
                "denominator": int(est["denominator"]),
                "q_vs_above": np.nan if above is None else above.q_value,
                "q_vs_below": np.nan if below is None else below.q_value,
                "separable_from_above": None if above is None else bool(above.significant),
                "separable_from_below": None if below is None else bool(below.significant),
                "tier": tier,
                "significantly_below_count": int(
                    (pairs["significant"] & (pairs["model_b"] == model)).sum()
                ),
                "significantly_above_count": int(
                    (pairs["significant"] & (pairs["model_a"] == model)).sum()
                ),
                SMALL_N: False,
            }
        )
    for est in unranked.itertuples(index=False):
        rows.append(
            {
                "rank": np.nan,
                "model": est.model,
                "tar": est.tar,
                "numerator": int(est.numerator),
                "denominator": int(est.denominator),
                "q_vs_above": np.nan,
                "q_vs_below": np.nan,
                "separable_from_above": None,
                "separable_from_below": None,
                "tier": np.nan,
                "significantly_below_count": 0,
                "significantly_above_count": 0,
                SMALL_N: True,
            }
        )
    table = pd.DataFrame(rows)
    for column in ("rank", "tier"):
        table[column] = table[column].astype("Int64")
    return table


def latex(rank_table: pd.DataFrame, q: float, *, simulated: bool, min_n: int = 1) -> str:
    body = rank_table[["rank", "model", "tar", "tier", "q_vs_above", "q_vs_below"]].copy()
    for column in ("q_vs_above", "q_vs_below"):
        body[column] = body[column].map(lambda v: "--" if pd.isna(v) else f"{v:.3f}")
    body["rank"] = body["rank"].map(lambda v: "--" if pd.isna(v) else str(v))
    body["tier"] = body["tier"].map(lambda v: "--" if pd.isna(v) else str(v))
    small = rank_table.loc[rank_table[SMALL_N].astype(bool), "model"]
    notes = simulated_notes(
        f"Tier: a new tier starts when a model's TAR is below its upper neighbour's at BH FDR "
        f"q = {q}; q-values from paired, seed-clustered Wald tests (t with C-1 df). "
        + excluded_note(small, min_n, what="valid control rows"),
        simulated,
    )
    return booktabs(
        body,
        caption="SaliTrap: model ranking by control TAR with BH-adjusted neighbour comparisons.",
        label="tab:salitrap-ranking",
        header=["Rank", "Model", "TAR", "Tier", "q vs above", "q vs below"],
        column_format="rlrrrr",
        notes=notes,
    )


def main(snakemake):
    p = snakemake.params
    items, labels = load(snakemake.input.db, CONTROL)
    metrics = metrics_from_config(p.metrics)
    pairs, estimates = pairwise_tar(
        items,
        label_matrix(labels, items, CONTROL),
        metric=metrics["TAR"],
        **p.bootstrap,
        q=p.q,
        min_n=p.min_n,
    )
    rank_table = ranking(pairs, estimates)
    write_csv(pairs, snakemake.output.pairs)
    write_csv(rank_table, snakemake.output.ranking)
    Path(snakemake.output.ranking_tex).write_text(
        latex(rank_table, p.q, simulated=bool(p.simulated), min_n=p.min_n)
    )


if __name__ == "__main__" and "snakemake" in globals():
    from rederive.runner import run

    run(main, snakemake)  # noqa: F821
