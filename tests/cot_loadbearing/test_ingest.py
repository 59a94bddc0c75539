"""Ingest: malformed rows raise InputError naming file, line and field; unusable
rows are counted exclusions."""

import json

import pytest

from rederive.errors import InputError
from rederive.studies.cot_loadbearing.ingest import ingest

CUES = ["wait", "mistake"]
GOOD = {
    "model": "m",
    "problem_id": "p1",
    "dataset": "gsm8k",
    "subject": "gsm8k",
    "difficulty": 1,
    "strategy": "numeric_value",
    "family": "math",
    "position": "early",
    "strength": "subtle",
    "n_steps": 4,
    "remaining_steps": 3,
    "continuation": "Wait, 6 x 7 is 42. So 54.",
    "original_answer": "54",
    "continuation_answer": "54",
    "judge_label": "B",
}


def write(tmp_path, rows):
    path = tmp_path / "run.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_good_rows_and_counted_exclusions(tmp_path):
    rows = [
        GOOD,
        {**GOOD, "judge_label": None, "error": "no_final_answer"},
        {**GOOD, "judge_label": "D"},
        {**GOOD, "continuation_answer": None},
        {**GOOD, "judge_variant": "strict", "judge_label": "A"},
    ]
    frame, acc = ingest(write(tmp_path, rows), "run", CUES)
    assert len(frame) == 2
    assert frame["rule_label"].tolist() == ["B", "B"]
    assert frame["judge_variant"].tolist() == ["production", "strict"]
    assert frame["experiment"].tolist() == ["main", "main"]
    assert dict(acc.excluded) == {
        "error: no_final_answer": 1,
        "unknown judge label": 1,
        "no continuation answer": 1,
    }
    assert acc.example_lines["unknown judge label"] == [3]
    acc.check_balance()


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"dataset": "hellaswag"}, "dataset"),
        ({"family": "conceptual"}, "family"),
        ({"strategy": "rot13"}, "strategy"),
        ({"position": "start"}, "position"),
        ({"difficulty": 5}, "difficulty"),
        ({"difficulty": "2"}, "difficulty"),
        ({"remaining_steps": 7}, "remaining_steps"),
        ({"strength": "huge"}, "strength"),
        ({"experiment": "pilot"}, "experiment"),
        ({"continuation": ["a"]}, "continuation"),
    ],
)
def test_malformed_field_names_file_line_field(tmp_path, change, field):
    path = write(tmp_path, [GOOD, {**GOOD, **change}])
    with pytest.raises(InputError) as err:
        ingest(path, "run", CUES)
    assert err.value.line == 2
    assert err.value.field == field
    assert "run.jsonl" in err.value.file


def test_missing_field_and_broken_json(tmp_path):
    row = dict(GOOD)
    del row["judge_label"]
    with pytest.raises(InputError) as err:
        ingest(write(tmp_path, [row]), "run", CUES)
    assert err.value.field == "judge_label" and err.value.line == 1
    path = tmp_path / "broken.jsonl"
    path.write_text(json.dumps(GOOD) + "\n{not json\n")
    with pytest.raises(InputError) as err:
        ingest(path, "broken", CUES)
    assert err.value.line == 2


def test_file_without_usable_rows_is_an_error(tmp_path):
    with pytest.raises(InputError, match="no usable continuation"):
        ingest(write(tmp_path, [{**GOOD, "error": "x", "judge_label": None}]), "run", CUES)
