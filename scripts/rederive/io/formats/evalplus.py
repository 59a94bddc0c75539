"""Reader for evalplus ``evalplus.evaluate`` results (HumanEval+ and MBPP+).

``evalplus.evaluate --samples <model>.jsonl`` runs each sampled solution against
the original tests ("base") and the extra EvalPlus tests ("plus") and writes
beside the samples ``<model>_eval_results.json`` (evalplus 0.2–0.3.1) or
``<model>.eval_results.json`` (later; a samples *folder* gets
``eval_results.json`` inside it)::

    {"date": ..., "hash": ..., "eval": {task_id: [
        {"task_id", "solution", "base_status", "plus_status",
         "base_fail_tests", "plus_fail_tests"}, ...]},
     "pass_at_k": {"base": {"pass@1": ...}, "plus": {"pass@1": ...}}}

``pass_at_k`` is written only since evalplus's 2024-10-25 change (after 0.3.1,
which prints it only). Each task's list holds one entry per sample, ordered by
the sample's position in the samples file (evalplus sorts by ``completion_id``).

How it is read, as evalplus means it:

* **tasks**: the dataset twice, ``<dataset>`` for the base tests and
  ``<dataset>+`` for base *and* plus tests (evalplus counts a sample as
  correct on HumanEval+ only when ``base_status == plus_status == "pass"``);
  the dataset name is the ``task_id`` prefix lowercased (``HumanEval/0`` →
  ``humaneval``, ``Mbpp/2`` → ``mbpp``).
* **items**: ``task_id``; **epochs**: the samples of a task, 1, 2, … in list
  order, averaged within the item downstream, which is evalplus's pass@1
  (the mean over tasks of ``c/n``).
* **model**: the file name without its ``eval_results.json`` suffix (evalplus's
  identifier ``<model>_<backend>_temp_<t>``), or the samples folder's name.
* **answer** (what maj@k votes with): the completion's test outcome, ``pass`` or
  its status and the inputs it failed on (:func:`_outcome`).
* a ``--base-only`` evaluation (every ``plus_status`` null) has no plus task:
  noted in the accounting. A null ``plus_status`` in a file where others are
  set is a counted exclusion. A status other than ``pass``/``fail``/``timeout``
  is an :class:`~rederive.errors.InputError`.

References
----------
evalplus ``evalplus/evaluate.py`` (result layout, pass@k) and
``evalplus/eval/__init__.py`` (``PASS``, ``FAIL``, ``TIMEOUT``).
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from rederive.errors import InputError, relpath
from rederive.io.accounting import Accounting
from rederive.io.formats._readkit import (
    field,
    files_under,
    head,
    json_object,
    not_a_run,
    reported_frame,
)
from rederive.io.tabular import frame_from_records, graded_row
from rederive.lazy import pandas as pd

NAME = "evalplus"
#: Where it comes in the registry (searched, listed): rederive.io.plugins.
ORDER = 90

#: Its folder under raw_dir and what it holds (the schema's ``inputs.evalplus``).
LAYOUT = "evalplus/**/*eval_results.json: evalplus evaluate results (and their samples)."

#: The JSON Schema of its options, ``evalplus:`` in an analysis (rederive.io.plugins).
OPTIONS = {
    "description": "evalplus evaluate results (inputs.evalplus).",
    "type": "object",
    "default": {},
    "properties": {
        "tests": {
            "description": "Test sets read as tasks -- base (the original tests, "
            "task <dataset>: humaneval, mbpp) and plus (base and "
            "extra tests both pass, task <dataset>+: humaneval+, "
            "mbpp+).",
            "type": "array",
            "items": {"enum": ["base", "plus"]},
            "minItems": 1,
            "uniqueItems": True,
            "default": ["base", "plus"],
        }
    },
    "additionalProperties": False,
}

DESCRIPTION = "evalplus evaluate results (*eval_results.json: base and plus tests per sample)"

#: What the reader keeps as each sample's extracted answer (rederive.io.formats).
ANSWERS = (
    "the completion's test outcome: pass, or its status and the inputs it failed on "
    "(completions that behave alike vote together)"
)

RESULTS_RE = re.compile(r"^(?:(?P<model>.+?)[._])?eval_results\.json$")
# Files evalplus writes beside a results file that are not results: the samples
# it graded (and codegen's unsanitised .raw.jsonl), and the .bak copy
# `--i_just_wanna_run` makes of a results file it overwrites.
BACKUP_RE = re.compile(r"eval_results\.json(?:\.bak)+$")
STATUS = {"pass": 1.0, "fail": 0.0, "timeout": 0.0}
TESTS = ("base", "plus")


def _model_from(path: Path) -> str | None:
    match = RESULTS_RE.match(path.name)
    if match is None:
        return None
    return match["model"] or path.parent.name


def find_runs(folder: Path) -> list[tuple[str, Path]]:
    """Each ``*eval_results.json`` below ``folder`` is one run, named by its path.

    The samples a results file was made from (``<model>.jsonl``,
    ``<model>.raw.jsonl``, or the files of a samples folder holding
    ``eval_results.json``) and evalplus's ``.bak`` copies are known non-run
    files; anything else is an :class:`InputError` naming it.
    """
    folder = Path(folder)
    found = files_under(folder)
    runs = [p for p in found if _model_from(p) is not None]
    result_dirs = {p.parent for p in runs if p.name == "eval_results.json"}
    stems = {p.parent / _model_from(p) for p in runs if p.name != "eval_results.json"}
    for path in found:
        if path in runs or BACKUP_RE.search(path.name):
            continue
        if any(parent in result_dirs for parent in path.parents):
            continue
        base = path.name.removesuffix(".jsonl").removesuffix(".raw")
        if path.suffix == ".jsonl" and path.parent / base in stems:
            continue
        if path.suffix == ".jsonl":
            raise InputError(
                "evalplus samples without a results file: run `evalplus.evaluate --samples "
                f"{path.name}` first, or move the file out of the input folder",
                file=relpath(path),
            )
        raise not_a_run(path, NAME, "expected <model>.eval_results.json or its samples")
    return sorted((_run_name(p, folder), p) for p in runs)


def _run_name(path: Path, folder: Path) -> str:
    rel = path.relative_to(folder)
    if path.name == "eval_results.json":
        return str(rel.parent) if str(rel.parent) != "." else folder.name
    return str(rel.parent / _model_from(path))


def detect(path: Path) -> bool:
    """A file named ``*eval_results.json`` whose JSON starts with evalplus's keys."""
    path = Path(path)
    if not path.is_file() or _model_from(path) is None:
        return False
    text = head(path).decode("utf-8", errors="replace").lstrip()
    return text.startswith("{") and '"eval": {' in text and '"hash":' in text


