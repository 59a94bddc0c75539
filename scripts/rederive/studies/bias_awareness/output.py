"""Small output helpers shared by this study's table, figure and check jobs."""

import math

import pandas as pd

from rederive.report.latex import booktabs
from rederive.studies.bias_awareness import BIASES, POOLED

BIAS_LABELS = {
    "B4": "B4 irrelevant context",
    "B5": "B5 numeric anchor",
    "B6": "B6 misleading hint",
    POOLED: "All biases",
}
BIAS_ORDER = (*BIASES, POOLED)

SIMULATED_TEXT = (
    "Computed from SIMULATED data (seeded generator calibrated to the paper's published rates)."
)


def write_csv(frame: pd.DataFrame, path) -> None:
    """Deterministic CSV: fixed float format, ``\\n`` line ends."""
    frame.to_csv(path, index=False, lineterminator="\n", float_format="%.10g")


def latex_table(
    body: pd.DataFrame, *, caption: str, label: str, column_format: str, notes: str, simulated: bool
) -> str:
    """Booktabs table of this study; the notes say so when the data is simulated."""
    if simulated:
        notes += " " + SIMULATED_TEXT
    return booktabs(body, caption=caption, label=label, column_format=column_format, notes=notes)


def sort_cells(frame: pd.DataFrame, models: list[str] | None = None) -> pd.DataFrame:
    """Rows ordered by model, then B4, B5, B6, all."""
    order = {b: i for i, b in enumerate(BIAS_ORDER)}
    models = models or sorted(frame["model"].unique())
    m_order = {m: i for i, m in enumerate(models)}
    return (
        frame.assign(_m=frame["model"].map(m_order), _b=frame["bias"].map(order))
        .sort_values(["_m", "_b"], kind="stable")
        .drop(columns=["_m", "_b"])
        .reset_index(drop=True)
    )


def with_ci(value, low, high, decimals: int = 1) -> str:
    """``"1.3 [0.8, 1.9]"``, or ``"--"`` when the value is undefined."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "--"
    if any(v is None or (isinstance(v, float) and math.isnan(v)) for v in (low, high)):
        return f"{value:.{decimals}f}"
    return f"{value:.{decimals}f} [{low:.{decimals}f}, {high:.{decimals}f}]"
