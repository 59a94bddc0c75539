"""Reader for Inspect (``inspect_ai``) logs, ``.eval`` and ``.json``, without ``inspect_ai``.

An ``.eval`` log is a zip archive (members deflate-compressed before inspect-ai
0.3.206, zstd from then on; read by :mod:`rederive.io.zipread` with size limits). A
finished log holds ``header.json`` (the ``EvalLog`` without samples: ``status``,
``eval.model``, ``eval.task``, ``eval.config.epochs`` / ``epochs_reducer``,
``results``, ``stats``, ``error``), ``summaries.json`` (one entry per sample and
epoch), ``reductions.json`` (per scorer and reducer, each sample's score reduced
over epochs) and ``samples/<id>_epoch_<n>.json``, each an ``EvalSample`` with ``id,
epoch, input, target, output.completion, scores{scorer: {value, answer,
explanation}}`` and ``error`` when the sample failed. The scorer's ``answer`` (what
it extracted and graded) is kept as the row's ``answer``, the completion as its
``response``. A log that never finished has
only ``_journal/``. A ``.json`` log is the same ``EvalLog`` as one JSON object with
``samples`` and ``reductions`` lists.

What is refused and why (each an :class:`~rederive.errors.InputError`):

* ``status`` other than ``success`` (``error``, ``cancelled``, ``started``): the eval
  stopped early, so its items are a prefix of the task; reading it would shrink an
  ``item_sets: intersection`` comparison, or fail the item-set check with a
  misleading cause.
* a configured scorer the log does not have (the message lists the log's scorers),
  and several scorers with none configured.
* an epochs reducer other than ``mean`` without the log's ``reductions.json`` entry
  for it: averaging epochs would change the number Inspect reports.

Counted exclusions (data-quality table): a sample with an ``error`` (a finished
log run with ``fail_on_error=False``), a sample marked invalid afterwards
(``invalidation``, set by ``inspect_ai.log.invalidate_samples``), a sample without a
value for the scorer.

With ``mean`` (or one epoch) every epoch is a row and epochs are averaged within
the item downstream, which is Inspect's ``mean`` reducer. With another reducer
(``at_least_k``, ``pass_at_k``, ``max``, ``mode``, ``median``) each item is one row
holding Inspect's own reduced value from ``reductions.json``; its epochs are still
read, validated and counted.

Score values ``C``/``I``/``P``/``N`` (correct, incorrect, partial, no answer) map to
1/0/0.5/0; booleans and numbers in [0, 1] are taken as they are.

References
----------
UK AI Security Institute, Inspect, ``src/inspect_ai/log/_recorders/eval.py``
(archive layout), ``inspect_ai/scorer/_reducer/reducer.py`` (reducers) and
``inspect_ai.scorer`` (``CORRECT="C"``, ``INCORRECT="I"``, ``PARTIAL="P"``,
``NOANSWER="N"``).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from rederive.errors import InputError, relpath
from rederive.io.accounting import ensure_accounting
from rederive.io.jsonl import require_fields
from rederive.io.source import check_file, read_json
from rederive.io.tabular import count_score, frame_from_records, graded_row, parse_correct
from rederive.io.zipread import ZipLimits, ZipReader
from rederive.lazy import pandas as pd

LETTER_VALUES = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
# inspect_ai's value_to_float also reads yes/no; the shared parse_correct does not.
LETTER_VALUES |= {"YES": 1.0, "NO": 0.0}
SAMPLE_RE = re.compile(r"^samples/(?P<id>.+)_epoch_(?P<epoch>\d+)\.json$")
ZIP_MAGIC = b"PK\x03\x04"


def _parse_json(raw: bytes, *, where: str):
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise InputError("not valid UTF-8", file=where) from None
    except json.JSONDecodeError as exc:
        raise InputError(f"malformed JSON ({exc.msg})", file=where, line=exc.lineno) from None


@dataclass
class _Log:
    """What the reader needs from one log, whichever its container."""

    name: str
    header: dict
    reductions: list | None
    samples: Iterator[tuple[str, dict, tuple[str, str] | None]]
    """Yields (where, sample, (id, epoch) from the member name or None)."""


def _open_eval(path, name: str, archive: ZipReader) -> _Log:
    members = archive.namelist()
    if "header.json" not in members:
        if any(m.startswith("_journal/") for m in members):
            raise InputError(
                "log has no header.json, only _journal/: the eval did not finish", file=name
            )
        raise InputError("not an Inspect .eval log (no header.json in the archive)", file=name)
    sample_members = sorted(m for m in members if SAMPLE_RE.match(m))
    wanted = ["header.json", "summaries.json", "reductions.json", *sample_members]
    archive.check_declared([m for m in wanted if m in members])
    header = _parse_json(archive.read("header.json"), where=f"{name}!header.json")
    if not isinstance(header, dict):
        raise InputError("header.json must be a JSON object", file=f"{name}!header.json")
    check_header(header, name=name)  # before anything else: a partial run is refused first
    reductions = None
    if "reductions.json" in members:
        where = f"{name}!reductions.json"
        reductions = _parse_json(archive.read("reductions.json"), where=where)
        if not isinstance(reductions, list):
            raise InputError("reductions.json must be a list", file=where)
    present = {(SAMPLE_RE.match(m)["id"], SAMPLE_RE.match(m)["epoch"]) for m in sample_members}
    if "summaries.json" in members:
        _check_summaries(archive, name, present)

    def samples():
        for member in sample_members:
            where, match = f"{name}!{member}", SAMPLE_RE.match(member)
            yield where, _parse_json(archive.read(member), where=where), match.group("id", "epoch")

    return _Log(name, header, reductions, samples())


def _check_summaries(archive: ZipReader, name: str, present: set) -> None:
    where = f"{name}!summaries.json"
    summaries = _parse_json(archive.read("summaries.json"), where=where)
    if not isinstance(summaries, list):
        raise InputError("summaries.json must be a list", file=where)
    for index, entry in enumerate(summaries, start=1):
        if not isinstance(entry, dict) or "id" not in entry or "epoch" not in entry:
            raise InputError(f"summary entry {index} has no id/epoch", file=where, field="id")
        try:
            key = (str(entry["id"]), str(int(entry["epoch"])))
        except (TypeError, ValueError):
            raise InputError(
                f"summary entry {index} has epoch {entry['epoch']!r}, not a whole number",
                file=where,
                field="epoch",
            ) from None
        if key not in present:
            raise InputError(
                f"sample id={key[0]} epoch={key[1]} is listed in summaries.json (entry {index}) "
                f"but samples/{key[0]}_epoch_{key[1]}.json is missing from the archive",
                file=name,
                field="samples",
            )


def _open_json(path, name: str) -> _Log:
    log = read_json(path)  # the shared opener: UTF-8 errors name their line
    if not isinstance(log, dict) or "eval" not in log:
        raise InputError("not an Inspect log (a JSON object with an 'eval' key)", file=name)
    samples = log.get("samples") or []
    if not isinstance(samples, list):
        raise InputError("samples must be a list", file=name, field="samples")
    header = {k: v for k, v in log.items() if k not in ("samples", "reductions")}
    check_header(header, name=name)
    if not isinstance(log.get("reductions") or [], list):
        raise InputError("reductions must be a list", file=name, field="reductions")
    return _Log(
        name,
        header,
        log.get("reductions"),
        ((f"{name}!samples[{i}]", s, None) for i, s in enumerate(samples)),
    )


class _Opened:
    """Context manager yielding a :class:`_Log` for an ``.eval`` (zip) or ``.json`` log."""

    def __init__(self, path, limits: ZipLimits | None):
        self.path, self.limits, self.archive = path, limits, None

    def __enter__(self) -> _Log:
        name = check_file(self.path)  # a directory named x.eval is refused here
        try:
            with open(self.path, "rb") as handle:
                magic = handle.read(4)
        except FileNotFoundError:
            raise InputError("file not found", file=name) from None
        except OSError as exc:
            raise InputError(f"cannot read file ({exc.strerror})", file=name) from None
        if magic != ZIP_MAGIC and Path(self.path).suffix == ".json":
            return _open_json(self.path, name)
        self.archive = ZipReader(self.path, limits=self.limits)
        try:
            return _open_eval(self.path, name, self.archive)
        except BaseException:
            self.archive.close()
            raise

    def __exit__(self, *exc) -> None:
        if self.archive is not None:
            self.archive.close()


def score_value(value, *, file: str, field: str) -> float | None:
    """Map one Inspect score value to [0, 1] (``None`` for a null or NaN value)."""
    if isinstance(value, str) and value.strip().upper() in LETTER_VALUES:
        return LETTER_VALUES[value.strip().upper()]
    if isinstance(value, dict | list):
        raise InputError(
            "score value is a list/dict (a multi-value scorer): choose a scalar scorer with "
            "benchmark.inspect.scorer",
            file=file,
            field=field,
        )
    if isinstance(value, float) and math.isnan(value):
        return None
    return parse_correct(value, file=file, line=None, field=field)


def check_header(header: dict, *, name: str) -> tuple[str, str]:
    """Model and task of a finished log; :class:`InputError` for anything else."""
    where = f"{name}!header.json" if not name.endswith(".json") else name
    if not isinstance(header.get("eval"), dict):
        raise InputError("the log has no 'eval' object", file=where, field="eval")
    for field in ("model", "task"):
        if not isinstance(header["eval"].get(field), str) or not header["eval"][field].strip():
            raise InputError(
                "required field is missing or blank", file=where, field=f"eval.{field}"
            )
    status = header.get("status")
    if status != "success":
        error = header.get("error") if isinstance(header.get("error"), dict) else {}
        reason = f": {error['message']}" if error.get("message") else ""
        dataset = header["eval"].get("dataset") or {}
        config = header["eval"].get("config") or {}
        epochs = config.get("epochs") if isinstance(config.get("epochs"), int) else 1
        planned = "a partial run"
        if isinstance(dataset.get("samples"), int):
            planned = f"a partial run of {dataset['samples']} samples x {epochs} epochs"
        raise InputError(
            f"the eval did not complete (status {status!r}{reason}); {planned} would "
            "silently shrink the items compared. Finish it (e.g. `inspect eval-retry` on "
            "this log) or move the log out of the input folder",
            file=name,
            field="status",
        )
    return header["eval"]["model"].strip(), header["eval"]["task"].strip()


def _header_scorers(header: dict) -> list[str]:
    """Names of the log's scores, as the samples' ``scores`` keys use them."""
    scores = (header.get("results") or {}).get("scores") or []
    names = [s.get("name") for s in scores if isinstance(s, dict) and s.get("name")]
    return list(dict.fromkeys(names))


def _header_scorer_aliases(header: dict) -> set[str]:
    """Scorer names behind the scores (a scorer with several named scores lists each
    under its own ``name``); accepted as ``benchmark.inspect.scorer`` too."""
    scores = (header.get("results") or {}).get("scores") or []
    return {s.get("scorer") for s in scores if isinstance(s, dict) and s.get("scorer")}


def _only_scorer(names, *, file: str, field: str) -> str | None:
    """The log's one scorer (``None`` if it has none); several need a configured choice."""
    names = list(names)
    if len(names) > 1:
        raise InputError(
            f"several scorers {sorted(names)}: choose one with benchmark.inspect.scorer",
            file=file,
            field=field,
        )
    return names[0] if names else None


