"""A small, hand-checkable SaliTrap dataset in the authors' formats."""

from __future__ import annotations

import json
from pathlib import Path

TAGS = {
    "missing_prerequisite": "Dimension 1: Missing Prerequisite",
    "environment_mismatch": "Dimension 2: Environment Mismatch",
    "temporal_physiological": "Dimension 4: Temporal/Physiological",
    "rule_mismatch": "Dimension 5: Rule Mismatch",
}
LABELS = [
    "Strict Pass",
    "Hard Fail",
    "Sycophantic Compliance",
    "CoT Hijacked",
    "Refusal",
    "Patch Compliance",
]


def item_rows(n_per_dim: int = 6) -> list[dict]:
    rows = []
    for d_index, (dimension, tag) in enumerate(TAGS.items()):
        for i in range(n_per_dim):
            rows.append(
                {
                    "item_id": f"{dimension[:3]}-{i:02d}",
                    "seed_id": f"seed-{d_index}-{i // 2}",
                    "prompt": "[simulated] prompt",
                    "trap_core": "[simulated] trap",
                    "ground_truth": "[simulated] answer",
                    "injected_numbers": list(range(1 + (i % 4))),
                    "dimension_tag": tag,
                    "naturalness_score": 3 + (i % 3),
                    "attack_tier": "strong" if i % 2 else "weak",
                }
            )
    return rows


def run_rows(model: str, items: list[dict], shift: int, condition: str | None = None) -> list[dict]:
    rows = []
    for i, item in enumerate(items):
        row = {
            "item_id": item["item_id"],
            "model_id": model,
            "seed_id": item["seed_id"],
            "dimension_tag": item["dimension_tag"],
            "judge_label": LABELS[(i + shift) % len(LABELS)],
            "skipped": False,
            "error": None,
        }
        if condition:
            row["condition"] = condition
        rows.append(row)
    return rows


def write_jsonl(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def write_dataset(
    root: Path, models=("Model-A", "Model-B", "Model-C"), n_per_dim: int = 6, experiments=False
) -> list[dict]:
    """Write items.jsonl and one control run per model (with a few invalid rows).

    With ``experiments``, Model-A also gets prompt-intervention runs (P1-P3 over
    every item) and liberation re-queries (lib_A-C of its control Sycophantic
    Compliance items, one of them a judge error under lib_A).
    """
    items = item_rows(n_per_dim)
    write_jsonl(root / "items.jsonl", items)
    for shift, model in enumerate(models):
        rows = run_rows(model, items, shift)
        rows[0].update(skipped=True, judge_label="Skipped")
        rows[1].update(judge_label="JudgeError", error="judge timed out")
        write_jsonl(root / "runs" / f"{model}.jsonl", rows)
    if experiments:
        model = models[0]
        control = run_rows(model, items, 0)
        write_jsonl(
            root / "runs" / f"{model}__interventions.jsonl",
            [r for k, c in enumerate(("P1", "P2", "P3")) for r in run_rows(model, items, k + 1, c)],
        )
        sc_items = [
            it
            for it, row in zip(items[2:], control[2:], strict=True)
            if row["judge_label"] == "Sycophantic Compliance"
        ]
        lib = []
        for k, condition in enumerate(("lib_A", "lib_B", "lib_C")):
            rows = run_rows(model, sc_items, k, condition)
            for row in rows:
                row["judge_label"] = "Strict Pass" if k != 1 else "CoT Hijacked"
            if condition == "lib_A":
                rows[0].update(judge_label="JudgeError", error="judge timed out")
            lib += rows
        write_jsonl(root / "runs" / f"{model}__liberation.jsonl", lib)
    return items
