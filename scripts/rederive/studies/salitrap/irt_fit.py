"""1PL IRT on SaliTrap's binary Strict-Pass matrix (models × items, control):
item difficulty and model ability, with item-bootstrap intervals for ability.

Both steps are the shared ones: the fit is :func:`~rederive.stats.irt.fit_1pl`
(the marginal-ML start, then py-irt, seeded, single-threaded) and the ability
intervals come from :func:`~rederive.stats.irt_mml.bootstrap_mml_ability`, which
resamples seed clusters of items and moves the marginal-ML abilities by one
Newton step of the resampled marginal likelihood (estimating-function bootstrap).

Which difficulty is reported: ``difficulty`` is py-irt's posterior mean (the fit
starts at the classical marginal-ML estimate, ``difficulty_mml``; see
:mod:`rederive.stats.irt`), centred so the mean item difficulty is 0, with its
posterior SD and a normal 95% interval beside it. Posterior means are shrunk
towards the mean, so their spread under-states the spread of the items (on the
SaliTrap shape by 15-20 %); ``difficulty_spread`` is the constrained-Bayes
estimate (Ghosh 1992: the posterior means stretched so their variance matches
the posterior expected variance of the true difficulties), which Fig 4 (a, b)
and the per-dimension summary use. Items every model passes (or fails) are kept,
finite and shrunk, with a wide interval, flagged in ``extreme`` and counted.

Which ability is reported: ``ability`` is the *marginal maximum-likelihood*
estimate (items integrated as N(0, sigma^2), abilities fixed: the fixed effects
of ``lme4::glmer(pass ~ 0 + model + (1 | item))``, matched to 1e-4 logit in
``tests/stats/test_irt_glmer.py``), the estimate the seed-cluster bootstrap
interval belongs to (:func:`rederive.stats.irt_mml.bootstrap_mml_ability`).
py-irt's posterior mean (the Bayesian refinement, shrunk by its hierarchical
prior, with the Monte-Carlo noise of the SVI fit) is kept as ``ability_pyirt``. A model with a
perfect or zero score has an infinite ML ability: it is reported as NaN with the
reason in ``ability_note`` and gets no rank (:mod:`rederive.stats.small_n`).

Here we add the SaliTrap reading: difficulty per trap dimension (Fig 4 a–b),
ability against TAR with Spearman ρ (Fig 4 c) and naturalness against difficulty
with a linear trend and Pearson r (Fig 9). With complete binary data a model's
number of passes is the sufficient statistic of its 1PL ability, so the
marginal-ML ability orders the models exactly as TAR does (ρ = 1 up to ties);
ρ of ``ability_pyirt`` against TAR is therefore a convergence check of the SVI fit
(``spearman_rho_pyirt_ability_tar`` in the statistics).

References
----------
SaliTrap (seed paper 000), §4.2 (IRT, Fig 4) and Appendix Fig 9.
Rasch, G. (1960). *Probabilistic Models for Some Intelligence and Attainment Tests*.
Lalor, J. P. & Rodriguez, P. (2023). py-irt: A scalable item response theory library
    for Python. *INFORMS Journal on Computing* 35(1), 5–13.
"""

import logging
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
from scipy.stats import linregress, pearsonr, spearmanr

from rederive.io.names import read_csv
from rederive.stats.irt import fit_1pl
from rederive.stats.irt_mml import bootstrap_mml_ability
from rederive.stats.rates import percent
from rederive.stats.small_n import SMALL_N, ability_not_finite, rank_eligible, small_n_flags
from rederive.studies.salitrap.common import (
    CONTROL,
    OVERALL,
    load,
    present_dimensions,
    shared_item_set,
    write_csv,
)
from rederive.studies.salitrap.metrics import label_matrix, metrics_from_config

log = logging.getLogger(__name__)

# From AbilityBootstrap.table (its n_items is the ``answered`` column of irt_models.csv).
ABILITY_COLUMNS = ["ability", "se_boot", "ci_low", "ci_high", "n_nonfinite"]


def binary_responses(matrix: pd.DataFrame, pass_labels) -> pd.DataFrame:
    """Models × items 1 (pass) / 0 (any other valid label) / NaN (no valid row)."""
    values = matrix.to_numpy()
    valid = pd.notna(values)
    binary = np.where(valid, np.isin(values, list(pass_labels)).astype(float), np.nan)
    return pd.DataFrame(binary.T, index=matrix.columns, columns=matrix.index)