def choose_scorer(header: dict, scorer: str | None, *, name: str) -> str | None:
    """The scorer to grade by: ``scorer`` if the log has it, else the log's only one.

    ``None`` when the header lists no scorers (decided per sample).
    """
    present = _header_scorers(header)
    if not present:
        return scorer
    if scorer is None:
        return _only_scorer(present, file=name, field="results.scores")
    if scorer not in present and scorer not in _header_scorer_aliases(header):
        raise InputError(
            f"scorer {scorer!r} (benchmark.inspect.scorer) is not in this log; its scorers: "
            f"{sorted(present)}",
            file=name,
            field="results.scores",
        )
    return scorer


def choose_reducer(header: dict, reducer: str | None, *, name: str) -> str | None:
    """The epochs reducer to honour (``None`` for a single-epoch log)."""
    config = header["eval"].get("config") or {}
    epochs = config.get("epochs") or 1
    if not isinstance(epochs, int) or epochs <= 1:
        return None
    reducers = config.get("epochs_reducer") or ["mean"]
    if isinstance(reducers, str):
        reducers = [reducers]
    if reducer is None:
        if len(reducers) > 1:
            raise InputError(
                f"several epochs reducers {reducers}: choose one with benchmark.inspect.reducer",
                file=name,
                field="eval.config.epochs_reducer",
            )
        return reducers[0]
    if reducer not in reducers:
        raise InputError(
            f"reducer {reducer!r} (benchmark.inspect.reducer) is not in this log; its "
            f"reducers: {reducers}",
            file=name,
            field="eval.config.epochs_reducer",
        )
    return reducer


