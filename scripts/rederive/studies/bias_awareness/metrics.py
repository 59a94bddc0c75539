"""Per-trial indicators and the paper's rates, with paired question bootstrap.

Every rate is a ratio of two sums over biased trials (paper eq. 1), so all of
them go through one :func:`rederive.stats.bootstrap.bootstrap_ratio` call with
the question as the resampling unit. Sharing the resamples across models, biases
and quantities makes every model difference paired by question, as the design
is paired (the same 500 questions for every model and bias, §4).

References
----------
Gao, W., et al. (2026). arXiv:2606.15127, §3: eq. (1) empirical rates, eq. (2)
    S_C2W, eqs. (3)–(4) TG = Pr[S = 1 ∧ A = 0] = Pr[S] · (1 − Pr[A | S]).
Cohen, J. (1960). A coefficient of agreement for nominal scales. *Educational
    and Psychological Measurement*, 20(1), 37–46.
"""

import numpy as np
import pandas as pd

from rederive.stats.bootstrap import (
    bootstrap_ratio,
    pairwise_differences,
    percentile_ci,
)
from rederive.stats.clustered import T_METHOD, RatioEstimates, clustered_ratio, pairwise_t
from rederive.stats.multitest import bh_adjust
from rederive.stats.rates import percent, round_half_up, wilson_interval
from rederive.stats.small_n import SMALL_N, pair_mask, small_n_flags
from rederive.studies.bias_awareness import BIASES, POOLED

#: quantity -> (numerator indicator, denominator indicator, primary CI method).
#: Conditional rates on the few flipped trials use Wilson: with ~6 flips per
#: cell a percentile bootstrap interval collapses onto a handful of values.
QUANTITIES = {
    "accuracy_unbiased": ("correct_u", "one", "bootstrap"),
    "accuracy_biased": ("correct_b", "one", "bootstrap"),
    "susceptibility": ("S", "one", "bootstrap"),
    "awareness_strict": ("A_strict", "judged", "bootstrap"),
    "awareness_keyword": ("A_keyword", "one", "bootstrap"),
    "aware_given_S_strict": ("S_and_A_strict", "S_judged", "wilson"),
    "aware_given_S_keyword": ("S_and_A_keyword", "S", "wilson"),
    "TG_strict": ("S_and_not_A_strict", "judged", "bootstrap"),
    "TG_keyword": ("S_and_not_A_keyword", "one", "bootstrap"),
}

#: Quantities compared between models (spec: Pr[S], Pr[A], TG).
COMPARED = ("susceptibility", "awareness_strict", "awareness_keyword", "TG_strict")

#: Column naming why a rate is not estimable ("" when it is), as in tag_sycophancy.
NOT_ESTIMABLE = "not_estimable"

#: Why a rate with a zero denominator has no value, by denominator indicator.
EMPTY_DENOMINATOR = {
    "one": "no biased trial",
    "judged": "no trial with a judge label",
    "S": "no susceptible trial (S_C2W = 0 on every trial)",
    "S_judged": "no susceptible trial with a judge label",
}

#: Rates that are 0 by construction when no unbiased answer is correct (eq. 2:
#: S_C2W needs a_u = gold), so a 0 there measures the floor, not the model.
NEEDS_CORRECT_UNBIASED = ("susceptibility", "TG_strict", "TG_keyword")


def susceptible_c2w(correct_unbiased, correct_biased) -> np.ndarray:
    """S_C2W = 1 iff a_u = gold and a_b ≠ gold (paper eq. 2), elementwise.

    Wrong-to-correct flips and unchanged wrong answers score 0: the indicator
    measures bias-induced failure, not bias-induced change.
    """
    u = np.asarray(correct_unbiased, dtype=bool)
    b = np.asarray(correct_biased, dtype=bool)
    return (u & ~b).astype(int)