def abilities(
    responses: pd.DataFrame, result, clusters, *, n_boot: int, seed: int, level: float
) -> pd.DataFrame:
    """Reported abilities of a 1PL fit, with a seed-cluster item bootstrap.

    Parameters
    ----------
    responses : DataFrame
        The models × items matrix given to :func:`~rederive.stats.irt.fit_1pl`.
    result : IrtFit
        Its fit; the difficulties are held fixed.
    clusters : array_like
        Seed id of every item (column), the bootstrap's resampling unit.
    n_boot : int
        Replicates; 0 gives the estimates without an interval.

    Returns
    -------
    DataFrame
        ``model`` and :data:`ABILITY_COLUMNS` (the marginal-ML ability, items
        integrated, with its item-bootstrap SE and percentile interval; +-inf for
        a perfect or zero score; ``n_nonfinite`` is 0), then ``ability_pyirt``
        and ``ability_pyirt_sd`` (py-irt's posterior mean and SD) and
        ``interval_note`` (why the intervals are NaN, "" when they are not).
    """
    note = ""
    if n_boot > 0:
        boot = bootstrap_mml_ability(
            responses, result.mml, n_boot=n_boot, seed=seed, level=level, clusters=clusters
        )
        table, note = boot.table.assign(n_nonfinite=0), boot.note
    else:
        table = result.mml.ability.rename("ability").to_frame()
        table = table.assign(se_boot=np.nan, ci_low=np.nan, ci_high=np.nan, n_nonfinite=0)
    # A perfect or zero score has no finite ML ability; the marginal-ML optimiser
    # stops somewhere on the way to infinity, so the score decides, not the value.
    passes = responses.sum(axis=1)
    extreme = (passes == 0) | (passes == responses.notna().sum(axis=1))
    table.loc[extreme.reindex(table.index).to_numpy(), "ability"] = np.inf * np.where(
        passes[extreme] > 0, 1.0, -1.0
    )
    table = table[ABILITY_COLUMNS].assign(
        ability_pyirt=result.ability.reindex(responses.index),
        ability_pyirt_sd=result.ability_sd.reindex(responses.index),
        interval_note=note,
    )
    return table.rename_axis("model").reset_index()


def irt_not_estimable(responses: pd.DataFrame) -> str:
    """Why no 1PL can be fitted to ``responses`` ("" when one can).

    Separating ability from difficulty needs at least two models and two items.
    """
    n_models, n_items = responses.shape
    if n_models < 2 or n_items < 2:
        return f"1PL not fitted: needs at least 2 models and 2 items, got {n_models} x {n_items}"
    return ""


