"""Rule ``fit_benchmark_irt``: 1PL (Rasch) IRT ability per model and difficulty per
item, fitted with py-irt through :func:`rederive.stats.irt.fit_1pl`.

The 1PL needs binary responses; per-item scores that are not 0/1 (partial credit,
or the mean over several epochs) are dichotomised at 0.5 and counted in
``irt_fit.csv`` (``n_cells_dichotomised``) so the reader sees how much of the input
this touched. With complete binary data a model's total score is the sufficient
statistic of its 1PL ability, so ability must order the models as accuracy does;
the Spearman correlation between the two is reported as a convergence check.

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

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from rederive.runner import run
from rederive.stats.irt import fit_1pl
from rederive.stats.irt_mml import bootstrap_mml_ability
from rederive.stats.small_n import SMALL_N, ability_not_finite, rank_eligible, small_n_flags
from rederive.studies.benchmark.common import clusters_for, load_scores, write_csv

log = logging.getLogger(__name__)


def dichotomise(matrix: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """Models × items 0/1/NaN responses, and how many cells were not already 0/1.

    Done a block of items at a time, so the temporaries stay small beside the
    two matrices (150 M cells: 1.2 GB each as float64).
    """
    values = matrix.to_numpy(dtype=float)
    binary = np.empty_like(values)
    n_fractional = 0
    step = max(1, 4_000_000 // max(values.shape[1], 1))
    for lo in range(0, values.shape[0], step):
        block = values[lo : lo + step]
        present = ~np.isnan(block)
        n_fractional += int((present & (block != 0.0) & (block != 1.0)).sum())
        binary[lo : lo + step] = np.where(present, (block >= 0.5).astype(float), np.nan)
    responses = pd.DataFrame(binary.T, index=matrix.columns, columns=matrix.index)
    return responses, n_fractional


def not_fitted(responses: pd.DataFrame, items: pd.DataFrame, n_fractional: int, *, min_n: int):
    """Tables of a benchmark too small for a 1PL (fewer than 2 models or 2 items).

    Every ability and difficulty is NaN with the reason, so the rest of the study
    (accuracy, pairs, clustering, check) still runs.
    """
    n_models, n_items = responses.shape
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
                "n_cells_dichotomised": n_fractional,
                "note": reason,
            }
        ]
    )
    return ability, difficulty, summary


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
):
    """Fit the 1PL and return (ability table, difficulty table, fit summary).

    Models with a perfect or zero score (no finite ML ability, ``ability_note``)
    and small-n models (fewer than ``min_n`` items) get no rank. Above
    ``pyirt_max_cells`` (models x items) py-irt's SVI is not run: the
    ``ability_pyirt`` columns are NaN, ``difficulty`` is the marginal-ML
    posterior, and ``irt_fit.csv`` gets a ``note`` saying so.
    """
    responses, n_fractional = dichotomise(matrix)
    if min(responses.shape) < 2:
        return not_fitted(responses, items, n_fractional, min_n=min_n)
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
    # A perfect or zero score has no finite ML ability (the optimiser stops
    # somewhere on the way to infinity): NaN with the reason, no rank.
    passes = responses.sum(axis=1).to_numpy()
    infinite = (passes == 0) | (passes == ability["n_items"].to_numpy())
    for column in ("ability_ml", "ci_low", "ci_high", "se_boot"):
        ability[column] = np.where(infinite, np.nan, ability[column].to_numpy(dtype=float))
    ability["ability_note"] = np.where(
        infinite, ability_not_finite(passes, ability["n_items"]), boot.note
    )
    ability[SMALL_N] = small_n_flags(ability["n_items"], min_n)
    # Ranks follow the estimate the interval belongs to (ability_ml), not py-irt's.
    ability = ability.sort_values(
        ["ability_ml", "model"], ascending=[False, True], na_position="last"
    ).reset_index(drop=True)
    eligible = ability["ability_ml"].where(ability["ability_note"] == "")
    ability.insert(1, "rank", rank_eligible(ability.assign(eligible=eligible), score="eligible"))
    difficulty = item_rows.copy()
    estimates = result.item_table().reindex(responses.columns)
    for column in estimates.columns:
        difficulty[column] = estimates[column].to_numpy()
    difficulty["p_correct"] = responses.mean(axis=0).to_numpy()
    difficulty["n_models"] = responses.notna().sum(axis=0).to_numpy()
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
                "n_cells_dichotomised": n_fractional,
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
    return ability, difficulty, summary


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
    )
    write_csv(ability, snakemake.output.ability, float_format="%.4f")
    write_csv(difficulty, snakemake.output.difficulty, float_format="%.4f")
    write_csv(summary, snakemake.output.fit, float_format="%.4f")


if __name__ == "__main__" and "snakemake" in globals():
    run(main, snakemake)  # noqa: F821
