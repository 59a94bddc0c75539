"""Read and validate ``raw/bias_awareness/items.jsonl``.

One record per GSM8K question: ``question_id, question, gold, difficulty`` and
the injected text of each bias (``inject_B4``, ``inject_B5`` with its anchor
``anchor_B5``, ``inject_B6`` with its hint ``hint_B6``).

References
----------
Gao, W., et al. (2026). arXiv:2606.15127, §4 (bias types, Table 1).
"""

import numbers

import pandas as pd

from rederive.errors import InputError, relpath
from rederive.io.jsonl import (
    iter_jsonl,
    require_fields,
    require_id,
    require_type,
    require_unique,
)
from rederive.studies.bias_awareness.extract import normalise_number

ITEM_FIELDS = [
    "question_id",
    "question",
    "gold",
    "difficulty",
    "inject_B4",
    "inject_B5",
    "anchor_B5",
    "inject_B6",
    "hint_B6",
]

ITEM_COLUMNS = [*ITEM_FIELDS, "line"]


def _number(record, field, *, file, line) -> str:
    value = require_type(
        record,
        field,
        numbers.Number,
        file=file,
        line=line,
        message=f"expected a number, got {record[field]!r}",
    )
    text = normalise_number(repr(value) if isinstance(value, float) else str(value))
    if text is None:
        raise InputError(
            f"expected a finite number, got {value!r}", file=file, line=line, field=field
        )
    return text


def read_items(path) -> pd.DataFrame:
    """Validated question table, sorted by ``question_id``.

    Numbers (gold, anchor, hint) are kept as canonical decimal strings so that
    equality with an extracted answer is exact.

    Raises
    ------
    InputError
        Malformed line, missing field, duplicate ``question_id``, a non-numeric
        gold/anchor/hint, an empty injected text, or an empty file.
    """
    name = relpath(path)
    rows, seen = [], {}
    for line, record in iter_jsonl(path):
        require_fields(record, ITEM_FIELDS, file=name, line=line)
        qid = require_id(record, "question_id", file=name, line=line)
        require_unique(seen, qid, file=name, line=line, field="question_id")
        for field in ("question", "inject_B4", "inject_B5", "inject_B6"):
            require_type(
                record,
                field,
                str,
                file=name,
                line=line,
                message="expected a non-empty string",
                valid=str.strip,
            )
        rows.append(
            {
                "question_id": qid,
                "question": record["question"],
                "gold": _number(record, "gold", file=name, line=line),
                "difficulty": require_id(record, "difficulty", file=name, line=line),
                "inject_B4": record["inject_B4"],
                "inject_B5": record["inject_B5"],
                "anchor_B5": _number(record, "anchor_B5", file=name, line=line),
                "inject_B6": record["inject_B6"],
                "hint_B6": _number(record, "hint_B6", file=name, line=line),
                "line": line,
            }
        )
    if not rows:
        raise InputError("items file has no questions", file=name)
    return (
        pd.DataFrame(rows, columns=ITEM_COLUMNS)
        .sort_values("question_id", kind="stable")
        .reset_index(drop=True)
    )


def main(snakemake):
    read_items(snakemake.input.items_jsonl).to_parquet(snakemake.output.item_table, index=False)


if __name__ == "__main__" and "snakemake" in globals():
    from rederive.runner import run

    run(main, snakemake)  # noqa: F821
