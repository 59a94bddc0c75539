"""1PL IRT on SaliTrap's binary Strict-Pass matrix (models × items, control):
item difficulty and model ability, with item-bootstrap intervals for ability.

The fit itself is the shared step :func:`rederive.stats.irt.fit_1pl` (py-irt,
seeded, single-threaded), so any study with a binary model × item outcome fits
the same way. Here we add the SaliTrap reading: difficulty per trap dimension
(Fig 4 a–b), ability against TAR with Spearman ρ (Fig 4 c) and naturalness
against difficulty with a linear trend and Pearson r (Fig 9).

With complete binary data a model's number of passes is the sufficient statistic
of its 1PL ability, so ability must order the models as TAR does (ρ = 1 up to
ties and optimisation noise); ρ is therefore also a convergence check.

References
----------
SaliTrap (seed paper 000), §4.2 (IRT, Fig 4) and Appendix Fig 9.
Rasch, G. (1960). *Probabilistic Models for Some Intelligence and Attainment Tests*.
Lalor, J. P. & Rodriguez, P. (2023). py-irt: A scalable item response theory library
    for Python. *INFORMS Journal on Computing* 35(1), 5–13.
"""

import logging
import time

import numpy as np
import pandas as pd
from scipy.stats import linregress, pearsonr, spearmanr

from rederive.stats.bootstrap import rng_for
from rederive.stats.irt import fit_1pl
from rederive.stats.rates import percent
from rederive.studies.salitrap.common import CONTROL, OVERALL, load, present_dimensions, write_csv
from rederive.studies.salitrap.irt_pyirt import bootstrap_ability
from rederive.studies.salitrap.metrics import label_matrix, metrics_from_config

log = logging.getLogger(__name__)


def binary_responses(matrix: pd.DataFrame, pass_labels) -> pd.DataFrame:
    """Models × items 1 (pass) / 0 (any other valid label) / NaN (no valid row)."""
    values = matrix.to_numpy()
    valid = pd.notna(values)
    binary = np.where(valid, np.isin(values, list(pass_labels)).astype(float), np.nan)
    return pd.DataFrame(binary.T, index=matrix.columns, columns=matrix.index)


def fit(
    responses: pd.DataFrame,
    clusters,
    *,
    epochs: int,
    lr: float,
    priors: str,
    seed: int,
    n_boot: int,
    level: float,
):
    """Fit the 1PL and bootstrap the abilities over seed clusters of items.

    Returns
    -------
    ability : DataFrame
        ``model, ability, ci_low, ci_high`` (NaN bounds when ``n_boot`` is 0).
    difficulty : Series
        Indexed by item id.
    seconds : float
        Wall time of the point fit (logged, never written to a CSV).
    """
    start = time.perf_counter()
    result = fit_1pl(responses, epochs=epochs, priors=priors, lr=lr, seed=seed)
    seconds = time.perf_counter() - start
    ability = result.ability.reindex(responses.index)
    table = pd.DataFrame({"model": ability.index, "ability": ability.to_numpy()})
    table["ci_low"] = np.nan
    table["ci_high"] = np.nan
    if n_boot > 0:
        boot = bootstrap_ability(
            responses,
            result,
            clusters=clusters,
            n_boot=n_boot,
            rng=rng_for(seed, "irt-ability"),
            level=level,
        )
        table["ci_low"] = boot["ci_low"].to_numpy()
        table["ci_high"] = boot["ci_high"].to_numpy()
    return table, result.difficulty.reindex(responses.columns), seconds


def summarise(
    ability: pd.DataFrame,
    difficulty: pd.DataFrame,
    responses: pd.DataFrame,
    dimensions: list[str],
    settings: dict,
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Ability table with TAR, per-dimension difficulty summary, fit statistics."""
    passes = responses.sum(axis=1)
    answered = responses.notna().sum(axis=1)
    ability = ability.assign(
        passes=passes.reindex(ability["model"]).to_numpy().astype(int),
        answered=answered.reindex(ability["model"]).to_numpy().astype(int),
    )
    ability["tar"] = [percent(k, n) for k, n in zip(ability.passes, ability.answered, strict=True)]
    ability = ability.sort_values(["ability", "model"], ascending=[False, True]).reset_index(
        drop=True
    )
    ability.insert(1, "rank", np.arange(1, len(ability) + 1))
    rows = []
    for dimension in [*dimensions, OVERALL]:
        sub = difficulty if dimension == OVERALL else difficulty[difficulty.dimension == dimension]
        d = sub["difficulty"]
        rows.append(
            {
                "dimension": dimension,
                "items": len(sub),
                "mean": d.mean(),
                "sd": d.std(ddof=1),
                "median": d.median(),
                "q25": d.quantile(0.25),
                "q75": d.quantile(0.75),
            }
        )
    by_dimension = pd.DataFrame(rows)
    rho = spearmanr(ability["ability"], ability["tar"])
    nat = difficulty.dropna(subset=["difficulty", "naturalness"])
    r = pearsonr(nat["naturalness"], nat["difficulty"])
    trend = linregress(nat["naturalness"], nat["difficulty"])
    stats = pd.DataFrame(
        [
            {
                "statistic": "spearman_rho_ability_tar",
                "value": rho.statistic,
                "p_value": rho.pvalue,
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
                "value": ability["ability"].std(ddof=1),
                "p_value": np.nan,
                "n": len(ability),
            },
            {
                "statistic": "difficulty_sd",
                "value": difficulty["difficulty"].std(ddof=1),
                "p_value": np.nan,
                "n": len(difficulty),
            },
            *(
                {"statistic": f"setting_{k}", "value": v, "p_value": np.nan, "n": np.nan}
                for k, v in settings.items()
            ),
        ]
    )
    return ability, by_dimension, stats


def main(snakemake):
    p = snakemake.params
    items, labels = load(snakemake.input.db)
    dimensions = present_dimensions(items, list(p.dimensions.values()))
    matrix = label_matrix(labels, items, CONTROL)
    responses = binary_responses(matrix, metrics_from_config(p.metrics)["TAR"].numerator)
    # Items no model answered validly carry no information: they are left out of
    # the fit (difficulty NaN in irt_items.csv) and counted in irt_statistics.csv.
    answered = responses.notna().any(axis=0)
    n_unanswered = int((~answered).sum())
    responses = responses.loc[:, answered]
    ability, difficulty, seconds = fit(
        responses,
        items.set_index("item_id").loc[responses.columns, "seed_id"].to_numpy(),
        epochs=p.epochs,
        lr=p.lr,
        priors=p.priors,
        seed=p.seed,
        n_boot=p.n_boot,
        level=p.level,
    )
    # Wall time goes to the log and the benchmark file only: CSVs stay byte-identical.
    log.info(
        "1PL fit, %d models x %d items, %d epochs: %.1f s", *responses.shape, p.epochs, seconds
    )
    item_table = items[["item_id", "seed_id", "dimension", "n_injected", "naturalness"]].copy()
    item_table["difficulty"] = difficulty.reindex(item_table["item_id"]).to_numpy()
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
        "n_boot": p.n_boot,
        "items_without_valid_response": n_unanswered,
    }
    ability, by_dimension, stats = summarise(ability, item_table, responses, dimensions, settings)
    stats.insert(2, "priors", p.priors)
    write_csv(item_table, snakemake.output.item_params)
    write_csv(ability, snakemake.output.model_params)
    write_csv(by_dimension, snakemake.output.by_dimension)
    write_csv(stats, snakemake.output.stats)


if __name__ == "__main__" and "snakemake" in globals():
    from rederive.runner import run

    run(main, snakemake)  # noqa: F821
