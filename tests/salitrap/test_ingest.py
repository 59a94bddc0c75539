"""Every kind of bad SaliTrap input: a clear error (file, line, field) or a counted exclusion."""

import json

import pandas as pd
import pytest
import tiny

from rederive.errors import InputError
from rederive.studies.salitrap.ingest import label_run
from rederive.studies.salitrap.items import read_items

DIMENSIONS = {
    "Dimension 1": "missing_prerequisite",
    "Dimension 2": "environment_mismatch",
    "Dimension 4": "temporal_physiological",
    "Dimension 5": "rule_mismatch",
}
VOCAB = dict(
    valid_labels=tiny.LABELS,
    invalid_labels={
        "Error": "api_error",
        "JudgeError": "judge_error",
        "Unknown": "unknown_label",
        "Skipped": "skipped",
    },
    conditions=["control", "P1", "P2", "P3", "lib_A", "lib_B", "lib_C"],
    dimensions=DIMENSIONS,
)


@pytest.fixture
def items_df(tmp_path):
    tiny.write_jsonl(tmp_path / "items.jsonl", tiny.item_rows(3))
    return read_items(tmp_path / "items.jsonl", DIMENSIONS)


def write_run(tmp_path, rows, name="run.jsonl", raw_lines=()):
    path = tmp_path / name
    text = "".join(json.dumps(r) + "\n" for r in rows) + "".join(raw_lines)
    path.write_text(text)
    return path


def clean_rows(items_df):
    return tiny.run_rows("M", tiny.item_rows(3), 0)


def test_clean_run_labels_every_row(tmp_path, items_df):
    rows = clean_rows(items_df)
    labelled, acct = label_run(write_run(tmp_path, rows), items_df, run="run", **VOCAB)
    assert len(labelled) == len(rows) == acct.rows_used == acct.rows_read
    assert set(labelled["condition"]) == {"control"}
    assert labelled["dimension"].value_counts().to_dict() == dict.fromkeys(DIMENSIONS.values(), 3)


def test_invalid_rows_are_counted_by_reason(tmp_path, items_df):
    rows = clean_rows(items_df)
    rows[0].update(skipped=True, judge_label="Skipped")
    rows[1].update(judge_label="JudgeError", error="judge timeout")
    rows[2].update(judge_label="Unknown")
    rows[3].update(error="HTTP 500")  # label looks valid, but the call failed
    rows.append({**rows[5]})  # exact duplicate of line 6
    rows.append({**rows[4], "item_id": "not-an-item"})
    labelled, acct = label_run(write_run(tmp_path, rows), items_df, run="run", **VOCAB)
    assert dict(acct.excluded) == {
        "skipped": 1,
        "judge_error": 1,
        "unknown_label": 1,
        "api_error": 1,
        "duplicate": 1,
        "unknown_item": 1,
    }
    assert acct.example_lines["duplicate"] == [13]
    assert acct.rows_read == 14 and acct.rows_used == 8
    acct.check_balance()


def test_malformed_json_names_file_and_line(tmp_path, items_df):
    path = write_run(tmp_path, clean_rows(items_df)[:2], raw_lines=['{"item_id": "mis-00", \n'])
    with pytest.raises(InputError) as err:
        label_run(path, items_df, run="run", **VOCAB)
    assert err.value.line == 3 and "malformed JSON" in str(err.value)
    assert str(err.value).startswith(f"{path}:3") or ":3" in str(err.value)


def test_missing_field_is_named(tmp_path, items_df):
    rows = clean_rows(items_df)
    del rows[4]["judge_label"]
    with pytest.raises(InputError) as err:
        label_run(write_run(tmp_path, rows), items_df, run="run", **VOCAB)
    assert (err.value.line, err.value.field) == (5, "judge_label")


def test_unknown_label_is_an_error(tmp_path, items_df):
    rows = clean_rows(items_df)
    rows[2]["judge_label"] = "Strict pass"  # wrong case: a real typo, not an invalid row
    with pytest.raises(InputError, match="unknown judge label 'Strict pass'") as err:
        label_run(write_run(tmp_path, rows), items_df, run="run", **VOCAB)
    assert (err.value.line, err.value.field) == (3, "judge_label")


def test_unknown_condition_is_an_error(tmp_path, items_df):
    rows = clean_rows(items_df)
    rows[0]["condition"] = "P9"
    with pytest.raises(InputError) as err:
        label_run(write_run(tmp_path, rows), items_df, run="run", **VOCAB)
    assert err.value.field == "condition"


def test_conflicting_duplicate_is_an_error_naming_both_lines(tmp_path, items_df):
    rows = clean_rows(items_df)
    rows.append(
        {
            **rows[0],
            "judge_label": "Hard Fail" if rows[0]["judge_label"] != "Hard Fail" else "Strict Pass",
        }
    )
    with pytest.raises(InputError, match="different label than line 1") as err:
        label_run(write_run(tmp_path, rows), items_df, run="run", **VOCAB)
    assert err.value.line == len(rows)


def test_seed_mismatch_is_an_error(tmp_path, items_df):
    rows = clean_rows(items_df)
    rows[1]["seed_id"] = "other-seed"
    with pytest.raises(InputError, match="another version of the item set") as err:
        label_run(write_run(tmp_path, rows), items_df, run="run", **VOCAB)
    assert err.value.field == "seed_id"


def test_skipped_must_be_boolean(tmp_path, items_df):
    rows = clean_rows(items_df)
    rows[0]["skipped"] = "no"
    with pytest.raises(InputError) as err:
        label_run(write_run(tmp_path, rows), items_df, run="run", **VOCAB)
    assert err.value.field == "skipped"


def test_empty_run_file_is_an_error(tmp_path, items_df):
    with pytest.raises(InputError, match="no rows"):
        label_run(write_run(tmp_path, []), items_df, run="run", **VOCAB)


def test_items_duplicate_and_bad_dimension(tmp_path):
    rows = tiny.item_rows(2)
    rows.append(dict(rows[0]))
    tiny.write_jsonl(tmp_path / "items.jsonl", rows)
    with pytest.raises(InputError, match="duplicate item_id"):
        read_items(tmp_path / "items.jsonl", DIMENSIONS)
    rows = tiny.item_rows(2)
    rows[1]["dimension_tag"] = "Dimension 3: Nonexistent"
    tiny.write_jsonl(tmp_path / "items.jsonl", rows)
    with pytest.raises(InputError, match="unknown dimension tag") as err:
        read_items(tmp_path / "items.jsonl", DIMENSIONS)
    assert (err.value.line, err.value.field) == (2, "dimension_tag")


def test_dimension_prefix_does_not_capture_longer_numbers(tmp_path):
    rows = tiny.item_rows(1)
    rows[0]["dimension_tag"] = "Dimension 10: new"
    tiny.write_jsonl(tmp_path / "items.jsonl", rows)
    with pytest.raises(InputError, match="unknown dimension tag"):
        read_items(tmp_path / "items.jsonl", DIMENSIONS)


def test_items_table_columns(tmp_path):
    tiny.write_jsonl(tmp_path / "items.jsonl", tiny.item_rows(2))
    items = read_items(tmp_path / "items.jsonl", DIMENSIONS)
    assert isinstance(items, pd.DataFrame)
    assert items["n_injected"].tolist()[:2] == [1, 2]