def _reduced_values(log: _Log, scorer: str, reducer: str) -> dict[str, object]:
    """``sample_id -> value`` of Inspect's reduction of ``scorer`` by ``reducer``."""
    for entry in log.reductions or []:
        if (
            isinstance(entry, dict)
            and entry.get("scorer") == scorer
            and entry.get("reducer") == reducer
        ):
            return {
                str(s["sample_id"]): s.get("value")
                for s in entry.get("samples") or []
                if isinstance(s, dict) and "sample_id" in s
            }
    raise InputError(
        f"epochs are reduced with {reducer!r}, not the mean, and the log has no reductions "
        f"for scorer {scorer!r} and that reducer: averaging the epochs would change the "
        "number Inspect reports, so the log is refused",
        file=log.name,
        field="reductions",
    )


def read_eval_log(
    path: str | Path,
    *,
    scorer: str | None = None,
    reducer: str | None = None,
    category_field: str | None = None,
    limits: ZipLimits | None = None,
    accounting=None,
) -> pd.DataFrame:
    """Read one Inspect log (``.eval`` or ``.json``) into the long reader frame.

    Parameters
    ----------
    path : str or Path
    scorer : str, optional
        Scorer whose value is the grade. ``None`` accepts logs with a single scorer
        and refuses logs with several, naming them.
    reducer : str, optional
        Epochs reducer to honour; ``None`` = the log's only one.
    category_field : str, optional
        Key of ``sample.metadata`` holding the item's category.
    limits : ZipLimits, optional
        Caps on uncompressed bytes of an ``.eval`` (defaults of :class:`ZipLimits`).
    accounting : Accounting, optional
        One row per sample (and epoch); samples with an ``error`` or without a score
        for the scorer are counted exclusions.

    Returns
    -------
    DataFrame
        Columns of :data:`rederive.io.tabular.COLUMNS`; ``source_file`` is
        ``<log>!samples/<id>_epoch_<n>.json`` (``<log>!samples[<i>]`` in a ``.json``
        log, ``<log>!reductions`` for a reduced value) and ``line`` is empty.

    Raises
    ------
    InputError
        See the module docstring; also a corrupt or oversized archive, a sample
        listed in ``summaries.json`` but absent, a sample whose id/epoch disagree
        with its file name, an unreadable score.
    """
    name = relpath(path)
    accounting = ensure_accounting(accounting, file=name)
    with _Opened(path, limits) as log:
        model, task = check_header(log.header, name=name)
        chosen = choose_scorer(log.header, scorer, name=name)
        reduce_by = choose_reducer(log.header, reducer, name=name)
        reduced = None
        if reduce_by not in (None, "mean") and chosen is not None:
            reduced = _reduced_values(log, chosen, reduce_by)
        accounting.notes.append(
            f"inspect log: task={task} model={model} run_id={log.header['eval'].get('run_id')} "
            f"status={log.header.get('status')} scorer={chosen} reducer={reduce_by or 'none'}"
        )
        records, seen = [], set()
        for where, sample, key in log.samples:
            accounting.rows_read += 1
            record = _read_sample(
                where, sample, key, model, task, chosen, category_field, accounting, seen
            )
            if record is not None:
                records.append(record)
    if not accounting.rows_read:
        raise InputError("the log holds no samples", file=name)
    if scorer is not None and scorer not in seen and seen:
        raise InputError(
            f"scorer {scorer!r} (benchmark.inspect.scorer) is in no sample; the samples' "
            f"scorers: {sorted(seen)}",
            file=name,
            field="scores",
        )
    if reduced is not None:
        records = _apply_reduction(records, reduced, reduce_by, name=name, accounting=accounting)
    return frame_from_records(records)


