"""Rule ``compare_benchmark_sampling``: every pair of models compared at
``sampling.rank_at`` on ``sampling.rank_metric``, and the ranking with tie groups.

The benchmark's paired machinery on the per-item estimates at that ``k``
(:func:`rederive.stats.sampling.sampling_pairwise` and
:func:`~rederive.stats.sampling.sampling_ranking`): exact McNemar where every
per-item value is 0 or 1, otherwise the paired t test on the item differences
(the clustered t with C − 1 df under ``cluster_by``), Benjamini–Hochberg over the
family at ``fdr_q``, the family of ``comparisons`` (all pairs up to
``all_pairs_up_to`` models, else rank neighbours and the top model), and rank
ranges with tie groups, exactly as ``pairwise.csv`` and ``ranking.csv`` for
accuracy. Models are compared on the items every compared model has an
estimate for at that ``k`` (``n_items_dropped`` counts the others); a model
below ``min_n`` such items is ranked "small n", one without the metric (maj@k
without answers, grades not 0/1) "n/a" with the reason in ``note``.
"""

import numpy as np
import pandas as pd

from rederive.runner import run
from rederive.stats.sampling import sampling_pairwise, sampling_ranking
from rederive.studies.benchmark.common import fixed_decimals, write_csv
from rederive.studies.benchmark.sampling import Samples, load, require

PCT = {"diff_pct": 1, "ci_low_pct": 1, "ci_high_pct": 1, "boot_low_pct": 1, "boot_high_pct": 1}


def compare(
    samples: Samples,
    metric: str,
    k: int,
    *,
    n_boot: int,
    seed: int,
    fdr_q: float,
    min_n: int,
    level: float,
    interval: str,
    comparisons: dict,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(pairs, ranking)`` of ``metric`` at ``k`` (empty pairs when fewer than two models
    can be compared); the ranking ends with the models without 0/1 grades, "n/a"."""
    pairs = pd.DataFrame()
    ranked = pd.DataFrame()
    if samples.counts is not None:
        pairs = sampling_pairwise(
            samples.counts,
            metric,
            k,
            clusters=samples.clusters,
            n_boot=n_boot,
            seed=seed,
            fdr_q=fdr_q,
            min_n=min_n,
            level=level,
            all_pairs_up_to=comparisons["all_pairs_up_to"],
            neighbours=comparisons["neighbours"],
        )
        ranked = sampling_ranking(
            samples.counts,
            pairs,
            metric,
            k,
            clusters=samples.clusters,
            n_boot=n_boot,
            seed=seed,
            min_n=min_n,
            level=level,
            interval=interval,
        ).rename(columns={"accuracy_pct": "estimate_pct"})
        notes = samples.counts.answers_note if metric == "maj@k" else {}
        ranked["note"] = [
            notes.get(model, "") if rank == "n/a" else ""
            for model, rank in zip(ranked["model"], ranked["rank"], strict=True)
        ]
    if samples.unavailable:
        start = int(ranked["order"].max()) + 1 if len(ranked) else 1
        models = sorted(samples.unavailable)
        rest = pd.DataFrame(
            {
                "order": range(start, start + len(models)),
                "model": models,
                "estimate_pct": np.nan,
                "ci_low_pct": np.nan,
                "ci_high_pct": np.nan,
                "rank": "n/a",
                "n_tied": 0,
                "tied_with": "",
                "metric": metric,
                "k": k,
                "note": [samples.unavailable[m] for m in models],
            }
        )
        ranked = pd.concat([f for f in (ranked, rest) if len(f)], ignore_index=True)
    for column in ("rank_best", "rank_worst", "k"):
        if column in ranked:
            ranked[column] = ranked[column].astype("Int64")
    return pairs, ranked


def main(snakemake):
    p = snakemake.params
    sampling = require(p.sampling, snakemake.wildcards.analysis)
    if sampling["rank_at"] is None:
        raise ValueError(
            f"analysis {snakemake.wildcards.analysis}: sampling.rank_at is not set, so "
            "nothing is ranked; set sampling.rank_at to the k to compare the models at"
        )
    samples = load(snakemake.input.db, p.cluster_by, answers=sampling["rank_metric"] == "maj@k")
    pairs, ranked = compare(
        samples,
        sampling["rank_metric"],
        int(sampling["rank_at"]),
        n_boot=p.n_boot,
        seed=p.seed,
        fdr_q=p.fdr_q,
        min_n=p.min_n,
        level=p.ci_level,
        interval=sampling["interval"],
        comparisons=p.comparisons,
    )
    # As pairwise.csv and ranking.csv: differences and p-values at 6 significant
    # digits, percentages at one decimal.
    pct = {c: d for c, d in PCT.items() if c in pairs}
    write_csv(fixed_decimals(pairs, pct), snakemake.output.pairwise, float_format="%.6g")
    write_csv(ranked, snakemake.output.ranking, float_format="%.1f")


if __name__ == "__main__" and "snakemake" in globals():
    run(main, snakemake)  # noqa: F821
