"""Readers for the study's item file and optional model metadata, with user-facing errors."""

from pathlib import Path

import pandas as pd

from rederive.errors import InputError, relpath
from rederive.io.jsonl import iter_jsonl, require_fields, require_id, require_unique
from rederive.io.source import read_csv_frame

ITEM_FIELDS = ["item_id", "decision", "option_x", "option_y", "category"]
CATEGORIES = ["taste", "consequential"]
MODEL_COLUMNS = ["model", "lineage", "vendor", "release_date", "tier", "out_of_sample"]


def read_items(path) -> pd.DataFrame:
    """Validated ``items.jsonl``: unique ids, category taste|consequential."""
    name = relpath(path)
    rows, seen = [], {}
    for line, rec in iter_jsonl(path):
        require_fields(rec, ITEM_FIELDS, file=name, line=line)
        item_id = require_id(rec, "item_id", file=name, line=line)
        require_unique(
            seen,
            item_id,
            file=name,
            line=line,
            field="item_id",
            message="item_id {key!r} already defined on line {first}",
        )
        if rec["category"] not in CATEGORIES:
            raise InputError(
                f"category must be one of {', '.join(CATEGORIES)}, got {rec['category']!r}",
                file=name,
                line=line,
                field="category",
            )
        rows.append({f: (item_id if f == "item_id" else str(rec[f])) for f in ITEM_FIELDS})
    if not rows:
        raise InputError("no items", file=name)
    return pd.DataFrame(rows, columns=ITEM_FIELDS).sort_values("item_id").reset_index(drop=True)


def read_models(path, models_seen) -> pd.DataFrame:
    """Optional ``models.csv``; a model missing there still gets every per-model statistic.

    ``release_date`` must be ISO ``YYYY-MM-DD`` (used for the lineage trend);
    ``out_of_sample`` (optional, true/false) marks releases added after the
    instrument froze (paper §2.3), which the trend fit leaves out and predicts.
    """
    if path is None or not Path(path).exists():
        frame = pd.DataFrame(columns=MODEL_COLUMNS)
    else:
        name = relpath(path)
        frame = read_csv_frame(path, dtype=str, keep_default_na=False)
        if "model" not in frame.columns:
            raise InputError("models.csv needs a 'model' column", file=name, line=1, field="model")
        for column in MODEL_COLUMNS:
            if column not in frame.columns:
                frame[column] = ""
        frame = frame[MODEL_COLUMNS].copy()
        # Trimmed as the run files' model names are: "GPT-4o " (a spreadsheet's
        # trailing space) is GPT-4o, with its lineage, not a model of its own.
        frame["model"] = frame["model"].str.strip()
        blank = frame.index[frame["model"] == ""]
        if len(blank):
            raise InputError("model is blank", file=name, line=int(blank[0]) + 2, field="model")
        for i, value in enumerate(frame["release_date"]):
            if value and pd.isna(pd.to_datetime(value, format="%Y-%m-%d", errors="coerce")):
                raise InputError(
                    f"release_date must be YYYY-MM-DD, got {value!r}",
                    file=name,
                    line=i + 2,
                    field="release_date",
                )
        for i, value in enumerate(frame["out_of_sample"]):
            if value.strip().lower() not in ("", "true", "false"):
                raise InputError(
                    f"out_of_sample must be true/false, got {value!r}",
                    file=name,
                    line=i + 2,
                    field="out_of_sample",
                )
        dupes = frame["model"][frame["model"].duplicated()]
        if len(dupes):
            line = int(dupes.index[0]) + 2
            raise InputError(
                f"model {dupes.iloc[0]!r} listed twice", file=name, line=line, field="model"
            )
        frame["out_of_sample"] = frame["out_of_sample"].str.strip().str.lower() == "true"
        frame = frame.replace({"": None})
    extra = sorted(set(models_seen) - set(frame["model"]))
    if extra:
        frame = pd.concat(
            [frame, pd.DataFrame({"model": extra, "out_of_sample": False})], ignore_index=True
        )
    frame["out_of_sample"] = frame["out_of_sample"].eq(True)
    for column in ("lineage", "vendor", "release_date", "tier"):
        frame[column] = frame[column].astype(object).where(frame[column].notna(), None)
    return frame.sort_values("model", kind="stable").reset_index(drop=True)