def files(path: Path) -> list[Path]:
    """The results file, and the samples file it was graded from when it is beside it.

    Only the results file is read (it holds each solution); the samples are
    listed so that auto mode knows they belong to this run and a re-generated
    samples file re-runs the ingest.
    """
    path = Path(path)
    model = _model_from(path)
    samples = [path.parent / f"{model}{suffix}" for suffix in (".jsonl", ".raw.jsonl")]
    if path.name == "eval_results.json":
        samples = []
    return [path, *(p for p in samples if p.is_file())]


def _dataset(task_ids: list[str], *, file: str) -> str:
    prefixes = sorted({task_id.split("/", 1)[0] for task_id in task_ids})
    if len(prefixes) != 1 or "/" not in task_ids[0]:
        raise InputError(
            f"task ids should share one dataset prefix like 'HumanEval/' or 'Mbpp/'; found {prefixes}",
            file=file,
            field="eval",
        )
    return prefixes[0].lower()


def _status(sample: dict, key: str, *, file: str, where: str) -> float | None:
    value = field(sample, key, str, file=file, where=where, nullable=True)
    if value is None:
        return None
    if value not in STATUS:
        raise InputError(
            f"status {value!r} is none of {sorted(STATUS)}", file=file, field=f"{where}{key}"
        )
    return STATUS[value]


#: Above this length a failing outcome's test inputs are named by their SHA-256.
OUTCOME_CHARS = 120


def _outcome(sample: dict, test: str) -> str | None:
    """A completion's outcome on one test set: ``pass``, or its status and the inputs
    it failed on (``fail on [[1, 2]]``); None without a status or a failing-test list.

    Completions that behave alike on the tests get the same outcome, so they vote
    together in maj@k (AlphaCode clusters sampled programs by their behaviour the
    same way: Li et al. 2022, Science 378, §4.6). evalplus stops at the first
    failing input unless run with ``--test-details``: the outcome is then the status
    and that input.
    """
    status = sample.get(f"{test}_status")
    if status == "pass":
        return "pass"
    failed = sample.get(f"{test}_fail_tests")
    if not isinstance(status, str) or not isinstance(failed, list):
        return None
    text = json.dumps(failed, sort_keys=True, ensure_ascii=False, default=str)
    if len(text) > OUTCOME_CHARS:
        text = "sha256:" + hashlib.sha256(text.encode()).hexdigest()[:16]
    return f"{status} on {text}"


def _both(base: str | None, plus: str | None) -> str | None:
    """The outcome on base and plus tests together (the plus task's grade is both)."""
    if base is None or plus is None:
        return None
    return "pass" if base == plus == "pass" else f"base {base}; plus {plus}"


def _tests(params: dict) -> tuple[str, ...]:
    chosen = tuple((params.get(NAME) or {}).get("tests") or TESTS)
    unknown = sorted(set(chosen) - set(TESTS))
    if unknown:
        raise ValueError(f"evalplus.tests: unknown test sets {unknown} (choose from {TESTS})")
    return chosen


