"""Rule ``check_preference_published``: the published leaderboard, cell by cell, against
the numbers recomputed from the games.

``<raw_dir>/published/*.csv`` are leaderboards, the model in the column ``model``
or, as AlpacaEval writes them, in the first (unnamed) column. Which of our numbers
a column is compared with is decided by its header:

* ``win_rate``, ``standard_error``, ``discrete_win_rate``, ``n_wins``,
  ``n_wins_base``, ``n_draws``, ``n_total``, ``length_controlled_winrate``,
  ``lc_standard_error`` (AlpacaEval's leaderboard): ``win_rates.csv``, of the
  judge the file is named after (``<annotator>_leaderboard.csv``) or of the one
  judge there is;
* ``score`` (Arena-Hard v0.1's: the predicted win rate against the baseline, in
  percent) and ``elo_score``, ``rating``, ``elo``, ``elo_rating`` (a rating on the
  Elo scale): ``scores.csv``.

Every number is read as printed (:func:`rederive.printed.read_published`) and
passes when ours rounds to it at its printed precision, with ``check.tolerance``
(win rates, SEs, scores: percentage points) or ``check.rating_tolerance`` (Elo
points) on top; counts must be equal. Bootstrap bounds (``rating_q025`` …) are not
compared: they are draws from another random stream (the tests compare them
within that stream's noise); every column not compared is named in the report. A
published model with no games here, and a model of ours that the table does not
list, are rows with status ``n/a``, never left out.

``reported`` rows: the ``leaderboard.csv`` AlpacaEval writes beside a run's
annotations, against the same run's judge's win rates. ``internal`` rows: each
of our rows' discrete win rate is (wins + draws / 2) / n and its counts add up
to n (our own columns against each other, not a reproduction).
"""

from pathlib import Path

import numpy as np
import pandas as pd

from rederive.check import NO_PUBLISHED, Check, write_published_check
from rederive.errors import InputError, relpath, under_root
from rederive.io.names import read_csv
from rederive.io.source import CsvRows
from rederive.io.warehouse import query
from rederive.printed import DECIMALS, read_published
from rederive.runner import run
from rederive.stats.preference.ranking import BASELINE

#: Published column -> our column of win_rates.csv.
RATE_COLUMNS = (
    "win_rate",
    "standard_error",
    "discrete_win_rate",
    "n_wins",
    "n_wins_base",
    "n_draws",
    "n_total",
    "length_controlled_winrate",
    "lc_standard_error",
)
COUNTS = ("n_wins", "n_wins_base", "n_draws", "n_total")
#: Published column -> our column of scores.csv.
SCORE_COLUMNS = {
    "score": "win_rate_pct",
    "elo_score": "rating",
    "rating": "rating",
    "elo": "rating",
    "elo_rating": "rating",
}
TEXT = ("judge", "role", "lc_glm", "note", "ci_method", "unit_kind")


def header_of(path: Path) -> list[str]:
    rows = iter(CsvRows(path))
    try:
        return [cell.strip() for cell in next(rows)[1]]
    except StopIteration:
        raise InputError("empty file: expected a header row", file=relpath(path), line=1) from None


def model_column(header: list[str]) -> str:
    """``model``, else the first column (AlpacaEval's leaderboards leave it unnamed)."""
    return "model" if "model" in header else header[0]


def read_leaderboard(path: Path) -> tuple[pd.DataFrame, list[str], list[str]]:
    """(table, compared columns, other columns) of one published leaderboard.

    The table has ``model`` and each compared column as read by
    :func:`rederive.printed.read_published` (``<column>__decimals`` beside it).

    Raises
    ------
    InputError
        No column the check knows; a blank or repeated model; a cell that is not a
        number.
    """
    header = header_of(path)
    name = model_column(header)
    compared = [c for c in header if c != name and (c in RATE_COLUMNS or c in SCORE_COLUMNS)]
    if not compared:
        raise InputError(
            "no column the preference check compares (win_rate, standard_error, "
            f"length_controlled_winrate, n_total, …, score, elo_score, rating); it has {header}",
            file=relpath(path),
            line=1,
        )
    table = read_published(path, compared, text=[name] if name else [])
    model = table.columns[header.index(name)]
    table = table.rename(columns={model: "model"})
    table["model"] = table["model"].astype("string").str.strip()
    blank = table["model"].isna() | (table["model"] == "")
    if blank.any():
        raise InputError(
            "model name is blank", file=relpath(path), line=int(np.flatnonzero(blank)[0]) + 2
        )
    twice = table["model"].duplicated()
    if twice.any():
        raise InputError(
            f"model {table['model'][twice].iloc[0]!r} is listed twice",
            file=relpath(path),
            line=int(np.flatnonzero(twice)[0]) + 2,
        )
    others = [c for c in header if c != name and c not in compared]
    return table, compared, others