def _spearman(x, y):
    """Spearman ρ over the rows where both are finite; NaN with fewer than 3."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    ok = np.isfinite(x) & np.isfinite(y)
    if ok.sum() < 3:
        return SimpleNamespace(statistic=np.nan, pvalue=np.nan)
    return spearmanr(x[ok], y[ok])


def _naturalness_trend(nat: pd.DataFrame):
    """Pearson r and OLS line of difficulty on naturalness; NaN with fewer than 3 items."""
    if len(nat) < 3 or nat["naturalness"].nunique() < 2:
        blank = SimpleNamespace(statistic=np.nan, pvalue=np.nan, slope=np.nan, intercept=np.nan)
        return blank, blank
    return (
        pearsonr(nat["naturalness"], nat["difficulty"]),
        linregress(nat["naturalness"], nat["difficulty"]),
    )


def summarise(
    ability: pd.DataFrame,
    difficulty: pd.DataFrame,
    responses: pd.DataFrame,
    dimensions: list[str],
    settings: dict,
    min_n: int = 1,
    not_fitted: str = "",
    left_out: dict[str, str] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Ability table with TAR, per-dimension difficulty summary, fit statistics.

    A perfect or zero score has no finite ML ability: the table shows NaN (and
    no interval) with the reason in ``ability_note``; such models and small-n
    ones (fewer than ``min_n`` answered items) get no rank. ``left_out`` maps
    the models kept out of the fit (``shared_items``) to their reason: their
    ability is NaN and the note says why.
    """
    passes = responses.sum(axis=1)
    answered = responses.notna().sum(axis=1)
    ability = ability.assign(
        passes=passes.reindex(ability["model"]).to_numpy().astype(int),
        answered=answered.reindex(ability["model"]).to_numpy().astype(int),
    )
    ability["tar"] = [percent(k, n) for k, n in zip(ability.passes, ability.answered, strict=True)]
    infinite = ~np.isfinite(ability["ability"].to_numpy(dtype=float))
    for column in ("ability", "se_boot", "ci_low", "ci_high"):
        ability[column] = np.where(infinite, np.nan, ability[column].to_numpy(dtype=float))
    ability["ability_note"] = (
        not_fitted
        if not_fitted
        else np.where(infinite, ability_not_finite(ability["passes"], ability["answered"]), "")
    )
    if "interval_note" in ability:
        # Why a finite ability has no interval (a singular information matrix).
        empty = ability["ability_note"] == ""
        ability.loc[empty, "ability_note"] = ability.loc[empty, "interval_note"]
        ability = ability.drop(columns="interval_note")
    if left_out:
        out = ability["model"].isin(list(left_out))
        ability.loc[out, "ability_note"] = [
            f"left out of the shared item set, not in the fit ({left_out[m]})"
            for m in ability.loc[out, "model"]
        ]
    ability[SMALL_N] = small_n_flags(ability["answered"], min_n)
    ability = ability.sort_values(
        ["ability", "tar", "model"], ascending=[False, False, True], na_position="last"
    ).reset_index(drop=True)
    ability.insert(1, "rank", rank_eligible(ability, score="ability"))
    rows = []
    for dimension in [*dimensions, OVERALL]:
        sub = difficulty if dimension == OVERALL else difficulty[difficulty.dimension == dimension]
        # The distribution is summarised on the spread-matched estimate (module notes).
        d = sub["difficulty_spread"] if "difficulty_spread" in sub else sub["difficulty"]
        extreme = sub["extreme"].fillna("") if "extreme" in sub else pd.Series("", index=sub.index)
        rows.append(
            {
                "dimension": dimension,
                "items": len(sub),
                "items_all_pass": int((extreme == "all pass").sum()),
                "items_all_fail": int((extreme == "all fail").sum()),
                "mean": d.mean(),
                "sd": d.std(ddof=1),
                "median": d.median(),
                "q25": d.quantile(0.25),
                "q75": d.quantile(0.75),
            }
        )
    by_dimension = pd.DataFrame(rows)
    finite = ability["ability"].dropna()  # no ML ability for perfect/zero scores
    rho = _spearman(ability["ability"], ability["tar"])
    rho_pyirt = _spearman(ability["ability_pyirt"], ability["tar"])
    nat = difficulty.dropna(subset=["difficulty", "naturalness"])
    r, trend = _naturalness_trend(nat)
    stats = pd.DataFrame(
        [
            {
                "statistic": "spearman_rho_ability_tar",
                "value": rho.statistic,
                "p_value": rho.pvalue,
                "n": len(finite),
            },
            {
                "statistic": "spearman_rho_pyirt_ability_tar",
                "value": rho_pyirt.statistic,
                "p_value": rho_pyirt.pvalue,
                "n": len(ability),
            },
            {
                "statistic": "pearson_r_naturalness_difficulty",
                "value": r.statistic,
                "p_value": r.pvalue,
                "n": len(nat),
            },
            {
                "statistic": "trend_slope_difficulty_per_naturalness_point",
                "value": trend.slope,
                "p_value": trend.pvalue,
                "n": len(nat),
            },
            {
                "statistic": "trend_intercept",
                "value": trend.intercept,
                "p_value": np.nan,
                "n": len(nat),
            },
            {
                "statistic": "ability_sd",
                "value": finite.std(ddof=1),
                "p_value": np.nan,
                "n": len(finite),
            },
            {
                "statistic": "difficulty_sd",
                "value": difficulty["difficulty"].std(ddof=1),
                "p_value": np.nan,
                "n": len(difficulty),
            },
            *(
                [
                    {
                        "statistic": "difficulty_spread_sd",
                        "value": difficulty["difficulty_spread"].std(ddof=1),
                        "p_value": np.nan,
                        "n": len(difficulty),
                    }
                ]
                if "difficulty_spread" in difficulty
                else []
            ),
            *(
                {"statistic": f"setting_{k}", "value": v, "p_value": np.nan, "n": np.nan}
                for k, v in settings.items()
            ),
        ]
    )
    return ability, by_dimension, stats


