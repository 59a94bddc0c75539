"""Rule ``analyse_preference_judges``: the judges' position bias, their agreement with
each other (and with human labels, a judge like any other), and their preference
for themselves when a judge is also a contestant
(:mod:`rederive.stats.preference.position_bias`, :mod:`.agreement`,
:mod:`.self_preference`).

Position bias needs games whose side shown first is known (Arena-Hard's and
MT-bench's two orders); the games of a source that does not say (AlpacaEval,
battles) are counted as ``unpaired_games``, never dropped silently. Agreement
needs two judges or more: with fewer the table has no row. A judge with two
verdicts on one unit (item, pair, order) cannot enter the agreement tables: those
verdicts are left out of them and counted (``verdicts_left_out``).
"""

import pandas as pd

from rederive.runner import run
from rederive.stats.preference.agreement import agreement_table
from rederive.stats.preference.position_bias import position_bias_table
from rederive.stats.preference.self_preference import self_preference_table
from rederive.studies.preference.common import load_games, write_csv

AGREEMENT_COLUMNS = [
    "coefficient",
    "judge_1",
    "judge_2",
    "units",
    "value",
    "se",
    "ci_low",
    "ci_high",
    "observed_agreement",
    "verdicts_left_out",
]


def judged(games: pd.DataFrame) -> pd.DataFrame:
    """The games with a judge, the judge as text."""
    out = games[games["judge"].notna()].copy()
    out["judge"] = out["judge"].astype(str)
    return out


def single_verdicts(games: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """Games whose judge gave one verdict on its unit (item, pair, order), and how many
    verdicts were left out (every verdict of a judge on a unit it judged twice)."""
    x = games[["model_a", "model_b"]].min(axis=1)
    y = games[["model_a", "model_b"]].max(axis=1)
    key = pd.DataFrame(
        {
            "judge": games["judge"].to_numpy(),
            "item": games["item_id"].fillna("").astype(str).to_numpy(),
            "x": x.to_numpy(),
            "y": y.to_numpy(),
            "game": games["game"].to_numpy(),
        }
    )
    repeated = key.duplicated(keep=False).to_numpy()
    return games[~repeated], int(repeated.sum())


def agreement(games: pd.DataFrame, level: float) -> pd.DataFrame:
    """:func:`agreement_table` over the judged games with one verdict per judge and unit."""
    games = judged(games)
    if games["judge"].nunique() < 2:
        return pd.DataFrame(columns=AGREEMENT_COLUMNS)
    kept, left_out = single_verdicts(games)
    table = agreement_table(kept, level=level)
    table["verdicts_left_out"] = left_out
    return table[AGREEMENT_COLUMNS]


def own_items(games: pd.DataFrame) -> pd.DataFrame:
    """The games with a game that names no item given an item of its own: it pairs with
    no other game (counted as judged in one order only)."""
    missing = games["item_id"].isna().to_numpy()
    if not missing.any():
        return games
    item = games["item_id"].astype(object).to_numpy(copy=True)
    item[missing] = [f"\x1fgame {i}" for i in range(int(missing.sum()))]
    return games.assign(item_id=pd.array(item, dtype="string"))


def main(snakemake):
    games = own_items(load_games(snakemake.input.db))
    level = float(snakemake.params.level)
    bias_games = games.assign(judge=games["judge"].fillna(""))
    write_csv(position_bias_table(bias_games, level=level), snakemake.output.position_bias)
    write_csv(agreement(games, level), snakemake.output.agreement)
    write_csv(self_preference_table(judged(games), level=level), snakemake.output.self_preference)


if __name__ == "__main__" and "snakemake" in globals():
    run(main, snakemake)  # noqa: F821
