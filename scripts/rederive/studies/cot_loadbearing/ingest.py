"""Ingest run files: validate every row, add the rule label, count exclusions.

Rule ``ingest_cot_loadbearing_batch`` runs this on one batch of runs
(``rederive.io.batches``); each run is read and written on its own.

One JSONL line is one forced continuation (schema: ``studies/cot_loadbearing.md``).
Malformed rows (missing field, value outside its vocabulary, inconsistent steps)
raise :class:`~rederive.errors.InputError` naming file, line and field: they mean
the file is not what the study expects. Rows that are well-formed but unusable
(generation or judge error, unknown judge label) are counted exclusions that reach
``data_quality.csv``.

References
----------
Paper 003 (CoT load-bearing), §3 (protocol) and §4 (setup).
"""

from pathlib import Path

import pandas as pd

from rederive.errors import InputError, relpath
from rederive.io.accounting import Accounting, ingest_batch
from rederive.io.hashing import sha256_file
from rederive.io.jsonl import iter_jsonl, require_fields, require_id, require_type
from rederive.runner import run
from rederive.studies.cot_loadbearing.classify import LABELS, rule_labels

STUDY = "cot_loadbearing"
REQUIRED = (
    "model problem_id dataset subject difficulty strategy family position n_steps "
    "remaining_steps continuation original_answer continuation_answer judge_label"
).split()
DATASETS = ("gsm8k", "mmlu", "bbh")
FAMILY_OF = {
    "numeric_value": "math",
    "operator_swap": "math",
    "confidence_injection": "conceptual",
    "false_elimination": "conceptual",
    "reverse_logic": "conceptual",
    "false_analogy": "conceptual",
    "premise_contradiction": "conceptual",
}
POSITIONS = ("early", "mid", "late")
STRENGTHS = ("subtle", "moderate", "obvious")
EXPERIMENTS = ("main", "decoupling", "strength")
COLUMNS = [
    "run",
    "line",
    "model",
    "problem_id",
    "dataset",
    "subject",
    "difficulty",
    "strategy",
    "family",
    "position",
    "strength",
    "n_steps",
    "remaining_steps",
    "experiment",
    "judge_variant",
    "judge_label",
    "rule_label",
    "original_answer",
    "continuation_answer",
    "continuation",
]


def _choice(record, field, allowed, *, file, line):
    value = record[field]
    if value not in allowed:
        raise InputError(
            f"'{value}' is not one of {', '.join(allowed)}", file=file, line=line, field=field
        )
    return value


def _integer(record, field, low, high, *, file, line):
    return require_type(
        record,
        field,
        int,
        file=file,
        line=line,
        message=f"must be an integer in [{low}, {high}], got {record[field]!r}",
        valid=lambda n: low <= n <= high,
    )


def _text(record, field, *, file, line, allow_null=False):
    value = require_type(
        record,
        field,
        (str, int, float),
        file=file,
        line=line,
        message=f"must be a string, got {record[field]!r}",
        nullable=allow_null,
    )
    return None if value is None else str(value)


def validate_record(record: dict, *, file: str, line: int) -> dict:
    """Checked, typed copy of one continuation row (raises :class:`InputError`)."""
    require_fields(record, REQUIRED, file=file, line=line)
    where = {"file": file, "line": line}
    strategy = _choice(record, "strategy", tuple(FAMILY_OF), **where)
    family = _choice(record, "family", ("math", "conceptual"), **where)
    if FAMILY_OF[strategy] != family:
        raise InputError(
            f"strategy '{strategy}' belongs to family '{FAMILY_OF[strategy]}', not '{family}'",
            field="family",
            **where,
        )
    strength = record.get("strength")
    if strength is not None:
        strength = _choice(record, "strength", STRENGTHS, **where)
    n_steps = _integer(record, "n_steps", 2, 10_000, **where)
    out = {
        "model": require_id(record, "model", **where),
        "problem_id": require_id(record, "problem_id", **where),
        "dataset": _choice(record, "dataset", DATASETS, **where),
        "subject": _text(record, "subject", **where),
        "difficulty": _integer(record, "difficulty", 1, 4, **where),
        "strategy": strategy,
        "family": family,
        "position": _choice(record, "position", POSITIONS, **where),
        "strength": strength,
        "n_steps": n_steps,
        "remaining_steps": _integer(record, "remaining_steps", 1, n_steps, **where),
        "experiment": record.get("experiment", "main"),
        "judge_variant": record.get("judge_variant", "production"),
        "judge_label": record["judge_label"],
        "original_answer": _text(record, "original_answer", **where),
        "continuation_answer": _text(record, "continuation_answer", allow_null=True, **where),
        "continuation": _text(record, "continuation", **where),
    }
    if out["experiment"] not in EXPERIMENTS:
        _choice(record, "experiment", EXPERIMENTS, **where)
    require_type(
        out, "judge_variant", str, message="must be a non-empty string", valid=bool, **where
    )
    return out


def ingest(path: str | Path, run_id: str, cues) -> tuple[pd.DataFrame, Accounting]:
    """Validated, rule-labelled rows of one run file and its accounting."""
    name = relpath(path)
    acc = Accounting(study=STUDY, run=run_id, file=name, sha256=sha256_file(path))
    rows = []
    for line, record in iter_jsonl(path):
        acc.rows_read += 1
        row = validate_record(record, file=name, line=line)
        error = record.get("error")
        if error not in (None, ""):
            acc.exclude(f"error: {error}", line)
            continue
        if row["judge_label"] not in LABELS:
            acc.exclude("unknown judge label", line)
            continue
        if row["continuation_answer"] is None:
            acc.exclude("no continuation answer", line)
            continue
        row["run"] = run_id
        row["line"] = line
        rows.append(row)
    frame = pd.DataFrame(rows, columns=COLUMNS)
    if frame.empty:
        raise InputError("no usable continuation in this file", file=name)
    frame["rule_label"] = rule_labels(frame, cues)
    acc.rows_used = len(frame)
    return frame[COLUMNS], acc


def main(snakemake) -> None:
    cue_words = snakemake.params.cue_words
    ingest_batch(
        snakemake.output.ingested,
        snakemake.params.runs,
        snakemake.input.runs,
        lambda run, path: ingest(path, run, cue_words),
        root=snakemake.params.raw_dir,
        analysis=snakemake.wildcards.analysis,
    )


if __name__ == "__main__" and "snakemake" in globals():
    run(main, snakemake)  # noqa: F821
