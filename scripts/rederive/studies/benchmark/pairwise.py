"""Rule ``compare_benchmark_models``: every model pair compared item by item,
with a paired test, Benjamini–Hochberg q-values, and a ranking that shows which
models cannot be separated.

All models share one bootstrap resample of items (or clusters), so each pairwise
difference is paired by item: the items both models saw, drawn together. The
p-value comes from a test with resolution, not from the resamples (whose floor
1/(B + 1) would make BH rank the clearest pairs as ties): the exact McNemar test
on the discordant items for unclustered 0/1 scores of two fully scored models,
else the clustered Wald statistic against t with C − 1 df
(:mod:`rederive.stats.clustered`; each item its own cluster without
``cluster_by``, which is the paired t test). The interval is the percentile
bootstrap without clusters and the clustered t interval with them (the
percentile cluster bootstrap under-covers with few clusters, bench/coverage.py);
the bootstrap bounds stay in ``boot_low_pct``/``boot_high_pct``. Ranks
are reported as a range: the best rank is 1 + the number of models significantly
better (q < ``fdr_q``), the worst is n − the number significantly worse; models
whose ranges overlap are not separable at that FDR.

References
----------
Benjamini, Y. & Hochberg, Y. (1995). Controlling the false discovery rate. *JRSS B* 57, 289–300.
McNemar, Q. (1947). Note on the sampling error of the difference between correlated
    proportions or percentages. *Psychometrika* 12, 153–157.
Miller, E. (2024). Adding error bars to evals. arXiv:2411.00640 (§2.2, §3.2).
"""

import numpy as np
import pandas as pd

from rederive.io.names import read_csv
from rederive.report.latex import booktabs
from rederive.runner import run
from rederive.stats.bootstrap import bootstrap_mean, pairwise_differences, rng_for
from rederive.stats.clustered import (
    GRAM_FACTOR,
    MCNEMAR,
    PAIRED_T,
    T_METHOD,
    clustered_ratio,
    mcnemar_exact,
    paired_differences,
    t_interval,
    t_pvalue,
)
from rederive.stats.family import Family, comparison_family, family_note, rank_order
from rederive.stats.multitest import bh_adjust
from rederive.stats.rates import round_half_up
from rederive.stats.small_n import SMALL_N, excluded_note, pair_mask
from rederive.studies.benchmark.basis import basis_note
from rederive.studies.benchmark.common import (
    clusters_for,
    fixed_decimals,
    left_out_note,
    load_scores,
    write_csv,
)


