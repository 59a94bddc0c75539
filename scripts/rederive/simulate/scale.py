"""Seeded generator of large inputs, for measuring how the workflow scales.

Two shapes, both Rasch (1PL) data so every analysis has structure to find:

``benchmark``
    ``long/<model>.csv`` (or with ``--file-format parquet`` ``long/<model>.parquet``)
    files of the benchmark study (``model, item_id, task, category, correct,
    response``), one file (one run) per model, as leaderboard details come.
    Written one model at a time: 5,000 x 30,000 streams in the memory of one file.
``salitrap``
    ``items.jsonl`` + ``runs/<model>.jsonl`` + ``models.csv`` in the SaliTrap
    authors' format, control condition only; items come in seed clusters of five.

P(correct) = logistic(theta_model - b_item), theta ~ N(0, 1), b ~ N(0, 1.3).
Output depends only on the arguments: the same call writes the same bytes.

Usage::

    python -m rederive.simulate.scale --study benchmark --models 200 --items 20000 --out DIR
    python -m rederive.simulate.scale --study salitrap --models 50 --items 5000 --out DIR

Then add an analysis reading ``DIR`` (``analyses: {scale: {kind: benchmark,
raw_dir: DIR}}`` in a ``--configfile``) and build it with ``--config
'build=[scale]'``; ``bench/scale.py`` does this for each size.
"""

from __future__ import annotations

import argparse
import csv
import json
import zlib
from pathlib import Path

import numpy as np

DEFAULT_SEED = 20261202
CATEGORIES = 20
SEED_CLUSTER = 5
SALITRAP_DIMENSIONS = [
    "Dimension 1: Missing Prerequisite",
    "Dimension 2: Environment Mismatch",
    "Dimension 4: Temporal/Physiological",
    "Dimension 5: Rule Mismatch",
]
# Shares of the failing labels (SaliTrap's judge vocabulary), and of the passing ones.
FAIL_LABELS = (["Sycophantic Compliance", "CoT Hijacked", "Hard Fail"], [0.5, 0.2, 0.3])
PASS_LABELS = (["Strict Pass", "Patch Compliance", "Refusal"], [0.85, 0.1, 0.05])


def rng_for(seed: int, stream: str) -> np.random.Generator:
    """Independent generator per named stream (CRC32: ``hash`` is salted per process)."""
    return np.random.default_rng([seed, zlib.crc32(stream.encode("utf-8"))])


def model_names(n_models: int) -> list[str]:
    width = len(str(n_models))
    return [f"sim-model-{m:0{width}d}" for m in range(1, n_models + 1)]


def rasch_outcomes(n_models: int, n_items: int, seed: int) -> np.ndarray:
    """0/1 outcomes, shape (n_models, n_items), from a seeded 1PL model."""
    return np.stack(list(iter_rasch_outcomes(n_models, n_items, seed)))


def iter_rasch_outcomes(n_models: int, n_items: int, seed: int):
    """The rows of :func:`rasch_outcomes` one model at a time (int8, ``n_items`` each).

    Drawing row by row takes the same numbers from the generator as drawing the
    whole matrix at once, so both give the same outcomes; this one holds one row
    (5,000 x 30,000 would be 1.2 GB of probabilities at once).
    """
    theta = rng_for(seed, "theta").normal(0.0, 1.0, n_models)
    b = rng_for(seed, "difficulty").normal(0.0, 1.3, n_items)
    draw = rng_for(seed, "outcomes")
    for m in range(n_models):
        p = 1.0 / (1.0 + np.exp(-(theta[m] - b)))
        yield (draw.random(n_items) < p).astype(np.int8)


LONG_HEADER = ["model", "item_id", "task", "category", "correct", "response"]