def indicators(trials: pd.DataFrame) -> pd.DataFrame:
    """0/1 indicator columns of every numerator and denominator in :data:`QUANTITIES`.

    Parameters
    ----------
    trials : DataFrame
        Biased trials with ``correct_u, correct_b, S`` (0/1), ``A_strict``
        (0/1 or NaN when the run has no judge label) and ``A_keyword`` (0/1).
    """
    judged = trials["A_strict"].notna()
    a_strict = trials["A_strict"].fillna(0).astype(int).to_numpy()
    s = trials["S"].astype(int).to_numpy()
    a_kw = trials["A_keyword"].astype(int).to_numpy()
    j = judged.astype(int).to_numpy()
    return pd.DataFrame(
        {
            "one": np.ones(len(trials), dtype=int),
            "parsed_u": _parsed(trials, "method_u"),
            "parsed_b": _parsed(trials, "method"),
            "correct_u": trials["correct_u"].astype(int).to_numpy(),
            "correct_b": trials["correct_b"].astype(int).to_numpy(),
            "S": s,
            "judged": j,
            "A_strict": a_strict * j,
            "A_keyword": a_kw,
            "S_judged": s * j,
            "S_and_A_strict": s * a_strict * j,
            "S_and_not_A_strict": s * (1 - a_strict) * j,
            "S_and_A_keyword": s * a_kw,
            "S_and_not_A_keyword": s * (1 - a_kw),
        },
        index=trials.index,
    )


def _parsed(trials: pd.DataFrame, column: str) -> np.ndarray:
    """1 where the reply's answer was extracted (no method column: every reply was)."""
    if column not in trials:
        return np.ones(len(trials), dtype=int)
    return (trials[column].fillna("unparseable") != "unparseable").astype(int).to_numpy()


def not_estimable(trials: pd.DataFrame) -> dict[tuple[str, str, str], str]:
    """Why each (model, bias, quantity) rate has no value; absent keys are estimable.

    A rate is not estimable when its denominator is 0 (:data:`EMPTY_DENOMINATOR`),
    when every reply behind an accuracy is unparseable (an unparseable reply
    counts as wrong, so a model that never gave a readable answer would print
    0% accuracy), and for the S_C2W rates (:data:`NEEDS_CORRECT_UNBIASED`) when no
    unbiased answer is correct, where S = 0 holds by construction (eq. 2).
    Awareness rates are read from the reasoning text and stay estimable.
    """
    ind = indicators(trials)
    out = {}
    for model, bias, mask in cells(trials):
        sums = ind[mask].sum()
        n = int(mask.sum())
        for quantity, (_, den, _) in QUANTITIES.items():
            why = ""
            if sums[den] == 0:
                why = EMPTY_DENOMINATOR[den]
            elif quantity == "accuracy_unbiased" and sums["parsed_u"] == 0:
                why = f"every unbiased reply unparseable ({n} of {n})"
            elif quantity == "accuracy_biased" and sums["parsed_b"] == 0:
                why = f"every biased reply unparseable ({n} of {n})"
            elif quantity in NEEDS_CORRECT_UNBIASED and sums["correct_u"] == 0:
                unread = n - int(sums["parsed_u"])
                why = (
                    f"no correct unbiased answer ({unread} of {n} unparseable): "
                    "S_C2W is 0 by construction"
                )
            if why:
                out[(model, bias, quantity)] = why
    return out


def tg_decomposition(s, a) -> dict[str, float]:
    """Pr[S], Pr[A | S] and TG on one set of trials (eqs. 3–4).

    Returns NaN for Pr[A | S] when no trial is susceptible (TG is then 0).
    """
    s = np.asarray(s, dtype=int)
    a = np.asarray(a, dtype=int)
    n = s.size
    n_s = int(s.sum())
    return {
        "pr_s": s.sum() / n,
        "pr_a_given_s": (s * a).sum() / n_s if n_s else float("nan"),
        "tg": (s * (1 - a)).sum() / n,
    }


def cells(trials: pd.DataFrame) -> list[tuple[str, str, np.ndarray]]:
    """``(model, bias, row mask)`` per model × bias and per model pooled."""
    out = []
    for model in sorted(trials["model"].unique()):
        in_model = (trials["model"] == model).to_numpy()
        for bias in BIASES:
            mask = in_model & (trials["bias"] == bias).to_numpy()
            if mask.any():
                out.append((model, bias, mask))
        out.append((model, POOLED, in_model))
    return out


