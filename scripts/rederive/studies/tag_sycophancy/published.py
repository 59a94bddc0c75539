"""The paper's published numbers (``<raw_dir>/published/*.csv``), read for the check.

The study owns this reader; the simulator imports it to calibrate the bundled
data, never the other way round, so a raw folder without ``published/`` (a
user's own runs) needs nothing from the simulator.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from rederive.io.source import read_csv_frame

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
