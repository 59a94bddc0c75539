"""SWE-bench harness run reports, ``<model>.<run_id>.json``.

``python -m swebench.harness.run_evaluation --run_id R`` ends by writing
``<model_name_or_path with / as __>.<R>.json`` (``make_run_report`` in
``swebench/harness/reporting.py``, ``schema_version`` 2): counts and sorted id lists
``resolved_ids``, ``unresolved_ids``, ``error_ids``, ``empty_patch_ids``,
``incomplete_ids`` (instances of the evaluated dataset with no prediction),
``completed_ids``, ``submitted_ids`` and ``total_instances`` = the size of the
evaluated dataset (all of it, or the ``--instance_ids`` asked for).

How it is read (one row per instance of ``total_instances``, task
``swebench.task``, default ``swe-bench``):

* resolved → 1; unresolved, error (the evaluation failed: patch did not apply,
  timeout, broken report) and empty patch → 0, as the SWE-bench leaderboard counts
  them (its score is resolved / total);
* incomplete (no prediction submitted) → 0 with ``swebench.incomplete:
  unresolved`` (the default, the same resolved / total), or the counted exclusion
  ``no prediction (incomplete_ids)`` with ``exclude`` (accuracy over the
  submitted instances; the harness check then shows the difference);
* a submitted id outside the evaluated dataset (predictions for the whole
  benchmark, evaluated with ``--instance_ids``) is the counted exclusion
  ``prediction not evaluated (not in total_instances)``.

Refused, naming the instance: an id in two outcome lists; an id in
``completed_ids`` in none of resolved / unresolved / error; ``total_instances``
differing from the number of instances the lists name (an instance counted in the
denominator but named nowhere cannot be scored, nor left out silently).

The model is the file name before its last ``.`` (the run id must not contain a
dot); ``__`` stays as the harness wrote it. The reported aggregate is
``resolved_instances / total_instances``.
"""

from __future__ import annotations

from pathlib import Path

from rederive.errors import InputError, relpath
from rederive.io.formats import _sniff
from rederive.io.source import read_json
from rederive.io.tabular import frame_from_records, graded_row
from rederive.lazy import pandas as pd

NAME = "swebench"
#: Where it comes in the registry (searched, listed): rederive.io.plugins.
ORDER = 50

#: Its folder under raw_dir and what it holds (the schema's ``inputs.swebench``).
LAYOUT = "swebench/<model>.<run_id>.json: SWE-bench harness run reports."

#: The JSON Schema of its options, ``swebench:`` in an analysis (rederive.io.plugins).
OPTIONS = {
    "description": "SWE-bench harness run reports (inputs.swebench).",
    "type": "object",
    "default": {},
    "properties": {
        "task": {
            "description": "Task name of every instance of a SWE-bench run report "
            "(the report does not name its dataset).",
            "type": "string",
            "minLength": 1,
            "default": "swe-bench",
        },
        "incomplete": {
            "description": "Instances of the evaluated dataset without a "
            "prediction (incomplete_ids) -- unresolved (0, "
            "the leaderboard's resolved / total_instances) "
            "or exclude (a counted exclusion).",
            "enum": ["unresolved", "exclude"],
            "default": "unresolved",
        },
    },
    "additionalProperties": False,
}

DESCRIPTION = "SWE-bench harness run reports <model>.<run_id>.json (schema_version 2)"
SCHEMA_VERSION = 2
# The outcome of every evaluated instance, and its score (the leaderboard's).
OUTCOMES = (
    ("resolved_ids", 1.0),
    ("unresolved_ids", 0.0),
    ("error_ids", 0.0),
    ("empty_patch_ids", 0.0),
)
INCOMPLETE = "incomplete_ids"
EXCLUDED_INCOMPLETE = "no prediction (incomplete_ids)"
NOT_EVALUATED = "prediction not evaluated (not in total_instances)"
DEFAULTS = {"task": "swe-bench", "incomplete": "unresolved"}


def find_runs(folder: Path) -> list[tuple[str, Path]]:
    """Every ``*.json`` of the folder, named by file stem; any other file is refused."""
    runs = []
    for path in sorted(Path(folder).iterdir()):
        if path.name.startswith("."):
            continue
        if path.suffix != ".json" or not path.is_file():
            raise InputError(
                "not a SWE-bench run report (<model>.<run_id>.json): move it out of the folder",
                file=relpath(path),
            )
        runs.append((path.stem, path))
    return runs


def detect(path: Path) -> bool:
    """A ``.json`` object opening with the report's ``total_instances``, ``submitted_instances``."""
    if path.suffix != ".json":
        return False
    keys = _sniff.json_keys(path)
    return keys is not None and {"total_instances", "submitted_instances"} <= keys


def files(path: Path) -> list[Path]:
    return [Path(path)]


def model_name(path: Path) -> str:
    """``<model>`` of ``<model>.<run_id>.json``."""
    stem = Path(path).stem
    model, dot, _ = stem.rpartition(".")
    if not dot or not model:
        raise InputError(
            "the file name must be <model>.<run_id>.json, as the harness writes it",
            file=relpath(path),
        )
    return model