def judge_for(path: Path, judges: list[str]) -> tuple[str | None, str]:
    """The judge whose win rates a leaderboard file is compared with, and why."""
    if len(judges) == 1:
        return judges[0], ""
    named = [j for j in judges if j and path.stem.startswith(j)]
    if named:
        return max(named, key=len), ""
    return None, (
        f"several judges ({', '.join(judges)}) and the file is named after none: name it "
        "<judge>_leaderboard.csv"
    )


def rate_checks(path, table, columns, rates, tolerance, root) -> list[Check]:
    """Rows of one leaderboard's win-rate columns against ``win_rates.csv``."""
    judge, why = judge_for(path, sorted(rates["judge"].unique()))
    ours = rates[rates["judge"] == judge].set_index("model") if judge is not None else None
    where = under_root(path, root)
    out = []
    for row in table.itertuples(index=False):
        record = row._asdict()
        mine = (
            ours.loc[record["model"]]
            if ours is not None and record["model"] in ours.index
            else None
        )
        # A model without games here is one row, not one per column.
        for column in columns if mine is not None or why else columns[:1]:
            note = why
            value = None
            if mine is not None:
                value = float(mine[column]) if pd.notna(mine[column]) else None
                if column in ("length_controlled_winrate", "lc_standard_error") and value is None:
                    note = "" if pd.isna(mine["lc_glm"]) else str(mine["lc_glm"])
            elif not why:
                note = "no games of this model against the baseline"
            out.append(
                Check(
                    "preference",
                    where,
                    "cell",
                    record["model"],
                    column,
                    _value(record[column]),
                    value,
                    0.0 if column in COUNTS else tolerance,
                    note,
                    printed_decimals=_decimals(record[column + DECIMALS]),
                )
            )
    if ours is not None:
        out += unlisted_checks(ours, table, where, "win_rate", tolerance)
    return out


def score_checks(path, table, columns, scores, tolerances, root) -> list[Check]:
    """Rows of one leaderboard's score and rating columns against ``scores.csv``."""
    ours = scores.set_index("model")
    where = under_root(path, root)
    out = []
    for row in table.itertuples(index=False):
        record = row._asdict()
        mine = ours.loc[record["model"]] if record["model"] in ours.index else None
        for column in columns if mine is not None else columns[:1]:
            target = SCORE_COLUMNS[column]
            value = None
            note = "" if mine is not None else "no games of this model"
            if mine is not None:
                if target not in ours.columns:
                    note = "no baseline: no predicted win rate against one"
                else:
                    value = float(mine[target])
            out.append(
                Check(
                    "preference",
                    where,
                    "cell",
                    record["model"],
                    column,
                    _value(record[column]),
                    value,
                    tolerances[target],
                    note,
                    printed_decimals=_decimals(record[column + DECIMALS]),
                )
            )
    return out + unlisted_checks(ours, table, where, "rating", tolerances["rating"])


def unlisted_checks(ours, table, where, column, tolerance) -> list[Check]:
    """A row for each of our models the published table does not list (by model)."""
    listed = set(table["model"])
    return [
        Check(
            "preference",
            where,
            "cell",
            model,
            column,
            None,
            float(mine[column]),
            tolerance,
            "not in the published table",
        )
        for model, mine in ours.iterrows()
        if model not in listed
    ]


def reported_checks(reported: pd.DataFrame, rates: pd.DataFrame, run_judges, tolerance):
    """The numbers a source wrote beside its run (AlpacaEval's ``leaderboard.csv``)
    against the win rates of that run's judge."""
    out = []
    for row in reported.itertuples(index=False):
        if row.metric not in RATE_COLUMNS:
            continue
        judge = run_judges.get(row.run, "")
        mine = rates[(rates["judge"] == judge) & (rates["model"] == row.model)]
        value = (
            float(mine[row.metric].iloc[0])
            if len(mine) and pd.notna(mine[row.metric].iloc[0])
            else None
        )
        out.append(
            Check(
                "preference",
                f"reported: {row.file}",
                "cell",
                row.model,
                row.metric,
                float(row.value),
                value,
                0.0 if row.metric in COUNTS else tolerance,
                f"run {row.run}",
            )
        )
    return out


