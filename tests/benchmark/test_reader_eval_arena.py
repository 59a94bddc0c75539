"""The eval-arena reader on real rows of crux-eval/eval-arena (fixtures/eval_arena)."""

import json
from pathlib import Path

import pytest

from rederive.errors import InputError
from rederive.io.accounting import Accounting
from rederive.io.formats import eval_arena

FIXTURE = Path(__file__).parent / "fixtures" / "eval_arena" / "cruxeval_input.jsonl"


def _read(path):
    accounting = Accounting(study="t", run="r", file=str(path), sha256="")
    frame = eval_arena.read(path, params={}, accounting=accounting)
    accounting.check_balance()
    return frame, accounting


def test_pass1_is_the_item_score():
    rows = [json.loads(line) for line in FIXTURE.read_text().splitlines()]
    frame, accounting = _read(FIXTURE)
    assert len(frame) == len(rows) == 120 and accounting.rows_used == 120
    assert set(frame["model"]) == {"codellama-7b", "gpt-4o", "phind"}
    assert set(frame["task"]) == {"CRUXEval-input"} and set(frame["epoch"]) == {1}
    expected = {(r["model"], r["example_id"]): float(r["pass1"]) for r in rows}
    got = frame.set_index(["model", "item_id"])["correct"].to_dict()
    assert got == expected
    assert 0 < (frame["correct"] % 1).astype(bool).sum()  # fractional pass1 kept as it is
    assert eval_arena.reported(FIXTURE, params={}).empty


def _lines(tmp_path, *records):
    path = tmp_path / "arena.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


ROW = {"benchmark_id": "b", "model": "m", "example_id": "e0", "pass1": 0.8, "count": 5}


def test_count_and_correct_must_agree(tmp_path):
    frame, _ = _read(_lines(tmp_path, ROW | {"correct": 4}))
    assert frame["correct"].tolist() == [0.8]
    with pytest.raises(InputError) as info:
        _read(_lines(tmp_path, ROW | {"correct": 3}))
    assert (info.value.line, info.value.field) == (1, "pass1")


def test_no_samples_and_null_scores_are_counted(tmp_path):
    path = _lines(
        tmp_path,
        ROW | {"count": 0},
        ROW | {"example_id": "e1", "pass1": None},
        ROW | {"example_id": "e2"},
    )
    frame, accounting = _read(path)
    assert len(frame) == 1
    assert accounting.excluded == {"no samples (count = 0)": 1, "missing score (pass1 is null)": 1}


@pytest.mark.parametrize(
    ("record", "field"),
    [
        ({k: v for k, v in ROW.items() if k != "pass1"}, "pass1"),
        (ROW | {"pass1": 1.5}, "pass1"),
        (ROW | {"count": 2.5}, "count"),
        (ROW | {"model": ""}, "model"),
    ],
)
def test_broken_lines_name_line_and_field(tmp_path, record, field):
    with pytest.raises(InputError) as info:
        _read(_lines(tmp_path, ROW | {"example_id": "ok"}, record))
    assert (info.value.line, info.value.field) == (2, field)


def test_a_repeated_example_is_refused(tmp_path):
    with pytest.raises(InputError, match="already on line 1"):
        _read(_lines(tmp_path, ROW, ROW))
