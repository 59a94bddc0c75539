"""Reader for lighteval ``--save-details`` output.

``lighteval … --output-dir <out> --save-details`` writes, per run (one model at
one time), ``<out>/results/<model>/results_<ts>.json`` (``results[task][metric]``
aggregates, ``config_general.model_name``) and
``<out>/details/<model>/<ts>/details_<task>_<ts>.parquet``, one row per
evaluated document with three struct columns (``EvaluationTracker.save``,
``DetailsLogger.Detail``):

* ``doc``: the :class:`lighteval.tasks.requests.Doc` (``query``, ``choices``,
  ``gold_index``, ``id``, ``task_name``, …);
* ``model_response``: ``text``, ``text_post_processed``, ``logprobs``, …;
* ``metric``: the task's sample-level metrics, e.g. ``{"acc": 1}``.

``<task>`` is lighteval's task key, ``<name>|<few-shot>`` (``suite|name|few-shot`` in
older releases), and ``<ts>`` is ``datetime.now().isoformat()`` with ``:`` as ``-``,
shared by the results file and the details folder of one run.

**Item key.** ``EvaluationTracker.save`` drops a top-level ``id`` column before
writing the details, so there is no row id. The key used is ``doc.id``, which
``LightevalTask.get_docs`` sets to the document's row index in its evaluation
split (``str(ix)``) and which the ``doc`` struct keeps; it is stable across
models and runs of one dataset revision. A ``doc.id`` repeated in one file (a
task evaluated on several splits, or ``num_fewshot_seeds`` > 1, both of which
restart or repeat it) is refused. ``doc_hash`` (SHA-256 of query, choices and
gold index) lets the warehouse step check that every model saw the same
document under that key.

**Metric.** ``lighteval.metrics`` (first one the task's ``metric`` struct has);
null = the task's only metric, and a task with several is refused naming them.
The metric's value must lie in [0, 1]; a null value is a counted exclusion.
``line`` is the row's 1-based position in the parquet file. The published check
compares each task's accuracy with ``results[task][metric]``.

References
----------
huggingface/lighteval ``src/lighteval/logging/evaluation_tracker.py`` (files,
dropped ``id``), ``logging/info_loggers.py`` (``Detail``),
``tasks/lighteval_task.py`` (``doc.id``).
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from rederive.errors import InputError, relpath
from rederive.io.accounting import Accounting
from rederive.io.formats._readkit import field, files_under, head, json_object, reported_frame
from rederive.io.source import check_file
from rederive.io.tabular import frame_from_records, graded_row, parse_correct
from rederive.lazy import pandas as pd

NAME = "lighteval"
#: Where it comes in the registry (searched, listed): rederive.io.plugins.
ORDER = 100

#: Its folder under raw_dir and what it holds (the schema's ``inputs.lighteval``).
LAYOUT = "lighteval/: lighteval --output-dir with --save-details (details/, results/)."

#: The JSON Schema of its options, ``lighteval:`` in an analysis (rederive.io.plugins).
OPTIONS = {
    "description": "lighteval details (inputs.lighteval).",
    "type": "object",
    "default": {},
    "properties": {
        "metrics": {
            "description": "Sample-level metrics to score by, first one a task "
            "logs wins (null = the task's only metric; a task "
            "logging several is refused, naming them).",
            "type": ["array", "null"],
            "items": {"type": "string"},
            "minItems": 1,
            "default": None,
        }
    },
    "additionalProperties": False,
}

DESCRIPTION = "lighteval --save-details output (details/<model>/<ts>/details_<task>_<ts>.parquet)"

STAMP = r"\d{4}-\d{2}-\d{2}T[0-9.\-]+"
DETAILS_RE = re.compile(rf"^details_(?P<task>.+)_(?P<stamp>{STAMP})\.parquet$")
RESULTS_RE = re.compile(rf"^results_(?P<stamp>{STAMP})\.json$")
STAMP_RE = re.compile(rf"^{STAMP}$")
COLUMNS = ("doc", "metric", "model_response")
PARQUET_MAGIC = b"PAR1"


def _details(folder: Path) -> list[tuple[str, Path]]:
    """``(task, path)`` of the details files of a run folder whose stamp is the folder's."""
    found = []
    for path in sorted(Path(folder).iterdir()):
        match = DETAILS_RE.match(path.name)
        if match and match["stamp"] == Path(folder).name and path.is_file():
            found.append((match["task"], path))
    return found