def internal_checks(rates: pd.DataFrame) -> list[Check]:
    """Our win-rate rows against themselves (module docstring)."""
    out = []
    for row in rates.itertuples(index=False):
        item = f"{row.judge}: {row.model}" if row.judge else row.model
        n = float(row.n_total)
        out.append(
            Check(
                "preference",
                "win_rates.csv",
                "internal",
                item,
                "discrete_win_rate = 100 (n_wins + n_draws/2) / n_total",
                100 * (row.n_wins + row.n_draws / 2) / n if n else None,
                float(row.discrete_win_rate),
                1e-9,
                "",
            )
        )
        if row.role != BASELINE:
            out.append(
                Check(
                    "preference",
                    "win_rates.csv",
                    "internal",
                    item,
                    "n_wins + n_wins_base + n_draws = n_total",
                    n,
                    float(row.n_wins + row.n_wins_base + row.n_draws),
                    0.0,
                    "",
                )
            )
    return out


def _value(value) -> float | None:
    return None if value is None or pd.isna(value) else float(value)


def _decimals(value) -> int | None:
    return None if value is None or pd.isna(value) else int(value)


def checks(
    files, rates, scores, reported, run_judges, params, root
) -> tuple[list[Check], list[str]]:
    """Every check row, and the report's sentences on what was not compared."""
    tolerances = {
        "win_rate_pct": float(params["tolerance"]),
        "rating": float(params["rating_tolerance"]),
    }
    found: list[Check] = []
    skipped = []
    for path in files:
        table, compared, others = read_leaderboard(path)
        rate_cols = [c for c in compared if c in RATE_COLUMNS]
        score_cols = [c for c in compared if c in SCORE_COLUMNS]
        if rate_cols:
            found += rate_checks(path, table, rate_cols, rates, float(params["tolerance"]), root)
        if score_cols:
            found += score_checks(path, table, score_cols, scores, tolerances, root)
        if others:
            skipped.append(f"{under_root(path, root)}: not compared: {', '.join(others)}")
    found += reported_checks(reported, rates, run_judges, float(params["tolerance"]))
    found += internal_checks(rates)
    return found, skipped


def preamble(files, skipped, folder) -> str:
    if not files:
        return (
            f"{NO_PUBLISHED.capitalize()}: the analysis's {Path(folder).name}/ folder is missing "
            "or holds no CSV file; only the sources' own numbers and internal checks."
        )
    text = (
        "Each published number against ours, compared at the precision it is printed with "
        "(the tolerance on top; counts exactly). Bootstrap bounds are not compared: they are "
        "draws from another random stream."
    )
    if skipped:
        text += " " + "; ".join(skipped) + "."
    return text


def main(snakemake):
    folder = Path(snakemake.params.published_dir)
    files = sorted(folder.glob("*.csv")) if folder.is_dir() else []
    rates = read_csv(snakemake.input.win_rates, text=TEXT)
    rates["judge"] = rates["judge"].fillna("")
    scores = read_csv(snakemake.input.scores, text=TEXT)
    reported = query(snakemake.input.db, "SELECT * FROM reported ORDER BY run, model, metric")
    judges = query(
        snakemake.input.db,
        "SELECT run, coalesce(min(judge), '') AS judge FROM games GROUP BY run ORDER BY run",
    )
    found, skipped = checks(
        files,
        rates,
        scores,
        reported,
        dict(zip(judges["run"], judges["judge"], strict=True)),
        dict(snakemake.params.check),
        folder.parent,
    )
    write_published_check(
        found,
        snakemake.output.csv,
        snakemake.output.md,
        analysis=snakemake.wildcards.analysis,
        title="Preference: published-leaderboard check",
        preamble=preamble(files, skipped, folder),
        data_note=snakemake.params.data_note,
    )


if __name__ == "__main__" and "snakemake" in globals():
    run(main, snakemake)  # noqa: F821
