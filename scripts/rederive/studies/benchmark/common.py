"""Shared helpers of the benchmark study's analysis steps: the score matrix from
the warehouse, deterministic CSV writing, the data note used in captions."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd

from rederive.io.warehouse import query, read_only
from rederive.stats.rates import round_half_up
from rederive.stats.shared_items import from_frame

REAL_NOTE = "Real data: ChemBench per-item results (irt-on-bench, MIT licence)"


# Rows per fetched batch of codes and values.
_BATCH_ROWS = 1 << 20


def _code_tables(con, models: list[str], keys) -> None:
    """Register ``_model_codes`` (model, c) and ``_item_codes`` (item_key, c) on ``con``."""
    con.register(
        "_model_codes", pd.DataFrame({"model": models, "c": np.arange(len(models), dtype="int32")})
    )
    con.register(
        "_item_codes",
        pd.DataFrame({"item_key": list(keys), "c": np.arange(len(keys), dtype="int32")}),
    )


def load_scores(db_path: str | Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Items × models matrix of per-item scores (epoch means in [0, 1]) and the item table.

    Rows follow the warehouse item order, columns are models sorted by name; a
    cell is NaN only when the model has no score for the item (possible only with
    ``item_sets: intersection`` disabled, which the warehouse refuses).

    The matrix (float64) is filled from integer codes joined in DuckDB and
    fetched in batches: no long frame of (model, item_key) strings is built
    (150 M of them at 5,000 × 30,000); the matrix itself is the largest object
    (1.2 GB there).
    """
    with read_only(db_path) as con:
        items = con.execute("SELECT * FROM items").df()
        models = sorted(m for (m,) in con.execute("SELECT DISTINCT model FROM scores").fetchall())
        _code_tables(con, models, items["item_key"])
        values = np.full((len(items), len(models)), np.nan)
        reader = con.sql(
            "SELECT i.c, m.c, s.score FROM scores s "
            "JOIN _item_codes i ON s.item_key = i.item_key JOIN _model_codes m ON s.model = m.model"
        ).to_arrow_reader(_BATCH_ROWS)
        for batch in reader:
            rows, columns, score = (
                batch.column(k).to_numpy(zero_copy_only=False) for k in range(3)
            )
            values[rows, columns] = score
    matrix = pd.DataFrame(
        values,
        index=pd.Index(items["item_key"], name="item_key"),
        columns=pd.Index(models, dtype=object, name="model"),
    )
    return matrix, items


@dataclass(frozen=True)
class Epochs:
    """The warehouse's graded epochs as integer codes (one entry per ``responses`` row).

    Attributes
    ----------
    models : ndarray of str
        Model names, sorted; ``model`` indexes it.
    items : ndarray of str
        Item keys: the ``items`` table's order, then any other item of
        ``responses`` (dropped by ``item_sets``) sorted; ``item`` indexes it.
    model, item : ndarray of int32
        Codes per row, in the rows' run order.
    epoch : ndarray
        int64 (float64 with NaN when some epoch is missing).
    correct : ndarray of float64
    answers : ndarray of str, optional
        The distinct extracted answers, sorted (``load_epochs(..., answers=True)``;
        None otherwise); ``answer`` indexes it.
    answer : ndarray of int32, optional
        Code per row of its extracted answer, -1 for a row without one.
    """

    models: np.ndarray
    items: np.ndarray
    model: np.ndarray
    item: np.ndarray
    epoch: np.ndarray
    correct: np.ndarray
    answers: np.ndarray | None = None
    answer: np.ndarray | None = None

    def frame(self, item_column: str = "item_key") -> pd.DataFrame:
        """The long frame (model, item, epoch, correct[, answer]) the statistics take.

        Equal names are one shared string object (8 bytes a row), as read
        from the warehouse with ``SELECT model, item_key, epoch, correct``;
        ``answer`` (None where a sample has none) when the answers were loaded.
        """
        # Code -1 (a row without a model or item) must read as missing, not as
        # the last name: index -1 of the names with None appended is None.
        models = np.append(self.models.astype(object), None)
        items = np.append(self.items.astype(object), None)
        columns = {
            "model": models[self.model],
            item_column: items[self.item],
            "epoch": self.epoch,
            "correct": self.correct,
        }
        if self.answers is not None:
            columns["answer"] = np.append(self.answers.astype(object), None)[self.answer]
        return pd.DataFrame(columns)


