"""Rule ``analyse_benchmark_accuracy``: per-model accuracy with an item-bootstrap
95% CI, overall and per category.

The interval resamples items (or whole clusters of items, ``cluster_by``) with the
shared vectorised bootstrap, so it reflects the finite item sample, which is the
uncertainty a benchmark score carries when another set of questions could have
been drawn. Accuracy itself is the plain mean of the per-item scores (epochs were
averaged within the item in the warehouse), so it equals the harness's score.

References
----------
Miller, E. (2024). Adding error bars to evals: a statistical approach to language
    model evaluations. arXiv:2411.00640 (item-level and clustered standard errors).
"""

import numpy as np
import pandas as pd

from rederive.report.latex import booktabs
from rederive.runner import run
from rederive.stats.bootstrap import bootstrap_mean, percentile_ci, rng_for
from rederive.stats.rates import percent, round_half_up
from rederive.stats.small_n import SMALL_N, excluded_note, small_n_flags
from rederive.studies.benchmark.common import clusters_for, fixed_decimals, load_scores, write_csv

PCT_COLUMNS = {"accuracy_pct": 1, "ci_low_pct": 1, "ci_high_pct": 1, "se_pct": 3}

METHOD = "item bootstrap, percentile"


def _pct(total: float, n: int) -> float:
    # Integer counts round on the exact fraction (as the papers print); partial
    # credit / epoch means are not integers, so they round the float half-up.
    if float(total).is_integer():
        return percent(int(total), int(n))
    return round_half_up(100.0 * total / n, 1) if n else float("nan")


def accuracy_frame(
    matrix: pd.DataFrame,
    clusters,
    *,
    n_boot: int,
    seed: int,
    level: float,
    key: str,
    cluster_by: str,
) -> pd.DataFrame:
    """Accuracy and bootstrap CI of every column of an items × models matrix.

    Returns
    -------
    DataFrame
        ``model, n_items, n_correct, accuracy`` (fraction, unrounded),
        ``accuracy_pct, ci_low_pct, ci_high_pct`` (one decimal), ``se_pct`` (bootstrap
        standard deviation), ``method, cluster_by, n_clusters, n_boot, seed``.
    """
    values = matrix.to_numpy(dtype=float)
    boot = bootstrap_mean(values, clusters=clusters, n_boot=n_boot, rng=rng_for(seed, key))
    lo, hi = percentile_ci(boot.replicates, level)
    present = ~np.isnan(values)
    n_items = present.sum(axis=0)
    n_correct = np.nansum(values, axis=0)
    return pd.DataFrame(
        {
            "model": list(matrix.columns),
            "n_items": n_items.astype(int),
            "n_correct": n_correct,
            "accuracy": boot.estimate,
            "accuracy_pct": [_pct(c, n) for c, n in zip(n_correct, n_items, strict=True)],
            "ci_low_pct": [round_half_up(100 * v, 1) for v in lo],
            "ci_high_pct": [round_half_up(100 * v, 1) for v in hi],
            "se_pct": np.round(100 * np.nanstd(boot.replicates, axis=0, ddof=1), 3),
            "method": METHOD,
            "cluster_by": cluster_by,
            "n_clusters": boot.n_clusters,
            "n_boot": n_boot,
            "seed": seed,
        }
    )


def overall(matrix, items, *, n_boot, seed, level, cluster_by) -> pd.DataFrame:
    frame = accuracy_frame(
        matrix,
        clusters_for(items, cluster_by),
        n_boot=n_boot,
        seed=seed,
        level=level,
        key="accuracy",
        cluster_by=cluster_by,
    )
    return frame.sort_values(["accuracy", "model"], ascending=[False, True]).reset_index(drop=True)


def by_category(matrix, items, *, n_boot, seed, level, cluster_by) -> pd.DataFrame:
    """Accuracy per (category, model); the bootstrap runs within each category."""
    frames = []
    categories = items["category"].to_numpy(dtype=str)
    for category in sorted(set(categories)):
        mask = categories == category
        sub_items = items[mask].reset_index(drop=True)
        frame = accuracy_frame(
            matrix[mask],
            clusters_for(sub_items, cluster_by if cluster_by != "category" else "none"),
            n_boot=n_boot,
            seed=seed,
            level=level,
            key=f"accuracy_by_category/{category}",
            cluster_by=cluster_by if cluster_by != "category" else "none",
        )
        frame.insert(0, "category", category)
        frames.append(frame)
    return (
        pd.concat(frames, ignore_index=True)
        .sort_values(["category", "model"])
        .reset_index(drop=True)
    )


def latex(frame: pd.DataFrame, *, caption_note: str) -> str:
    body = pd.DataFrame(
        {
            "Model": frame["model"],
            "Items": frame["n_items"],
            "Accuracy (%)": frame["accuracy_pct"],
            "95% CI": [
                f"[{lo:.1f}, {hi:.1f}]"
                for lo, hi in zip(frame["ci_low_pct"], frame["ci_high_pct"], strict=True)
            ],
        }
    )
    return booktabs(
        body,
        caption=f"Accuracy per model with item-bootstrap 95% CI. {caption_note}",
        label="tab:benchmark-accuracy",
        decimals={"Items": 0, "Accuracy (%)": 1},
        notes=f"{frame['method'].iloc[0]}, B = {frame['n_boot'].iloc[0]}, seed {frame['seed'].iloc[0]}.",
    )


def main(snakemake):
    p = snakemake.params
    matrix, items = load_scores(snakemake.input.db)
    kwargs = dict(n_boot=p.n_boot, seed=p.seed, level=p.ci_level, cluster_by=p.cluster_by)
    table = overall(matrix, items, **kwargs)
    table[SMALL_N] = small_n_flags(table["n_items"], p.min_n)
    write_csv(fixed_decimals(table, PCT_COLUMNS), snakemake.output.accuracy, float_format="%.12g")
    per_category = by_category(matrix, items, **kwargs)
    per_category[SMALL_N] = small_n_flags(per_category["n_items"], p.min_n)
    write_csv(
        fixed_decimals(per_category, PCT_COLUMNS),
        snakemake.output.by_category,
        float_format="%.12g",
    )
    with open(snakemake.output.tex, "w") as handle:
        handle.write(
            latex(
                table,
                caption_note=" ".join(
                    x
                    for x in (
                        p.data_note,
                        excluded_note(table.loc[table[SMALL_N], "model"], p.min_n),
                    )
                    if x
                ),
            )
        )


if __name__ == "__main__" and "snakemake" in globals():
    run(main, snakemake)  # noqa: F821