def write_benchmark(
    out: Path, n_models: int, n_items: int, seed: int, file_format: str = "csv"
) -> list[Path]:
    """One long file per model under ``out/long`` (``csv`` or ``parquet``); the files written.

    Streams: one model's rows exist at a time, as Arrow columns (no Python object
    per cell), so 5,000 x 30,000 needs the memory of one 30,000-row file.
    """
    import pyarrow as pa
    import pyarrow.csv as pa_csv
    import pyarrow.parquet as pq

    width = len(str(n_items))
    item_ids = pa.array([f"q{i:0{width}d}" for i in range(n_items)])
    categories = pa.array([f"cat{i % CATEGORIES:02d}" for i in range(n_items)])
    task = pa.array(["simtask"] * n_items)
    templates = pa.array([f"The answer is {letter}." for letter in "ABCD"])
    answers = rng_for(seed, "answers")
    (out / "long").mkdir(parents=True, exist_ok=True)
    # Plain CSV: none of the values needs quoting, and the header is written as is.
    options = pa_csv.WriteOptions(include_header=False, quoting_style="none")
    files = []
    rows = zip(model_names(n_models), iter_rasch_outcomes(n_models, n_items, seed), strict=True)
    for model, outcomes in rows:
        letters = answers.integers(0, 4, size=n_items)
        table = pa.table(
            {
                "model": pa.array([model] * n_items),
                "item_id": item_ids,
                "task": task,
                "category": categories,
                "correct": pa.array(outcomes),
                "response": templates.take(pa.array(letters)),
            }
        )
        path = out / "long" / f"{model}.{file_format}"
        if file_format == "parquet":
            pq.write_table(table, path)
        else:
            with open(path, "wb") as handle:
                handle.write((",".join(LONG_HEADER) + "\n").encode())
                pa_csv.write_csv(table, handle, options)
        files.append(path)
    return files


def _salitrap_items(n_items: int) -> list[dict]:
    n_seeds = -(-n_items // SEED_CLUSTER)
    width = len(str(n_seeds))
    items = []
    for i in range(n_items):
        s = i // SEED_CLUSTER
        tag = SALITRAP_DIMENSIONS[s % len(SALITRAP_DIMENSIONS)]
        seed_id = f"D{tag.split()[1][0]}-S{s:0{width}d}"
        items.append(
            {
                "item_id": f"{seed_id}-C{i % SEED_CLUSTER + 1}",
                "seed_id": seed_id,
                "prompt": f"[simulated] scale item {i}: use every figure to work it out.",
                "trap_core": f"[simulated] trap of seed {s}.",
                "ground_truth": f"[simulated] infeasible premise of seed {s}.",
                "injected_numbers": [i % 97, 3.5],
                "dimension_tag": tag,
                "naturalness_score": 1 + i % 5,
                "attack_tier": ["weak", "medium", "strong"][i % 3],
            }
        )
    return items


def write_salitrap(out: Path, n_models: int, n_items: int, seed: int) -> list[Path]:
    """``items.jsonl``, ``models.csv`` and one control run per model under ``out``."""
    items = _salitrap_items(n_items)
    outcomes = rasch_outcomes(n_models, n_items, seed)
    draw = rng_for(seed, "labels")
    (out / "runs").mkdir(parents=True, exist_ok=True)
    with open(out / "items.jsonl", "w") as handle:
        for item in items:
            handle.write(json.dumps(item) + "\n")
    models = model_names(n_models)
    with open(out / "models.csv", "w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["model", "family", "vendor", "display_order"])
        for m, model in enumerate(models):
            writer.writerow([model, f"family{m % 5}", "simulated", m + 1])
    files = []
    for m, model in enumerate(models):
        fail = draw.choice(FAIL_LABELS[0], size=n_items, p=FAIL_LABELS[1])
        ok = draw.choice(PASS_LABELS[0], size=n_items, p=PASS_LABELS[1])
        labels = np.where(outcomes[m] == 1, ok, fail)
        path = out / "runs" / f"{model}.jsonl"
        with open(path, "w") as handle:
            for item, label in zip(items, labels, strict=True):
                row = {
                    "item_id": item["item_id"],
                    "model_id": model,
                    "seed_id": item["seed_id"],
                    "dimension_tag": item["dimension_tag"],
                    "judge_label": str(label),
                    "skipped": False,
                    "error": None,
                    "condition": "control",
                }
                handle.write(json.dumps(row) + "\n")
        files.append(path)
    (out / "SIMULATED.md").write_text(
        "# SIMULATED scale data\n\nWritten by `python -m rederive.simulate.scale` "
        f"(seed {seed}, {n_models} models x {n_items} items, Rasch outcomes). "
        "Not evidence about any model.\n"
    )
    return files


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--study", choices=["benchmark", "salitrap"], required=True)
    parser.add_argument("--models", type=int, required=True)
    parser.add_argument("--items", type=int, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument(
        "--file-format",
        choices=["csv", "parquet"],
        default="csv",
        help="benchmark only: long/<model>.csv (default) or long/<model>.parquet",
    )
    args = parser.parse_args(argv)
    if args.models < 2 or args.items < 1:
        parser.error("need at least 2 models and 1 item")
    if args.study == "benchmark":
        files = write_benchmark(args.out, args.models, args.items, args.seed, args.file_format)
    else:
        files = write_salitrap(args.out, args.models, args.items, args.seed)
    print(f"wrote {len(files)} runs, {args.models * args.items:,} rows, under {args.out}")


if __name__ == "__main__":
    main()
