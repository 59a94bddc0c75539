"""Data-quality rows of the models left out of the shared item set.

A model that ``shared_items: exclude_partial`` keeps out of the shared-item
analyses (:mod:`rederive.stats.shared_items`) is a counted exclusion: its rows
behind those analyses move from ``used`` to one reason naming the model and
why, so ``rows_read = used + every excluded reason`` still holds per run.
"""

from __future__ import annotations

import pandas as pd

#: Start of the data-quality reason (the model and why follow).
REASON = "model left out of the shared item set"


def reason_text(model: str, why: str, scope: str) -> str:
    """``"model left out of the shared item set (<scope>): <why> [<model>]"``."""
    return f"{REASON} ({scope}): {why} [{model}]"


def move_rows(
    quality: pd.DataFrame, moved: pd.DataFrame, *, sort: list[str] | None = None
) -> pd.DataFrame:
    """``quality`` with ``moved`` rows taken from each run's ``used`` row.

    Parameters
    ----------
    quality : DataFrame
        The accounting table (``study, run, file, sha256, rows_read, reason,
        rows, example_lines``), one ``used`` row per run.
    moved : DataFrame
        ``run, reason, rows``: rows of a run to report under ``reason`` instead.
    sort : list of str, optional
        Columns to sort the result by (default ``run, reason``).

    Returns
    -------
    DataFrame
        Unchanged (the same object) when nothing is moved.
    """
    moved = moved[moved["rows"] > 0]
    if moved.empty:
        return quality
    # Every other column (file, sha256, rows_read, and any a kind adds) is the run's.
    runs = quality.drop_duplicates("run").set_index("run")
    extra = runs.loc[moved["run"].to_numpy()].reset_index()
    extra["reason"] = moved["reason"].to_numpy()
    extra["rows"] = moved["rows"].to_numpy()
    extra["example_lines"] = ""
    out = quality.copy()
    per_run = moved.groupby("run")["rows"].sum()
    used = out["reason"] == "used"
    out.loc[used, "rows"] = out.loc[used, "rows"] - out.loc[used, "run"].map(per_run).fillna(0)
    out["rows"] = out["rows"].astype("int64")
    out = pd.concat([out, extra[out.columns]], ignore_index=True)
    return out.sort_values(sort or ["run", "reason"], kind="stable").reset_index(drop=True)