def main(snakemake):
    p = snakemake.params
    items, labels = load(snakemake.input.db, CONTROL)
    dimensions = present_dimensions(items, list(p.dimensions.values()))
    matrix = label_matrix(labels, items, CONTROL)
    every = binary_responses(matrix, metrics_from_config(p.metrics)["TAR"].numerator)
    # A small-n or partial model would pull every difficulty towards the few items
    # it answered: it stays out of the fit (shared_items), with its reason.
    shared = shared_item_set(matrix, p)
    responses = every.loc[shared.kept]
    # Items no model answered validly carry no information: they are left out of
    # the fit (difficulty NaN in irt_items.csv) and counted in irt_statistics.csv.
    answered = responses.notna().any(axis=0)
    n_unanswered = int((~answered).sum())
    responses = responses.loc[:, answered]
    not_fitted = irt_not_estimable(responses)
    if not_fitted:
        # One model (or one item) has no 1PL: every ability and difficulty is NaN
        # with the reason in ability_note, and the rest of the study still runs.
        log.warning("%s", not_fitted)
        result = None
        ability = pd.DataFrame({"model": responses.index})
        ability = ability.assign(
            **{c: np.nan for c in ABILITY_COLUMNS}, ability_pyirt=np.nan, ability_pyirt_sd=np.nan
        )
        ability["n_nonfinite"] = 0
        estimates = pd.DataFrame({"difficulty": np.nan}, index=responses.columns)
    else:
        result = _fit(responses, p)
        clusters = items.set_index("item_id").loc[responses.columns, "seed_id"].to_numpy()
        ability = abilities(
            responses, result, clusters, n_boot=p.n_boot, seed=p.seed, level=p.level
        )
        estimates = result.item_table(extreme_labels=("all pass", "all fail"))
    item_table = items[["item_id", "seed_id", "dimension", "n_injected", "naturalness"]].copy()
    estimates = estimates.reindex(item_table["item_id"])
    for column in estimates.columns:
        item_table[column] = estimates[column].to_numpy()
    item_table["pass_share"] = responses.mean(axis=0).reindex(item_table["item_id"]).to_numpy()
    item_table["models_answered"] = (
        responses.notna()
        .sum(axis=0)
        .reindex(item_table["item_id"])
        .fillna(0)
        .astype(int)
        .to_numpy()
    )
    settings = {
        "epochs": p.epochs,
        "lr": p.lr,
        "seed": p.seed,
        "lr_decay": p.lr_decay,
        "tol": p.tol,
        "epochs_used": 0 if result is None else result.epochs_used,
        "final_change": np.nan if result is None else round(result.final_change, 6),
        "converged": 0 if result is None else int(result.converged),
        "seed_used": np.nan if result is None else result.seed_used,
        "fit_attempts": 0 if result is None else result.attempts,
        "warm_started": 0 if result is None else result.warm_started,
        "items_all_pass": 0 if result is None else result.n_items_all_correct,
        "items_all_fail": 0 if result is None else result.n_items_all_wrong,
        "n_boot": p.n_boot,
        "items_without_valid_response": n_unanswered,
    }
    left_out = dict(zip(shared.excluded["model"], shared.excluded["reason"], strict=True))
    if left_out:
        blank = {c: np.nan for c in [*ABILITY_COLUMNS, "ability_pyirt", "ability_pyirt_sd"]}
        blank["n_nonfinite"] = 0
        ability = pd.concat(
            [ability, pd.DataFrame({"model": list(left_out)}).assign(**blank)],
            ignore_index=True,
        )
    ability, by_dimension, stats = summarise(
        ability,
        item_table,
        every,  # every model's own passes and answered items, in or out of the fit
        dimensions,
        settings,
        min_n=p.min_n,
        not_fitted=not_fitted,
        left_out=left_out,
    )
    stats.insert(2, "priors", p.priors)
    write_csv(item_table, snakemake.output.item_params)
    write_csv(ability, snakemake.output.model_params)
    write_csv(by_dimension, snakemake.output.by_dimension)
    write_csv(stats, snakemake.output.stats)


def _fit(responses: pd.DataFrame, p):
    """The 1PL fit with the rule's settings, warm-started from the cache if asked."""
    warm_path = Path(p.warm_start_file) if p.warm_start else None
    # "label" holds model and item names: text, like every other name column.
    warm = read_csv(warm_path, text=("label",)) if warm_path and warm_path.exists() else None
    result = fit_1pl(
        responses,
        epochs=p.epochs,
        priors=p.priors,
        lr=p.lr,
        lr_decay=p.lr_decay,
        tol=p.tol,
        seed=p.seed,
        warm_start=warm,
        mml_random="items",
    )
    if warm_path:
        # A cache beside the outputs, not an output: Snakemake deletes outputs before
        # a job runs, and this file must survive to start the next fit.
        warm_path.parent.mkdir(parents=True, exist_ok=True)
        result.to_frame().to_csv(warm_path, index=False)
    # Wall time goes to the log and the benchmark file only: CSVs stay byte-identical.
    log.info(
        "1PL fit, %d models x %d items: %d of at most %d epochs (change %.4f), "
        "%d warm-started, %.1f s",
        *responses.shape,
        result.epochs_used,
        p.epochs,
        result.final_change,
        result.warm_started,
        result.fit_seconds,
    )
    return result


if __name__ == "__main__" and "snakemake" in globals():
    from rederive.runner import run

    run(main, snakemake)  # noqa: F821
