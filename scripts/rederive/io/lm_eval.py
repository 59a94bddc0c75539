"""Reader for lm-evaluation-harness ``--log_samples`` output.

``lm_eval --output_path <out> --log_samples`` writes, per model,
``<out>/<model_name_sanitized>/results_<datetime>.json`` (aggregate metrics plus
``model_name``, ``config`` with the seeds, ``lm_eval_version``, ``git_hash``) and
one ``samples_<task>_<datetime>.jsonl`` per task with one line per (doc, filter):
``doc_id, doc, target, arguments, resps, filtered_resps, filter, metrics,
doc_hash, prompt_hash, target_hash`` and one field per metric (``acc``,
``exact_match``, …). The datetime is ``datetime.now().isoformat()`` with ``:``
replaced by ``-`` and is shared by the results file and the samples files of one
run, which is how they are paired here. lmms-eval's lines keep ``doc_id, target,
filtered_resps, doc_hash, input`` and the metric fields, without ``filter``, ``metrics``
or ``doc``.

The item key is ``(task, doc_id)``; ``doc_hash`` (SHA-256 of the document) is kept
so the warehouse step can check that every model saw the same document under
that key. Tasks run at different times into one folder (``--tasks a``, later
``--tasks b``) are read together. A task with samples from several datetimes is a
second run of the same model (another seed, other ``model_args``): lm-eval has no
epochs, so averaging such runs would invent repeats; the folder is refused with
the files and their recorded settings named.

References
----------
EleutherAI lm-evaluation-harness, ``lm_eval/evaluator.py`` (logged sample fields)
and ``lm_eval/loggers/evaluation_tracker.py`` (file names).
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from rederive.errors import InputError, relpath
from rederive.io.accounting import ensure_accounting
from rederive.io.jsonl import iter_jsonl, require_fields, require_type, require_unique
from rederive.io.source import read_json
from rederive.io.tabular import count_score, frame_from_records, graded_row, parse_correct
from rederive.lazy import pandas as pd

_STAMP = r"\d{4}-\d{2}-\d{2}T[0-9.\-]+"
_LMMS_STAMP = r"\d{8}_\d{6}"
# lm-eval >= 0.4.3 writes samples_<task>_<datetime>.jsonl; its development versions of
# May-June 2024 (between the 0.4.2 and 0.4.3 releases; the Open LLM Leaderboard v2
# details, samples_leaderboard_<task>_<datetime>.json) wrote JSON lines under .json until
# commit 3850e21a (PR #1930), and their lines carry no "filter" nor "metrics". lmms-eval
# puts its datetime (YYYYMMDD_HHMMSS) first: <datetime>_samples_<task>.jsonl,
# <datetime>_results.json (lmms_eval/loggers/evaluation_tracker.py).
SAMPLES_RES = (
    re.compile(rf"^samples_(?P<task>.+)_(?P<stamp>{_STAMP})\.jsonl?$"),
    re.compile(rf"^(?P<stamp>{_LMMS_STAMP})_samples_(?P<task>.+)\.jsonl$"),
)
RESULTS_RES = (
    re.compile(rf"^results_(?P<stamp>{_STAMP})\.json$"),
    re.compile(rf"^(?P<stamp>{_LMMS_STAMP})_results\.json$"),
)
DEFAULT_METRICS = ["acc", "acc_norm", "exact_match", "prompt_level_strict_acc"]
# lmms-eval's sample lines carry no "filter" field; its results keys use "none".
NO_FILTER = "none"
# lmms-eval's doc_hash hashes the request's doc, which its Instances leave as None: every
# line carries SHA-256 of "null", which says nothing about the document.
NULL_DOC_HASH = hashlib.sha256(b"null").hexdigest()

REQUIRED = ("doc_id",)


def samples_match(name: str) -> re.Match | None:
    """The (task, stamp) match of a samples file name of lm-eval or lmms-eval, or None."""
    for pattern in SAMPLES_RES:
        if m := pattern.match(name):
            return m
    return None


def results_match(name: str) -> re.Match | None:
    """The stamp match of a results file name of lm-eval or lmms-eval, or None."""
    for pattern in RESULTS_RES:
        if m := pattern.match(name):
            return m
    return None


def find_files(folder: str | Path) -> tuple[dict[str, Path], list[tuple[str, str, Path]]]:
    """Results files by datetime and ``(task, datetime, path)`` for the samples files."""
    folder = Path(folder)
    results: dict[str, Path] = {}
    samples: list[tuple[str, str, Path]] = []
    for path in sorted(folder.iterdir()):
        if m := results_match(path.name):
            results[m["stamp"]] = path
        elif m := samples_match(path.name):
            samples.append((m["task"], m["stamp"], path))
    return results, samples


def model_name(results: dict, *, file: str) -> str:
    """The model name recorded by lm-eval (``model_name``, else ``pretrained=`` of ``model_args``)."""
    name = results.get("model_name")
    if isinstance(name, str) and name.strip():
        return name.strip()
    args = (results.get("config") or {}).get("model_args")
    if isinstance(args, str):
        for part in args.split(","):
            key, _, value = part.partition("=")
            if key.strip() == "pretrained" and value.strip():
                return value.strip()
    if isinstance(args, dict) and isinstance(args.get("pretrained"), str):
        return args["pretrained"]
    raise InputError(
        "cannot tell the model: neither 'model_name' nor 'pretrained=' in config.model_args",
        file=file,
        field="model_name",
    )


def read_results_json(path: str | Path) -> dict:
    record = read_json(path)
    if not isinstance(record, dict):
        raise InputError("expected a JSON object", file=relpath(path))
    return record


def provenance(results: dict) -> str:
    """One line of what lm-eval recorded about the run (kept in the accounting notes)."""
    config = results.get("config") or {}
    seeds = {
        k: config.get(k)
        for k in ("random_seed", "numpy_seed", "torch_seed", "fewshot_seed")
        if k in config
    }
    version = (
        f"lmms_eval_version={results['lmms_eval_version']}"
        if "lmms_eval_version" in results
        else f"lm_eval_version={results.get('lm_eval_version')}"
    )
    parts = [
        version,
        f"git_hash={results.get('git_hash')}",
        f"model_args={config.get('model_args')}",
        f"seeds={json.dumps(seeds, sort_keys=True)}",
    ]
    return "; ".join(parts)


def _choose_metric(record: dict, metrics: list[str], *, file: str, line: int) -> str:
    listed = record.get("metrics")
    candidates = listed if isinstance(listed, list) else [m for m in metrics if m in record]
    for metric in metrics:
        if metric in candidates and metric in record:
            return metric
    raise InputError(
        f"none of the configured metrics {metrics} is in this sample "
        f"(it has {sorted(k for k in (listed or []) if isinstance(k, str))}); "
        "set analyses.<name>.lm_eval.metrics in the config",
        file=file,
        line=line,
        field="metrics",
    )


def read_samples(
    path: str | Path,
    *,
    model: str,
    task: str,
    filter_name: str | None,
    metrics: list[str],
    epoch: int = 1,
    accounting=None,
) -> pd.DataFrame:
    """Read one ``samples_<task>_<datetime>.jsonl`` file.

    Parameters
    ----------
    path : str or Path
    model, task : str
        From the sibling results file and the file name.
    filter_name : str or None
        lm-eval filter whose lines are scored (``none``, ``strict-match``, …). ``None``
        accepts a file with a single filter and refuses one with several, naming them.
        Lines of other filters are counted exclusions.
    metrics : list of str
        Per-sample metric to score by, first present wins (``acc`` then ``exact_match``).
    epoch : int
        Repeat number of this file among re-runs of the task.
    accounting : Accounting, optional

    Returns
    -------
    DataFrame
        Columns of :data:`rederive.io.tabular.COLUMNS` plus ``metric`` (the metric
        that scored each line); ``item_id`` is ``doc_id`` as text.
    """
    name = relpath(path)
    accounting = ensure_accounting(accounting, file=name)
    lines = list(iter_jsonl(path))
    if not lines:
        raise InputError("samples file has no lines", file=name)
    has_filter = any("filter" in record for _, record in lines)
    for number, record in lines:
        require_fields(
            record, REQUIRED + (("filter",) if has_filter else ()), file=name, line=number
        )
        if has_filter:
            require_type(
                record, "filter", str, file=name, line=number, valid=lambda v: v.strip() != ""
            )
        else:
            record["filter"] = NO_FILTER
    filters = sorted({str(record["filter"]) for _, record in lines})
    if filter_name is None:
        if len(filters) > 1:
            raise InputError(
                f"this file scores several filters {filters}: choose one with benchmark.lm_eval.filter",
                file=name,
                field="filter",
            )
        chosen = filters[0]
    else:
        if filter_name not in filters:
            raise InputError(
                f"filter {filter_name!r} (benchmark.lm_eval.filter) is not in this file; it has {filters}",
                file=name,
                field="filter",
            )
        chosen = filter_name
    records = []
    used_metrics: list[str] = []
    seen: dict[str, int] = {}
    null_hashes = 0
    for number, record in lines:
        accounting.rows_read += 1
        if str(record["filter"]) != chosen:
            accounting.exclude(f"other lm-eval filter ({record['filter']})", number)
            continue
        item = str(
            require_type(
                record,
                "doc_id",
                (int, str),
                file=name,
                line=number,
                message=f"doc_id {record['doc_id']!r} is not an integer or text",
                valid=lambda v: str(v).strip() != "",
            )
        )
        require_unique(
            seen,
            item,
            file=name,
            line=number,
            field="doc_id",
            message=(
                "doc_id {key} already appears on line {first} for filter {filter!r}"
                if has_filter
                else "doc_id {key} already appears on line {first}; these lines carry no "
                "'filter' field (lmms-eval writes one line per filter without naming it), "
                "so the filters cannot be told apart: run the task with one filter"
            ),
            filter=chosen,
        )
        metric = _choose_metric(record, metrics, file=name, line=number)
        if isinstance(record[metric], list):
            raise InputError(
                f"{metric} is a list here (one score per instruction, as ifeval's "
                "inst_level_* metrics), not one score for the item: score by a prompt-level "
                "metric (prompt_level_strict_acc) in benchmark.lm_eval.metrics",
                file=name,
                line=number,
                field=metric,
            )
        score = parse_correct(record[metric], file=name, line=number, field=metric)
        if not count_score(accounting, score, f"missing score ({metric} is null)", number):
            continue
        doc_hash = record.get("doc_hash")
        if doc_hash == NULL_DOC_HASH:
            doc_hash = None
            null_hashes += 1
        used_metrics.append(metric)
        filtered = _first_response(record.get("filtered_resps"))
        records.append(
            graded_row(
                model,
                task,
                item,
                score,
                name,
                epoch=epoch,
                line=number,
                category=task,
                doc_hash=str(doc_hash) if doc_hash is not None else None,
                response=filtered,
                # The filter's output is the extracted answer (e.g. the number
                # after "The answer is"): what maj@k votes with.
                answer=filtered,
            )
        )
    if null_hashes:
        accounting.notes.append(
            f"{name}: doc_hash is SHA-256 of 'null' on {null_hashes} lines (lmms-eval hashes "
            "an empty doc): not kept, so the doc_hash agreement check does not cover them"
        )
    frame = frame_from_records(records)
    # Which per-sample metric scored the line (acc, exact_match, …), so tables can
    # say what a task's accuracy is and what a pooled headline mixes.
    frame["metric"] = pd.array(used_metrics, dtype="string")
    return frame


def _first_response(value) -> str | None:
    # filtered_resps is a list (one entry per request): generation tasks hold the
    # extracted answer as text (lmms-eval flattens a single one to the text itself),
    # loglikelihood tasks hold [logprob, is_greedy] pairs, which lm-eval's June 2024
    # development versions wrote as strings (["-0.13", "False"]): not a response.
    if isinstance(value, list) and value:
        value = value[0]
    return value if isinstance(value, str) else None


def read_lm_eval_model_dir(
    folder: str | Path,
    *,
    filter_name: str | None = None,
    metrics: list[str] | None = None,
    accounting=None,
) -> pd.DataFrame:
    """Read every samples file of one model folder of an lm-eval ``--output_path``.

    Parameters
    ----------
    folder : str or Path
        ``<out>/<model_name_sanitized>/`` holding ``results_*.json`` and
        ``samples_*.jsonl`` files.
    filter_name, metrics : see :func:`read_samples`
    accounting : Accounting, optional
        Provenance of each results file is appended to its notes.

    Returns
    -------
    DataFrame
        Long reader frame over all tasks of the folder.
    """
    folder = Path(folder)
    name = relpath(folder)
    accounting = ensure_accounting(accounting, file=name)
    metrics = list(metrics or DEFAULT_METRICS)
    if not folder.is_dir():
        raise InputError("expected an lm-eval model folder", file=name)
    results_files, samples_files = find_files(folder)
    if not samples_files:
        raise InputError(
            "no samples_<task>_<datetime>.jsonl files (or lmms-eval's "
            "<datetime>_samples_<task>.jsonl): run lm_eval with --log_samples",
            file=name,
        )
    models = {}
    for stamp, path in results_files.items():
        record = read_results_json(path)
        models[stamp] = model_name(record, file=relpath(path))
        accounting.notes.append(f"{path.name}: {provenance(record)}")
    distinct = sorted(set(models.values()))
    if len(distinct) > 1:
        raise InputError(
            f"results files of this folder name different models {distinct}: one folder per model",
            file=name,
        )
    frames = []
    by_task: dict[str, list[tuple[str, Path]]] = {}
    for task, stamp, path in samples_files:
        if stamp not in models:
            raise InputError(
                f"no sibling results_{stamp}.json for this samples file (it names the model)",
                file=relpath(path),
            )
        by_task.setdefault(task, []).append((stamp, path))
    refuse_reruns(by_task, results_files, folder=name)
    for task in sorted(by_task):
        ((stamp, path),) = by_task[task]
        frames.append(
            read_samples(
                path,
                model=models[stamp],
                task=task,
                filter_name=filter_name,
                metrics=metrics,
                accounting=accounting,
            )
        )
    return pd.concat(frames, ignore_index=True)


def refuse_reruns(
    by_task: dict[str, list[tuple[str, Path]]], results_files: dict[str, Path], *, folder: str
) -> None:
    """Refuse a task logged by several runs (datetimes) in one model folder.

    Runs of one model with another seed or other ``model_args`` are different
    measurements, not epochs of one; which of them the user wants compared is
    theirs to say, so the message names each run's files and recorded settings.
    """
    repeated = {task: sorted(runs) for task, runs in by_task.items() if len(runs) > 1}
    if not repeated:
        return
    task, runs = sorted(repeated.items())[0]
    described = []
    for stamp, path in runs:
        record = read_results_json(results_files[stamp])
        config = record.get("config") or {}
        described.append(
            f"{path.name} + {results_files[stamp].name} (model_args={config.get('model_args')!r}, "
            f"random_seed={config.get('random_seed')!r})"
        )
    others = sorted(set(repeated) - {task})
    raise InputError(
        f"task {task!r} was run {len(runs)} times into this folder: {'; '.join(described)}"
        f"{f' (also tasks {others})' if others else ''}. Separate runs are not averaged as "
        "epochs: keep one run's results_<datetime>.json and samples_*_<datetime>.jsonl here and "
        "move the others to their own folder under a distinct model name (lm_eval "
        "--model_args pretrained=... or rename model_name in that results file) to compare them",
        file=folder,
    )


def reported_scores(
    folder: str | Path, *, filter_name: str | None, metrics: list[str]
) -> pd.DataFrame:
    """The aggregate scores lm-eval itself reported in ``results_*.json``.

    One row per (model, task, datetime) with ``metric``, ``filter`` and ``value``
    (``results[task]["<metric>,<filter>"]``), so the study can check its own
    recomputation against the harness's number. Tasks whose key is absent (e.g. a
    group) are skipped: they have no per-sample counterpart.
    """
    folder = Path(folder)
    results_files, samples_files = find_files(folder)
    rows = []
    for task, stamp, _ in samples_files:
        if stamp not in results_files:
            continue
        record = read_results_json(results_files[stamp])
        scores = (record.get("results") or {}).get(task) or {}
        for metric in metrics:
            keys = [
                k
                for k in scores
                if k.startswith(f"{metric},") and not k.startswith(f"{metric}_stderr")
            ]
            chosen = [k for k in keys if filter_name is None or k == f"{metric},{filter_name}"]
            if len(chosen) == 1 and isinstance(scores[chosen[0]], int | float):
                rows.append(
                    {
                        "model": model_name(record, file=relpath(results_files[stamp])),
                        "task": task,
                        "metric": metric,
                        "filter": chosen[0].split(",", 1)[1],
                        "value": float(scores[chosen[0]]),
                        "file": relpath(results_files[stamp]),
                    }
                )
                break
    return pd.DataFrame(rows, columns=["model", "task", "metric", "filter", "value", "file"])
