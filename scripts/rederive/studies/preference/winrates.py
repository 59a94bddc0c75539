"""Rule ``analyse_preference_winrates``: each model's win rate against the baseline with
its standard error, as AlpacaEval defines them
(:func:`rederive.stats.preference.winrate.win_rate_table`), per judge, and AlpacaEval
2's length-controlled win rate when the inputs it needs are given
(:func:`rederive.stats.preference.length_control.length_controlled_win_rate`).

One block of rows per judge (``judge`` empty when the games name none): a
leaderboard is one annotator's, and pooling two annotators' verdicts would make a
number neither published. The baseline's row is AlpacaEval's entry for it (every
item a draw: 50, SE 0), labelled ``baseline``. Without a baseline (``baseline:
null``, or ``auto`` finding no model in every game) the table has no row.

Length control needs, for a model, the output lengths of every one of its games
against the baseline (AlpacaEval's annotations carry the outputs; other sources do
not) and the instruction difficulty of every item (``length_control.
instruction_difficulty``); with ``length_control.gamed`` the fit is AlpacaEval
2.0's ``length_controlled_v1``, else ``length_controlled_noreg``. Where it cannot
be computed the columns are empty and ``lc_glm`` says why.
"""

import numpy as np
import pandas as pd

from rederive.errors import InputError, relpath
from rederive.io.source import read_csv_frame
from rederive.report.latex import booktabs
from rederive.runner import run
from rederive.stats.preference.length_control import length_controlled_win_rate
from rederive.stats.preference.ranking import BASELINE
from rederive.stats.preference.winrate import win_rate_table
from rederive.studies.preference.common import load_games, resolve_baseline, write_csv

COLUMNS = [
    "judge",
    "model",
    "role",
    "small_n",
    "win_rate",
    "standard_error",
    "n_wins",
    "n_wins_base",
    "n_draws",
    "n_total",
    "discrete_win_rate",
    "length_controlled_winrate",
    "lc_standard_error",
    "lc_glm",
    "avg_length",
]
NO_LENGTHS = "not computed: the games carry no output lengths"
NO_DIFFICULTY = "not computed: length_control.instruction_difficulty is not set"


def read_difficulty(path: str) -> pd.Series:
    """``instruction_difficulty`` by ``item_id`` from the ``length_control`` CSV.

    Raises
    ------
    InputError
        A missing column, an id given twice, a value that is not a finite number.
    """
    frame = read_csv_frame(path, dtype=str, keep_default_na=False)
    for column in ("item_id", "instruction_difficulty"):
        if column not in frame.columns:
            raise InputError("required column is missing", file=relpath(path), field=column)
    twice = frame["item_id"].duplicated()
    if twice.any():
        raise InputError(
            f"item {frame['item_id'][twice].iloc[0]!r} is given twice",
            file=relpath(path),
            line=int(np.flatnonzero(twice)[0]) + 2,
            field="item_id",
        )
    values = pd.to_numeric(frame["instruction_difficulty"], errors="coerce")
    bad = ~np.isfinite(values.to_numpy(dtype=float))
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"not a number: {frame['instruction_difficulty'].iloc[row]!r}",
            file=relpath(path),
            line=row + 2,
            field="instruction_difficulty",
        )
    return pd.Series(values.to_numpy(dtype=float), index=frame["item_id"].to_numpy())


def read_gamed(path: str) -> pd.DataFrame:
    """The gamed baselines' rows (AlpacaEval's ``df_gamed.csv``): ``preference``,
    ``std_delta_len``, ``instruction_difficulty`` as floats (a missing preference
    stays NaN: the fit leaves it out, as AlpacaEval does)."""
    frame = read_csv_frame(path)
    needed = ("preference", "std_delta_len", "instruction_difficulty")
    for column in needed:
        if column not in frame.columns:
            raise InputError("required column is missing", file=relpath(path), field=column)
    out = frame[list(needed)].apply(pd.to_numeric, errors="coerce")
    bad = out[["std_delta_len", "instruction_difficulty"]].isna().any(axis=1)
    if bad.any():
        raise InputError(
            "std_delta_len and instruction_difficulty must be numbers",
            file=relpath(path),
            line=int(np.flatnonzero(bad)[0]) + 2,
        )
    return out


def against_baseline(games: pd.DataFrame, baseline: str) -> pd.DataFrame:
    """The games against the baseline from the contestant's side: ``judge, model,
    item_id, value`` (its preference), ``len_model``, ``len_base``."""
    a_base = (games["model_a"] == baseline).to_numpy()
    b_base = (games["model_b"] == baseline).to_numpy()
    mine = games[a_base | b_base]
    a_base = a_base[a_base | b_base]
    outcome = mine["outcome"].to_numpy(dtype=float)
    return pd.DataFrame(
        {
            "judge": mine["judge"].fillna("").astype(str).to_numpy(),
            "model": np.where(a_base, mine["model_b"], mine["model_a"]),
            "item_id": mine["item_id"].to_numpy(),
            "value": np.where(a_base, 1.0 - outcome, outcome),
            "len_model": np.where(a_base, mine["len_b"], mine["len_a"]),
            "len_base": np.where(a_base, mine["len_a"], mine["len_b"]),
        }
    )


