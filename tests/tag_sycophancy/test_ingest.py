"""Ingest: every bad input is an InputError naming file/line/field or a counted exclusion."""

import json

import pandas as pd
import pytest

from rederive.errors import InputError
from rederive.studies.tag_sycophancy import ARMS
from rederive.studies.tag_sycophancy.ingest import label_run
from rederive.studies.tag_sycophancy.inputs import read_items, read_models

ITEMS = [
    {
        "item_id": "T01",
        "decision": "cat name",
        "option_x": "Luna",
        "option_y": "Willow",
        "category": "taste",
    },
    {
        "item_id": "C01",
        "decision": "rent or buy",
        "option_x": "renting",
        "option_y": "buying",
        "category": "consequential",
    },
]


def write_jsonl(path, records):
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records))
    return path


def row(**kw):
    base = {
        "model": "M",
        "item_id": "T01",
        "option": "x",
        "arm": "ask",
        "sample": 0,
        "response": "Yes.",
    }
    base.update(kw)
    return base


@pytest.fixture
def items(tmp_path):
    return read_items(write_jsonl(tmp_path / "items.jsonl", ITEMS))


def ingest(tmp_path, items, records):
    path = write_jsonl(tmp_path / "M.jsonl", records)
    return label_run(path, items, run="M", arms=ARMS, endorse_words=["yes"], reject_words=["no"])


def test_counts_balance_and_failed_replies_are_kept_but_excluded(tmp_path, items):
    records = [
        row(sample=0, response="Yes."),
        row(sample=1, response="**No**"),
        row(sample=2, response=""),
        row(sample=3, response=None, error="HTTP 429"),
        row(sample=4, item_id="Z99"),
        row(sample=5, arm="tag_please"),
        row(sample=6, response="It depends."),
    ]
    labelled, acct = ingest(tmp_path, items, records)
    assert acct.rows_read == 7 and acct.rows_used == 3
    assert dict(acct.excluded) == {
        "empty_reply": 1,
        "api_error": 1,
        "unknown_item": 1,
        "arm_not_analysed": 1,
    }
    assert acct.example_lines["unknown_item"] == [5]
    assert labelled["label"].tolist() == ["endorse", "reject", "failed", "failed", "evade"]
    assert labelled["failure"].tolist() == ["", "", "empty_reply", "api_error", ""]
    assert labelled["category"].unique().tolist() == ["taste"]


@pytest.mark.parametrize(
    ("records", "line", "field"),
    [
        ([row(), "{not json"], 2, None),
        ([row(), {k: v for k, v in row().items() if k != "arm"}], 2, "arm"),
        ([row(), row(model="Other", sample=1)], 2, "model"),
        ([row(option="z")], 1, "option"),
        ([row(sample="0")], 1, "sample"),
        ([row(sample=-1)], 1, "sample"),
        ([row(response=42)], 1, "response"),
        ([{k: v for k, v in row().items() if k != "response"}], 1, "response"),
        ([row(), row(response="No")], 2, "sample"),  # duplicate (item, option, arm, sample)
    ],
)
def test_bad_rows_name_file_line_field(tmp_path, items, records, line, field):
    with pytest.raises(InputError) as info:
        ingest(tmp_path, items, records)
    assert info.value.file.endswith("M.jsonl")
    assert info.value.line == line
    assert info.value.field == field


def test_empty_run_file(tmp_path, items):
    with pytest.raises(InputError, match="no rows"):
        ingest(tmp_path, items, [])


def test_items_validation(tmp_path):
    bad = ITEMS + [dict(ITEMS[0])]
    with pytest.raises(InputError) as info:
        read_items(write_jsonl(tmp_path / "items.jsonl", bad))
    assert (info.value.line, info.value.field) == (3, "item_id")
    wrong = [dict(ITEMS[0], category="silly")]
    with pytest.raises(InputError, match="category"):
        read_items(write_jsonl(tmp_path / "items2.jsonl", wrong))


def test_models_csv_optional_and_validated(tmp_path):
    frame = read_models(None, ["B", "A"])
    assert frame["model"].tolist() == ["A", "B"] and frame["lineage"].isna().all()
    path = tmp_path / "models.csv"
    path.write_text("model,lineage,vendor,release_date,tier\nA,GPT,OpenAI,2024-05-13,flagship\n")
    frame = read_models(path, ["A", "C"]).set_index("model")
    assert frame.loc["A", "lineage"] == "GPT" and pd.isna(frame.loc["C", "lineage"])
    assert not frame["out_of_sample"].any()
    path.write_text("model,lineage,release_date\nA,GPT,13/05/2024\n")
    with pytest.raises(InputError) as info:
        read_models(path, ["A"])
    assert (info.value.line, info.value.field) == (2, "release_date")