def load_epochs(
    db_path: str | Path,
    *,
    scored_only: bool = False,
    answers: bool = False,
    zeros: bool = True,
) -> Epochs:
    """Every graded epoch of ``responses`` as integer codes, in run order.

    Codes come from DuckDB joins against the (small) model and item lists and
    are scattered into numpy arrays at the row's position, fetched in batches:
    four numbers a row (24 bytes), no Python object per row.

    Parameters
    ----------
    scored_only : bool
        Keep only the rows of (model, item) pairs of the ``scores`` table (the
        epochs behind the statistics: no dropped item, no model left out), and
        add one epoch scored 0 for each missing grade ``item_sets: zero``
        counted as 0 (a ``scores`` cell without rows), so the variance is that
        of the score the tables show.
    answers : bool
        Also load each row's extracted answer (:attr:`Epochs.answer`, the
        responses table's ``answer``; every row without one when the table has
        no such column), for maj@k.
    zeros : bool
        With ``scored_only``, add the epochs scored 0 of missing grades (the
        default); False keeps only rows that were read (the sampling table: a
        missing grade is no sample).
    """
    with read_only(db_path) as con:
        keys = [k for (k,) in con.execute("SELECT item_key FROM items").fetchall()]
        known = set(keys)
        extra = sorted(
            k
            for (k,) in con.execute("SELECT DISTINCT item_key FROM responses").fetchall()
            if k not in known
        )
        keys += extra
        models = sorted(
            m for (m,) in con.execute("SELECT DISTINCT model FROM responses").fetchall()
        )
        n, n_epoch = con.execute("SELECT count(*), count(epoch) FROM responses").fetchall()[0]
        _code_tables(con, models, keys)
        # -1 marks a row without a model or item (skipped, as pandas' groupby would).
        model = np.full(n, -1, dtype="int32")
        item = np.empty(n, dtype="int32")
        epoch = np.empty(n, dtype="int64" if n_epoch == n else "float64")
        correct = np.empty(n, dtype="float64")
        answer_list, answer = None, None
        answer_sql, answer_join = "", ""
        if answers:
            answer_list = _answer_codes(con)
            answer = np.full(n, -1, dtype="int32")
            if len(answer_list):
                answer_sql = ", a.c"
                answer_join = " LEFT JOIN _answer_codes a ON r.answer = a.answer"
        reader = con.sql(
            f"SELECT r.rowid, m.c, i.c, r.epoch, r.correct{answer_sql} FROM responses r "
            "JOIN _model_codes m ON r.model = m.model JOIN _item_codes i ON r.item_key = i.item_key"
            f"{answer_join}"
        ).to_arrow_reader(_BATCH_ROWS)
        for batch in reader:
            at = batch.column(0).to_numpy()
            model[at] = batch.column(1).to_numpy()
            item[at] = batch.column(2).to_numpy()
            epoch[at] = batch.column(3).to_numpy(zero_copy_only=False)
            correct[at] = batch.column(4).to_numpy(zero_copy_only=False)
            if answer_sql:
                answer[at] = batch.column(5).fill_null(-1).to_numpy(zero_copy_only=False)
        keep = model >= 0
        if scored_only:
            scored = np.zeros((len(keys), len(models)), dtype=bool)
            reader = con.sql(
                "SELECT i.c, m.c FROM scores s JOIN _item_codes i ON s.item_key = i.item_key "
                "JOIN _model_codes m ON s.model = m.model"
            ).to_arrow_reader(_BATCH_ROWS)
            for batch in reader:
                scored[batch.column(0).to_numpy(), batch.column(1).to_numpy()] = True
            keep &= scored[item, np.maximum(model, 0)]
            missing = con.sql(
                "SELECT m.c AS mc, i.c AS ic FROM scores s JOIN _item_codes i "
                "ON s.item_key = i.item_key JOIN _model_codes m ON s.model = m.model "
                "WHERE s.n_rows = 0 ORDER BY m.c, i.c"
            ).fetchnumpy()
    if not keep.all():
        model, item, epoch, correct = model[keep], item[keep], epoch[keep], correct[keep]
        answer = None if answer is None else answer[keep]
    if scored_only and zeros and len(missing["mc"]):
        filled = np.asarray(missing["mc"], dtype="int32"), np.asarray(missing["ic"], dtype="int32")
        model = np.concatenate([model, filled[0]])
        item = np.concatenate([item, filled[1]])
        epoch = np.concatenate([epoch, np.zeros(len(filled[0]), dtype=epoch.dtype)])
        correct = np.concatenate([correct, np.zeros(len(filled[0]))])
        if answer is not None:
            answer = np.concatenate([answer, np.full(len(filled[0]), -1, dtype="int32")])
    return Epochs(
        models=np.asarray(models, dtype=object),
        items=np.asarray(keys, dtype=object),
        model=model,
        item=item,
        epoch=epoch,
        correct=correct,
        answers=answer_list,
        answer=answer,
    )


def _answer_codes(con) -> np.ndarray:
    """The distinct extracted answers of ``responses``, sorted, registered on ``con`` as
    ``_answer_codes`` (answer, c); empty when the table has no ``answer`` column."""
    present = {row[0] for row in con.execute("DESCRIBE responses").fetchall()}
    if "answer" not in present:
        return np.asarray([], dtype=object)
    answers = [
        a
        for (a,) in con.execute(
            "SELECT DISTINCT answer FROM responses WHERE answer IS NOT NULL ORDER BY answer"
        ).fetchall()
    ]
    con.register(
        "_answer_codes",
        pd.DataFrame({"answer": answers, "c": np.arange(len(answers), dtype="int32")}),
    )
    return np.asarray(answers, dtype=object)


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