def _read_sample(where, sample, key, model, task, chosen, category_field, accounting, seen):
    """One graded record, or ``None`` for a counted exclusion."""
    if not isinstance(sample, dict):
        raise InputError("a sample must be a JSON object", file=where)
    require_fields(sample, ("id", "epoch"), file=where, line=None)
    if key is not None and (str(sample["id"]), str(sample["epoch"])) != key:
        raise InputError(
            f"sample says id={sample['id']} epoch={sample['epoch']}, its file name says "
            f"id={key[0]} epoch={key[1]}",
            file=where,
            field="id",
        )
    if sample.get("error"):
        accounting.exclude("sample error (no grade)")
        return None
    if sample.get("invalidation"):
        # Marked invalid after the run (inspect_ai.log.invalidate_samples, e.g. a broken
        # environment); eval sets re-run such samples, so their grade is not evidence.
        accounting.exclude("sample invalidated")
        return None
    scores = sample.get("scores") or {}
    if not isinstance(scores, dict):
        raise InputError("scores must be an object", file=where, field="scores")
    seen.update(scores)
    use = chosen if chosen is not None else _only_scorer(scores, file=where, field="scores")
    if use not in scores:
        accounting.exclude("no score for the scorer")
        return None
    score = scores[use]
    if not isinstance(score, dict) or "value" not in score:
        raise InputError("score has no 'value'", file=where, field=f"scores.{use}.value")
    value = score_value(score["value"], file=where, field=f"scores.{use}.value")
    if not count_score(accounting, value, "no score for the scorer"):
        return None
    metadata = sample.get("metadata") if isinstance(sample.get("metadata"), dict) else {}
    category = metadata.get(category_field) if category_field else None
    output = sample.get("output") if isinstance(sample.get("output"), dict) else {}
    completion = output.get("completion")
    try:
        epoch = int(sample["epoch"])
    except (TypeError, ValueError):
        raise InputError("epoch must be a whole number", file=where, field="epoch") from None
    # The scorer's `answer`: what it extracted from the completion and graded
    # (match/choice: the answer text; a code scorer: the code it ran), for maj@k.
    answer = score.get("answer")
    return graded_row(
        model,
        task,
        str(sample["id"]),
        value,
        where,
        epoch=epoch,
        category=None if category is None else str(category),
        response=completion if isinstance(completion, str) else None,
        answer=answer.strip() or None if isinstance(answer, str) else None,
    )


