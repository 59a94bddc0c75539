"""Rule ``build_preference_warehouse``: stack the runs' labelled games into
``results/<analysis>/<analysis>.duckdb``, with their accounting and the sources'
own numbers.

Tables (docs/warehouse.md): ``games`` (every game kept, run order, then file
order), ``runs`` (one row per run file), ``accounting`` (run × reason) and
``reported`` (a source's own aggregate numbers, e.g. the ``leaderboard.csv``
AlpacaEval writes beside its annotations).

Checks, each an :class:`~rederive.errors.InputError` naming the runs at fault:

* two input files with the same bytes (:func:`rederive.io.accounting.load_runs`);
* no usable game in any run (every one excluded: the counts by reason);
* one judgment in two runs: the same judge's verdict on the same item, the same
  two models and the same order (``game``) read from two run files (an
  AlpacaEval model evaluated twice by one annotator, a judgment file copied
  under another name and edited) would count that game twice.
"""

import pandas as pd

from rederive.errors import InputError
from rederive.io import preference, warehouse
from rederive.io.accounting import load_accounting, load_runs, require_usable_rows
from rederive.io.batches import per_run_files
from rederive.io.names import read_csv
from rederive.runner import run

#: One judgment: judge, item, the two models (either order) and the order judged.
JUDGMENT_KEY = (
    "coalesce(judge, ''), item_id, least(model_a, model_b), greatest(model_a, model_b), game"
)


def repeated_judgments(con) -> pd.DataFrame:
    """Judgments (:data:`JUDGMENT_KEY`) found in more than one run: ``judge, item_id,
    model_x, model_y, game, runs`` (the runs, in run order), first such judgment first."""
    return con.execute(
        f"""
        SELECT judge, item_id, model_x, model_y, game, runs FROM (
            SELECT coalesce(judge, '') AS judge, item_id,
                   least(model_a, model_b) AS model_x, greatest(model_a, model_b) AS model_y,
                   game, list(DISTINCT run ORDER BY run) AS runs, min(rowid) AS first
            FROM games WHERE item_id IS NOT NULL
            GROUP BY {JUDGMENT_KEY}
            HAVING count(DISTINCT run) > 1
        ) ORDER BY first LIMIT 5
        """
    ).df()


def refuse_repeated_judgments(con) -> None:
    """Stop when one judgment is in two runs (see the module docstring)."""
    repeated = repeated_judgments(con)
    if repeated.empty:
        return
    row = repeated.iloc[0]
    judge = f"judge {row['judge']!r}, " if row["judge"] else ""
    raise InputError(
        f"the same judgment ({judge}item {row['item_id']!r}, {row['model_x']} vs "
        f"{row['model_y']}, game {row['game']}) is in runs {', '.join(row['runs'])}: it would "
        "count twice; remove one of the runs (or, for a deliberate repeat, give it another "
        "judge name)",
        file=", ".join(row["runs"]),
    )


def empty_reported() -> pd.DataFrame:
    """The ``reported`` table when no run carries a source's numbers."""
    columns = ["run", *preference.REPORTED_COLUMNS]
    frame = pd.DataFrame({c: pd.Series(dtype="string") for c in columns})
    frame["value"] = frame["value"].astype("float64")
    return frame


def main(snakemake):
    ingested = snakemake.input.ingested
    labelled = per_run_files(ingested, "labelled")
    accounting_files = per_run_files(ingested, "accounting")
    runs = load_runs(accounting_files)
    accounting = load_accounting(accounting_files)
    require_usable_rows(accounting, what="game")
    reported = [
        read_csv(p, dtype={"model": str, "metric": str})
        for p in per_run_files(ingested, "reported")
    ]
    with warehouse.building(snakemake.output.db) as con:
        sql, params = warehouse.labelled_sql(labelled)
        con.execute(f"CREATE TABLE games AS {sql}", params)
        refuse_repeated_judgments(con)
        warehouse.write_frames(
            con,
            {
                "runs": runs,
                "accounting": accounting,
                "reported": pd.concat(reported, ignore_index=True)
                if reported
                else empty_reported(),
            },
        )


if __name__ == "__main__" and "snakemake" in globals():
    run(main, snakemake)  # noqa: F821
