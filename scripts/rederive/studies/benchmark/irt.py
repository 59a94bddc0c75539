"""Rule ``fit_benchmark_irt``: 1PL (Rasch) IRT ability per model and difficulty per
item, fitted with py-irt through :func:`rederive.stats.irt.fit_1pl`.

Per-item scores that are not 0/1 (partial credit, judge preferences, the mean
over several epochs) enter as ``fractional_scores`` says
(:mod:`rederive.stats.fractional`): by default as they are, through the
fractional likelihood ``s log p + (1 - s) log(1 - p)`` (a draw, 0.5, is half a
success); with ``method: threshold`` dichotomised at the threshold, ties as
``ties`` says. ``irt_fit.csv`` then names the rule and counts the cells
(``fractional_scores``, ``n_cells_fractional``, ``n_cells_dichotomised``,
``n_cells_tied_left_out``; the first, second and last only when some score is
fractional). A model *without variation* (every score the same value between 0
and 1: a baseline judged against itself) is named so in ``ability_note``:
finite and ranked under the fractional likelihood, undefined (NaN, no rank)
under a threshold - never a "perfect score". With complete binary data a
model's total score is the sufficient statistic of its 1PL ability, so ability
must order the models as accuracy does; the Spearman correlation between the
two is reported as a convergence check.

Table schema (``irt_ability.csv``): ``rank`` orders ``ability_ml``, the
marginal-ML ability (:func:`rederive.stats.irt_mml.rasch_mml`: items integrated
as N(0, sigma^2), abilities fixed - the fixed effects of
``lme4::glmer(correct ~ 0 + model + (1 | item), family = binomial)``, matched to
1e-4 logit in ``tests/stats/test_irt_glmer.py``), and ``ci_low``/``ci_high``/
``se_boot`` beside it are *its* item-bootstrap interval
(:func:`rederive.stats.irt_mml.bootstrap_mml_ability`: items resampled, clustered
like the accuracy CIs). With complete binary data it orders the models exactly as
accuracy does and carries no SVI noise. py-irt's posterior mean and SD (the
Bayesian refinement, shrunk by its hierarchical prior) follow as
``ability_pyirt``/``ability_pyirt_sd``. Everything is centred so
the mean item difficulty is 0, so abilities of two fits are comparable.

``irt_difficulty.csv``: ``difficulty`` is py-irt's posterior mean with
``difficulty_sd`` and a normal 95% interval beside it; ``difficulty_spread`` the
constrained-Bayes (spread-matched) estimate drawn in the figure;
``difficulty_mml`` the classical marginal-ML estimate the fit started from.
Items every model passes or fails are kept, finite and shrunk by the hierarchical
prior, and flagged (``extreme``). ``irt_fit.csv`` says how the fit stopped
(``epochs_used``, ``final_change``, ``converged``) and which seed was kept after
how many attempts.

References
----------
Rasch, G. (1960). *Probabilistic Models for Some Intelligence and Attainment Tests*.
Lalor, J. P. & Rodriguez, P. (2023). py-irt: A scalable item response theory library
    for Python. *INFORMS Journal on Computing* 35(1), 5–13.
"""

import logging
import time
from dataclasses import astuple

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from rederive.runner import run
from rederive.stats.fractional import (
    ScoreCounts,
    ScoreRule,
    constant_score,
    no_variation_note,
    threshold_extreme_note,
)
from rederive.stats.irt import fit_1pl
from rederive.stats.irt_mml import bootstrap_mml_ability
from rederive.stats.small_n import SMALL_N, ability_not_finite, rank_eligible, small_n_flags
from rederive.studies.benchmark.common import clusters_for, load_scores, write_csv

log = logging.getLogger(__name__)


