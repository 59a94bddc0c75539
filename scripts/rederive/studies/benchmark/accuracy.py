"""Rule ``analyse_benchmark_accuracy``: per-model accuracy with an item-bootstrap
95% CI, overall, per task and per category.

The headline (accuracy.csv) is the mean over all items; when the run holds several
tasks it also gives the unweighted mean over tasks and names the metrics pooled
(e.g. ``acc`` of multiple-choice tasks with ``exact_match`` of generation tasks),
and accuracy_by_task.csv gives each task's own number, as the harness reports it.

The interval reflects the finite item sample, which is the uncertainty a
benchmark score carries when another set of questions could have been drawn.
Without ``cluster_by`` it is the percentile item bootstrap (the shared vectorised
bootstrap). With clusters it is the clustered Wilson interval of
:mod:`rederive.stats.clustered` (effective n from the linearised cluster-robust
SE, t with C − 1 df): a benchmark has few categories or groups, where the
percentile cluster bootstrap under-covers (bench/coverage.py); the percentile
cluster bootstrap stays in ``boot_low_pct``/``boot_high_pct``. Accuracy itself is the plain mean of the per-item scores (epochs were
averaged within the item in the warehouse), so it equals the harness's score.

When ``item_sets`` made the headline's items differ from a model's own
(``intersection``: items some model lacks left every model; ``zero``: missing
grades counted as 0), accuracy.csv names them in ``basis`` and gives each
model's score over its own graded items beside it (``n_items_own``,
``accuracy_own``, ``accuracy_own_pct``; :mod:`rederive.studies.benchmark.basis`).

References
----------
Miller, E. (2024). Adding error bars to evals: a statistical approach to language
    model evaluations. arXiv:2411.00640 (item-level and clustered standard errors).
"""

import numpy as np
import pandas as pd

from rederive.io.warehouse import query
from rederive.report.latex import booktabs
from rederive.runner import run
from rederive.stats.bootstrap import bootstrap_mean, percentile_ci, rng_for
from rederive.stats.clustered import WILSON_METHOD, clustered_ratio, rate_wilson
from rederive.stats.rates import round_half_up
from rederive.stats.small_n import SMALL_N, excluded_note, small_n_flags
from rederive.studies.benchmark.basis import basis_note, with_own_items
from rederive.studies.benchmark.check import item_accuracy
from rederive.studies.benchmark.common import (
    accuracy_percent,
    clusters_for,
    fixed_decimals,
    left_out_note,
    load_scores,
    write_csv,
)

PCT_COLUMNS = {
    "accuracy_pct": 1,
    "ci_low_pct": 1,
    "ci_high_pct": 1,
    "boot_low_pct": 1,
    "boot_high_pct": 1,
    "se_pct": 3,
}

