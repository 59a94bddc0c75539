"""Tables of the item analysis: the CSV frames and the Markdown list of suspects.

Shared by every kind with a models x items matrix; the kind's rule script adds
its item columns (task, category, dimension, ...) in front.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from rederive.report.markdown import row
from rederive.stats.items import FLAGS

#: Statistic columns of item_analysis.csv / suspect_items.csv, in order.
STAT_COLUMNS = [
    "n_models",
    "n_correct",
    "share_correct",
    "item_rest_r",
    "difficulty_ml",
    "outfit_mnsq",
    "outfit_zstd",
    "infit_mnsq",
    "infit_zstd",
    "n_fit",
    "n_models_repeated",
    "n_models_flipped",
    "flip_share",
    *FLAGS,
    "n_flags",
    "flags",
]


def with_items(items: pd.DataFrame, stats: pd.DataFrame, key: str) -> pd.DataFrame:
    """The kind's item columns, then :data:`STAT_COLUMNS`, for the items of ``stats``."""
    left = items.set_index(key).loc[stats.index].reset_index()
    right = stats[(["rank"] if "rank" in stats else []) + STAT_COLUMNS]
    out = pd.concat([left, right.reset_index(drop=True)], axis=1)
    if "rank" in out:
        out = out[["rank", *[c for c in out.columns if c != "rank"]]]
    return out


def _number(value, places: int) -> str:
    return "" if pd.isna(value) else f"{value:.{places}f}"


def _count(value) -> str:
    """A number correct: an integer as such, a sum of fractional scores to 2 decimals."""
    return str(int(value)) if float(value).is_integer() else f"{value:.2f}"


def write_suspects_markdown(
    suspects: pd.DataFrame,
    path,
    *,
    label_columns: list[str],
    n_listed: int,
    note: str,
    statistics_note: str = "",
) -> None:
    """``suspect_items.md``: the ``n_listed`` most suspect items, one row each;
    ``statistics_note`` (:func:`rederive.stats.items.statistics_note`) says why
    statistics are empty, when they are."""
    head = suspects.head(n_listed)
    lines = [
        f"# Suspect items: {len(suspects):,} flagged, the first {len(head):,} listed",
        "",
        note,
        "",
        *([statistics_note, ""] if statistics_note else []),
        row("rank", *label_columns, "correct", "item-rest r", "outfit MNSQ", "ZSTD", "flags"),
        "|" + "---:|" + "---|" * len(label_columns) + "---:|---:|---:|---:|---|",
    ]
    for _, r in head.iterrows():
        lines.append(
            row(
                int(r["rank"]),
                *[r[c] for c in label_columns],
                f"{_count(r['n_correct'])}/{int(r['n_models'])}",
                _number(r["item_rest_r"], 2),
                _number(r["outfit_mnsq"], 2),
                _number(r["outfit_zstd"], 1),
                r["flags"].replace(";", ", ").replace("_", " "),
            )
        )
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")


def write_item_tables(
    every: pd.DataFrame,
    suspects: pd.DataFrame,
    output,
    *,
    label_columns,
    n_listed,
    note,
    statistics_note: str = "",
) -> None:
    """The three outputs of an item-analysis rule: ``output.analysis`` (every item),
    ``output.suspects`` (the flagged ones) and ``output.md`` (the first ``n_listed``,
    with ``statistics_note`` when statistics are empty)."""
    from rederive.io.names import write_csv

    write_csv(every, output.analysis, float_format="%.4f")
    write_csv(suspects, output.suspects, float_format="%.4f")
    write_suspects_markdown(
        suspects,
        output.md,
        label_columns=label_columns,
        n_listed=n_listed,
        note=note,
        statistics_note=statistics_note,
    )
