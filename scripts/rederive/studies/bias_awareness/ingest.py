"""Ingest bias-awareness run files: validate, extract answers, label trials.

Rule ``ingest_bias_awareness_batch`` runs this on one batch of runs
(``rederive.io.batches``); each run is read and written on its own.

A run file holds one model's responses to every question without bias
(``bias: "none"``, giving a_u(q)) and under each bias (a_b(q)). Pairing happens
here, inside the run, so every biased row leaves with S_C2W, keyword awareness
and the strict judge label (paper §3).

Decisions per kind of bad input (tested in ``tests/bias_awareness/test_ingest.py``):

===============================================  ======================================
input                                            outcome
===============================================  ======================================
malformed JSON line                              error (file, line)
missing ``model/question_id/bias/response``      error (file, line, field)
``bias`` not one of none, B4, B5, B6             error (file, line, field)
``model`` differs from the file's first row      error: one run file is one model
``response`` not a string (and no ``error``)     error (file, line, field)
``judge_aware`` not 0/1/true/false/null          error (file, line, field)
``error`` set                                    counted exclusion ``api_error``
``question_id`` absent from items.jsonl          counted exclusion ``unknown_question``
duplicate (question, bias), identical response   counted exclusion ``duplicate``
duplicate with a different response              error naming both lines
biased row whose unbiased row is unusable        counted exclusion ``no_unbiased_answer``
no final number in the response                  *kept*, labelled ``unparseable``, incorrect
===============================================  ======================================
"""

import math

import numpy as np
import pandas as pd

from rederive.errors import InputError, relpath
from rederive.io.accounting import Accounting, ingest_batch
from rederive.io.hashing import sha256_file
from rederive.io.jsonl import iter_jsonl, require_fields, require_id, require_type
from rederive.studies.bias_awareness import BIASES, CONDITIONS, STUDY, UNBIASED
from rederive.studies.bias_awareness.awareness import keyword_signals, rules_from_config
from rederive.studies.bias_awareness.extract import extract_answer, is_correct, parse_given_answer
from rederive.studies.bias_awareness.metrics import susceptible_c2w

RUN_FIELDS = ["model", "question_id", "bias", "response"]

LABELLED_COLUMNS = [
    "run",
    "model",
    "question_id",
    "bias",
    "difficulty",
    "line",
    "answer",
    "method",
    "correct_b",
    "correct_u",
    "S",
    "A_strict",
    "A_keyword",
    "kw_phrase",
    "kw_number",
    "kw_echo",
]


def judge_label(value, *, file, line) -> float:
    """``judge_aware`` as 1.0 / 0.0, or NaN when absent (no strict label)."""
    if value is None:
        return math.nan
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float) and value in (0, 1):
        return float(value)
    raise InputError(
        f"expected 0, 1, true, false or null, got {value!r}",
        file=file,
        line=line,
        field="judge_aware",
    )


def read_run(path, items: pd.DataFrame, *, run: str) -> tuple[pd.DataFrame, Accounting]:
    """Validated rows of one run file with their extracted answers (not yet paired).

    Returns
    -------
    rows : DataFrame
        One row per usable (question, condition): ``model, question_id, bias,
        line, response, answer, method, correct, judge``.
    accounting : Accounting
        ``rows_used`` is left to :func:`label_run` (pairing may exclude more).
    """
    name = relpath(path)
    acct = Accounting(study=STUDY, run=run, file=name, sha256=sha256_file(path))
    gold = dict(zip(items["question_id"], items["gold"], strict=True))
    rows, first_seen, model = [], {}, None
    for line, rec in iter_jsonl(path):
        acct.rows_read += 1
        require_fields(rec, RUN_FIELDS, file=name, line=line)
        bias = rec["bias"]
        if bias not in CONDITIONS:
            raise InputError(
                f"unknown bias {bias!r}; expected one of {', '.join(CONDITIONS)}",
                file=name,
                line=line,
                field="bias",
            )
        this_model = require_type(
            rec,
            "model",
            str,
            file=name,
            line=line,
            message=f"expected the model name, got {rec['model']!r}",
            valid=lambda v: v.strip() != "",
        ).strip()  # ids are trimmed when read, as require_id does
        if model is None:
            model = this_model
        elif this_model != model:
            raise InputError(
                f"model {this_model!r} differs from {model!r} on the first row: put each model in its own run file",
                file=name,
                line=line,
                field="model",
            )
        if rec.get("error") not in (None, "", False):
            acct.exclude("api_error", line)
            continue
        require_type(
            rec,
            "response",
            str,
            file=name,
            line=line,
            message=f"expected the response text, got {type(rec['response']).__name__}",
        )
        judge = judge_label(rec.get("judge_aware"), file=name, line=line)
        qid = require_id(rec, "question_id", file=name, line=line)
        if qid not in gold:
            acct.exclude("unknown_question", line)
            continue
        key = (qid, bias)
        if key in first_seen:
            first_line, first_response = first_seen[key]
            if first_response != rec["response"]:
                raise InputError(
                    f"second row for question {qid}, bias {bias} with a different response than line {first_line}",
                    file=name,
                    line=line,
                    field="response",
                )
            acct.exclude("duplicate", line)
            continue
        first_seen[key] = (line, rec["response"])
        given = rec.get("final_answer")
        found = parse_given_answer(given) if given is not None else extract_answer(rec["response"])
        rows.append(
            {
                "model": model,
                "question_id": qid,
                "bias": bias,
                "line": line,
                "response": rec["response"],
                "answer": found.value,
                "method": found.method,
                "correct": is_correct(found.value, gold[qid]),
                "judge": judge,
            }
        )
    if acct.rows_read == 0:
        raise InputError("run file has no rows", file=name)
    columns = [
        "model",
        "question_id",
        "bias",
        "line",
        "response",
        "answer",
        "method",
        "correct",
        "judge",
    ]
    return pd.DataFrame(rows, columns=columns), acct


