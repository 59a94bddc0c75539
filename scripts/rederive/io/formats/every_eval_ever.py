"""Every Eval Ever instance-level JSONL (``schema_version`` 0.3.0).

The Every Eval Ever datastore keeps, per evaluation, an aggregate ``<uuid>.json``
(``evaluation_results[]`` with ``evaluation_result_id``, ``metric_config``,
``score_details.score``) and its companion ``<uuid>_samples.jsonl``, one line per
instance: ``schema_version, evaluation_id, model_id, evaluation_name,
evaluation_result_id, sample_id, sample_hash, …, evaluation{score, is_correct}``
(``every_eval_ever/schemas/instance_level_eval.schema.json``). One run is one
samples file; its aggregate, when beside it, is part of the run.

How it is read: model = ``model_id``, task = ``evaluation_name``, item =
``sample_id`` (``sample_hash``, the hash of input and reference, is kept as the
document hash, so the warehouse refuses two models scored on different documents
under one id). The grade is ``evaluation.is_correct`` (``every_eval_ever.score:
is_correct``, the default) or ``evaluation.score`` (``score``; it must lie in
[0, 1]). A null grade is the counted exclusion ``missing score``. Several lines
for one (model, evaluation, sample) are refused: Every Eval Ever writes one line
per sample and aggregate result, so a repeat is another metric
(``evaluation_result_id``) or a duplicate, not an epoch.

The reported aggregate is the ``score_details.score`` of the aggregate's result
whose ``evaluation_result_id`` the samples name (the harness's own accuracy when
it was converted from one).
"""

from __future__ import annotations

from pathlib import Path

from rederive.errors import InputError, relpath
from rederive.io.formats import _sniff
from rederive.io.jsonl import iter_jsonl, require_fields, require_id, require_unique
from rederive.io.source import read_json
from rederive.io.tabular import count_score, frame_from_records, graded_row, parse_correct
from rederive.lazy import pandas as pd

NAME = "every_eval_ever"
#: Where it comes in the registry (searched, listed): rederive.io.plugins.
ORDER = 60

#: Its folder under raw_dir and what it holds (the schema's ``inputs.every_eval_ever``).
LAYOUT = "every_eval_ever/**/<uuid>_samples.jsonl: Every Eval Ever instance-level files."

#: The JSON Schema of its options, ``every_eval_ever:`` in an analysis (rederive.io.plugins).
OPTIONS = {
    "description": "Every Eval Ever instance-level files (inputs.every_eval_ever).",
    "type": "object",
    "default": {},
    "properties": {
        "score": {
            "description": "Field of each instance's evaluation object graded -- "
            "is_correct (boolean) or score (must lie in [0, 1]).",
            "enum": ["is_correct", "score"],
            "default": "is_correct",
        }
    },
    "additionalProperties": False,
}

DESCRIPTION = "Every Eval Ever instance-level <uuid>_samples.jsonl (schema_version 0.3.x)"
SUFFIX = "_samples.jsonl"
REQUIRED = ("schema_version", "model_id", "evaluation_name", "sample_id", "evaluation")
SCHEMA_MAJOR_MINOR = "0.3"
DEFAULTS = {"score": "is_correct"}


def aggregate_of(path: Path) -> Path:
    """``<uuid>.json`` beside ``<uuid>_samples.jsonl``."""
    return Path(path).with_name(Path(path).name.removesuffix(SUFFIX) + ".json")


def find_runs(folder: Path) -> list[tuple[str, Path]]:
    """Every ``*_samples.jsonl`` at any depth, named by its path without the suffix.

    An aggregate ``<uuid>.json`` beside its samples file is part of that run; any
    other file is refused (an aggregate alone has no instance to read).
    """
    folder = Path(folder)
    runs = sorted(p for p in folder.rglob(f"*{SUFFIX}") if p.is_file())
    claimed = {p.resolve() for run in runs for p in files(run)}
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        if path.resolve() not in claimed and not path.name.startswith("."):
            raise InputError(
                "not an Every Eval Ever samples file (<uuid>_samples.jsonl) nor the aggregate "
                "beside one: an aggregate without instance-level samples cannot be read item "
                "by item; move it out of the folder",
                file=relpath(path),
            )
    return [(str(p.relative_to(folder)).removesuffix(SUFFIX), p) for p in runs]


