"""Raw folders of a preference analysis, written from the committed real fixtures.

The real files are too large to commit whole (an AlpacaEval ``annotations.json`` is
3.5 MB: 805 instructions with both outputs and the judge's completion), so the
fixtures keep what the numbers need and these functions write them back in the
sources' own layouts, for the workflow tests, the docs' config examples and the
rule graph:

* :func:`alpaca_eval_folder`: ``alpaca_eval/<model>/weighted_alpaca_eval_gpt4_turbo/
  annotations.json`` for the six models of ``tests/stats/preference/fixtures/
  alpaca_eval/annotations.csv`` (AlpacaEval 2.0's real preferences, exactly as
  written; ``generator_2`` as in the file, so NullModel's is ``example``). What the
  CSV does not keep is stood in for, and only that: the instruction is
  ``instruction <index>`` (the annotation's position, the same instruction for every
  model), each output is a run of one letter of the recorded length in characters
  (all the length-controlled GLM reads of it), ``dataset`` is empty. The published
  leaderboard rows go to ``published/``.
* :func:`arena_hard_folder`: ``arena_hard/ensemble/<model>.jsonl`` in arena-hard-auto's
  2024 layout from ``tests/stats/preference/fixtures/arena_hard/judgments.csv``
  (question, model, judge and both games' labels, verbatim; the judgments' texts
  were not kept), and the fork's published rows.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd

HERE = Path(__file__).parent
STATS = HERE.parent / "stats" / "preference" / "fixtures"
READERS = HERE / "fixtures"
ALPACA_BASELINE = "gpt4_1106_preview"
ANNOTATOR = "weighted_alpaca_eval_gpt4_turbo"
ARENA_HARD_BASELINE = "claude-3.7-sonnet"
LEADERBOARD = f"{ANNOTATOR}_leaderboard.csv"


def instruction(index) -> str:
    return f"instruction {index}"


def alpaca_eval_folder(folder: Path, *, published: bool = True) -> Path:
    """Write the AlpacaEval fixture as a raw_dir (module docstring); return ``folder``."""
    annotations = pd.read_csv(STATS / "alpaca_eval" / "annotations.csv", dtype={"preference": str})
    for model, rows in annotations.groupby("model", sort=False):
        target = folder / "alpaca_eval" / model / ANNOTATOR
        target.mkdir(parents=True, exist_ok=True)
        records = [
            {
                "instruction": instruction(row.index),
                "output_1": "x" * int(row.len_1),
                "generator_1": ALPACA_BASELINE,
                "dataset": "",
                "output_2": "y" * int(row.len_2),
                "generator_2": row.generator_2,
                "annotator": ANNOTATOR,
                "preference": None if pd.isna(row.preference) else float(row.preference),
            }
            for row in rows.itertuples(index=False)
        ]
        (target / "annotations.json").write_text(json.dumps(records, indent=2))
    if published:
        (folder / "published").mkdir(parents=True, exist_ok=True)
        shutil.copy(STATS / "alpaca_eval" / "leaderboard.csv", folder / "published" / LEADERBOARD)
    return folder


def alpaca_eval_difficulty(path: Path) -> Path:
    """The stand-in instruction difficulty of ``make_lc_reference.py``, keyed by item."""
    frame = pd.read_csv(STATS / "alpaca_eval" / "lc_standin_difficulty.csv")
    out = pd.DataFrame(
        {
            "item_id": frame["index"].map(instruction),
            "instruction_difficulty": frame["instruction_difficulty"],
        }
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    out.to_csv(path, index=False, float_format="%.17g", lineterminator="\n")
    return path


def alpaca_eval_gamed() -> Path:
    """The stand-in gamed-baseline rows of ``make_lc_reference.py`` (df_gamed.csv's columns)."""
    return STATS / "alpaca_eval" / "lc_standin_gamed.csv"


def arena_hard_folder(folder: Path, *, published: bool = True) -> Path:
    """Write the Arena-Hard fixture as a raw_dir (module docstring); return ``folder``."""
    judgments = pd.read_csv(STATS / "arena_hard" / "judgments.csv")
    target = folder / "arena_hard" / "ensemble"
    target.mkdir(parents=True, exist_ok=True)
    for model, rows in judgments.groupby("model", sort=False):
        lines = [
            json.dumps(
                {
                    "question_id": row.question_id,
                    "model": row.model,
                    "judge": row.judge,
                    "games": [{"score": row.game_1}, {"score": row.game_2}],
                }
            )
            for row in rows.itertuples(index=False)
        ]
        (target / f"{model}.jsonl").write_text("\n".join(lines) + "\n")
    if published:
        (folder / "published").mkdir(parents=True, exist_ok=True)
        shutil.copy(STATS / "arena_hard" / "published_no_control.csv", folder / "published")
    return folder


def reader_fixture_folder(folder: Path, fmt: str) -> Path:
    """``folder/<fmt>/`` with the readers' real fixture files of ``fmt`` (mt_bench,
    battles): enough for a dry run."""
    shutil.copytree(READERS / fmt, folder / fmt, dirs_exist_ok=True)
    return folder
