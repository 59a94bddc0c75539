"""Reader for Inspect (``inspect_ai``) ``.eval`` logs, without ``inspect_ai``.

An ``.eval`` log is a zip archive. A finished log holds ``header.json`` (the
``EvalLog`` without samples: ``eval.model``, ``eval.task``, ``eval.run_id``,
``status``, ``results``, ``stats``), ``summaries.json`` (one entry per sample and
epoch) and ``samples/<id>_epoch_<n>.json``, each an ``EvalSample`` with ``id,
epoch, input, target, output.completion, scores{scorer: {value, answer,
explanation}}`` and ``error`` when the sample failed. A log that never finished
has only ``_journal/start.json``.

Score values ``C``/``I``/``P``/``N`` (correct, incorrect, partial, no answer) map to
1/0/0.5/0; booleans and numbers in [0, 1] are taken as they are.

References
----------
UK AI Security Institute, Inspect, ``src/inspect_ai/log/_recorders/eval.py``
(archive layout) and ``inspect_ai.scorer`` (``CORRECT="C"``, ``INCORRECT="I"``,
``PARTIAL="P"``, ``NOANSWER="N"``).
"""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

import pandas as pd

from rederive.errors import InputError, relpath
from rederive.io.accounting import ensure_accounting
from rederive.io.jsonl import require_fields
from rederive.io.tabular import count_score, frame_from_records, graded_row, parse_correct

LETTER_VALUES = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
# inspect_ai's value_to_float also reads yes/no; the shared parse_correct does not.
LETTER_VALUES |= {"YES": 1.0, "NO": 0.0}
SAMPLE_RE = re.compile(r"^samples/(?P<id>.+)_epoch_(?P<epoch>\d+)\.json$")


def _load_member(archive: zipfile.ZipFile, member: str, *, name: str):
    where = f"{name}!{member}"
    try:
        raw = archive.read(member)
    except KeyError:
        raise InputError("member is missing from the archive", file=where) from None
    except (zipfile.BadZipFile, OSError, EOFError) as exc:
        raise InputError(f"corrupt archive member ({exc})", file=where) from None
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise InputError("not valid UTF-8", file=where) from None
    except json.JSONDecodeError as exc:
        raise InputError(f"malformed JSON ({exc.msg})", file=where, line=exc.lineno) from None


def score_value(value, *, file: str, field: str) -> float | None:
    """Map one Inspect score value to [0, 1] (``None`` for a null value)."""
    if isinstance(value, str) and value.strip().upper() in LETTER_VALUES:
        return LETTER_VALUES[value.strip().upper()]
    if isinstance(value, dict | list):
        raise InputError(
            "score value is a list/dict (a multi-value scorer): choose a scalar scorer with "
            "benchmark.inspect.scorer",
            file=file,
            field=field,
        )
    return parse_correct(value, file=file, line=None, field=field)


def read_header(archive: zipfile.ZipFile, *, name: str) -> dict:
    members = set(archive.namelist())
    if "header.json" not in members:
        if "_journal/start.json" in members:
            raise InputError(
                "log has no header.json, only _journal/start.json: the eval did not finish",
                file=name,
            )
        raise InputError("not an Inspect .eval log (no header.json in the archive)", file=name)
    header = _load_member(archive, "header.json", name=name)
    if not isinstance(header, dict) or not isinstance(header.get("eval"), dict):
        raise InputError(
            "header.json has no 'eval' object", file=f"{name}!header.json", field="eval"
        )
    for field in ("model", "task"):
        if not isinstance(header["eval"].get(field), str) or not header["eval"][field].strip():
            raise InputError(
                "required field is missing or blank",
                file=f"{name}!header.json",
                field=f"eval.{field}",
            )
    return header


