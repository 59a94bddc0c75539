"""Inspect logs, ``.eval`` or ``.json`` (:mod:`rederive.io.inspect_log`)."""

from __future__ import annotations

from pathlib import Path

from rederive.io import inspect_log
from rederive.io.formats import _sniff
from rederive.io.run_files import refuse_compressed
from rederive.io.zipread import ZipLimits
from rederive.lazy import pandas as pd

NAME = "inspect"
#: What the reader keeps as each sample's extracted answer (rederive.io.formats).
ANSWERS = "the scorer's answer (scores.<scorer>.answer: what it extracted and graded)"
#: Where it comes in the registry (searched, listed): rederive.io.plugins.
ORDER = 40

#: Its folder under raw_dir and what it holds (the schema's ``inputs.inspect``).
LAYOUT = "inspect/<name>.eval: Inspect logs, .eval (zip, deflate or zstd) or .json; inspect_ai is not needed."

#: The JSON Schema of its options, ``inspect:`` in an analysis (rederive.io.plugins).
OPTIONS = {
    "description": 'Inspect logs (inputs.inspect); logs whose status is not "success" are refused.',
    "type": "object",
    "default": {},
    "properties": {
        "scorer": {
            "description": "Inspect scorer to use (null = the log's single "
            "scorer; a log with several is refused, and a scorer "
            "the log lacks is an error listing its scorers).",
            "type": ["string", "null"],
            "default": None,
        },
        "category_field": {
            "description": "The sample.metadata key holding the item's category (null = none).",
            "type": ["string", "null"],
            "default": None,
        },
        "reducer": {
            "description": "Epochs reducer to honour (null = the log's single "
            "one); a reducer other than mean takes Inspect's "
            "own per-sample reductions.",
            "type": ["string", "null"],
            "default": None,
        },
    },
    "additionalProperties": False,
}

DESCRIPTION = "Inspect logs (.eval zips or .json), one task × model each"
# Files Inspect writes into a log folder that are not logs (inspect_ai/log/_file.py,
# _eval/evalset.py).
MANIFESTS = {"logs.json", "eval-set.json", "listing.json"}


def find_runs(folder: Path) -> list[tuple[str, Path]]:
    """Every ``.eval`` and ``.json`` log at any depth except Inspect's manifests.

    Any other ``.json`` there is read as a log and refused when it is not one:
    never skipped.
    """
    folder = Path(folder)
    refuse_compressed(folder, "inspect/")
    logs = [*folder.rglob("*.eval"), *folder.rglob("*.json")]
    return [
        (str(path.relative_to(folder).with_suffix("")), path)
        for path in sorted(p for p in logs if p.name not in MANIFESTS)
    ]


def detect(path: Path) -> bool:
    """An ``.eval`` zip, or a ``.json`` object opening with Inspect's ``version``/``status``/``eval``."""
    if path.name in MANIFESTS or not path.is_file():
        return False
    if path.suffix == ".eval":
        with open(path, "rb") as handle:
            return handle.read(4) == inspect_log.ZIP_MAGIC
    if path.suffix == ".json":
        keys = _sniff.json_keys(path)
        return keys is not None and {"version", "status", "eval"} <= keys
    return False


def files(path: Path) -> list[Path]:
    return [Path(path)]


def _options(params: dict) -> dict:
    options = params.get(NAME) or {}
    return {"scorer": options.get("scorer"), "reducer": options.get("reducer")}


def read(path: Path, *, params: dict, accounting) -> pd.DataFrame:
    return inspect_log.read_eval_log(
        path,
        **_options(params),
        category_field=(params.get(NAME) or {}).get("category_field"),
        limits=ZipLimits.from_params(params.get("zip_limits")),
        accounting=accounting,
    )


def reported(path: Path, *, params: dict) -> pd.DataFrame:
    """The accuracy Inspect reported for the scorer and reducer, then the pass@k and
    pass^k of its ``pass_at_{k}``/``pass_k_{k}`` reducers (checked against the
    sampling table's)."""
    limits = ZipLimits.from_params(params.get("zip_limits"))
    options = _options(params)
    accuracy = inspect_log.reported_scores(path, **options, limits=limits)
    sampling = inspect_log.reported_sampling_scores(path, scorer=options["scorer"], limits=limits)
    frames = [f for f in (accuracy, sampling) if not f.empty]
    return pd.concat(frames, ignore_index=True) if frames else accuracy
