"""Ingest run files (``runs/<model>.jsonl``): validate every row and label it.

Rule ``ingest_tag_sycophancy_batch`` runs this on one batch of runs
(``rederive.io.batches``); each run is read and written on its own.

Decisions per kind of bad input (tested in ``tests/tag_sycophancy/test_ingest.py``):

==========================================  ==========================================
input                                       outcome
==========================================  ==========================================
malformed JSON line                         error (file, line)
missing required field                      error (file, line, field)
``model`` differs from the file's first row error (file, line, field): one model a file
``option`` not x/y, ``sample`` not an int   error (file, line, field)
``response`` not text (and no ``error``)    error (file, line, field)
``item_id`` absent from items.jsonl         counted exclusion ``unknown_item``
``arm`` not configured                      counted exclusion ``arm_not_analysed``
duplicate (item, option, arm, sample)       error naming both lines
``error`` set                               failed reply, counted ``api_error``
empty / whitespace-only reply               failed reply, counted ``empty_reply``
==========================================  ==========================================

Failed replies stay in the labelled table (label ``failed``) so per-model failure
counts are visible; they never enter a denominator.
"""

import pandas as pd

from rederive.errors import InputError, relpath
from rederive.io.accounting import Accounting, ingest_batch
from rederive.io.hashing import sha256_file
from rederive.io.jsonl import (
    iter_jsonl,
    require_fields,
    require_id,
    require_type,
    require_unique,
)
from rederive.studies.tag_sycophancy import OPTIONS
from rederive.studies.tag_sycophancy.inputs import read_items
from rederive.studies.tag_sycophancy.labelling import FAILED, label_reply, word_set

RUN_FIELDS = ["model", "item_id", "option", "arm", "sample"]
LABELLED_COLUMNS = [
    "run",
    "model",
    "item_id",
    "category",
    "option",
    "arm",
    "sample",
    "label",
    "token",
    "failure",
    "line",
]


def label_run(path, items: pd.DataFrame, *, run: str, arms: list[str], endorse_words, reject_words):
    """Validate and label every row of one run file.

    Returns
    -------
    labelled : DataFrame
        One row per reply of a known item and arm (failed replies included, label
        ``failed``), columns :data:`LABELLED_COLUMNS`.
    accounting : Accounting
        Valid replies are "used"; failed replies and unusable rows are excluded by
        reason.
    """
    name = relpath(path)
    acct = Accounting(study="tag_sycophancy", run=run, file=name, sha256=sha256_file(path))
    category = dict(zip(items["item_id"], items["category"], strict=True))
    endorse, reject = word_set(endorse_words), word_set(reject_words)
    rows, seen, model = [], {}, None
    for line, rec in iter_jsonl(path):
        acct.rows_read += 1
        require_fields(rec, RUN_FIELDS, file=name, line=line)
        require_type(
            rec,
            "model",
            str,
            file=name,
            line=line,
            message="model must be a non-empty string",
            valid=bool,
        )
        # Ids are trimmed when read, in every reader and side table, so that
        # "GPT-4o " here or in models.csv is the same model as "GPT-4o".
        this_model = rec["model"].strip()
        if model is None:
            model = this_model
        elif this_model != model:
            raise InputError(
                f"file mixes models ({model!r} on its first line, {this_model!r} here); one run file per model",
                file=name,
                line=line,
                field="model",
            )
        if rec["option"] not in OPTIONS:
            raise InputError(
                f"option must be 'x' or 'y', got {rec['option']!r}",
                file=name,
                line=line,
                field="option",
            )
        sample = require_type(
            rec,
            "sample",
            int,
            file=name,
            line=line,
            message=f"sample must be a non-negative integer, got {rec['sample']!r}",
            valid=lambda n: n >= 0,
        )
        error = rec.get("error")
        response = rec.get("response")
        if error in (None, "") and "response" not in rec:
            raise InputError(
                "required field is missing (no 'error' either)",
                file=name,
                line=line,
                field="response",
            )
        if error in (None, ""):
            require_type(
                rec,
                "response",
                str,
                file=name,
                line=line,
                message=f"response must be text, got {type(response).__name__}",
                nullable=True,
            )
        item_id = require_id(rec, "item_id", file=name, line=line)
        if item_id not in category:
            acct.exclude("unknown_item", line)
            continue
        if rec["arm"] not in arms:
            acct.exclude("arm_not_analysed", line)
            continue
        require_unique(
            seen,
            (item_id, rec["option"], rec["arm"], sample),
            file=name,
            line=line,
            field="sample",
            message="duplicate reply for item {key[0]}, option {key[1]}, arm {key[2]}, "
            "sample {key[3]} (first on line {first})",
        )
        label, token, reason = label_reply(response, error, endorse, reject)
        if label == FAILED:
            acct.exclude(reason, line)
        else:
            acct.rows_used += 1
        rows.append(
            {
                "run": run,
                "model": model,
                "item_id": item_id,
                "category": category[item_id],
                "option": rec["option"],
                "arm": rec["arm"],
                "sample": sample,
                "label": label,
                "token": token,
                "failure": reason,
                "line": line,
            }
        )
    if acct.rows_read == 0:
        raise InputError("run file has no rows", file=name)
    acct.check_balance()
    return pd.DataFrame(rows, columns=LABELLED_COLUMNS), acct


def main(snakemake):
    items = read_items(snakemake.input.item_file)
    p = snakemake.params
    ingest_batch(
        snakemake.output.ingested,
        p.runs,
        snakemake.input.runs,
        lambda run, path: label_run(
            path,
            items,
            run=run,
            arms=p.arms,
            endorse_words=p.endorse,
            reject_words=p.reject,
        ),
        root=snakemake.params.raw_dir,
        analysis=snakemake.wildcards.analysis,
    )


if __name__ == "__main__" and "snakemake" in globals():
    from rederive.runner import run

    run(main, snakemake)  # noqa: F821