METHOD = "item bootstrap, percentile"


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
        ``accuracy_pct, ci_low_pct, ci_high_pct`` (one decimal; ``method`` names the
        interval), ``boot_low_pct, boot_high_pct`` (percentile bootstrap), ``se_pct``
        (bootstrap standard deviation), ``method, cluster_by, n_clusters, n_boot, seed``.
    """
    values = matrix.to_numpy(dtype=float)
    boot = bootstrap_mean(values, clusters=clusters, n_boot=n_boot, rng=rng_for(seed, key))
    b_lo, b_hi = percentile_ci(boot.replicates, level)
    present = ~np.isnan(values)
    if clusters is None:
        lo, hi, method = b_lo, b_hi, METHOD
    else:
        fit = clustered_ratio(
            np.where(present, values, 0.0), present.astype(float), clusters=clusters
        )
        lo, hi = rate_wilson(fit, present.astype(float), level)
        method = WILSON_METHOD
    n_items = present.sum(axis=0)
    n_correct = np.nansum(values, axis=0)
    return pd.DataFrame(
        {
            "model": list(matrix.columns),
            "n_items": n_items.astype(int),
            "n_correct": n_correct,
            "accuracy": boot.estimate,
            "accuracy_pct": [
                accuracy_percent(c, n) for c, n in zip(n_correct, n_items, strict=True)
            ],
            "ci_low_pct": [round_half_up(100 * v, 1) for v in lo],
            "ci_high_pct": [round_half_up(100 * v, 1) for v in hi],
            "boot_low_pct": [round_half_up(100 * v, 1) for v in b_lo],
            "boot_high_pct": [round_half_up(100 * v, 1) for v in b_hi],
            "se_pct": np.round(100 * np.nanstd(boot.replicates, axis=0, ddof=1), 3),
            "method": method,
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


def by_task(matrix, items, tasks, *, n_boot, seed, level, cluster_by) -> pd.DataFrame:
    """Accuracy per (task, model) with the metric that scored the task.

    A task's accuracy is the mean of its per-item scores, which is the number the
    harness reports for it (``acc`` on a multiple-choice task, ``exact_match`` on a
    generation task). The bootstrap runs within each task.
    """
    frames = []
    labels = items["task"].to_numpy(dtype=str)
    metrics = dict(zip(tasks["task"], tasks["metric"], strict=True)) if len(tasks) else {}
    for task in sorted(set(labels)):
        mask = labels == task
        frame = accuracy_frame(
            matrix[mask],
            clusters_for(items[mask].reset_index(drop=True), cluster_by),
            n_boot=n_boot,
            seed=seed,
            level=level,
            key=f"accuracy_by_task/{task}",
            cluster_by=cluster_by,
        )
        frame.insert(0, "task", task)
        frame.insert(1, "metric", metrics.get(task, "correct"))
        frames.append(frame)
    return (
        pd.concat(frames, ignore_index=True).sort_values(["task", "model"]).reset_index(drop=True)
    )


def headline_aggregate(table: pd.DataFrame, per_task: pd.DataFrame) -> pd.DataFrame:
    """Say what the headline accuracy pools, and give the mean over tasks beside it.

    ``accuracy`` is the mean over all items (micro: a task weighs by its size; what
    lm-evaluation-harness 0.4.13 reports for a group of tasks sharing one metric,
    ``weight_by_size: true``). ``macro_accuracy`` is the unweighted mean of the task
    accuracies (the group aggregate with ``weight_by_size: false``); with one task
    the two are equal. ``metrics`` lists the per-sample metrics the items were
    scored by: a headline pooling ``acc`` with ``exact_match`` has no harness
    counterpart (a group aggregates one metric), and ``aggregate`` says so.
    """
    macro = per_task.groupby("model")["accuracy"].mean()
    n_tasks = per_task["task"].nunique()
    metrics = "+".join(sorted({m for ms in per_task["metric"] for m in str(ms).split("+")}))
    out = table.copy()
    out["n_tasks"] = n_tasks
    out["metrics"] = metrics
    if n_tasks == 1:
        out["aggregate"] = "mean over items"
    else:
        # No commas: the text stays one plain CSV field.
        out["aggregate"] = f"item-weighted mean over {n_tasks} tasks" + (
            f"; pools metrics {metrics.replace('+', ' and ')} (see accuracy_by_task.csv)"
            if "+" in metrics
            else ""
        )
    out["macro_accuracy"] = out["model"].map(macro)
    out["macro_accuracy_pct"] = [round_half_up(100 * v, 1) for v in out["macro_accuracy"]]
    return out


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


def own_items_differ(db_path, table: pd.DataFrame) -> bool:
    """Whether some model's headline items are not its own graded items (the
    warehouse's ``overlap`` counts them: dropped by ``item_sets: intersection``,
    or filled with zeros by ``item_sets: zero``)."""
    overlap = query(db_path, "SELECT model, n_items_answered FROM overlap")
    own = overlap.set_index("model")["n_items_answered"].reindex(table["model"])
    return bool((own.to_numpy() != table["n_items"].to_numpy()).any())


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
        caption=f"Accuracy per model with 95% CI. {caption_note}",
        label="tab:benchmark-accuracy",
        decimals={"Items": 0, "Accuracy (%)": 1},
        notes=f"{frame['method'].iloc[0]}, B = {frame['n_boot'].iloc[0]}, seed {frame['seed'].iloc[0]}.",
    )


def main(snakemake):
    p = snakemake.params
    matrix, items = load_scores(snakemake.input.db)
    tasks = query(snakemake.input.db, "SELECT * FROM tasks ORDER BY task")
    kwargs = dict(n_boot=p.n_boot, seed=p.seed, level=p.ci_level, cluster_by=p.cluster_by)
    per_task = by_task(matrix, items, tasks, **kwargs)
    per_task[SMALL_N] = small_n_flags(per_task["n_items"], p.min_n)
    table = headline_aggregate(overall(matrix, items, **kwargs), per_task)
    table[SMALL_N] = small_n_flags(table["n_items"], p.min_n)
    if own_items_differ(snakemake.input.db, table):
        # The SQL pass over every graded row (~1 min at 150 M rows) only when needed.
        table = with_own_items(table, item_accuracy(snakemake.input.db)[0], p.item_sets)
    decimals = {**PCT_COLUMNS, "macro_accuracy_pct": 1}
    if "accuracy_own_pct" in table:
        decimals["accuracy_own_pct"] = 1
    write_csv(
        fixed_decimals(table, decimals),
        snakemake.output.accuracy,
        float_format="%.12g",
    )
    write_csv(fixed_decimals(per_task, PCT_COLUMNS), snakemake.output.by_task, float_format="%.12g")
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
                        left_out_note(snakemake.input.db),
                        basis_note(table),
                    )
                    if x
                ),
            )
        )


if __name__ == "__main__" and "snakemake" in globals():
    run(main, snakemake)  # noqa: F821
