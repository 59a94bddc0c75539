"""lm-evaluation-harness ``--log_samples`` model folders (:mod:`rederive.io.lm_eval`).

One run is one model folder: ``results_<datetime>.json`` plus
``samples_<task>_<datetime>.jsonl`` (lm-eval ≥ 0.4.3), ``.json`` (lm-eval's
development versions of May-June 2024, the Open LLM Leaderboard v2 details) or lmms-eval's ``<datetime>_results.json`` and
``<datetime>_samples_<task>.jsonl``.
"""

from __future__ import annotations

from pathlib import Path

from rederive.io import lm_eval as reader
from rederive.io.run_files import refuse_compressed
from rederive.lazy import pandas as pd

NAME = "lm_eval"
#: What the reader keeps as each sample's extracted answer (rederive.io.formats).
ANSWERS = (
    "filtered_resps, the chosen filter's output (generation tasks; loglikelihood tasks "
    "log scores there, not an answer)"
)
#: Where it comes in the registry (searched, listed): rederive.io.plugins.
ORDER = 30

#: Its folder under raw_dir and what it holds (the schema's ``inputs.lm_eval``).
LAYOUT = "lm_eval/<model>/: lm-evaluation-harness --output_path with --log_samples."

#: The JSON Schema of its options, ``lm_eval:`` in an analysis (rederive.io.plugins).
OPTIONS = {
    "description": "lm-evaluation-harness samples files (inputs.lm_eval).",
    "type": "object",
    "default": {},
    "properties": {
        "filter": {
            "description": "The filter whose lines are scored (null = the "
            "single filter of each samples file; a file with "
            "several filters is refused).",
            "type": ["string", "null"],
            "default": None,
        },
        "metrics": {
            "description": "Per-sample metrics to score by, the first one "
            "present in a line wins: acc before acc_norm where "
            "a task logs both (hellaswag, arc); acc_norm alone "
            "on the Open LLM Leaderboard's bbh, gpqa and musr; "
            "exact_match on generation tasks; "
            "prompt_level_strict_acc, ifeval's prompt-level "
            "strict accuracy (one item = one prompt).",
            "type": "array",
            "items": {"type": "string"},
            "minItems": 1,
            "default": ["acc", "acc_norm", "exact_match", "prompt_level_strict_acc"],
        },
    },
    "additionalProperties": False,
}

DESCRIPTION = (
    "lm-evaluation-harness / lmms-eval --output_path model folders "
    "(results_<datetime>.json + samples_<task>_<datetime>.jsonl)"
)


def find_runs(folder: Path) -> list[tuple[str, Path]]:
    """Every folder holding a samples file, at any depth, named by its relative path.

    Both ``<out>/`` and a single ``<out>/<model>/`` can be pointed at; the folder
    itself is then named by its own name.
    """
    folder = Path(folder)
    refuse_compressed(folder, "lm_eval/")
    found = sorted({p.parent for p in folder.rglob("*.json*") if reader.samples_match(p.name)})
    runs = []
    for path in found:
        rel = path.relative_to(folder)
        runs.append((str(rel) if str(rel) != "." else path.name, path))
    return runs


def detect(path: Path) -> bool:
    """A folder with a results file and a samples file of lm-eval or lmms-eval naming."""
    if not path.is_dir():
        return False
    names = [p.name for p in path.iterdir() if p.is_file()]
    return any(reader.samples_match(n) for n in names) and any(
        reader.results_match(n) for n in names
    )


def files(path: Path) -> list[Path]:
    return sorted(
        p for p in Path(path).iterdir() if p.is_file() and p.suffix in {".json", ".jsonl"}
    )


def _options(params: dict) -> dict:
    options = params.get(NAME) or {}
    return {
        "filter_name": options.get("filter"),
        "metrics": list(options.get("metrics") or reader.DEFAULT_METRICS),
    }


def read(path: Path, *, params: dict, accounting) -> pd.DataFrame:
    return reader.read_lm_eval_model_dir(path, **_options(params), accounting=accounting)


def reported(path: Path, *, params: dict) -> pd.DataFrame:
    return reader.reported_scores(path, **_options(params))