def length_control(rows: pd.DataFrame, difficulty, gamed, settings: dict) -> dict:
    """LC win rate of one model (``rows``: its games of :func:`against_baseline`)."""
    if rows[["len_model", "len_base"]].isna().to_numpy().any():
        return {"lc_glm": NO_LENGTHS}
    if difficulty is None:
        return {"lc_glm": NO_DIFFICULTY}
    missing = rows.loc[~rows["item_id"].isin(difficulty.index), "item_id"]
    if len(missing):
        raise InputError(
            f"no instruction difficulty for item {str(missing.iloc[0])[:80]!r} "
            f"({missing.nunique()} item(s) of model {rows['model'].iloc[0]} lack one)",
            file=settings["instruction_difficulty"],
            field="item_id",
        )
    fit = length_controlled_win_rate(
        rows["value"].to_numpy(),
        rows["len_model"].to_numpy(dtype=float),
        rows["len_base"].to_numpy(dtype=float),
        difficulty.loc[rows["item_id"].to_numpy()].to_numpy(),
        gamed=gamed,
        regularize_lambda=float(settings["regularize_lambda"]),
        n_splits=int(settings["n_splits"]),
    )
    return {k: fit[k] for k in ("length_controlled_winrate", "lc_standard_error")} | {
        "lc_glm": fit["glm"]
    }


def win_rates(games: pd.DataFrame, params) -> pd.DataFrame:
    """The table (:data:`COLUMNS`): per judge, the contestants, then the baseline."""
    baseline = resolve_baseline(games, params["baseline"])
    if baseline is None:
        return pd.DataFrame(columns=COLUMNS)
    settings = params["length_control"]
    difficulty = (
        read_difficulty(settings["instruction_difficulty"])
        if settings["instruction_difficulty"]
        else None
    )
    gamed = read_gamed(settings["gamed"]) if settings["gamed"] else None
    rows = against_baseline(games, baseline)
    blocks = []
    for judge, mine in rows.groupby("judge", sort=True):
        frame = pd.DataFrame(
            {
                "model_a": baseline,
                "model_b": mine["model"].to_numpy(),
                "outcome": 1.0 - mine["value"].to_numpy(),
                "verdict": "graded",
                "item_id": mine["item_id"].to_numpy(),
            }
        )
        # The verdict only matters to the frame's checks: win_rate_table reads the
        # values; graded passes them for any value in [0, 1].
        frame["verdict"] = np.where(
            frame["outcome"] == 1, "a", np.where(frame["outcome"] == 0, "b", "graded")
        )
        table = win_rate_table(frame, baseline)
        table.insert(0, "judge", judge)
        lc = {
            model: length_control(group, difficulty, gamed, settings)
            for model, group in mine.groupby("model", sort=True)
        }
        fits = pd.DataFrame.from_dict(lc, orient="index").reindex(table["model"])
        for column, missing in (
            ("length_controlled_winrate", np.nan),
            ("lc_standard_error", np.nan),
            ("lc_glm", ""),
        ):
            values = fits[column] if column in fits else pd.Series(missing, index=fits.index)
            table[column] = (
                values.fillna(missing).to_numpy()
                if column == "lc_glm"
                else values.to_numpy(dtype=float)
            )
        base = table["role"] == BASELINE
        glms = {v["lc_glm"] for v in lc.values() if "length_controlled_winrate" in v}
        if glms:
            # AlpacaEval's entry for the baseline: every prediction 0.5 by construction.
            table.loc[base, ["length_controlled_winrate", "lc_standard_error"]] = [50.0, 0.0]
            table.loc[base, "lc_glm"] = "; ".join(sorted(glms))
        else:
            reasons = sorted({v["lc_glm"] for v in lc.values()})
            table.loc[base, "lc_glm"] = "; ".join(reasons)
        lengths = mine.groupby("model")["len_model"].mean()
        table["avg_length"] = table["model"].map(lengths)
        table.loc[base, "avg_length"] = mine["len_base"].groupby(mine["item_id"]).first().mean()
        blocks.append(table)
    out = pd.concat(blocks, ignore_index=True)
    out["small_n"] = (out["role"] != BASELINE) & (out["n_total"] < int(params["min_n"]))
    return out[COLUMNS]


def win_rates_latex(table: pd.DataFrame, *, label: str) -> str:
    """Win rate ± SE (and LC when computed) per judge and model."""
    body = pd.DataFrame(
        {
            "Judge": table["judge"],
            "Model": table["model"] + np.where(table["role"] == BASELINE, " (baseline)", ""),
            "Win rate (%)": table["win_rate"].map(lambda v: f"{v:.2f}"),
            "SE": table["standard_error"].map(lambda v: f"{v:.2f}"),
            "LC win rate (%)": table["length_controlled_winrate"].map(
                lambda v: "" if pd.isna(v) else f"{v:.2f}"
            ),
            "n": table["n_total"].astype(int).astype(str),
        }
    )
    if body["Judge"].eq("").all():
        body = body.drop(columns="Judge")
    if body["LC win rate (%)"].eq("").all():
        body = body.drop(columns="LC win rate (%)")
    return booktabs(
        body,
        caption=f"{label}: win rate against the baseline and its standard error.",
        label="tab:preference-win-rates",
    )


def main(snakemake):
    games = load_games(snakemake.input.db)
    params = dict(snakemake.params.items())
    table = win_rates(games, params)
    write_csv(table, snakemake.output.win_rates)
    with open(snakemake.output.tex, "w", encoding="utf-8") as handle:
        handle.write(win_rates_latex(table, label=params["label"]))


if __name__ == "__main__" and "snakemake" in globals():
    run(main, snakemake)  # noqa: F821
