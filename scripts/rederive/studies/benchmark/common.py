"""Shared helpers of the benchmark study's analysis steps: the score matrix from
the warehouse, deterministic CSV writing, the data note used in captions."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd

from rederive.io.warehouse import query, read_only
from rederive.stats.rates import round_half_up
from rederive.stats.shared_items import from_frame

REAL_NOTE = "Real data: ChemBench per-item results (irt-on-bench, MIT licence)"


def load_scores(db_path: str | Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Items × models matrix of per-item scores (epoch means in [0, 1]) and the item table.

    Rows follow the warehouse item order, columns are models sorted by name; a
    cell is NaN only when the model has no score for the item (possible only with
    ``item_sets: intersection`` disabled, which the warehouse refuses).
    """
    with read_only(db_path) as con:
        scores = con.execute("SELECT model, item_key, score FROM scores").df()
        items = con.execute("SELECT * FROM items").df()
    matrix = scores.pivot(index="item_key", columns="model", values="score")
    matrix = matrix.reindex(index=items["item_key"], columns=sorted(matrix.columns))
    return matrix, items


def left_out_note(db_path: str | Path) -> str:
    """The sentence naming the models left out of the shared item set ("" when none)."""
    return from_frame(query(db_path, "SELECT * FROM shared_items ORDER BY model")).note()


def clusters_for(items: pd.DataFrame, cluster_by: str) -> np.ndarray | None:
    """Resampling unit per item: ``None`` (each item), or the category / group label."""
    if cluster_by == "none":
        return None
    labels = items[cluster_by].astype("string")
    # An item without a group is its own cluster rather than pooled with other
    # ungrouped items (pooling would invent a dependence the data do not show).
    return labels.fillna("__item__" + items["item_key"]).to_numpy(dtype=str)


def write_csv(frame: pd.DataFrame, path: str | Path, float_format: str = "%.6f") -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(path, index=False, float_format=float_format, lineterminator="\n")


def fixed_decimals(frame: pd.DataFrame, decimals: dict[str, int]) -> pd.DataFrame:
    """Copy with the named float columns as fixed-decimal text (62.0 prints as 62.0).

    A single ``float_format`` cannot serve both full-precision fractions and
    one-decimal percentages, and ``%g`` would drop the trailing zero the papers print.
    """
    out = frame.copy()
    for column, places in decimals.items():
        out[column] = [("" if pd.isna(v) else f"{v:.{places}f}") for v in out[column]]
    return out


def accuracy_percent(total: float, n: int, decimals: int = 1) -> float:
    """``100 · total / n`` rounded half-up once, on the exact fraction.

    ``total`` is a count of correct items, or a sum of epoch means / partial
    credit (then its shortest decimal is taken as exact). The accuracy table and
    the published check both call this, so 23/80 is 28.8 everywhere (the float
    ``100 * 0.2875`` is 28.749999999999996 and would give 28.7).
    """
    if not n:
        return float("nan")
    total = float(total)
    exact = Fraction(int(total)) if total.is_integer() else Fraction(repr(total))
    return round_half_up(100 * exact / int(n), decimals)
