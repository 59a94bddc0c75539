"""Writers of small real-format evaluation outputs for the benchmark tests.

They follow each tool's documented on-disk schema, so the readers are tested on
files shaped like the ones users have:

* lm-evaluation-harness ``--log_samples``: ``<out>/<model_name_sanitized>/results_<dt>.json``
  and ``samples_<task>_<dt>.jsonl`` (fields as written by ``lm_eval/evaluator.py`` and
  ``loggers/evaluation_tracker.py``: arguments as ``gen_args_i/arg_j``, target as text,
  ``doc_hash`` = SHA-256 of ``json.dumps(doc, indent=2, ensure_ascii=False)``).
* Inspect ``.eval``: a zip with ``header.json``, ``summaries.json``,
  ``_journal/start.json`` and ``samples/<id>_epoch_<n>.json``.

The data come from a long frame (model, task, item_id, correct, epoch, category),
e.g. a slice of the real ChemBench matrix, so the same answers can be written in
every format and the readers must agree.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[2]
CHEMBENCH = REPO / "raw" / "benchmark" / "matrix" / "chembench.csv"
STAMP = "2024-06-01T12-00-00.000001"


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def chembench_slice(n_items: int = 40, models: list[str] | None = None) -> pd.DataFrame:
    """First ``n_items`` ChemBench questions for a few models, as a long frame."""
    wide = pd.read_csv(CHEMBENCH, index_col=0, nrows=n_items)
    models = models or ["o1", "GPT-4o", "Claude-3.5 (Sonnet)", "Gemma-1.1-7B-it", "Galatica-120b"]
    long = (
        wide[models]
        .rename_axis("item_id")
        .reset_index()
        .melt(id_vars="item_id", var_name="model", value_name="correct")
    )
    long["item_id"] = long["item_id"].astype(str)
    long["task"] = "chembench"
    long["epoch"] = 1
    long["category"] = None
    return long[["model", "task", "item_id", "correct", "epoch", "category"]]


def write_matrix(path: Path, frame: pd.DataFrame) -> Path:
    wide = frame.pivot(index="item_id", columns="model", values="correct")
    wide = wide.loc[sorted(wide.index, key=int)]
    wide.index.name = ""
    path.parent.mkdir(parents=True, exist_ok=True)
    wide.to_csv(path, lineterminator="\n")
    return path


def lm_eval_doc(task: str, item_id: str, variant: str = "") -> dict:
    return {
        "question": f"{task} question {item_id}{variant}",
        "choices": ["A", "B", "C", "D"],
        "answer": int(item_id) % 4,
    }


def write_lm_eval(
    out: Path,
    frame: pd.DataFrame,
    *,
    metric: str = "acc",
    filters: tuple[str, ...] = ("none",),
    stamp: str = STAMP,
    doc_variant: dict[tuple[str, str], str] | None = None,
) -> Path:
    """Write an lm-eval ``--output_path`` folder: one sub-folder per model.

    ``doc_variant`` maps (model, item_id) to a suffix changing that model's copy of
    the document (to produce mismatched ``doc_hash`` values).
    """
    doc_variant = doc_variant or {}
    for model, rows in frame.groupby("model", sort=True):
        folder = out / model.replace("/", "__").replace(" ", "_")
        folder.mkdir(parents=True, exist_ok=True)
        results, hashes = {}, {}
        for task, task_rows in rows.groupby("task", sort=True):
            lines, sample_hashes = [], []
            for row in task_rows.sort_values("item_id", key=lambda s: s.astype(int)).itertuples(
                index=False
            ):
                doc = lm_eval_doc(task, row.item_id, doc_variant.get((model, row.item_id), ""))
                target = str(doc["answer"])
                prompt = f"Question: {doc['question']}\nAnswer:"
                for filter_name in filters:
                    record = {
                        "doc_id": int(row.item_id),
                        "doc": doc,
                        "target": target,
                        "arguments": {
                            f"gen_args_{i}": {"arg_0": prompt, "arg_1": f" {choice}"}
                            for i, choice in enumerate(doc["choices"])
                        },
                        "resps": [[[-1.5 - i, False]] for i in range(4)],
                        "filtered_resps": [[-1.5 - i, False] for i in range(4)],
                        "filter": filter_name,
                        "metrics": [metric],
                        "doc_hash": sha256(json.dumps(doc, indent=2, ensure_ascii=False)),
                        "prompt_hash": sha256(prompt),
                        "target_hash": sha256(target),
                        metric: float(row.correct),
                    }
                    lines.append(json.dumps(record, ensure_ascii=False))
                    sample_hashes.append(
                        record["doc_hash"] + record["prompt_hash"] + record["target_hash"]
                    )
            (folder / f"samples_{task}_{stamp}.jsonl").write_text(
                "\n".join(lines) + "\n", encoding="utf-8"
            )
            mean = float(task_rows["correct"].mean())
            results[task] = {
                "alias": task,
                f"{metric},{filters[0]}": mean,
                f"{metric}_stderr,{filters[0]}": 0.01,
            }
            hashes[task] = sha256("".join(sample_hashes))
        payload = {
            "results": results,
            "group_subtasks": {t: [] for t in results},
            "configs": {
                t: {"task": t, "output_type": "multiple_choice", "num_fewshot": 0} for t in results
            },
            "versions": dict.fromkeys(results, 1.0),
            "n-shot": dict.fromkeys(results, 0),
            "higher_is_better": {t: {metric: True} for t in results},
            "n-samples": {
                t: {
                    "original": int((rows["task"] == t).sum()),
                    "effective": int((rows["task"] == t).sum()),
                }
                for t in results
            },
            "config": {
                "model": "hf",
                "model_args": f"pretrained={model},dtype=bfloat16",
                "batch_size": 8,
                "random_seed": 0,
                "numpy_seed": 1234,
                "torch_seed": 1234,
                "fewshot_seed": 1234,
            },
            "git_hash": "0a1b2c3",
            "date": 1717243200.0,
            "task_hashes": hashes,
            "model_source": "hf",
            "model_name": model,
            "model_name_sanitized": folder.name,
            "lm_eval_version": "0.4.8",
        }
        (folder / f"results_{stamp}.json").write_text(
            json.dumps(payload, indent=2), encoding="utf-8"
        )
    return out


def _letter(value: float) -> str:
    return {1.0: "C", 0.0: "I", 0.5: "P"}[float(value)]


def write_inspect(
    path: Path,
    frame: pd.DataFrame,
    *,
    model: str,
    task: str = "chembench",
    drop_sample: tuple[str, int] | None = None,
    scorers: tuple[str, ...] = ("match",),
    errors: tuple[tuple[str, int], ...] = (),
) -> Path:
    """Write one Inspect ``.eval`` log for ``model`` (rows of ``frame`` for that model).

    ``drop_sample`` leaves one (id, epoch) out of ``samples/`` while keeping it in
    ``summaries.json`` (a truncated log); ``errors`` marks samples as failed.
    """
    rows = frame[frame["model"] == model].sort_values(
        ["item_id", "epoch"], key=lambda s: s.astype(int)
    )
    eval_spec = {
        "run_id": "RUNID0001",
        "created": "2024-06-01T12:00:00+00:00",
        "task": task,
        "task_id": "TASKID0001",
        "task_version": 0,
        "dataset": {"name": task, "samples": int(rows["item_id"].nunique())},
        "model": model,
        "config": {"epochs": int(rows["epoch"].max())},
        "packages": {"inspect_ai": "0.3.60"},
    }
    plan = {"name": "plan", "steps": [{"solver": "generate", "params": {}}], "config": {}}
    summaries, samples = [], {}
    for row in rows.itertuples(index=False):
        scores = {
            name: {"value": _letter(row.correct), "answer": "A", "explanation": "exact match"}
            for name in scorers
        }
        sample = {
            "id": int(row.item_id),
            "epoch": int(row.epoch),
            "input": f"{task} question {row.item_id}",
            "target": "A",
            "messages": [
                {"role": "user", "content": f"{task} question {row.item_id}", "source": "input"}
            ],
            "output": {
                "model": model,
                "choices": [
                    {"message": {"role": "assistant", "content": "A"}, "stop_reason": "stop"}
                ],
                "completion": "A",
            },
            "scores": scores,
            "metadata": {"category": row.category} if row.category else {},
            "store": {},
            "events": [],
        }
        if (str(row.item_id), int(row.epoch)) in errors:
            sample["error"] = {
                "message": "RuntimeError: model timed out",
                "traceback": "",
                "traceback_ansi": "",
            }
            sample.pop("scores")
        summaries.append(
            {k: sample.get(k) for k in ("id", "epoch", "input", "target", "scores") if k in sample}
        )
        samples[f"samples/{row.item_id}_epoch_{row.epoch}.json"] = sample
    if drop_sample is not None:
        samples.pop(f"samples/{drop_sample[0]}_epoch_{drop_sample[1]}.json")
    n_correct = float(rows["correct"].mean())
    header = {
        "version": 2,
        "status": "success",
        "eval": eval_spec,
        "plan": plan,
        "results": {
            "total_samples": len(rows),
            "completed_samples": len(rows),
            "scores": [
                {
                    "name": s,
                    "scorer": s,
                    "params": {},
                    "metrics": {"accuracy": {"name": "accuracy", "value": n_correct}},
                }
                for s in scorers
            ],
        },
        "stats": {
            "started_at": "2024-06-01T12:00:00+00:00",
            "completed_at": "2024-06-01T12:05:00+00:00",
        },
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(
            "_journal/start.json",
            json.dumps({"version": 2, "eval": eval_spec, "plan": plan}, indent=2),
        )
        for name, sample in samples.items():
            archive.writestr(name, json.dumps(sample, indent=2))
        archive.writestr("summaries.json", json.dumps(summaries, indent=2))
        archive.writestr("header.json", json.dumps(header, indent=2))
    return path
