"""Data-quality rows every kind shares: models left out of the shared item set,
and notes on suspicious duplicates.

A model that ``shared_items: exclude_partial`` keeps out of the shared-item
analyses (:mod:`rederive.stats.shared_items`) is a counted exclusion: its rows
behind those analyses move from ``used`` to one reason naming the model and
why, so ``rows_read = used + every excluded reason`` still holds per run.

Two models with identical results on every item are most likely one run
copied under another name (AlpacaEval 1's falcon-7b-instruct annotations are
falcon-40b-instruct's file; converted to rows, the two files differ only in the
model's name). They are kept - nothing says which name is wrong - and each gets
a *note* row naming both, with ``rows`` 0 (:data:`NOTE`; nothing moves from
``used``). Two input files with the same bytes are refused before this
(:func:`rederive.io.accounting.refuse_identical_files`).
"""

from __future__ import annotations

import re

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


# --------------------------------------------------------------------------------------
# Suspicious duplicates: a note, not an exclusion
# --------------------------------------------------------------------------------------

#: Start of a data-quality note: something to look at, nothing excluded (``rows`` 0).
NOTE = "note (nothing excluded)"


def digest_sql(row: str) -> str:
    """DuckDB expression of a group's digest over rows hashed as ``hash(<row>)``.

    The count, sum and XOR of the 64-bit row hashes: equal for two groups with
    the same multiset of rows (in any order), different otherwise except with
    negligible probability; one aggregate pass, no per-group string.
    """
    return (
        f"CAST(count(*) AS VARCHAR) || ':' || CAST(sum(hash({row})) AS VARCHAR) || ':' || "
        f"CAST(bit_xor(hash({row})) AS VARCHAR)"
    )


def identical_results_notes(models: pd.DataFrame, what: str = "per-item results") -> pd.DataFrame:
    """``run, reason`` notes naming the models whose results are identical.

    Parameters
    ----------
    models : DataFrame
        One row per model: ``model``, ``run`` (where its rows come from),
        ``digest`` (equal exactly when the results are: a sum of row hashes),
        ``n_items`` and ``varies`` (its results are not all one value: two
        models right on every item are alike without being a copy).
    what : str
        What was compared, for the note.
    """
    varied = models[models["varies"].astype(bool)]
    out = []
    for _, group in varied.groupby("digest", sort=True):
        if len(group) < 2:
            continue
        group = group.sort_values("model")
        named = " and ".join(
            f"{m} (run {r})" for m, r in zip(group["model"], group["run"], strict=True)
        )
        text = (
            f"{NOTE}: identical {what} for {named} on all {int(group['n_items'].iloc[0]):,} "
            "items: one run under two names?"
        )
        out += [
            (run, f"{text} [{model}]")
            for model, run in zip(group["model"], group["run"], strict=True)
        ]
    return pd.DataFrame(out, columns=["run", "reason"])


def with_notes(quality: pd.DataFrame, notes: pd.DataFrame, *, sort: list[str] | None = None):
    """``quality`` with one row per note (``rows`` 0: nothing moves from ``used``).

    Every other column of a note's row is its run's (file, sha256, rows_read,
    format, ...), so ``rows_read = used + every excluded reason`` still holds.
    Unchanged (the same object) without notes; otherwise sorted by ``sort``
    (default ``run``, stable: each note after its run's rows).
    """
    notes = notes[notes["run"].isin(set(quality["run"]))]
    if notes.empty:
        return quality
    runs = quality.drop_duplicates("run").set_index("run")
    extra = runs.loc[notes["run"].to_numpy()].reset_index()
    extra["reason"] = notes["reason"].to_numpy()
    extra["rows"] = 0
    extra["example_lines"] = ""
    out = pd.concat([quality, extra[quality.columns]], ignore_index=True)
    out["rows"] = out["rows"].astype("int64")
    out = out.drop_duplicates(["run", "reason"])
    # Each note after its run's rows: the table's own order is kept.
    return out.sort_values(sort or ["run"], kind="stable").reset_index(drop=True)


def note_sentences(quality: pd.DataFrame) -> str:
    """The notes of a data-quality table as one paragraph for a report ("" without)."""
    reasons = quality.loc[quality["reason"].astype(str).str.startswith(NOTE), "reason"]
    if reasons.empty:
        return ""
    # A note repeated on each model's run differs only in its "[model]" tail.
    texts = list(dict.fromkeys(re.sub(r" \[[^\]]*\]$", "", r[len(NOTE) + 2 :]) for r in reasons))
    text = "Data-quality notes (data_quality.csv; nothing excluded): " + "; ".join(texts)
    return text if text.endswith(("?", ".")) else text + "."
