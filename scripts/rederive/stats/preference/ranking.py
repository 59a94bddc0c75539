"""Scores on the Elo scale, paired comparisons with BH q-values, and rank ranges.

The comparison of two models is their rating difference, paired by prompt: both
ratings come from the same prompt-bootstrap replicates
(:mod:`.bootstrap`), so a prompt that is hard for everyone moves both. Its
p-value is a Wald test with the bootstrap standard error of the difference,
``z = Δ / sd*(Δ)``, ``p = 2 Φ(−|z|)`` — not the bootstrap p-value, whose floor
``1/(B + 1)`` would tie the clearest pairs under BH (the reason the benchmark
kind uses McNemar and t tests), and not the model-based Wald test on the
Fisher information (:func:`.bradley_terry.model_covariance`), which treats
games on one prompt as independent and rejects true nulls too often when
prompts matter (``bench/preference_calibration.py``, bench/README.md).
Benjamini–Hochberg runs over the comparison family of
:func:`rederive.stats.family.comparison_family` (all pairs up to a size, else rank
neighbours and the top), and rank ranges follow the benchmark kind
(:mod:`rederive.studies.benchmark.pairwise`): best rank 1 + the models
significantly better, worst rank n − the models significantly worse.

A baseline (AlpacaEval's, Arena-Hard's) is a side in the games but not a
contestant: it is labelled ``baseline`` and left out of the family and the ranks.

References
----------
Benjamini, Y. & Hochberg, Y. (1995). Controlling the false discovery rate. *JRSS B*
    57, 289–300.
Efron, B. & Tibshirani, R. (1993). *An Introduction to the Bootstrap*, §6 (bootstrap
    standard errors). Chapman & Hall.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from rederive.stats.bootstrap import percentile_ci
from rederive.stats.family import comparison_family, family_note, rank_order
from rederive.stats.multitest import bh_adjust
from rederive.stats.preference.bootstrap import PreferenceBootstrap, unit_note
from rederive.stats.preference.bradley_terry import half_scores
from rederive.stats.preference.elo import (
    NO_ANCHOR,
    EloScale,
    elo_bound_win_rates,
    to_elo,
    win_rate_against,
)
from rederive.stats.preference.games import PairCounts

__all__ = [
    "BASELINE",
    "CONTESTANT",
    "P_METHOD",
    "WIN_INTERVALS",
    "pairwise_table",
    "rank_table",
    "score_table",
]

CONTESTANT = "contestant"
BASELINE = "baseline"
P_METHOD = "Wald z with prompt-bootstrap SE of the paired difference"
CI_METHOD = "prompt bootstrap, percentile"
#: How :func:`score_table` takes the interval of the win rate against the baseline.
WIN_INTERVALS = ("replicates", "elo_bounds")


def _games_per_model(counts: PairCounts) -> np.ndarray:
    _, total = half_scores(counts.totals(), counts.graded)
    m = len(counts.models)
    return np.bincount(counts.ia, total, m) + np.bincount(counts.ib, total, m)


def score_table(
    boot: PreferenceBootstrap,
    counts: PairCounts,
    *,
    scale: EloScale = NO_ANCHOR,
    level: float = 0.95,
    baseline: str | None = None,
    not_ranked=None,
    win_interval: str = "replicates",
    ci_method: str = CI_METHOD,
) -> pd.DataFrame:
    """One row per model: strength, Elo rating and its prompt-bootstrap interval.

    Parameters
    ----------
    boot : PreferenceBootstrap
    counts : PairCounts
        The counts ``boot`` was fitted on (for the games per model).
    scale : EloScale
        Scale and anchor (:mod:`.elo`).
    level : float
    baseline : str, optional
        A model labelled ``baseline``; with it, ``win_rate_pct`` and its interval
        give every model's predicted win rate against it (Arena-Hard v0.1's score).
    not_ranked : mapping of str to str, optional
        Other models that are not contestants, with the role they are labelled
        with (e.g. ``small_n``).
    win_interval : {"replicates", "elo_bounds"}
        The win-rate interval: the percentiles of the replicates' win rates, or
        Arena-Hard v0.1's construction (:func:`.elo.elo_bound_win_rates`).
    ci_method : str
        What the ``ci_method`` column says (the resampling unit).

    Returns
    -------
    DataFrame
        ``model, role, games, beta, rating, ci_low, ci_high, se, ci_method,
        n_units, unit_kind, n_boot, n_failed, seed`` (+ ``win_rate_pct,
        win_ci_low_pct, win_ci_high_pct`` with a baseline), sorted by rating,
        ties by name. ``games`` is weighted (a strong label counts its weight).
    """
    if win_interval not in WIN_INTERVALS:
        raise ValueError(f"win_interval must be one of {WIN_INTERVALS}")
    models = boot.fit.models
    not_ranked = dict(not_ranked or {})
    rating = to_elo(boot.fit.beta, models, scale)
    reps = to_elo(boot.replicates, models, scale)
    lo, hi = percentile_ci(reps, level)
    out = pd.DataFrame(
        {
            "model": models,
            "role": [BASELINE if m == baseline else not_ranked.get(m, CONTESTANT) for m in models],
            "games": _games_per_model(counts),
            "beta": boot.fit.beta,
            "rating": rating,
            "ci_low": lo,
            "ci_high": hi,
            "se": np.nanstd(reps, axis=0, ddof=1),
            "ci_method": ci_method,
            "n_units": boot.n_units,
            "unit_kind": boot.unit_kind,
            "n_boot": boot.n_boot,
            "n_failed": boot.n_failed,
            "seed": boot.seed,
        }
    )
    if baseline is not None:
        if baseline not in models:
            raise ValueError(f"baseline {baseline!r} has no games")
        out["win_rate_pct"] = win_rate_against(rating, models, baseline, scale)
        if win_interval == "elo_bounds":
            wlo, whi = elo_bound_win_rates(boot.replicates, models, baseline, scale, level)
        else:
            wlo, whi = percentile_ci(win_rate_against(reps, models, baseline, scale), level)
        out["win_ci_low_pct"], out["win_ci_high_pct"] = wlo, whi
    order = rank_order(rating, models)
    return out.iloc[order].reset_index(drop=True)


def pairwise_table(
    boot: PreferenceBootstrap,
    *,
    fdr_q: float,
    level: float = 0.95,
    scale: EloScale = NO_ANCHOR,
    baseline: str | None = None,
    all_pairs_up_to: int | None = None,
    neighbours: int = 2,
    not_ranked=(),
) -> pd.DataFrame:
    """Paired rating differences ``a − b`` of the comparison family, with BH q-values.

    Parameters
    ----------
    boot : PreferenceBootstrap
    fdr_q : float
    level : float
    scale : EloScale
        Only its points per log-odds unit matter: differences are anchor-free.
    baseline : str, optional
        Left out of the family (never ranked).
    all_pairs_up_to, neighbours : int
        The family (:func:`rederive.stats.family.comparison_family`); None: all pairs.
    not_ranked : iterable of str
        Other models left out of the family (e.g. the small-n ones).

    Returns
    -------
    DataFrame
        ``a, b, diff, ci_low, ci_high, se, z, p_value, p_method, q_value,
        significant, fdr_q, n_boot, seed`` (+ ``family`` for a neighbour family),
        ``a`` the higher-rated; differences in Elo points.
    """
    models = list(boot.fit.models)
    left_out = {baseline, *not_ranked}
    keep = [k for k, m in enumerate(models) if m not in left_out]
    names = [models[k] for k in keep]
    points = scale.scale / np.log(scale.base)
    est = points * boot.fit.beta[keep]
    reps = points * boot.replicates[:, keep]
    order = rank_order(est, names)
    n = len(order)
    family = comparison_family(
        n, all_pairs_up_to=n if all_pairs_up_to is None else all_pairs_up_to, neighbours=neighbours
    )
    ia, ib = order[family.ia], order[family.ib]
    diff = est[ia] - est[ib]
    diff_reps = reps[:, ia] - reps[:, ib]
    lo, hi = percentile_ci(diff_reps, level)
    se = np.nanstd(diff_reps, axis=0, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = diff / se
    # A zero SE (the difference never moves across replicates) gives the limit of
    # the statistic, as rederive.stats.clustered.t_pvalue does; NaN SE stays NaN.
    p = np.where(se > 0, 2 * stats.norm.sf(np.abs(z)), np.where(diff == 0, 1.0, 0.0))
    p = np.where(np.isnan(se), np.nan, p)
    reject, q = bh_adjust(p, fdr_q)
    out = pd.DataFrame(
        {
            "a": [names[k] for k in ia],
            "b": [names[k] for k in ib],
            "diff": diff,
            "ci_low": lo,
            "ci_high": hi,
            "se": se,
            "z": z,
            "p_value": p,
            "p_method": P_METHOD,
            "q_value": q,
            "significant": reject,
            "fdr_q": fdr_q,
            "n_boot": boot.n_boot,
            "seed": boot.seed,
        }
    )
    if not family.all_pairs:
        out["family"] = family.reason
    out.attrs["note"] = " ".join(
        [
            family_note(n, len(out), None if family.all_pairs else neighbours),
            unit_note(boot.unit_kind, boot.n_units),
        ]
    )
    return out


def rank_table(scores: pd.DataFrame, pairs: pd.DataFrame) -> pd.DataFrame:
    """Rank range per contestant and the models it is not separated from.

    All pairs tested: best rank = 1 + models significantly better, worst = n −
    models significantly worse. Neighbour family (``pairs`` has ``family``):
    a model significantly below the one ranked ``j`` is below every model
    ranked above ``j`` too, as in the benchmark kind's ranking. The baseline
    follows the contestants with rank ``baseline``.

    Returns
    -------
    DataFrame
        ``order, model, role, rating, ci_low, ci_high, rank_best, rank_worst,
        rank, n_tied, tied_with``.
    """
    contestants = scores[scores["role"] == CONTESTANT].reset_index(drop=True)
    models = list(contestants["model"])
    n = len(models)
    position = {m: k for k, m in enumerate(models)}
    better = np.zeros(n, dtype=int)
    worse = np.zeros(n, dtype=int)
    best = np.ones(n, dtype=int)
    worst = np.full(n, n, dtype=int)
    ties: dict[str, list[str]] = {m: [] for m in models}
    ordered = "family" in pairs
    for row in pairs.itertuples(index=False):
        if row.a not in position or row.b not in position:
            continue
        if row.significant and row.diff != 0:
            hi, lo = (row.a, row.b) if row.diff > 0 else (row.b, row.a)
            better[position[lo]] += 1
            worse[position[hi]] += 1
            up, down = position[hi], position[lo]
            if ordered and up < down:
                best[down] = max(best[down], up + 2)
                worst[up] = min(worst[up], down)
        else:
            ties[row.a].append(row.b)
            ties[row.b].append(row.a)
    if not ordered:
        best, worst = 1 + better, n - worse
    out = contestants[["model", "role", "rating", "ci_low", "ci_high"]].copy()
    out.insert(0, "order", range(1, n + 1))
    out["rank_best"] = best
    out["rank_worst"] = worst
    out["rank"] = [str(b) if b == w else f"{b}-{w}" for b, w in zip(best, worst, strict=True)]
    out["n_tied"] = [len(ties[m]) for m in models]
    out["tied_with"] = ["; ".join(sorted(ties[m], key=position.get)) for m in models]
    rest = scores[scores["role"] != CONTESTANT][["model", "role", "rating", "ci_low", "ci_high"]]
    if len(rest):
        rest = rest.assign(rank=rest["role"], n_tied=0, tied_with="")
        rest.insert(0, "order", range(n + 1, n + 1 + len(rest)))
        out = pd.concat([out, rest], ignore_index=True)
        for column in ("rank_best", "rank_worst"):
            out[column] = out[column].astype("Int64")
    return out