def score_responses(matrix: pd.DataFrame, rule: ScoreRule) -> tuple[pd.DataFrame, ScoreCounts]:
    """Models × items responses under ``rule``, and what it did to the scores.

    Done a block of items at a time, so the temporaries stay small beside the
    two matrices (150 M cells: 1.2 GB each as float64).
    """
    values = matrix.to_numpy(dtype=float)
    out = np.empty_like(values)
    totals = [0, 0, 0]
    step = max(1, 4_000_000 // max(values.shape[1], 1))
    for lo in range(0, values.shape[0], step):
        block, counts = rule.responses(values[lo : lo + step])
        out[lo : lo + step] = block
        totals = [a + b for a, b in zip(totals, astuple(counts), strict=True)]
    responses = pd.DataFrame(out.T, index=matrix.columns, columns=matrix.index)
    return responses, ScoreCounts(*totals)


def model_notes(
    matrix: pd.DataFrame, responses: pd.DataFrame, rule: ScoreRule
) -> tuple[pd.Series, pd.Series]:
    """Per model: why its ability is what it is (or is not), and whether it may be ranked.

    ``""`` and True for an ordinary model. A model without variation (every
    score one value strictly between 0 and 1) is named so: ranked under the
    fractional likelihood (its ability is finite), unranked under a threshold.
    A perfect or zero score after the rule has no finite ML ability: named as
    a perfect or zero score only when the scores themselves were all 1 or all
    0, otherwise as the threshold's doing.
    """
    values = matrix.to_numpy(dtype=float)
    constant = pd.Series(constant_score(values, axis=0), index=matrix.columns)
    scored = matrix.notna().sum(axis=0)
    mean = matrix.mean(axis=0)
    passes = responses.sum(axis=1)
    answered = responses.notna().sum(axis=1)
    has_fraction = pd.Series(((values > 0.0) & (values < 1.0)).any(axis=0), index=matrix.columns)
    extreme = dict(zip(responses.index, ability_not_finite(passes, answered), strict=True))
    notes, rankable = {}, {}
    for model in responses.index:
        if np.isfinite(constant[model]):
            notes[model] = no_variation_note(constant[model], scored[model], rule)
            rankable[model] = rule.fractional
        elif extreme[model] and has_fraction[model] and not rule.fractional and answered[model]:
            notes[model] = threshold_extreme_note(
                mean[model], answered[model], rule, bool(passes[model] > 0)
            )
            rankable[model] = False
        else:
            notes[model] = extreme[model]
            rankable[model] = not extreme[model]
    return pd.Series(notes), pd.Series(rankable)


def not_fitted(
    responses: pd.DataFrame,
    items: pd.DataFrame,
    counts: ScoreCounts,
    *,
    min_n: int,
    rule: ScoreRule | None = None,
):
    """Tables of a benchmark too small for a 1PL (fewer than 2 models or 2 items
    with a response under the score rule).

    Every ability and difficulty is NaN with the reason, so the rest of the study
    (accuracy, pairs, clustering, check) still runs.
    """
    n_models, n_items = (
        int(responses.notna().any(axis=1).sum()),
        int(responses.notna().any(axis=0).sum()),
    )
    reason = f"1PL not fitted: needs at least 2 models and 2 items, got {n_models} x {n_items}"
    log.warning("%s", reason)
    ability = pd.DataFrame({"model": responses.index})
    for column in ("ability_ml", "ci_low", "ci_high", "se_boot"):
        ability[column] = np.nan
    ability["n_nonfinite"] = 0
    ability["ability_pyirt"] = np.nan
    ability["ability_pyirt_sd"] = np.nan
    ability["accuracy_binary"] = responses.mean(axis=1).to_numpy()
    ability["n_items"] = responses.notna().sum(axis=1).to_numpy()
    ability["ability_note"] = reason
    ability[SMALL_N] = small_n_flags(ability["n_items"], min_n)
    ability.insert(1, "rank", pd.array([pd.NA] * len(ability), dtype="Int64"))
    difficulty = items.set_index("item_key").loc[responses.columns].reset_index()
    difficulty["difficulty"] = np.nan
    difficulty["p_correct"] = responses.mean(axis=0).to_numpy()
    difficulty["n_models"] = responses.notna().sum(axis=0).to_numpy()
    difficulty["extreme"] = ""
    summary = pd.DataFrame(
        [
            {
                "model": "1PL (py-irt SVI)",
                "n_models": n_models,
                "n_items": n_items,
                "n_observed": int(responses.notna().sum().sum()),
                "n_cells_dichotomised": counts.n_dichotomised,
                "note": reason,
            }
        ]
    )
    return ability, difficulty, with_rule(summary, counts, rule or ScoreRule())


def with_rule(summary: pd.DataFrame, counts: ScoreCounts, rule: ScoreRule) -> pd.DataFrame:
    """``irt_fit.csv`` with the score rule and its counts, when some score is fractional.

    0/1 data keep the table as it was (the rule changes nothing there).
    """
    if not counts.n_fractional:
        return summary
    at = summary.columns.get_loc("n_cells_dichotomised")
    out = summary.copy()
    out.insert(at, "fractional_scores", rule.describe())
    out.insert(at + 1, "n_cells_fractional", counts.n_fractional)
    out.insert(at + 3, "n_cells_tied_left_out", counts.n_tied_left_out)
    return out


def fit(
    matrix: pd.DataFrame,
    items: pd.DataFrame,
    *,
    epochs: int,
    lr: float,
    priors: str,
    seed: int,
    n_boot: int,
    level: float,
    cluster_by: str,
    min_n: int = 1,
    lr_decay: float = 0.99,
    tol: float = 0.01,
    pyirt_max_cells: int | None = None,
    rule: ScoreRule | None = None,
):
    """Fit the 1PL and return (ability table, difficulty table, fit summary).

    ``rule`` (:class:`rederive.stats.fractional.ScoreRule`, default: the
    fractional likelihood) says how fractional scores enter. Models with a
    perfect or zero score (no finite ML ability, ``ability_note``), models
    without variation under a threshold and small-n models (fewer than
    ``min_n`` items) get no rank. A model or item left without any response by
    the rule (every score a tie left out) is not fitted and keeps its row with
    NaN. Above ``pyirt_max_cells`` (models x items) py-irt's SVI is not run:
    the ``ability_pyirt`` columns are NaN, ``difficulty`` is the marginal-ML
    posterior, and ``irt_fit.csv`` gets a ``note`` saying so.
    """
    rule = rule or ScoreRule()
    every, counts = score_responses(matrix, rule)
    # A tie left out can empty a model's or an item's row: it carries no
    # response to fit, and keeps its row in the tables with the reason.
    has_model = every.notna().any(axis=1).to_numpy()
    has_item = every.notna().any(axis=0).to_numpy()
    responses = every if has_model.all() and has_item.all() else every.loc[has_model, has_item]
    if min(responses.shape) < 2:
        return not_fitted(every, items, counts, min_n=min_n, rule=rule)
    # 0/1 data take exactly the binary path, whatever the rule.
    fractional = rule.fractional and counts.n_fractional > 0
    start = time.perf_counter()
    result = fit_1pl(
        responses,
        epochs=epochs,
        priors=priors,
        lr=lr,
        lr_decay=lr_decay,
        tol=tol,
        seed=seed,
        max_cells=pyirt_max_cells,
        mml_random="items",
        fractional=fractional,
    )
    if result.skipped:
        log.warning("%s", result.skipped)
    # Wall time goes to the log and the Snakemake benchmark file, never into a CSV
    # (CSVs must be byte-identical between runs).
    log.info(
        "1PL fit on %d models x %d items, %d of at most %d epochs: %.1f s SVI (%.1f s with setup)",
        *responses.shape,
        result.epochs_used,
        epochs,
        result.fit_seconds,
        time.perf_counter() - start,
    )
    item_rows = items.set_index("item_key").loc[responses.columns].reset_index()
    # The ranked ability is the marginal-ML one (items integrated, the
    # parametrisation of lme4::glmer(correct ~ 0 + model + (1 | item))), with an
    # item bootstrap of that estimate; py-irt's posterior follows beside it.
    boot = bootstrap_mml_ability(
        responses,
        result.mml,
        n_boot=n_boot,
        seed=seed,
        level=level,
        clusters=clusters_for(item_rows, cluster_by),
        fractional=fractional,
    )
    intervals = boot.table.reindex(responses.index)
    ability = pd.DataFrame(
        {
            "model": responses.index,
            "ability_ml": intervals["ability"].to_numpy(),
            "ci_low": intervals["ci_low"].to_numpy(),
            "ci_high": intervals["ci_high"].to_numpy(),
            "se_boot": intervals["se_boot"].to_numpy(),
            "n_nonfinite": 0,
            "ability_pyirt": result.ability.reindex(responses.index).to_numpy(),
            "ability_pyirt_sd": result.ability_sd.reindex(responses.index).to_numpy(),
            "accuracy_binary": responses.mean(axis=1).to_numpy(),
            "n_items": responses.notna().sum(axis=1).to_numpy(),
        }
    )
    if len(responses) < len(every):
        # Models the rule left without a response: a row each, NaN, with the reason.
        empty = every.index[~has_model]
        ability = pd.concat(
            [
                ability,
                pd.DataFrame(
                    {
                        "model": empty,
                        "n_nonfinite": 0,
                        "accuracy_binary": np.nan,
                        "n_items": 0,
                    }
                ),
            ],
            ignore_index=True,
        )
    # A perfect or zero score has no finite ML ability (the optimiser stops
    # somewhere on the way to infinity), and a model without variation has
    # none under a threshold: NaN with the reason, no rank.
    notes, rankable = model_notes(matrix, every, rule)
    notes, rankable = notes.reindex(ability["model"]), rankable.reindex(ability["model"])
    undefined = ~rankable.to_numpy(dtype=bool) & (notes != "").to_numpy()
    for column in ("ability_ml", "ci_low", "ci_high", "se_boot"):
        ability[column] = np.where(undefined, np.nan, ability[column].to_numpy(dtype=float))
    interval = np.where(ability["model"].isin(responses.index), boot.note, "")
    # An undefined ability's reason alone; a finite one's note and why its
    # interval is missing, if it is.
    ability["ability_note"] = [
        n if u else "; ".join(x for x in (n, i) if x)
        for n, i, u in zip(notes, interval, undefined, strict=True)
    ]
    ability[SMALL_N] = small_n_flags(ability["n_items"], min_n)
    # Ranks follow the estimate the interval belongs to (ability_ml), not py-irt's;
    # a note other than "no variation" under the fractional likelihood takes the
    # rank away (as does an interval that could not be estimated).
    eligible_mask = (ability["ability_note"] == "") | (
        rankable.to_numpy(dtype=bool) & (notes != "").to_numpy() & (interval == "")
    )
    ability = ability.assign(_eligible=eligible_mask).sort_values(
        ["ability_ml", "model"], ascending=[False, True], na_position="last"
    )
    ability = ability.reset_index(drop=True)
    eligible = ability["ability_ml"].where(ability.pop("_eligible"))
    ability.insert(1, "rank", rank_eligible(ability.assign(eligible=eligible), score="eligible"))
    difficulty = items.set_index("item_key").loc[every.columns].reset_index()
    estimates = result.item_table().reindex(every.columns)
    for column in estimates.columns:
        difficulty[column] = estimates[column].to_numpy()
    if not has_item.all():
        difficulty.loc[~has_item, "extreme"] = "no 0/1 outcome: every score a tie left out"
    difficulty["p_correct"] = every.mean(axis=0).to_numpy()
    difficulty["n_models"] = every.notna().sum(axis=0).to_numpy()
    rho = (
        spearmanr(ability["ability_pyirt"], ability["accuracy_binary"]).statistic
        if len(ability) >= 3
        else np.nan
    )
    summary = pd.DataFrame(
        [
            {
                "model": "1PL (py-irt SVI)",
                "n_models": result.n_models,
                "n_items": result.n_items,
                "n_observed": result.n_observed,
                "n_cells_dichotomised": counts.n_dichotomised,
                "n_items_all_correct": result.n_items_all_correct,
                "n_items_all_wrong": result.n_items_all_wrong,
                "epochs_max": epochs,
                "epochs_used": result.epochs_used,
                "final_change": result.final_change,
                "tol": tol,
                "converged": result.converged,
                "lr": lr,
                "lr_decay": lr_decay,
                "priors": priors,
                "seed": seed,
                "seed_used": result.seed_used,
                "attempts": result.attempts,
                "start": "marginal ML (Gauss-Hermite), items integrated",
                "identification": "mean item difficulty = 0",
                "spearman_pyirt_ability_accuracy": rho,
                "ability_ml": "marginal ML (items integrated; = lme4::glmer fixed effects)",
                "ability_ci": (
                    f"item bootstrap of the marginal-ML fit (one-step estimating-function "
                    f"replicates, {boot.hessian} information), B = {n_boot}"
                ),
            }
        ]
    )
    if result.skipped:
        summary["note"] = result.skipped
    return ability, difficulty, with_rule(summary, counts, rule)


def main(snakemake):
    p = snakemake.params
    matrix, items = load_scores(snakemake.input.db)
    ability, difficulty, summary = fit(
        matrix,
        items,
        epochs=p.epochs,
        lr=p.lr,
        lr_decay=p.lr_decay,
        tol=p.tol,
        priors=p.priors,
        seed=p.seed,
        n_boot=p.n_boot,
        level=p.ci_level,
        cluster_by=p.cluster_by,
        min_n=p.min_n,
        pyirt_max_cells=p.pyirt_max_cells,
        rule=ScoreRule.from_config(p.fractional_scores),
    )
    write_csv(ability, snakemake.output.ability, float_format="%.4f")
    write_csv(difficulty, snakemake.output.difficulty, float_format="%.4f")
    write_csv(summary, snakemake.output.fit, float_format="%.4f")


if __name__ == "__main__" and "snakemake" in globals():
    run(main, snakemake)  # noqa: F821