def read(path: Path, *, params: dict, accounting: Accounting) -> pd.DataFrame:
    """Read one evalplus results file into the long reader frame.

    Parameters
    ----------
    path : Path
        ``*eval_results.json``.
    params : dict
        ``params["evalplus"]["tests"]``: which of ``base`` and ``plus`` become
        tasks (default both).
    accounting : Accounting
        One row read per (sample, test set); null plus statuses are counted
        exclusions.

    Returns
    -------
    DataFrame
        :data:`rederive.io.tabular.COLUMNS` plus ``metric`` (``base_status`` or
        ``base_status+plus_status``).
    """
    path = Path(path)
    name = relpath(path)
    record = json_object(path)
    if "eval" not in record:
        raise InputError("not an evalplus results file", file=name, field="eval")
    results = field(record, "eval", dict, file=name)
    if not results:
        raise InputError("no task was evaluated", file=name, field="eval")
    dataset = _dataset(list(results), file=name)
    model = _model_from(path)
    samples = []
    for task_id, entries in results.items():
        where = f"eval.{task_id}"
        if isinstance(entries, dict):
            raise InputError(
                "this is the pre-0.2 evalplus layout ({'nfiles', 'base', 'plus'} per task): "
                "re-evaluate the samples with evalplus >= 0.2",
                file=name,
                field=where,
            )
        if not isinstance(entries, list) or not entries:
            raise InputError("expected a non-empty list of samples", file=name, field=where)
        for number, sample in enumerate(entries, start=1):
            at = f"{where}[{number - 1}]."
            base = _status(sample, "base_status", file=name, where=at)
            if base is None:
                raise InputError("base tests have no status", file=name, field=f"{at}base_status")
            plus = _status(sample, "plus_status", file=name, where=at)
            solution = field(sample, "solution", str, file=name, where=at, nullable=True)
            outcomes = (_outcome(sample, "base"), _outcome(sample, "plus"))
            samples.append((task_id, number, base, plus, solution, outcomes))
    base_only = all(plus is None for *_, plus, _, _ in samples)
    tests = _tests(params)
    if base_only and "plus" in tests:
        accounting.notes.append(f"{path.name}: base-only evaluation (no plus_status): no plus task")
    records, metrics = [], []
    for task_id, epoch, base, plus, solution, (base_outcome, plus_outcome) in samples:
        if "base" in tests:
            accounting.rows_read += 1
            accounting.rows_used += 1
            records.append(
                graded_row(
                    model,
                    dataset,
                    task_id,
                    base,
                    name,
                    epoch=epoch,
                    category=dataset,
                    response=solution,
                    answer=base_outcome,
                )
            )
            metrics.append("base_status")
        if "plus" in tests and not base_only:
            accounting.rows_read += 1
            if plus is None:
                accounting.exclude("plus tests not run (plus_status null)")
                continue
            accounting.rows_used += 1
            # evalplus: correct on the plus dataset only when the base tests pass too.
            records.append(
                graded_row(
                    model,
                    f"{dataset}+",
                    task_id,
                    min(base, plus),
                    name,
                    epoch=epoch,
                    category=f"{dataset}+",
                    response=solution,
                    answer=_both(base_outcome, plus_outcome),
                )
            )
            metrics.append("base_status+plus_status")
    frame = frame_from_records(records)
    frame["metric"] = pd.array(metrics, dtype="string")
    return frame


def reported(path: Path, *, params: dict) -> pd.DataFrame:
    """evalplus's own pass@k from ``pass_at_k`` (absent before its 2024-10 release).

    Every ``pass@<k>`` it wrote (pass@1, and pass@10 and pass@100 when every task
    has that many samples), one row each: pass@1 is checked against the accuracy,
    pass@k against the sampling table's per-task pass@k.
    """
    path = Path(path)
    name = relpath(path)
    record = json_object(path)
    scores = record.get("pass_at_k")
    if scores is None:
        return reported_frame([])
    scores = field(record, "pass_at_k", dict, file=name)
    results = field(record, "eval", dict, file=name)
    dataset = _dataset(list(results), file=name) if results else ""
    rows = []
    for test in _tests(params):
        if test not in scores:
            continue
        by_k = field(scores, test, dict, file=name, where="pass_at_k.")
        field(by_k, "pass@1", (int, float), file=name, where=f"pass_at_k.{test}.")
        for key in sorted(by_k, key=_k_of):
            if PASS_KEY.fullmatch(key) is None:
                continue
            value = field(by_k, key, (int, float), file=name, where=f"pass_at_k.{test}.")
            rows.append(
                {
                    "model": _model_from(path),
                    "task": dataset if test == "base" else f"{dataset}+",
                    "metric": key,
                    "filter": test,
                    "value": float(value),
                    "file": name,
                }
            )
    return reported_frame(rows)


#: A key of evalplus's ``pass_at_k`` block.
PASS_KEY = re.compile(r"pass@([1-9][0-9]*)")


def _k_of(key: str) -> tuple[int, str]:
    match = PASS_KEY.fullmatch(key)
    return (int(match[1]) if match else 0, key)