def _apply_reduction(records, reduced, reducer, *, name, accounting) -> list[dict]:
    """One record per item holding Inspect's reduced value (epochs stay counted as used)."""
    by_item: dict[str, list[dict]] = {}
    for record in records:
        by_item.setdefault(record["item_id"], []).append(record)
    out = []
    for item_id, rows in by_item.items():
        where = f"{name}!reductions"
        if item_id not in reduced:
            raise InputError(
                f"sample {item_id} is graded but has no {reducer!r} reduction",
                file=where,
                field="samples",
            )
        value = score_value(reduced[item_id], file=where, field=f"{item_id}.value")
        if value is None:
            accounting.rows_used -= len(rows)
            for _ in rows:
                accounting.exclude("no reduced score")
            continue
        out.append(
            {
                **rows[0],
                "correct": value,
                "epoch": 1,
                "source_file": where,
                "response": None,
                "answer": None,
            }
        )
    accounting.notes.append(
        f"epochs reduced with {reducer!r} as Inspect did (its reductions): "
        f"{len(records)} graded sample-epochs -> {len(out)} items"
    )
    return out


def reported_scores(
    path: str | Path,
    *,
    scorer: str | None,
    reducer: str | None = None,
    limits: ZipLimits | None = None,
) -> pd.DataFrame:
    """The ``accuracy`` metric Inspect reported for the scorer (and reducer).

    Returns one row (model, task, metric, filter, value, file) or none when the
    log reports no accuracy for the scorer.
    """
    name = relpath(path)
    columns = ["model", "task", "metric", "filter", "value", "file"]
    with _Opened(path, limits) as log:
        header = log.header
    model, task = check_header(header, name=name)
    scores = (header.get("results") or {}).get("scores") or []
    candidates = [
        s
        for s in scores
        if isinstance(s, dict)
        and (scorer is None or s.get("name") == scorer)
        and (reducer is None or s.get("reducer") in (None, reducer))
    ]
    rows = []
    if len(candidates) == 1:
        accuracy = (candidates[0].get("metrics") or {}).get("accuracy") or {}
        if isinstance(accuracy.get("value"), int | float):
            rows.append(
                {
                    "model": model,
                    "task": task,
                    "metric": "accuracy",
                    "filter": str(candidates[0].get("name")),
                    "value": float(accuracy["value"]),
                    "file": name if name.endswith(".json") else f"{name}!header.json",
                }
            )
    return pd.DataFrame(rows, columns=columns)


