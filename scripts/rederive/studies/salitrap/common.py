"""Helpers shared by the SaliTrap analysis jobs: warehouse reads, CSV writing,
short dimension names, the "is this simulated?" flag.

References
----------
SaliTrap (seed paper 000), §3 (trap dimensions) and §4 (evaluation protocol).
"""

from pathlib import Path

import numpy as np
import pandas as pd

from rederive.io.warehouse import query
from rederive.stats.shared_items import SharedItems, decide
from rederive.stats.small_n import small_n_flags

OVERALL = "overall"
CONTROL = "control"

SHORT = {
    "missing_prerequisite": "Miss. prereq.",
    "environment_mismatch": "Env. mismatch",
    "temporal_physiological": "Temp./physiol.",
    "rule_mismatch": "Rule mismatch",
    OVERALL: "Overall",
}


def write_csv(frame: pd.DataFrame, path) -> None:
    """Deterministic CSV: fixed float format, ``\\n`` line ends, no index."""
    frame.to_csv(path, index=False, lineterminator="\n", float_format="%.10g")


def write_table(snakemake, table: pd.DataFrame, latex) -> None:
    """Write a paper table: ``table`` to the job's ``csv`` output and
    ``latex(table, simulated=...)`` to its ``tex`` output (``simulated``: the
    job's param, true when the analysis's raw_dir holds ``SIMULATED.md``)."""
    write_csv(table, snakemake.output.csv)
    Path(snakemake.output.tex).write_text(latex(table, simulated=bool(snakemake.params.simulated)))


def simulated_notes(notes: str, simulated: bool) -> str:
    """Table notes, plus the simulated-data warning when the data is simulated."""
    if simulated:
        return notes + " Computed from SIMULATED data calibrated to the published tables."
    return notes


# The label columns analyses use. Provenance columns (run, model_id, source line)
# stay in the warehouse: at 4 M rows every string column costs ~250 MB in pandas.
LABEL_COLUMNS = ["model", "item_id", "seed_id", "dimension", "condition", "label"]


def load(db, condition: str | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Items (sorted by ``item_id``) and usable label rows (:data:`LABEL_COLUMNS`)
    from the warehouse, of one ``condition`` or (``None``) of all.

    Label rows repeat a few strings (models, conditions, labels, dimensions)
    millions of times; sharing them keeps every analysis job of a 4 M-row study
    well under its per-row-object footprint (see ``query(share_strings=True)``).
    """
    items = query(db, "SELECT * FROM items ORDER BY item_id")
    columns = ", ".join(LABEL_COLUMNS)
    where = "" if condition is None else "WHERE condition = ?"
    labels = query(
        db,
        f"SELECT {columns} FROM labels {where} ORDER BY model, condition, item_id",
        [] if condition is None else [condition],
        share_strings=True,
    )
    return items, labels


def present_dimensions(items: pd.DataFrame, dimensions: list[str]) -> list[str]:
    """Configured dimensions that have at least one item, in config order."""
    seen = set(items["dimension"])
    return [d for d in dimensions if d in seen]


def dimension_masks(items: pd.DataFrame, dimensions: list[str]):
    """``(dimension, boolean mask over items)`` for each dimension, then overall."""
    for dimension in dimensions:
        yield dimension, (items["dimension"] == dimension).to_numpy()
    yield OVERALL, np.ones(len(items), dtype=bool)


def model_rank(order: list[str], frame: pd.DataFrame, column: str = "model") -> pd.Series:
    """Position of each row's model in ``order`` (unknown models last, by name)."""
    ranks = {m: i for i, m in enumerate(order)}
    return frame[column].map(lambda m: ranks.get(m, len(ranks)))


def control_order(labels: pd.DataFrame, tar_labels=("Strict Pass",)) -> list[str]:
    """Models by descending control TAR (the paper's row order), ties by name.

    ``tar_labels`` is the TAR numerator from config (``metrics.TAR.numerator``).
    """
    control = labels[labels["condition"] == CONTROL]
    tar = control["label"].isin(list(tar_labels)).groupby(control["model"]).mean()
    frame = pd.DataFrame({"model": tar.index, "neg": -tar.to_numpy()})
    return list(frame.sort_values(["neg", "model"], kind="stable")["model"])


def small_n_by_model(labels: pd.DataFrame, items: pd.DataFrame, min_n: int) -> dict[str, bool]:
    """Per model: fewer than ``min_n`` valid control rows (the study's small-n rule).

    The same count as Tables 1–2 (a non-null control label on a known item), so
    every table flags the same models; a model with labels only under other
    conditions has 0 control rows and is flagged.
    """
    control = labels[
        (labels["condition"] == CONTROL)
        & labels["label"].notna()
        & labels["item_id"].isin(items["item_id"])
    ]
    n = control.groupby("model")["item_id"].nunique()
    models = sorted(labels["model"].unique())
    counts = n.reindex(models, fill_value=0).to_numpy()
    return dict(zip(models, (bool(f) for f in small_n_flags(counts, min_n)), strict=True))


def shared_item_set(matrix: pd.DataFrame, p) -> SharedItems:
    """Models in the shared item set of failure sets and IRT (:mod:`rederive.stats.shared_items`).

    ``matrix`` is the control label matrix (items × models, NaN = no valid row),
    so a model's count is the same as that of :func:`small_n_by_model`; ``p``
    carries the job's ``min_n``, ``partial_share`` and ``shared_items`` params.
    """
    return decide(matrix.notna(), min_n=p.min_n, partial_share=p.partial_share, mode=p.shared_items)
