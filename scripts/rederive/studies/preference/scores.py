"""Rule ``fit_preference_scores``: Bradley–Terry scores on the Elo scale with bootstrap
intervals, the paired comparisons with BH q-values, and the ranking with rank
ranges and tie groups (:func:`rederive.stats.preference.tables.bradley_terry_tables`).

The baseline (option ``baseline``) is fitted like every model but labelled
``baseline``, never compared and never ranked; a model below ``min_n`` games is
fitted and labelled ``small_n``, out of the comparisons and the ranks. When no
finite estimate exists (a model only ever won or only ever lost) the job stops
naming those models: Bradley–Terry cannot rate them.

Writes ``scores.csv`` (every model: strength, rating, its interval, its predicted
win rate against the baseline), ``pairwise.csv``, ``ranking.csv`` and
``ranking.tex``.
"""

import numpy as np
import pandas as pd

from rederive.errors import InputError
from rederive.report.latex import booktabs
from rederive.runner import run
from rederive.stats.preference.tables import bradley_terry_tables
from rederive.studies.preference.common import (
    SMALL_N,
    elo_scale,
    games_per_model,
    load_games,
    resolve_baseline,
    small_n_models,
    strong_weights,
    write_csv,
)


def score_tables(games: pd.DataFrame, params) -> tuple:
    """(scores, pairwise, ranking, note) of the games under the rule's ``params``."""
    baseline = resolve_baseline(games, params["baseline"])
    boot = params["bootstrap"]
    small = small_n_models(games, params["min_n"], baseline)
    try:
        tables = bradley_terry_tables(
            games,
            n_boot=int(boot["n_boot"]),
            seed=int(boot["seed"]),
            level=float(boot["level"]),
            fdr_q=float(params["fdr_q"]),
            ties=params["ties"],
            strong_weight=strong_weights(games, params["strong_weight"]),
            scale=elo_scale(params["elo"], baseline),
            baseline=baseline,
            all_pairs_up_to=int(params["comparisons"]["all_pairs_up_to"]),
            neighbours=int(params["comparisons"]["neighbours"]),
            not_ranked=small,
            resample=params["resample"],
            win_interval=params["win_rate_interval"],
        )
    except ValueError as exc:
        # No finite estimate (a model that only won or only lost), a tie model
        # meeting graded preferences: the data cannot be scored as configured.
        raise InputError(f"Bradley–Terry cannot score these games: {exc}") from None
    played = games_per_model(games)
    scores = tables.scores
    scores.insert(scores.columns.get_loc("games") + 1, "n_games", scores["model"].map(played))
    scores.insert(scores.columns.get_loc("role") + 1, SMALL_N, scores["model"].isin(small))
    scores["tie_parameter"] = tables.tie_parameter
    note = tables.note
    if small:
        note += (
            f" {len(small)} model(s) with fewer than {params['min_n']} games are fitted but "
            "not ranked (small_n)."
        )
    scores["note"] = note
    ranking = tables.ranks
    ranking.insert(ranking.columns.get_loc("role") + 1, SMALL_N, ranking["model"].isin(small))
    return scores, tables.pairs, ranking, note


def ranking_latex(ranking: pd.DataFrame, *, label: str, level: float, note: str) -> str:
    """The ranking as a booktabs table: model, Elo [interval], rank."""
    body = pd.DataFrame(
        {
            "Model": ranking["model"],
            "Elo": ranking["rating"].map(lambda v: f"{v:.1f}"),
            f"{level:.0%} CI": [
                f"[{lo:.1f}, {hi:.1f}]" if np.isfinite(lo) else ""
                for lo, hi in zip(ranking["ci_low"], ranking["ci_high"], strict=True)
            ],
            "Rank": ranking["rank"].astype(str),
        }
    )
    return booktabs(
        body,
        caption=f"{label}: Bradley–Terry ratings on the Elo scale and rank ranges.",
        label="tab:preference-ranking",
        notes=note,
    )


def main(snakemake):
    games = load_games(snakemake.input.db)
    params = dict(snakemake.params.items())
    scores, pairs, ranking, note = score_tables(games, params)
    out = snakemake.output
    write_csv(scores, out.scores)
    write_csv(pairs, out.pairwise)
    # The headline table prints ratings as leaderboards do; scores.csv has them in full.
    shown = ranking.copy()
    for column in ("rating", "ci_low", "ci_high"):
        shown[column] = [f"{v:.1f}" if np.isfinite(v) else "" for v in shown[column]]
    write_csv(shown, out.ranking)
    level = float(params["bootstrap"]["level"])
    with open(out.tex, "w", encoding="utf-8") as handle:
        handle.write(ranking_latex(ranking, label=params["label"], level=level, note=note))


if __name__ == "__main__" and "snakemake" in globals():
    run(main, snakemake)  # noqa: F821
