"""The paper's published numbers (``<raw_dir>/published/*.csv``), read for the check.

The study owns this reader; the simulator imports it to calibrate the bundled
data, never the other way round, so a raw folder without ``published/`` (a
user's own runs) needs nothing from the simulator.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from rederive.io.source import read_csv_frame
from rederive.printed import read_published

#: Key → file name of every published-number file the check reads.
PUBLISHED_FILES = {
    "model_effects": "model_effects.csv",
    "floor_models": "floor_models.csv",
    "lineages": "lineages.csv",
    "composition": "composition.csv",
    "panel": "panel.csv",
}


def load_published(published_dir: str | Path) -> dict[str, pd.DataFrame]:
    """Read every published-number file of the study (``raw/.../published``)."""
    root = Path(published_dir)
    return {key: read_csv_frame(root / name) for key, name in PUBLISHED_FILES.items()}


#: Key → (numeric columns the check compares, columns naming a quantity in a long file).
PRINTED_COLUMNS = {
    "model_effects": (("tag_effect", "ci_low", "ci_high", "ask_baseline"), ()),
    "lineages": (("first_effect", "last_effect"), ()),
    "composition": (("reject_share", "evade_share"), ()),
    "panel": (("value",), ("quantity",)),
}


def load_printed(published_dir: str | Path) -> dict[str, pd.DataFrame]:
    """:func:`load_published` for the check: the compared numbers read as printed.

    Each column of :data:`PRINTED_COLUMNS` is a float with its printed decimals
    beside it (:func:`rederive.printed.read_published`); ``panel.csv``'s values
    each take their own (one quantity per row).
    """
    root = Path(published_dir)
    out = {}
    for key, name in PUBLISHED_FILES.items():
        if key in PRINTED_COLUMNS:
            columns, by = PRINTED_COLUMNS[key]
            out[key] = read_published(root / name, columns, by=by)
        else:
            out[key] = read_csv_frame(root / name)
    return out