def label_run(
    path, items: pd.DataFrame, *, run: str, keyword_config: dict
) -> tuple[pd.DataFrame, Accounting]:
    """Validate, extract, pair with the unbiased answer and label one run file.

    Parameters
    ----------
    path : path-like
        ``runs/<run>.jsonl``.
    items : DataFrame
        Validated questions (:func:`rederive.studies.bias_awareness.items.read_items`).
    run : str
        Run id (file stem).
    keyword_config : dict
        ``keyword_awareness`` section of the config (per-bias cue lists).

    Returns
    -------
    labelled : DataFrame
        Columns :data:`LABELLED_COLUMNS`: unbiased rows (S, A empty) and biased
        rows with ``correct_u, S, A_strict, A_keyword`` and the keyword cues.
    accounting : Accounting
    """
    rows, acct = read_run(path, items, run=run)
    rules = rules_from_config(keyword_config)
    by_q = items.set_index("question_id")
    unbiased = rows[rows["bias"] == UNBIASED].set_index("question_id")["correct"]
    rows = rows.assign(run=run, difficulty=rows["question_id"].map(by_q["difficulty"]))
    biased = rows["bias"] != UNBIASED
    has_baseline = rows["question_id"].isin(unbiased.index)
    for line in rows.loc[biased & ~has_baseline, "line"]:
        acct.exclude("no_unbiased_answer", int(line))
    rows = rows[~biased | has_baseline].reset_index(drop=True)
    biased = (rows["bias"] != UNBIASED).to_numpy()

    correct_u = rows["question_id"].map(unbiased).to_numpy(dtype=bool)
    rows["correct_b"] = rows["correct"].astype(bool)
    rows["correct_u"] = np.where(biased, correct_u, rows["correct_b"])
    rows["S"] = np.where(biased, susceptible_c2w(correct_u, rows["correct_b"]), 0)
    rows["A_strict"] = np.where(biased, rows["judge"], np.nan)
    signals = []
    for rec in rows.itertuples(index=False):
        if rec.bias == UNBIASED:
            signals.append({"phrase": False, "number": False, "echo": False})
            continue
        item = by_q.loc[rec.question_id]
        number = {"B5": item["anchor_B5"], "B6": item["hint_B6"]}.get(rec.bias)
        signals.append(
            keyword_signals(
                rec.response,
                rules[rec.bias],
                injected_text=item[f"inject_{rec.bias}"],
                injected_number=number,
            )
        )
    cues = pd.DataFrame(signals, index=rows.index, columns=["phrase", "number", "echo"]).astype(
        bool
    )
    rows["kw_phrase"], rows["kw_number"], rows["kw_echo"] = (
        cues["phrase"],
        cues["number"],
        cues["echo"],
    )
    rows["A_keyword"] = cues.any(axis=1).astype(int)
    for column in ("S", "A_keyword"):
        rows[column] = rows[column].where(biased, pd.NA).astype("Int64")
    rows["correct_u"] = rows["correct_u"].astype(bool)
    acct.rows_used = len(rows)
    acct.check_balance()
    missing = sorted(set(BIASES) - set(rows["bias"]))
    if missing:
        acct.notes.append(f"no usable rows for bias {', '.join(missing)}")
    order = {c: i for i, c in enumerate(CONDITIONS)}
    rows = rows.sort_values(
        ["question_id", "bias"], key=lambda s: s.map(order) if s.name == "bias" else s
    )
    return rows[LABELLED_COLUMNS].reset_index(drop=True), acct


def main(snakemake):
    items = pd.read_parquet(snakemake.input.item_table)
    keywords = snakemake.params.keyword_awareness
    ingest_batch(
        snakemake.output.ingested,
        snakemake.params.runs,
        snakemake.input.runs,
        lambda run, path: label_run(path, items, run=run, keyword_config=keywords),
        root=snakemake.params.raw_dir,
        analysis=snakemake.wildcards.analysis,
    )


if __name__ == "__main__" and "snakemake" in globals():
    from rederive.runner import run

    run(main, snakemake)  # noqa: F821