def _layout(run: Path) -> tuple[str, Path | None]:
    """The model (path under ``details/``) and the run's results file, if lighteval wrote one."""
    run = Path(run)
    for ancestor in run.parents:
        if ancestor.name == "details":
            model = run.parent.relative_to(ancestor).as_posix()
            results = ancestor.parent / "results" / model / f"results_{run.name}.json"
            return model, (results if results.is_file() else None)
    return run.parent.name, None


def find_runs(folder: Path) -> list[tuple[str, Path]]:
    """Every ``details/<model>/<ts>/`` folder below ``folder`` is one run, named ``<model>/<ts>``.

    A ``results_<ts>.json`` belongs to the run of the same model and stamp; one
    without details (run without ``--save-details``) and any other file are an
    :class:`InputError` naming it.
    """
    folder = Path(folder)
    found = files_under(folder)
    runs = sorted({p.parent for p in found if _is_details_file(p)})
    claimed = {path for run in runs for path in files(run)}
    for path in found:
        if path in claimed or path.name.startswith("."):
            continue
        if RESULTS_RE.match(path.name):
            raise InputError(
                "lighteval results without their details: run lighteval with --save-details, or "
                "move the file out of the input folder",
                file=relpath(path),
            )
        raise InputError(
            "not a lighteval details or results file (details/<model>/<ts>/"
            "details_<task>_<ts>.parquet): move it out of the input folder",
            file=relpath(path),
        )
    return sorted((_layout(run)[0] + "/" + run.name, run) for run in runs)


def _is_details_file(path: Path) -> bool:
    match = DETAILS_RE.match(path.name)
    return bool(match) and match["stamp"] == path.parent.name


def detect(path: Path) -> bool:
    """A ``<ts>`` folder holding ``details_<task>_<ts>.parquet`` files (parquet magic checked)."""
    path = Path(path)
    if not path.is_dir() or not STAMP_RE.match(path.name):
        return False
    details = _details(path)
    return bool(details) and all(head(p, 4) == PARQUET_MAGIC for _, p in details)


def files(path: Path) -> list[Path]:
    """The run's details files and its ``results_<ts>.json``."""
    _, results = _layout(path)
    return [p for _, p in _details(path)] + ([results] if results is not None else [])