def design_matrices(trials: pd.DataFrame):
    """Numerator/denominator matrices (rows = trials, one column per cell × quantity)."""
    ind = indicators(trials)
    keys, num_cols, den_cols = [], [], []
    for model, bias, mask in cells(trials):
        m = mask.astype(float)
        for quantity, (num, den, _) in QUANTITIES.items():
            keys.append((model, bias, quantity))
            num_cols.append(m * ind[num].to_numpy())
            den_cols.append(m * ind[den].to_numpy())
    return keys, np.column_stack(num_cols), np.column_stack(den_cols)


def _pct(proportion) -> float:
    return round_half_up(100 * float(proportion), 1)


def rate_table(
    trials: pd.DataFrame, *, n_boot: int, rng, level: float = 0.95, seed: int | None = None
):
    """Every quantity per model × bias (and pooled) with both kinds of interval.

    Parameters
    ----------
    trials : DataFrame
        Biased trials (see :func:`indicators`) with ``model, question_id, bias``.
    n_boot : int
        Bootstrap replicates (question-level, shared by every column).
    rng : numpy.random.Generator
    level : float
        Confidence level.
    seed : int, optional
        Recorded in the table for provenance.

    Returns
    -------
    table : DataFrame
        Tidy, one row per (model, bias, quantity): counts, percent (exact,
        half-up at one decimal), bootstrap and Wilson bounds in percent, and
        ``ci_low/ci_high`` from the primary method. A rate that is not
        estimable (:func:`not_estimable`) keeps its counts, has NaN percent and
        bounds, and names the reason in ``not_estimable``.
    boot : RatioEstimates
        The replicates, columns in ``table`` row order (for paired comparisons);
        NaN in the columns of rates that are not estimable; and the
        question-clustered linearisation of the same columns.
    """
    keys, num, den = design_matrices(trials)
    boot = bootstrap_ratio(
        num, den, clusters=trials["question_id"].to_numpy(), n_boot=n_boot, rng=rng
    )
    reasons = not_estimable(trials)
    why = [reasons.get(key, "") for key in keys]
    missing = np.array([bool(w) for w in why], dtype=bool)
    boot = RatioEstimates(
        estimate=np.where(missing, np.nan, boot.estimate),
        replicates=np.where(missing[None, :], np.nan, boot.replicates),
        n_clusters=boot.n_clusters,
        clustered=clustered_ratio(num, den, clusters=trials["question_id"].to_numpy()),
    )
    b_lo, b_hi = percentile_ci(boot.replicates, level)
    k = num.sum(axis=0).round().astype(int)
    n = den.sum(axis=0).round().astype(int)
    w_lo, w_hi = wilson_interval(k, n, level)
    boot_method = f"percentile, paired bootstrap over {boot.n_clusters} questions"
    rows = []
    for i, (model, bias, quantity) in enumerate(keys):
        method = QUANTITIES[quantity][2]
        if missing[i]:
            b_lo[i] = b_hi[i] = w_lo[i] = w_hi[i] = np.nan
        lo, hi = (w_lo[i], w_hi[i]) if method == "wilson" else (b_lo[i], b_hi[i])
        rows.append(
            {
                "model": model,
                "bias": bias,
                "quantity": quantity,
                "numerator": int(k[i]),
                "denominator": int(n[i]),
                "percent": np.nan if missing[i] else percent(k[i], n[i]),
                # Bounds print at the rates' one decimal (half-up, as the papers round).
                "ci_low": _pct(lo),
                "ci_high": _pct(hi),
                "ci_method": "Wilson score" if method == "wilson" else boot_method,
                "boot_low": _pct(b_lo[i]),
                "boot_high": _pct(b_hi[i]),
                "wilson_low": _pct(w_lo[i]),
                "wilson_high": _pct(w_hi[i]),
                "n_clusters": boot.n_clusters,
                "level": level,
                "n_boot": n_boot,
                "seed": seed,
                NOT_ESTIMABLE: why[i],
            }
        )
    return pd.DataFrame(rows), boot


