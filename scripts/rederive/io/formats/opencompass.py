"""Reader for OpenCompass evaluation results, ``results/<model>/<dataset>.json``.

``opencompass <config>`` writes into its work dir (``outputs/default/<ts>/``)
``predictions/<model>/<dataset>.json`` (the model's outputs), then
``results/<model>/<dataset>.json`` (``OpenICLEvalTask._save_results``): the
evaluator's scores (``accuracy``, ``score``, … in percent; with ``n`` > 1
replicas ``<metric> (<n> runs average)``) and, with ``--dump-eval-details``
(the default since 0.4), ``details``. ``BaseEvaluator.evaluate`` writes
``details`` as a list with one entry per example::

    {"example_abbr": "<dataset>_<idx>", "pred": [...], "answer": [...],
     "correct": [true, false, ...]}

where each field lists the ``n`` replicas of the example (the dataset repeated
``n`` times, ``dataset_cfg.n``) and ``example_abbr`` is the dataset's
``subdivision`` and the example's row index ``idx``, both added by
``BaseDataset``. Evaluators that return no details get OpenCompass's own
``format_details`` instead, an object keyed by row index whose generation form
carries no grade; it is refused.

How it is read:

* model = the ``<model>`` folder (the model's ``abbr``); task = the file stem
  (the dataset's ``abbr``); item = ``example_abbr``; epochs = the ``n``
  replicas, in order.
* the grade is the ``correct`` list (``opencompass.correct_field``; null = the
  first of ``correct``, ``is_correct``, ``cascade_correct`` the details have,
  the order ``BaseEvaluator`` counts them in); a null grade is a counted
  exclusion, a file without details is refused (re-run with
  ``--dump-eval-details``).
* reported: the result's ``opencompass.metric`` (null = ``accuracy``, else
  ``score``, or their ``(<n> runs average)`` form), divided by 100.

``predictions/``, ``configs/``, ``logs/`` and ``summary/`` of a work dir are known
non-run files.

References
----------
open-compass/opencompass ``opencompass/tasks/openicl_eval.py`` (result file,
``format_details``), ``opencompass/openicl/icl_evaluator/icl_base_evaluator.py``
(``evaluate``: replicas, details), ``opencompass/datasets/base.py``
(``subdivision``, ``idx``).
"""

from __future__ import annotations

import re
from pathlib import Path

from rederive.errors import InputError, relpath
from rederive.io.accounting import Accounting
from rederive.io.formats._readkit import field, files_under, head, json_object, reported_frame
from rederive.io.tabular import frame_from_records, graded_row, parse_correct
from rederive.lazy import pandas as pd

NAME = "opencompass"
#: Where it comes in the registry (searched, listed): rederive.io.plugins.
ORDER = 110

#: Its folder under raw_dir and what it holds (the schema's ``inputs.opencompass``).
LAYOUT = "opencompass/: OpenCompass work dirs (results/<model>/<dataset>.json with details)."

#: The JSON Schema of its options, ``opencompass:`` in an analysis (rederive.io.plugins).
OPTIONS = {
    "description": "OpenCompass work dirs (inputs.opencompass).",
    "type": "object",
    "default": {},
    "properties": {
        "correct_field": {
            "description": "Field of each details entry that grades it "
            "(null = the first of correct, is_correct, "
            "cascade_correct present).",
            "type": ["string", "null"],
            "default": None,
        },
        "metric": {
            "description": "Score of the results file compared in the published "
            "check, in percent (null = accuracy, else score, or "
            'their "(<n> runs average)" form).',
            "type": ["string", "null"],
            "default": None,
        },
    },
    "additionalProperties": False,
}

DESCRIPTION = "OpenCompass results/<model>/<dataset>.json with per-example details"

CORRECT_FIELDS = ("correct", "is_correct", "cascade_correct")
METRICS = ("accuracy", "score")
# Folders of an OpenCompass work dir that hold no results.
WORK_DIRS = {"predictions", "configs", "logs", "summary", "tmp"}
RESULTS = "results"
_FIRST_VALUE_NUMBER = re.compile(r'^\{\s*"(?:[^"\\]|\\.)*"\s*:\s*-?[0-9]')


def _is_result(path: Path) -> bool:
    return path.suffix == ".json" and path.parent.parent.name == RESULTS


def find_runs(folder: Path) -> list[tuple[str, Path]]:
    """Each ``results/<model>/<dataset>.json`` below ``folder`` is one run, ``<model>/<dataset>``.

    ``folder`` may be ``outputs/``, one work dir or its ``results/``. Files under
    a work dir's ``predictions/``, ``configs/``, ``logs/``, ``summary/`` are known;
    any other file is an :class:`InputError` naming it.
    """
    folder = Path(folder)
    runs = []
    for path in files_under(folder):
        if path.name.startswith("."):
            continue
        if _is_result(path):
            runs.append((f"{path.parent.name}/{path.stem}", path))
            continue
        parts = path.relative_to(folder).parts[:-1]
        if any(part in WORK_DIRS for part in parts):
            continue
        raise InputError(
            "not an OpenCompass results/<model>/<dataset>.json nor a file of its work dir "
            "(predictions/, configs/, logs/, summary/): move it out of the input folder",
            file=relpath(path),
        )
    prefix = len({run.parent.parent for _, run in runs}) > 1
    named = [
        (str(run.parent.parent.parent.relative_to(folder) / name) if prefix else name, run)
        for name, run in runs
    ]
    return sorted(named)