def detect(path: Path) -> bool:
    if not path.name.endswith(".jsonl"):
        return False
    record = _sniff.first_json_line(path)
    return record is not None and set(REQUIRED) <= set(record)


def files(path: Path) -> list[Path]:
    aggregate = aggregate_of(path)
    return [Path(path), aggregate] if aggregate.is_file() else [Path(path)]


def _options(params: dict) -> dict:
    return DEFAULTS | (params.get(NAME) or {})


def read(path: Path, *, params: dict, accounting) -> pd.DataFrame:
    name = relpath(path)
    field = _options(params)["score"]
    records = []
    seen: dict[tuple, int] = {}
    for number, record in iter_jsonl(path):
        accounting.rows_read += 1
        require_fields(record, REQUIRED, file=name, line=number)
        version = str(record["schema_version"])
        if version.rsplit(".", 1)[0] != SCHEMA_MAJOR_MINOR:
            raise InputError(
                f"schema_version {version!r} is not {SCHEMA_MAJOR_MINOR}.x, the version read here",
                file=name,
                line=number,
                field="schema_version",
            )
        model = require_id(record, "model_id", file=name, line=number)
        task = require_id(record, "evaluation_name", file=name, line=number)
        item = require_id(record, "sample_id", file=name, line=number)
        require_unique(
            seen,
            (model, task, item),
            file=name,
            line=number,
            field="sample_id",
            message="(model_id, evaluation_name, sample_id) = {key} already on line {first}: "
            "one line per sample is read (another evaluation_result_id is another metric)",
        )
        evaluation = record["evaluation"]
        if not isinstance(evaluation, dict):
            raise InputError("expected an object", file=name, line=number, field="evaluation")
        if field not in evaluation:
            raise InputError(
                "required field is missing", file=name, line=number, field=f"evaluation.{field}"
            )
        score = parse_correct(
            evaluation[field], file=name, line=number, field=f"evaluation.{field}"
        )
        if not count_score(
            accounting, score, f"missing score (evaluation.{field} is null)", number
        ):
            continue
        digest = record.get("sample_hash")
        records.append(
            graded_row(
                model,
                task,
                item,
                score,
                name,
                line=number,
                category=task,
                doc_hash=str(digest) if digest else None,
            )
        )
    if accounting.rows_read == 0:
        raise InputError("no instance lines in this file", file=name)
    return frame_from_records(records)


def reported(path: Path, *, params: dict) -> pd.DataFrame:
    """The aggregate's score for each (model, evaluation, result id) the samples name."""
    columns = ["model", "task", "metric", "filter", "value", "file"]
    aggregate = aggregate_of(path)
    if not aggregate.is_file():
        return pd.DataFrame(columns=columns)
    wanted = set()
    for _, record in iter_jsonl(path):
        if isinstance(record.get("model_id"), str) and isinstance(
            record.get("evaluation_name"), str
        ):
            wanted.add(
                (record["model_id"], record["evaluation_name"], record.get("evaluation_result_id"))
            )
    document = read_json(aggregate)
    name = relpath(aggregate)
    if not isinstance(document, dict) or not isinstance(document.get("evaluation_results"), list):
        raise InputError("expected an object with evaluation_results", file=name)
    rows = []
    for model, task, result_id in sorted(wanted, key=str):
        matches = [
            r
            for r in document["evaluation_results"]
            if isinstance(r, dict)
            and r.get("evaluation_name") == task
            and (result_id is None or r.get("evaluation_result_id") == result_id)
        ]
        if len(matches) != 1:
            continue
        value = (matches[0].get("score_details") or {}).get("score")
        if isinstance(value, bool) or not isinstance(value, int | float):
            continue
        metric = (matches[0].get("metric_config") or {}).get("metric_id") or result_id or ""
        rows.append(
            {
                "model": model,
                "task": task,
                "metric": metric,
                "filter": result_id or "",
                "value": float(value),
                "file": name,
            }
        )
    return pd.DataFrame(rows, columns=columns)