def read_eval_log(
    path: str | Path,
    *,
    scorer: str | None = None,
    category_field: str | None = None,
    accounting=None,
) -> pd.DataFrame:
    """Read one Inspect ``.eval`` log into the long reader frame.

    Parameters
    ----------
    path : str or Path
    scorer : str, optional
        Scorer whose value is the grade. ``None`` accepts logs with a single scorer
        and refuses logs with several, naming them.
    category_field : str, optional
        Key of ``sample.metadata`` holding the item's category.
    accounting : Accounting, optional
        One row per sample file; samples with an ``error`` or without a score for
        the scorer are counted exclusions.

    Returns
    -------
    DataFrame
        Columns of :data:`rederive.io.tabular.COLUMNS`; ``source_file`` is
        ``<log>!samples/<id>_epoch_<n>.json`` and ``line`` is empty (zip members
        have no lines).

    Raises
    ------
    InputError
        Not a zip, no header, a sample listed in ``summaries.json`` but absent from
        the archive, a sample whose id/epoch disagree with its file name, an
        unreadable score.
    """
    name = relpath(path)
    accounting = ensure_accounting(accounting, file=name)
    try:
        archive = zipfile.ZipFile(path)
    except FileNotFoundError:
        raise InputError("file not found", file=name) from None
    except (zipfile.BadZipFile, OSError) as exc:
        raise InputError(f"not a readable zip archive ({exc})", file=name) from None
    with archive:
        header = read_header(archive, name=name)
        model = header["eval"]["model"].strip()
        task = header["eval"]["task"].strip()
        accounting.notes.append(
            f"inspect log: task={task} model={model} run_id={header['eval'].get('run_id')} "
            f"status={header.get('status')}"
        )
        sample_members = sorted(m for m in archive.namelist() if SAMPLE_RE.match(m))
        present = {
            (SAMPLE_RE.match(m)["id"], int(SAMPLE_RE.match(m)["epoch"])) for m in sample_members
        }
        if "summaries.json" in archive.namelist():
            summaries = _load_member(archive, "summaries.json", name=name)
            if not isinstance(summaries, list):
                raise InputError("summaries.json must be a list", file=f"{name}!summaries.json")
            for index, entry in enumerate(summaries, start=1):
                if not isinstance(entry, dict) or "id" not in entry or "epoch" not in entry:
                    raise InputError(
                        f"summary entry {index} has no id/epoch",
                        file=f"{name}!summaries.json",
                        field="id",
                    )
                try:
                    key = (str(entry["id"]), int(entry["epoch"]))
                except (TypeError, ValueError):
                    raise InputError(
                        f"summary entry {index} has epoch {entry['epoch']!r}, not a whole number",
                        file=f"{name}!summaries.json",
                        field="epoch",
                    ) from None
                if key not in present:
                    raise InputError(
                        f"sample id={key[0]} epoch={key[1]} is listed in summaries.json (entry {index}) "
                        f"but samples/{key[0]}_epoch_{key[1]}.json is missing from the archive",
                        file=name,
                        field="samples",
                    )
        if not sample_members:
            raise InputError("the log holds no samples (samples/*.json)", file=name)
        records = []
        for member in sample_members:
            where = f"{name}!{member}"
            accounting.rows_read += 1
            sample = _load_member(archive, member, name=name)
            if not isinstance(sample, dict):
                raise InputError("a sample must be a JSON object", file=where)
            require_fields(sample, ("id", "epoch"), file=where, line=None)
            match = SAMPLE_RE.match(member)
            if str(sample["id"]) != match["id"] or str(sample["epoch"]) != match["epoch"]:
                raise InputError(
                    f"sample says id={sample['id']} epoch={sample['epoch']}, its file name says "
                    f"id={match['id']} epoch={match['epoch']}",
                    file=where,
                    field="id",
                )
            if sample.get("error"):
                accounting.exclude("sample error (no grade)")
                continue
            scores = sample.get("scores") or {}
            if not isinstance(scores, dict):
                raise InputError("scores must be an object", file=where, field="scores")
            if scorer is None:
                if len(scores) > 1:
                    raise InputError(
                        f"several scorers {sorted(scores)}: choose one with benchmark.inspect.scorer",
                        file=where,
                        field="scores",
                    )
                chosen = next(iter(scores), None)
            else:
                chosen = scorer if scorer in scores else None
            if chosen is None:
                accounting.exclude("no score for the scorer")
                continue
            score = scores[chosen]
            if not isinstance(score, dict) or "value" not in score:
                raise InputError("score has no 'value'", file=where, field=f"scores.{chosen}.value")
            value = score_value(score["value"], file=where, field=f"scores.{chosen}.value")
            if not count_score(accounting, value, "no score for the scorer"):
                continue
            metadata = sample.get("metadata") or {}
            category = (
                metadata.get(category_field)
                if category_field and isinstance(metadata, dict)
                else None
            )
            completion = (
                (sample.get("output") or {}).get("completion")
                if isinstance(sample.get("output"), dict)
                else None
            )
            records.append(
                graded_row(
                    model,
                    task,
                    str(sample["id"]),
                    value,
                    where,
                    epoch=int(sample["epoch"]),
                    category=None if category is None else str(category),
                    response=completion if isinstance(completion, str) else None,
                )
            )
    return frame_from_records(records)


def reported_scores(path: str | Path, *, scorer: str | None) -> pd.DataFrame:
    """The ``accuracy`` metric Inspect reported in ``header.json`` for the scorer.

    Returns one row (model, task, metric, filter, value, file) or none when the
    log reports no accuracy for the scorer.
    """
    name = relpath(path)
    columns = ["model", "task", "metric", "filter", "value", "file"]
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise InputError(f"not a readable zip archive ({exc})", file=name) from None
    with archive:
        header = read_header(archive, name=name)
    scores = (header.get("results") or {}).get("scores") or []
    rows = []
    candidates = [
        s for s in scores if isinstance(s, dict) and (scorer is None or s.get("name") == scorer)
    ]
    if len(candidates) == 1:
        accuracy = (candidates[0].get("metrics") or {}).get("accuracy") or {}
        if isinstance(accuracy.get("value"), int | float):
            rows.append(
                {
                    "model": header["eval"]["model"].strip(),
                    "task": header["eval"]["task"].strip(),
                    "metric": "accuracy",
                    "filter": str(candidates[0].get("name")),
                    "value": float(accuracy["value"]),
                    "file": f"{name}!header.json",
                }
            )
    return pd.DataFrame(rows, columns=columns)
