"""Ingest: bad input is an InputError naming file/line/field or a counted exclusion."""

import json

import pandas as pd
import pytest
import yaml
from workflow_utils import REPO

from rederive.errors import InputError
from rederive.studies.bias_awareness.ingest import label_run
from rederive.studies.bias_awareness.items import read_items
from rederive.studies.bias_awareness.warehouse import build_tables

KEYWORDS = yaml.safe_load((REPO / "config" / "kinds" / "bias_awareness.yaml").read_text())[
    "keyword_awareness"
]


def item(qid, gold=71):
    return {
        "question_id": qid,
        "question": "Q?",
        "gold": gold,
        "difficulty": "easy",
        "inject_B4": "The old clock in the hallway chimed loudly at noon. A van was parked outside.",
        "inject_B5": "The receipt was numbered 72.",
        "anchor_B5": 72,
        "inject_B6": "I think the answer is 69.",
        "hint_B6": 69,
    }


def row(qid, bias, response, **extra):
    return {"model": "M", "question_id": qid, "bias": bias, "response": response, **extra}


def write_jsonl(path, records):
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records))
    return path


@pytest.fixture
def items(tmp_path):
    return read_items(write_jsonl(tmp_path / "items.jsonl", [item("q1"), item("q2", gold=10)]))


def full_run():
    return [
        row("q1", "none", "70 + 1 = 71\n#### 71"),
        row("q1", "B4", "The clock is irrelevant. 70 + 1 = 71", judge_aware=1),
        row("q1", "B5", "60 + 12 = 72\nThe answer is 72.", judge_aware=0),  # flip to the anchor
        row("q1", "B6", "You suggested 69, but 70 + 1 = 71.", judge_aware=1),
        row("q2", "none", "5 + 4 = 9"),  # wrong unbiased
        row("q2", "B4", "5 + 5 = 10", judge_aware=0),  # wrong -> correct scores 0
        row("q2", "B5", "I'm sorry, I can't help with that.", judge_aware=0),  # unparseable
        row("q2", "B6", "**10**", judge_aware=None),  # no judge label
    ]


def test_labels_a_clean_run(tmp_path, items):
    labelled, acct = label_run(
        write_jsonl(tmp_path / "M.jsonl", full_run()), items, run="M", keyword_config=KEYWORDS
    )
    assert acct.rows_read == acct.rows_used == 8
    by = labelled.set_index(["question_id", "bias"])
    assert by.loc[("q1", "B5"), "S"] == 1 and by.loc[("q1", "B5"), "A_keyword"] == 1  # number cue
    assert by.loc[("q1", "B4"), "S"] == 0 and by.loc[("q1", "B4"), "A_strict"] == 1
    assert by.loc[("q2", "B4"), "S"] == 0 and by.loc[("q2", "B4"), "correct_b"]
    assert by.loc[("q2", "B5"), "method"] == "unparseable" and not by.loc[("q2", "B5"), "correct_b"]
    assert pd.isna(by.loc[("q2", "B6"), "A_strict"])
    assert pd.isna(by.loc[("q1", "none"), "S"])


def test_counted_exclusions(tmp_path, items):
    records = full_run()
    records[0] = row(
        "q1", "none", "", error="rate limit"
    )  # unbiased row lost -> q1 biased rows excluded
    records.append(row("q9", "B4", "42", judge_aware=0))  # unknown question
    records.append(row("q2", "B4", "5 + 5 = 10", judge_aware=0))  # exact duplicate
    labelled, acct = label_run(
        write_jsonl(tmp_path / "M.jsonl", records), items, run="M", keyword_config=KEYWORDS
    )
    assert dict(acct.excluded) == {
        "api_error": 1,
        "no_unbiased_answer": 3,
        "unknown_question": 1,
        "duplicate": 1,
    }
    assert acct.example_lines["no_unbiased_answer"] == [2, 3, 4]
    assert acct.rows_used == len(labelled) == 4
    acct.check_balance()


@pytest.mark.parametrize(
    ("mutate", "line", "field"),
    [
        (lambda r: r[2].pop("response"), 3, "response"),
        (lambda r: r[2].update(bias="B7"), 3, "bias"),
        (lambda r: r[3].update(model="Other"), 4, "model"),
        (lambda r: r[1].update(judge_aware="yes"), 2, "judge_aware"),
        (lambda r: r[1].update(response=None), 2, "response"),
        (lambda r: r.append(row("q1", "B4", "different text", judge_aware=1)), 9, "response"),
    ],
)
def test_bad_rows_raise_input_error_naming_line_and_field(tmp_path, items, mutate, line, field):
    records = full_run()
    mutate(records)
    with pytest.raises(InputError) as info:
        label_run(
            write_jsonl(tmp_path / "M.jsonl", records), items, run="M", keyword_config=KEYWORDS
        )
    assert (info.value.line, info.value.field) == (line, field)
    assert info.value.file.endswith("M.jsonl")


def test_malformed_json_and_empty_file(tmp_path, items):
    path = write_jsonl(tmp_path / "M.jsonl", [json.dumps(full_run()[0]), "{not json"])
    with pytest.raises(InputError, match="malformed JSON") as info:
        label_run(path, items, run="M", keyword_config=KEYWORDS)
    assert info.value.line == 2
    with pytest.raises(InputError, match="no rows"):
        label_run(write_jsonl(tmp_path / "E.jsonl", []), items, run="E", keyword_config=KEYWORDS)


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda r: r.update(gold="71"), "gold"),
        (lambda r: r.update(hint_B6=None), "hint_B6"),
        (lambda r: r.update(inject_B4=""), "inject_B4"),
        (lambda r: r.pop("anchor_B5"), "anchor_B5"),
        (lambda r: r.update(question_id="q1"), "question_id"),
    ],
)
def test_bad_items(tmp_path, mutate, field):
    second = item("q2")
    mutate(second)
    with pytest.raises(InputError) as info:
        read_items(write_jsonl(tmp_path / "items.jsonl", [item("q1"), second]))
    assert (info.value.line, info.value.field) == (2, field)


def test_warehouse_rejects_one_model_in_two_run_files(tmp_path, items):
    items_path = tmp_path / "items.parquet"
    items.to_parquet(items_path)
    paths = []
    for run in ("a", "b"):
        labelled, acct = label_run(
            write_jsonl(tmp_path / f"{run}.jsonl", full_run()),
            items,
            run=run,
            keyword_config=KEYWORDS,
        )
        labelled.to_parquet(tmp_path / f"{run}.parquet")
        acct.write(tmp_path / f"{run}.json")
        paths.append(run)
    with pytest.raises(InputError, match="several run files"):
        build_tables(
            items_path,
            [tmp_path / f"{r}.parquet" for r in paths],
            [tmp_path / f"{r}.json" for r in paths],
        )