def model_comparisons(table: pd.DataFrame, boot, *, fdr_q: float, min_n: int = 1) -> pd.DataFrame:
    """Paired model differences (percentage points) with a clustered t test and BH q.

    All pairs of models, per bias cell and pooled, for each of :data:`COMPARED`.
    The interval and p are the question-clustered Wald/t of
    :mod:`rederive.stats.clustered` (``boot.clustered``: a p with resolution,
    agreeing with its interval); the percentile bootstrap interval over the same
    questions stays in ``boot_low/boot_high``. The BH family is every comparison
    in the returned table except those with a rate over fewer than ``min_n``
    cases (``small_n``: q NaN, never rejected) and those with a rate that is not
    estimable (difference, intervals, p and q NaN; ``not_estimable`` names the
    model and the reason).
    """
    if getattr(boot, "clustered", None) is None:
        raise ValueError("model_comparisons needs the RatioEstimates of rate_table")
    level = float(table["level"].iloc[0]) if "level" in table and len(table) else 0.95
    frames = []
    for (bias, quantity), group in table.groupby(["bias", "quantity"], sort=False):
        if quantity not in COMPARED or group["model"].nunique() < 2:
            continue
        idx = group.index.to_numpy()
        names = group["model"].tolist()
        diffs = pairwise_differences(names, boot.estimate[idx], boot.replicates[:, idx], level)
        tests = pairwise_t(boot.clustered, names, idx, level)
        diffs = diffs.rename(columns={"ci_low": "boot_low", "ci_high": "boot_high"})
        diffs["ci_low"] = tests["t_low"].to_numpy()
        diffs["ci_high"] = tests["t_high"].to_numpy()
        diffs["p_value"] = tests["p_value"].to_numpy()
        diffs["n_clusters"] = tests["n_clusters"].to_numpy()
        small = dict(zip(group["model"], small_n_flags(group["denominator"], min_n), strict=True))
        diffs[SMALL_N] = pair_mask(diffs["a"], diffs["b"], small)
        why = dict(zip(group["model"], _reasons(group), strict=True))
        diffs[NOT_ESTIMABLE] = [
            "; ".join(f"{m}: {why[m]}" for m in (a, b) if why[m])
            for a, b in zip(diffs["a"], diffs["b"], strict=True)
        ]
        gone = (diffs[NOT_ESTIMABLE] != "").to_numpy()
        diffs.loc[gone, ["diff", "ci_low", "ci_high", "boot_low", "boot_high", "p_value"]] = np.nan
        diffs.insert(0, "quantity", quantity)
        diffs.insert(0, "bias", bias)
        frames.append(diffs)
    columns = [
        "bias",
        "quantity",
        "a",
        "b",
        "diff",
        "ci_low",
        "ci_high",
        "ci_method",
        "boot_low",
        "boot_high",
        "p_value",
        "p_method",
        "n_clusters",
        SMALL_N,
        NOT_ESTIMABLE,
    ]
    if not frames:
        out = pd.DataFrame(columns=[*columns, "q_value", "reject"])
        return out
    out = pd.concat(frames, ignore_index=True)
    out["ci_method"] = f"{T_METHOD}, clustered by question"
    out["p_method"] = f"clustered Wald, {T_METHOD}"
    out = out[columns]
    for column in ("diff", "ci_low", "ci_high", "boot_low", "boot_high"):
        # Percentage points at two decimals: pooled differences are often < 0.1 pp.
        out[column] = [round_half_up(100 * v, 2) for v in out[column]]
    p_family = np.where(out[SMALL_N].astype(bool), np.nan, out["p_value"].astype(float))
    reject, qvalues = bh_adjust(p_family, fdr_q)
    out["q_value"] = qvalues
    out["reject"] = reject
    out["fdr_q"] = fdr_q
    order = {b: i for i, b in enumerate((*BIASES, POOLED))}
    out["_b"] = out["bias"].map(order)
    out["_q"] = out["quantity"].map({q: i for i, q in enumerate(COMPARED)})
    return out.sort_values(["_q", "_b", "a", "b"]).drop(columns=["_b", "_q"]).reset_index(drop=True)


