"""Rule ``tabulate_preference_quality``: what was read, used and excluded, per run and
reason, and what each model's games are.

``data_quality.csv``: the accounting of every run (``study, run, format, file,
sha256, rows_read, reason, rows, example_lines``; ``rows_read`` = used + every
excluded reason, checked), with the readers' notes as rows of 0 (``note (nothing
excluded)``: an AlpacaEval model named by its results folder, not by its
generator). ``models.csv``: per model, its games (unweighted) and their verdicts
from its side, its opponents, items and judges, and its role (``baseline``,
``small_n``, ``contestant``).
"""

import json

import numpy as np
import pandas as pd

from rederive.io.accounting import load_accounting, load_formats
from rederive.io.batches import per_run_files
from rederive.io.shared_quality import NOTE, with_notes
from rederive.runner import run
from rederive.stats.preference.ranking import BASELINE, CONTESTANT
from rederive.studies.preference.common import (
    SMALL_N,
    load_games,
    resolve_baseline,
    small_n_models,
    write_csv,
)


def reconcile(table: pd.DataFrame) -> None:
    """Fail loudly when a run's used and excluded rows are not its rows read."""
    totals = table.groupby("run").agg(read=("rows_read", "first"), counted=("rows", "sum"))
    bad = totals[totals["read"] != totals["counted"]]
    if not bad.empty:
        run_id, row = next(iter(bad.iterrows()))
        raise AssertionError(
            f"data_quality does not reconcile for run {run_id}: read {row['read']}, "
            f"used + excluded {row['counted']}"
        )


def reader_notes(paths) -> pd.DataFrame:
    """``run, reason`` rows of the readers' accounting notes."""
    rows = []
    for path in paths:
        record = json.loads(open(path, encoding="utf-8").read())
        rows += [(record["run"], f"{NOTE}: {note}") for note in record.get("notes", [])]
    return pd.DataFrame(rows, columns=["run", "reason"])


def data_quality(paths) -> pd.DataFrame:
    """The data-quality table of the runs' accounting files (module docstring)."""
    table = load_accounting(paths)
    reconcile(table)
    table.insert(table.columns.get_loc("run") + 1, "format", table["run"].map(load_formats(paths)))
    table = table.sort_values(["run", "reason"], kind="stable").reset_index(drop=True)
    return with_notes(table, reader_notes(paths))


def model_summary(games: pd.DataFrame, baseline: str | None, min_n: int) -> pd.DataFrame:
    """One row per model: ``model, role, games, wins, losses, ties, graded, opponents,
    items, judges``, most games first (ties by name). Verdicts are from the model's
    side (a graded preference counts under ``graded``, a both-bad under ``ties``)."""
    small = small_n_models(games, min_n, baseline)
    sides = []
    for own, other, win, loss in (
        ("model_a", "model_b", "a", "b"),
        ("model_b", "model_a", "b", "a"),
    ):
        verdict = games["verdict"].astype(str)
        sides.append(
            pd.DataFrame(
                {
                    "model": games[own].astype(str).to_numpy(),
                    "opponent": games[other].astype(str).to_numpy(),
                    "win": (verdict == win).to_numpy(),
                    "loss": (verdict == loss).to_numpy(),
                    "tie": verdict.isin(["tie", "both_bad"]).to_numpy(),
                    "graded": (verdict == "graded").to_numpy(),
                    "item_id": games["item_id"].to_numpy(),
                    "judge": games["judge"].to_numpy(),
                }
            )
        )
    long = pd.concat(sides, ignore_index=True)
    grouped = long.groupby("model", sort=True)
    out = pd.DataFrame(
        {
            "games": grouped.size(),
            "wins": grouped["win"].sum(),
            "losses": grouped["loss"].sum(),
            "ties": grouped["tie"].sum(),
            "graded": grouped["graded"].sum(),
            "opponents": grouped["opponent"].nunique(),
            "items": grouped["item_id"].nunique(),
            "judges": grouped["judge"].nunique(),
        }
    ).reset_index()
    role = np.where(out["model"] == baseline, BASELINE, CONTESTANT)
    out.insert(1, "role", np.where(out["model"].isin(small), SMALL_N, role))
    order = np.lexsort((out["model"].to_numpy(), -out["games"].to_numpy()))
    return out.iloc[order].reset_index(drop=True)


def main(snakemake):
    paths = per_run_files(snakemake.input.ingested, "accounting")
    write_csv(data_quality(paths), snakemake.output.quality)
    games = load_games(snakemake.input.db)
    baseline = resolve_baseline(games, snakemake.params.baseline)
    write_csv(model_summary(games, baseline, int(snakemake.params.min_n)), snakemake.output.models)


if __name__ == "__main__" and "snakemake" in globals():
    run(main, snakemake)  # noqa: F821