def _table(path: Path) -> list[dict]:
    """The rows of a details parquet file as dicts of its three struct columns."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    name = check_file(path)
    if head(path, 4) != PARQUET_MAGIC:
        raise InputError("not a parquet file (no PAR1 header)", file=name)
    try:
        schema = pq.read_schema(path)
        missing = [c for c in COLUMNS if c not in schema.names]
        if missing:
            raise InputError(
                f"no {missing} column: not the details layout of lighteval >= 0.10 "
                f"(columns {sorted(schema.names)}); re-run the evaluation with a current lighteval",
                file=name,
                field=missing[0],
            )
        table = pq.read_table(path, columns=list(COLUMNS))
    except (pa.ArrowException, OSError) as exc:
        message = " ".join(str(exc).split())
        raise InputError(f"cannot read the parquet file ({message})", file=name) from None
    return table.to_pylist()


def _metric(rows: list[dict], metrics: list[str] | None, *, file: str) -> str:
    names = sorted(
        {k for row in rows if isinstance(row.get("metric"), dict) for k in row["metric"]}
    )
    if metrics:
        for metric in metrics:
            if metric in names:
                return metric
        raise InputError(
            f"none of the metrics {metrics} (lighteval.metrics) is in this task; it has {names}",
            file=file,
            field="metric",
        )
    if len(names) != 1:
        raise InputError(
            f"this task logs {len(names)} metrics {names}: choose one with lighteval.metrics",
            file=file,
            field="metric",
        )
    return names[0]


def _doc_hash(doc: dict) -> str:
    document = [doc.get("query"), doc.get("choices"), doc.get("gold_index")]
    return hashlib.sha256(json.dumps(document, sort_keys=True, default=str).encode()).hexdigest()


def _response(model_response) -> str | None:
    if not isinstance(model_response, dict):
        return None
    for key in ("text_post_processed", "text"):
        texts = model_response.get(key)
        if isinstance(texts, list) and texts and isinstance(texts[0], str):
            return texts[0]
    return None


def _model(run: Path, results: dict | None) -> str:
    name = ((results or {}).get("config_general") or {}).get("model_name")
    if isinstance(name, str) and name.strip():
        return name.strip()
    return _layout(run)[0]


def read(path: Path, *, params: dict, accounting: Accounting) -> pd.DataFrame:
    """Read one lighteval run (a ``details/<model>/<ts>/`` folder) into the long reader frame.

    Parameters
    ----------
    path : Path
        The details folder of one run.
    params : dict
        ``params["lighteval"]["metrics"]``: metric names, first present wins
        (null: the task's only metric).
    accounting : Accounting
        One row read per details row; rows whose metric is null are counted
        exclusions.

    Returns
    -------
    DataFrame
        :data:`rederive.io.tabular.COLUMNS` plus ``metric``.
    """
    path = Path(path)
    if not path.is_dir():
        raise InputError("expected a lighteval details/<model>/<ts>/ folder", file=relpath(path))
    details = _details(path)
    if not details:
        raise InputError("no details_<task>_<ts>.parquet files in this folder", file=relpath(path))
    _, results_path = _layout(path)
    results = json_object(results_path) if results_path is not None else None
    if results_path is None:
        accounting.notes.append(
            f"{path.name}: no results_{path.name}.json: model from the folder name"
        )
    model = _model(path, results)
    metrics = (params.get(NAME) or {}).get("metrics")
    records, used = [], []
    for task, detail in details:
        name = relpath(detail)
        rows = _table(detail)
        if not rows:
            raise InputError("details file has no rows", file=name)
        metric = _metric(rows, metrics, file=name)
        seen: dict[str, int] = {}
        for number, row in enumerate(rows, start=1):
            accounting.rows_read += 1
            doc = field(row, "doc", dict, file=name, where=f"row {number}: ")
            item = field(doc, "id", str, file=name, where=f"row {number}: doc.")
            if not item.strip():
                raise InputError(
                    "doc.id is empty: this lighteval release did not number the documents",
                    file=name,
                    line=number,
                    field="doc.id",
                )
            if item in seen:
                raise InputError(
                    f"doc.id {item!r} already on row {seen[item]}: the task was evaluated on several "
                    "splits or with num_fewshot_seeds > 1, which lighteval numbers alike; evaluate "
                    "one split and one few-shot seed per run",
                    file=name,
                    line=number,
                    field="doc.id",
                )
            seen[item] = number
            scores = field(row, "metric", dict, file=name, where=f"row {number}: ")
            if metric not in scores:
                raise InputError(
                    f"metric {metric!r} missing on this row (it has {sorted(scores)})",
                    file=name,
                    line=number,
                    field=f"metric.{metric}",
                )
            score = parse_correct(scores[metric], file=name, line=number, field=f"metric.{metric}")
            if score is None:
                accounting.exclude(f"missing score ({metric} is null)", number)
                continue
            accounting.rows_used += 1
            used.append(metric)
            records.append(
                graded_row(
                    model,
                    task,
                    item,
                    score,
                    name,
                    line=number,
                    doc_hash=_doc_hash(doc),
                    response=_response(row.get("model_response")),
                )
            )
    frame = frame_from_records(records)
    frame["metric"] = pd.array(used, dtype="string")
    return frame


def reported(path: Path, *, params: dict) -> pd.DataFrame:
    """``results[task][metric]`` of the run's results file for each details task."""
    path = Path(path)
    _, results_path = _layout(path)
    if results_path is None:
        return reported_frame([])
    results = json_object(results_path)
    scores = results.get("results")
    if not isinstance(scores, dict):
        raise InputError(
            "expected an object of task scores", file=relpath(results_path), field="results"
        )
    metrics = (params.get(NAME) or {}).get("metrics")
    rows = []
    for task, _ in _details(path):
        task_scores = scores.get(task)
        if not isinstance(task_scores, dict):
            continue
        names = [k for k in task_scores if not k.endswith("_stderr")]
        chosen = next((m for m in metrics if m in names), None) if metrics else None
        if not metrics and len(names) == 1:
            chosen = names[0]
        value = task_scores.get(chosen) if chosen else None
        if isinstance(value, int | float) and not isinstance(value, bool):
            rows.append(
                {
                    "model": _model(path, results),
                    "task": task,
                    "metric": chosen,
                    "filter": "",
                    "value": float(value),
                    "file": relpath(results_path),
                }
            )
    return reported_frame(rows)