def pair_counts(
    values: np.ndarray, ia: np.ndarray, ib: np.ndarray, *, max_cells: int = 4_000_000
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per model pair (``ia[k]``, ``ib[k]``): items both scored, items where a > b, b > a.

    Parameters
    ----------
    values : ndarray, shape (n_items, n_models)
        Scores, NaN where a model has no score.
    ia, ib : ndarray of int
        Column indices of the pairs.
    max_cells : int
        Largest items × pairs block held at once for fractional scores.

    Returns
    -------
    n_items, a_only, b_only : ndarray of int64, one entry per pair

    Memory is bounded by models² + items × models (0/1 scores: three matrix
    products, exact in float64 below 2**53 items) or by ``max_cells`` (other
    scores, or a family much smaller than all pairs: pairs in blocks), never by
    items × pairs (20,000 × 19,900 at 200 models: 3.2 GB per float64 matrix).
    Both ways count exactly, so which one runs never changes the table.
    """
    present = ~np.isnan(values)
    filled = np.where(present, values, 0.0)
    few_pairs = len(ia) * GRAM_FACTOR < values.shape[1] ** 2
    if not few_pairs and np.isin(filled, (0.0, 1.0)).all():
        p = present.astype(float)
        both = p.T @ p
        # a > b on a shared item of 0/1 scores: a = 1 and b present with b = 0.
        a_wins = filled.T @ (p - filled)
        out = both[ia, ib], a_wins[ia, ib], a_wins[ib, ia]
        return tuple(np.rint(v).astype(np.int64) for v in out)
    del present, filled
    by_model = np.ascontiguousarray(values.T)
    n_items = np.empty(len(ia), dtype=np.int64)
    a_only = np.empty(len(ia), dtype=np.int64)
    b_only = np.empty(len(ia), dtype=np.int64)
    step = max(1, max_cells // max(values.shape[0], 1))
    for start in range(0, len(ia), step):
        block = slice(start, start + step)
        a, b = by_model[ia[block]], by_model[ib[block]]
        n_items[block] = (~np.isnan(a) & ~np.isnan(b)).sum(axis=1)
        a_only[block] = (a > b).sum(axis=1)  # False whenever either is NaN
        b_only[block] = (b > a).sum(axis=1)
    return n_items, a_only, b_only


BOOT_METHOD = "item bootstrap, percentile"


def pair_tests(values: np.ndarray, clusters, ia, ib, a_only, b_only, level: float = 0.95):
    """p-value, its method, and the clustered t interval of each pair ``ia − ib``.

    Exact McNemar where it is exact (no clusters, 0/1 scores, both models scored
    on every item); otherwise the clustered Wald/t test, which without clusters
    is the paired t test on item differences.

    Returns
    -------
    p : ndarray
    p_method : list of str
    t_low, t_high : ndarray
        Clustered t interval of the difference (fractions).
    n_clusters : ndarray of int
    """
    present = ~np.isnan(values)
    filled = np.where(present, values, 0.0)
    fit = clustered_ratio(filled, present.astype(float), clusters=clusters)
    diff, se, n_clusters = paired_differences(fit, ia, ib)
    p = t_pvalue(diff, se, n_clusters)
    t_low, t_high = t_interval(diff, se, n_clusters, level)
    binary = np.isin(filled, (0.0, 1.0)).all(axis=0)
    complete = present.all(axis=0)
    exact = (clusters is None) & binary[ia] & binary[ib] & complete[ia] & complete[ib]
    p = np.where(exact, mcnemar_exact(a_only, b_only), p)
    t_name = T_METHOD if clusters is not None else PAIRED_T
    return p, [MCNEMAR if e else t_name for e in exact], t_low, t_high, n_clusters


def pairwise(
    matrix: pd.DataFrame,
    clusters,
    *,
    n_boot: int,
    seed: int,
    fdr_q: float,
    small: dict[str, bool] | None = None,
    level: float = 0.95,
    all_pairs_up_to: int | None = None,
    neighbours: int = 2,
) -> pd.DataFrame:
    """Model pairs of the comparison family: paired difference (a − b) in points, CI, p, BH q.

    Pairs are oriented so that ``a`` is the model with the higher accuracy (ties by
    name), which makes ``diff_pct`` non-negative and the table easier to read.
    A pair with a small-n member (``small``, model → flag) keeps its difference
    and p but is left out of the BH family: q NaN, never significant. ``p_method``
    and ``ci_method`` name the test and the interval of each row.

    Up to ``all_pairs_up_to`` models (None: any number) every pair is compared;
    beyond it each model against its ``neighbours`` rank neighbours on each side
    and against the top (:func:`rederive.stats.family.comparison_family`), BH over
    exactly those pairs, and a ``family`` column says why each pair is in.
    """
    values = matrix.to_numpy(dtype=float)
    boot = bootstrap_mean(values, clusters=clusters, n_boot=n_boot, rng=rng_for(seed, "pairwise"))
    order = rank_order(boot.estimate, matrix.columns)
    family = family_for(
        [matrix.columns[j] for j in order],
        small or {},
        all_pairs_up_to=len(order) if all_pairs_up_to is None else all_pairs_up_to,
        neighbours=neighbours,
    )
    names = [matrix.columns[j] for j in order]
    table = pairwise_differences(
        names,
        boot.estimate[order],
        boot.replicates[:, order],
        level,
        pairs=None if family.all_pairs else (family.ia, family.ib),
    )
    index = {name: j for j, name in enumerate(matrix.columns)}
    ia = np.array([index[n] for n in table["a"]], dtype=np.intp)
    ib = np.array([index[n] for n in table["b"]], dtype=np.intp)
    n_items, a_only, b_only = pair_counts(values, ia, ib)
    p, p_method, t_low, t_high, n_clusters = pair_tests(
        values, clusters, ia, ib, a_only, b_only, level
    )
    out_of_family = pair_mask(table["a"], table["b"], small or {})
    reject, qvalues = bh_adjust(np.where(out_of_family, np.nan, p), fdr_q)
    clustered = clusters is not None
    ci_low = t_low if clustered else table["ci_low"].to_numpy()
    ci_high = t_high if clustered else table["ci_high"].to_numpy()
    out = pd.DataFrame(
        {
            "a": table["a"],
            "b": table["b"],
            "n_items": n_items,
            # Discordant items carry the whole paired difference for 0/1 scores.
            "a_only": a_only,
            "b_only": b_only,
            "diff_pct": [round_half_up(100 * v, 1) for v in table["diff"]],
            "diff": table["diff"],
            "ci_low_pct": [round_half_up(100 * v, 1) for v in ci_low],
            "ci_high_pct": [round_half_up(100 * v, 1) for v in ci_high],
            "ci_method": T_METHOD if clustered else BOOT_METHOD,
            "boot_low_pct": [round_half_up(100 * v, 1) for v in table["ci_low"]],
            "boot_high_pct": [round_half_up(100 * v, 1) for v in table["ci_high"]],
            "p_value": p,
            "p_method": p_method,
            "q_value": qvalues,
            "significant": reject,
            SMALL_N: out_of_family,
            "fdr_q": fdr_q,
            "n_clusters": n_clusters,
            "n_boot": n_boot,
            "seed": seed,
        }
    )
    if not family.all_pairs:
        out["family"] = family.reason
    return out


def family_for(names, small: dict[str, bool], *, all_pairs_up_to: int, neighbours: int):
    """The comparison family over ``names`` (rank order), as positions in ``names``.

    All pairs up to ``all_pairs_up_to`` models. Beyond it the neighbour family is
    built over the ranked models with the small-n ones after them (they get no
    rank, so they must not take a ranked model's neighbour slot); each pair is
    then re-oriented so that ``a`` is the higher in ``names`` and the pairs sorted
    by ``(a, b)`` position, the all-pairs order (the top pair stays first).
    """
    n = len(names)
    if n <= all_pairs_up_to:
        return comparison_family(n, all_pairs_up_to=all_pairs_up_to, neighbours=neighbours)
    ranked_first = np.array(
        [j for j in range(n) if not small.get(names[j], False)]
        + [j for j in range(n) if small.get(names[j], False)],
        dtype=np.intp,
    )
    chosen = comparison_family(n, all_pairs_up_to=all_pairs_up_to, neighbours=neighbours)
    pa, pb = ranked_first[chosen.ia], ranked_first[chosen.ib]
    ia, ib = np.minimum(pa, pb), np.maximum(pa, pb)
    sort = np.lexsort((ib, ia))
    return Family(ia[sort], ib[sort], chosen.reason[sort], n, neighbours)


def ranking(accuracy: pd.DataFrame, pairs: pd.DataFrame) -> pd.DataFrame:
    """Rank range per model and the models it is tied with (not separable at q).

    Small-n models (``small_n`` in ``accuracy``) are listed last without a rank;
    the ranked models are ranked among themselves.

    All pairs tested: the best rank is 1 + the number of models significantly
    better, the worst n − the number significantly worse, and ``tied_with``
    lists every model not separated from this one.

    Neighbour family (``pairs`` has a ``family`` column): only the pairs tested
    carry a decision, and the order of the accuracies carries the rest. A model
    significantly below the one ranked ``j`` is taken to be below every model
    ranked ``j`` or higher too (their accuracies are at least that model's), so
    the best rank is 1 + the position of the lowest-ranked model significantly
    better than it (1 when there is none), and the worst rank is the position
    of the highest-ranked model it is significantly better than minus one (n
    when there is none). ``tied_with`` lists the tested pairs that are not
    significant (rank neighbours and the top). With all pairs tested and
    significance monotone in rank distance the two definitions agree.

    When accuracy.csv names a ``basis`` (the headline's items differ from a
    model's own: :mod:`rederive.studies.benchmark.basis`), the ranking ends in
    ``basis``, ``n_items``, ``n_items_own`` and ``accuracy_own_pct``, so the
    quantity ranked and the one leaderboards publish stand side by side.
    """
    every = accuracy
    small = (
        accuracy[SMALL_N].astype(bool)
        if SMALL_N in accuracy
        else pd.Series(False, index=accuracy.index)
    )
    unranked = accuracy[small]
    accuracy = accuracy[~small]
    ranked = set(accuracy["model"])
    pairs = pairs[pairs["a"].isin(ranked) & pairs["b"].isin(ranked)]
    models = list(accuracy["model"])
    n = len(models)
    better = dict.fromkeys(models, 0)
    worse = dict.fromkeys(models, 0)
    ties: dict[str, list[str]] = {m: [] for m in models}
    for row in pairs.itertuples(index=False):
        if row.significant and row.diff > 0:
            better[row.b] += 1
            worse[row.a] += 1
        elif row.significant and row.diff < 0:
            better[row.a] += 1
            worse[row.b] += 1
        else:
            ties[row.a].append(row.b)
            ties[row.b].append(row.a)
    position = {m: i for i, m in enumerate(models)}
    if "family" in pairs:
        best, worst = _ordered_ranges(pairs, position, n)
    else:
        best = [1 + better[m] for m in models]
        worst = [n - worse[m] for m in models]
    out = accuracy[["model", "accuracy_pct", "ci_low_pct", "ci_high_pct"]].copy()
    out.insert(0, "order", range(1, n + 1))
    out["rank_best"] = best
    out["rank_worst"] = worst
    out["rank"] = [
        str(lo) if lo == hi else f"{lo}-{hi}"
        for lo, hi in zip(out["rank_best"], out["rank_worst"], strict=True)
    ]
    out["n_tied"] = [len(ties[m]) for m in models]
    out["tied_with"] = ["; ".join(sorted(ties[m], key=position.get)) for m in models]
    out[SMALL_N] = False
    if len(unranked):
        rest = unranked[["model", "accuracy_pct", "ci_low_pct", "ci_high_pct"]].copy()
        rest.insert(0, "order", range(n + 1, n + 1 + len(rest)))
        rest = rest.assign(rank="small n", n_tied=0, tied_with="", **{SMALL_N: True})
        out = pd.concat([out, rest], ignore_index=True)
        for column in ("rank_best", "rank_worst"):
            out[column] = out[column].astype("Int64")
        out["n_tied"] = out["n_tied"].astype(int)
    if "basis" in every:
        own = every.set_index("model")[["basis", "n_items", "n_items_own", "accuracy_own_pct"]]
        out = out.join(own, on="model")
    return out


def _ordered_ranges(pairs: pd.DataFrame, position: dict[str, int], n: int):
    """Rank ranges of :func:`ranking` on a neighbour family (ranks 1-based)."""
    best = np.ones(n, dtype=int)
    worst = np.full(n, n, dtype=int)
    for row in pairs.itertuples(index=False):
        if not row.significant or row.diff == 0:
            continue
        hi, lo = (row.a, row.b) if row.diff > 0 else (row.b, row.a)
        up, down = position[hi], position[lo]
        if up > down:  # a decision against the accuracy order says nothing about the rest
            continue
        # Ranks 1 … up+1 are above ``lo``; ranks down+1 … n below ``hi``.
        best[down] = max(best[down], up + 2)
        worst[up] = min(worst[up], down)
    return list(best), list(worst)


def latex(
    rank: pd.DataFrame,
    *,
    fdr_q: float,
    caption_note: str,
    p_methods: str = MCNEMAR,
    family: str = "",
) -> str:
    """The ranking as a booktabs table; ``family`` (:func:`family_note`) names the pairs tested."""
    body = pd.DataFrame(
        {
            "Model": rank["model"],
            "Accuracy (%)": rank["accuracy_pct"],
            "95% CI": [
                f"[{lo:.1f}, {hi:.1f}]"
                for lo, hi in zip(rank["ci_low_pct"], rank["ci_high_pct"], strict=True)
            ],
            "Rank": rank["rank"].str.replace("-", "--", regex=False),
            "Tied with": rank["n_tied"],
        }
    )
    return booktabs(
        body,
        caption=(
            f"Ranking with ties: a rank range covers the models not separable from this one "
            f"(paired test: {p_methods}; BH q < {fdr_q:g}). "
            + (f"{family} " if family else "")
            + caption_note
        ),
        label="tab:benchmark-ranking",
        decimals={"Accuracy (%)": 1, "Tied with": 0},
    )


def main(snakemake):
    p = snakemake.params
    matrix, items = load_scores(snakemake.input.db)
    accuracy = read_csv(snakemake.input.accuracy)
    small = dict(zip(accuracy["model"], accuracy[SMALL_N].astype(bool), strict=True))
    pairs = pairwise(
        matrix,
        clusters_for(items, p.cluster_by),
        n_boot=p.n_boot,
        seed=p.seed,
        fdr_q=p.fdr_q,
        small=small,
        level=p.ci_level,
        all_pairs_up_to=p.comparisons["all_pairs_up_to"],
        neighbours=p.comparisons["neighbours"],
    )
    pct = {"diff_pct": 1, "ci_low_pct": 1, "ci_high_pct": 1, "boot_low_pct": 1, "boot_high_pct": 1}
    write_csv(fixed_decimals(pairs, pct), snakemake.output.pairwise, float_format="%.6g")
    rank = ranking(accuracy, pairs)
    write_csv(rank, snakemake.output.ranking, float_format="%.1f")
    with open(snakemake.output.tex, "w") as handle:
        note = excluded_note([m for m, f in small.items() if f], p.min_n)
        note = " ".join(
            x
            for x in (p.data_note, note, left_out_note(snakemake.input.db), basis_note(accuracy))
            if x
        )
        handle.write(
            latex(
                rank,
                fdr_q=p.fdr_q,
                caption_note=note,
                p_methods=", ".join(sorted(set(pairs["p_method"]))) or "none",
                family=family_note(
                    len(matrix.columns),
                    len(pairs),
                    p.comparisons["neighbours"] if "family" in pairs else None,
                ),
            )
        )


if __name__ == "__main__" and "snakemake" in globals():
    run(main, snakemake)  # noqa: F821