def _options(params: dict) -> dict:
    return DEFAULTS | (params.get(NAME) or {})


def _ids(report: dict, key: str, *, file: str, required: bool = True) -> list[str]:
    if key not in report:
        if required:
            raise InputError("required field is missing", file=file, field=key)
        return []
    value = report[key]
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise InputError("expected a list of instance ids", file=file, field=key)
    return value


def load(path: Path) -> dict:
    """The report, its schema version and counts checked."""
    name = relpath(path)
    report = read_json(path)
    if not isinstance(report, dict):
        raise InputError("expected a JSON object (a SWE-bench run report)", file=name)
    if report.get("schema_version") != SCHEMA_VERSION:
        raise InputError(
            f"schema_version {report.get('schema_version')!r} is not {SCHEMA_VERSION} "
            "(the report swebench.harness.run_evaluation writes since swebench 2.1)",
            file=name,
            field="schema_version",
        )
    total = report.get("total_instances")
    if isinstance(total, bool) or not isinstance(total, int) or total < 0:
        raise InputError(
            f"total_instances {total!r} is not a whole number", file=name, field="total_instances"
        )
    return report


def outcomes(report: dict, *, file: str) -> dict[str, str]:
    """Each evaluated instance and the list naming it (``resolved_ids``, …, ``incomplete_ids``)."""
    where: dict[str, str] = {}
    for key in [k for k, _ in OUTCOMES] + [INCOMPLETE]:
        for instance in _ids(
            report, key, file=file, required=key != "empty_patch_ids" and key != INCOMPLETE
        ):
            if instance in where:
                raise InputError(
                    f"instance {instance!r} is in both {where[instance]} and {key}",
                    file=file,
                    field=key,
                )
            where[instance] = key
    graded = {"resolved_ids", "unresolved_ids", "error_ids"}
    for instance in _ids(report, "completed_ids", file=file, required=False):
        if where.get(instance) not in graded:
            raise InputError(
                f"instance {instance!r} is in completed_ids but in none of resolved_ids, "
                "unresolved_ids, error_ids: the report is inconsistent",
                file=file,
                field="completed_ids",
            )
    total = report["total_instances"]
    if len(where) != total:
        raise InputError(
            f"total_instances is {total} but the report names {len(where)} instances in "
            "resolved_ids, unresolved_ids, error_ids, empty_patch_ids and incomplete_ids: "
            f"{abs(total - len(where))} instance(s) of the denominator cannot be scored "
            "(re-run swebench.harness.run_evaluation to rewrite the report)",
            file=file,
            field="total_instances",
        )
    return where


def read(path: Path, *, params: dict, accounting) -> pd.DataFrame:
    name = relpath(path)
    options = _options(params)
    report = load(path)
    model = model_name(path)
    where = outcomes(report, file=name)
    score = dict(OUTCOMES)
    records = []
    counted: dict[str, int] = {}
    for instance in sorted(where):
        accounting.rows_read += 1
        key = where[instance]
        if key == INCOMPLETE and options["incomplete"] == "exclude":
            accounting.exclude(EXCLUDED_INCOMPLETE)
            continue
        counted[key] = counted.get(key, 0) + 1
        accounting.rows_used += 1
        records.append(
            graded_row(
                model,
                options["task"],
                instance,
                score.get(key, 0.0),
                name,
                # The repository (django__django of django__django-11099): SWE-bench
                # reports per repository, and instances of one repository cluster.
                category=instance.rsplit("-", 1)[0],
            )
        )
    for _instance in sorted(
        set(_ids(report, "submitted_ids", file=name, required=False)) - set(where)
    ):
        accounting.rows_read += 1
        accounting.exclude(NOT_EVALUATED)
    accounting.notes.append(
        f"{Path(path).name}: total_instances={report['total_instances']}; scored "
        + ", ".join(f"{key.removesuffix('_ids')}={n}" for key, n in sorted(counted.items()))
        + " (resolved = 1, every other outcome = 0, as the SWE-bench leaderboard)"
    )
    if not records:
        raise InputError("the report scores no instance", file=name, field="total_instances")
    return frame_from_records(records)


def reported(path: Path, *, params: dict) -> pd.DataFrame:
    """``resolved_instances / total_instances``: the harness's count over its denominator."""
    report = load(path)
    name = relpath(path)
    resolved = report.get("resolved_instances")
    if isinstance(resolved, bool) or not isinstance(resolved, int):
        raise InputError(
            f"resolved_instances {resolved!r} is not a whole number",
            file=name,
            field="resolved_instances",
        )
    rows = []
    if report["total_instances"] > 0:
        rows.append(
            {
                "model": model_name(path),
                "task": _options(params)["task"],
                "metric": "resolved",
                "filter": "total_instances",
                "value": resolved / report["total_instances"],
                "file": name,
            }
        )
    return pd.DataFrame(rows, columns=["model", "task", "metric", "filter", "value", "file"])