def detect(path: Path) -> bool:
    """A ``.json`` under ``results/<model>/`` that opens with a score or has ``details``."""
    path = Path(path)
    if not path.is_file() or not _is_result(path):
        return False
    text = head(path).decode("utf-8", errors="replace").lstrip()
    return text.startswith("{") and ('"details"' in text or bool(_FIRST_VALUE_NUMBER.match(text)))


def files(path: Path) -> list[Path]:
    """The results file (the predictions' text is in its details)."""
    return [Path(path)]


def _options(params: dict) -> dict:
    return dict(params.get(NAME) or {})


def _entries(details, *, file: str) -> list[tuple[str, dict, str]]:
    """``(item, entry, where)`` for each example of the details list."""
    if isinstance(details, dict):
        raise InputError(
            "details in OpenCompass's format_details layout (an object keyed by row index, "
            "written when the evaluator grades no example itself) are not read: its generation "
            "form has no grade; use an evaluator that returns details",
            file=file,
            field="details",
        )
    if not isinstance(details, list):
        raise InputError(f"expected a list, got {details!r:.60}", file=file, field="details")
    found = []
    for number, entry in enumerate(details):
        where = f"details[{number}]."
        item = field(entry, "example_abbr", (str, int), file=file, where=where)
        found.append((str(item), entry, where))
    return found


def _correct_field(entries, chosen: str | None, *, file: str) -> str:
    present = {k for _, entry, _ in entries if isinstance(entry, dict) for k in entry}
    candidates = [chosen] if chosen else list(CORRECT_FIELDS)
    for name in candidates:
        if name in present:
            return name
    raise InputError(
        f"the details have none of {candidates} (their fields: {sorted(present)}): the evaluator "
        "did not grade each example; set opencompass.correct_field to the field that does",
        file=file,
        field="details",
    )


def read(path: Path, *, params: dict, accounting: Accounting) -> pd.DataFrame:
    """Read one OpenCompass results file into the long reader frame.

    Parameters
    ----------
    path : Path
        ``results/<model>/<dataset>.json``.
    params : dict
        ``params["opencompass"]["correct_field"]`` (null: ``correct``, then
        ``is_correct``, ``cascade_correct``).
    accounting : Accounting
        One row read per (example, replica); null grades are counted exclusions.

    Returns
    -------
    DataFrame
        :data:`rederive.io.tabular.COLUMNS` plus ``metric`` (the grade field).
    """
    path = Path(path)
    name = relpath(path)
    result = json_object(path)
    if "details" not in result:
        raise InputError(
            "no per-example details in this result: run opencompass with --dump-eval-details "
            "(the default since 0.4)",
            file=name,
            field="details",
        )
    entries = _entries(result["details"], file=name)
    if not entries:
        raise InputError("details are empty", file=name, field="details")
    grade = _correct_field(entries, _options(params).get("correct_field"), file=name)
    model, task = path.parent.name, path.stem
    records, seen = [], {}
    for item, entry, where in entries:
        if item in seen:
            raise InputError(
                f"example {item!r} already appears at {seen[item]}",
                file=name,
                field=f"{where}example_abbr",
            )
        seen[item] = where.rstrip(".")
        if grade not in entry:
            raise InputError("grade missing for this example", file=name, field=f"{where}{grade}")
        grades = entry[grade]
        replicas = grades if isinstance(grades, list) else [grades]
        if not replicas:
            raise InputError("no grade in the list", file=name, field=f"{where}{grade}")
        predictions = entry.get("pred", entry.get("predictions"))
        if not isinstance(predictions, list):
            predictions = [predictions] * len(replicas)
        for epoch, value in enumerate(replicas, start=1):
            accounting.rows_read += 1
            score = parse_correct(value, file=name, line=None, field=f"{where}{grade}[{epoch - 1}]")
            if score is None:
                accounting.exclude(f"missing grade ({grade} is null)")
                continue
            accounting.rows_used += 1
            response = predictions[epoch - 1] if epoch - 1 < len(predictions) else None
            records.append(
                graded_row(
                    model,
                    task,
                    item,
                    score,
                    name,
                    epoch=epoch,
                    response=response if isinstance(response, str) else None,
                )
            )
    frame = frame_from_records(records)
    frame["metric"] = pd.array([grade] * len(frame), dtype="string")
    return frame


def reported(path: Path, *, params: dict) -> pd.DataFrame:
    """The evaluator's score in the results file, as a fraction (OpenCompass writes percent)."""
    path = Path(path)
    result = json_object(path)
    chosen = _options(params).get("metric")
    candidates = [chosen] if chosen else list(METRICS)
    for metric in candidates:
        keys = [
            key
            for key in result
            if key == metric or re.fullmatch(rf"{re.escape(metric)} \(\d+ runs average\)", key)
        ]
        values = [result[k] for k in keys]
        if (
            len(keys) == 1
            and isinstance(values[0], int | float)
            and not isinstance(values[0], bool)
        ):
            return reported_frame(
                [
                    {
                        "model": path.parent.name,
                        "task": path.stem,
                        "metric": keys[0],
                        "filter": "",
                        "value": float(values[0]) / 100.0,
                        "file": relpath(path),
                    }
                ]
            )
    return reported_frame([])