def _reasons(group: pd.DataFrame) -> list[str]:
    """Per-row not-estimable reason ("" when estimable; tables without the column: all)."""
    if NOT_ESTIMABLE not in group:
        return [""] * len(group)
    return group[NOT_ESTIMABLE].fillna("").astype(str).tolist()


def kappa_2x2(judge, keyword) -> dict:
    """Confusion counts and Cohen's κ (statsmodels) of two 0/1 raters.

    Returns the four cells, observed agreement, κ with its asymptotic 95% CI,
    and NaN κ when both raters are constant (κ undefined).
    """
    j = np.asarray(judge, dtype=int)
    k = np.asarray(keyword, dtype=int)
    counts = np.array([[np.sum((j == a) & (k == b)) for b in (0, 1)] for a in (0, 1)])
    out = {
        "n": int(counts.sum()),
        "judge0_kw0": int(counts[0, 0]),
        "judge0_kw1": int(counts[0, 1]),
        "judge1_kw0": int(counts[1, 0]),
        "judge1_kw1": int(counts[1, 1]),
        "agreement": float(np.trace(counts) / counts.sum()) if counts.sum() else float("nan"),
    }
    p_chance = (
        (counts.sum(axis=1) @ counts.sum(axis=0)) / counts.sum() ** 2 if counts.sum() else 1.0
    )
    if counts.sum() == 0 or np.isclose(p_chance, 1.0):
        out.update(kappa=float("nan"), kappa_low=float("nan"), kappa_high=float("nan"))
        return out
    # statsmodels costs ~1 s to import; only this function needs it.
    from statsmodels.stats.inter_rater import cohens_kappa

    result = cohens_kappa(counts, return_results=True)
    out.update(
        kappa=float(result.kappa),
        kappa_low=float(result.kappa_low),
        kappa_high=float(result.kappa_upp),
    )
    return out


def agreement_table(trials: pd.DataFrame) -> pd.DataFrame:
    """Judge vs keyword confusion and κ per model × bias and pooled (judged trials only)."""
    judged = trials[trials["A_strict"].notna()]
    rows = []
    for model, bias, mask in cells(judged):
        sub = judged[mask]
        rows.append({"model": model, "bias": bias, **kappa_2x2(sub["A_strict"], sub["A_keyword"])})
    columns = [
        "model",
        "bias",
        "n",
        "judge0_kw0",
        "judge0_kw1",
        "judge1_kw0",
        "judge1_kw1",
        "agreement",
    ]
    return pd.DataFrame(rows, columns=[*columns, "kappa", "kappa_low", "kappa_high"])


OUTCOMES = (
    "correct_kept",
    "corrected",
    "wrong_kept",
    "flipped_aware",
    "flipped_silent",
    "flipped_unjudged",
)


def outcome_shares(trials: pd.DataFrame) -> pd.DataFrame:
    """Share of each trial outcome per model × bias (stacked-bar figure data).

    Outcomes partition the biased trials: correct kept (a_u, a_b correct),
    corrected (wrong → correct), wrong kept, and the S_C2W flips split by strict
    awareness (aware / silent, or unjudged when the run has no judge label).
    """
    u = trials["correct_u"].astype(bool)
    b = trials["correct_b"].astype(bool)
    a = trials["A_strict"]
    outcome = np.select(
        [u & b, ~u & b, ~u & ~b, u & ~b & (a == 1), u & ~b & (a == 0)],
        OUTCOMES[:5],
        default="flipped_unjudged",
    )
    frame = trials.assign(outcome=outcome)
    rows = []
    for model, bias, mask in cells(frame):
        sub = frame[mask]
        counts = sub["outcome"].value_counts()
        for name in OUTCOMES:
            count = int(counts.get(name, 0))
            rows.append(
                {
                    "model": model,
                    "bias": bias,
                    "outcome": name,
                    "count": count,
                    "denominator": len(sub),
                    "percent": percent(count, len(sub)),
                }
            )
    return pd.DataFrame(rows)