#: Inspect's reducers that are a sampling metric: ``pass_at_{k}`` (Chen et al.'s
#: pass@k) and ``pass_k_{k}`` (τ-bench's pass^k), by the table's metric names.
SAMPLING_REDUCERS = {
    re.compile(r"pass_at_([1-9][0-9]*)"): "pass@k",
    re.compile(r"pass_k_([1-9][0-9]*)"): "pass^k",
}


def sampling_reducer(reducer) -> tuple[str, int] | None:
    """``(metric, k)`` of a reducer name that is a sampling metric, else None."""
    for pattern, metric in SAMPLING_REDUCERS.items():
        match = pattern.fullmatch(str(reducer))
        if match:
            return metric, int(match[1])
    return None


def reported_sampling_scores(
    path: str | Path, *, scorer: str | None, limits: ZipLimits | None = None
) -> pd.DataFrame:
    """The pass@k and pass^k Inspect reported through its ``pass_at_{k}``/``pass_k_{k}``
    reducers, for the scorer (the log's only one when ``scorer`` is None).

    Returns
    -------
    DataFrame
        One row per such reducer of the scorer: model, task, ``metric``
        (``pass@<k>`` or ``pass^<k>``), ``filter`` (the scorer and the reducer),
        ``value`` (the reduced scores' ``accuracy``, else their ``mean``), file.
        Empty when the log has no such reducer.
    """
    name = relpath(path)
    columns = ["model", "task", "metric", "filter", "value", "file"]
    with _Opened(path, limits) as log:
        header = log.header
    model, task = check_header(header, name=name)
    names = list(dict.fromkeys(_header_scorers(header)))
    chosen = scorer if scorer is not None else (names[0] if len(names) == 1 else None)
    rows = []
    for entry in (header.get("results") or {}).get("scores") or []:
        if not isinstance(entry, dict) or chosen not in (entry.get("name"), entry.get("scorer")):
            continue
        found = sampling_reducer(entry.get("reducer"))
        metrics = entry.get("metrics") or {}
        value = next(
            (
                metrics[m]["value"]
                for m in ("accuracy", "mean")
                if isinstance(metrics.get(m), dict)
                and isinstance(metrics[m].get("value"), int | float)
            ),
            None,
        )
        if found is None or value is None:
            continue
        metric, k = found
        rows.append(
            {
                "model": model,
                "task": task,
                "metric": metric.replace("k", str(k)),
                "filter": f"{entry.get('name')}, reducer {entry.get('reducer')}",
                "value": float(value),
                "file": name if name.endswith(".json") else f"{name}!header.json",
            }
        )
    return pd.DataFrame(rows, columns=columns)
