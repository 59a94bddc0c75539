"""The Every Eval Ever reader on files written by every-eval-ever 0.3.0's own lm_eval
converter from real lm-eval 0.4.13 runs (fixtures/lm_eval_family/make_fixtures.sh)."""

import json
import shutil
from pathlib import Path

import pytest

from rederive.errors import InputError
from rederive.io.accounting import Accounting
from rederive.io.formats import every_eval_ever

FIXTURES = Path(__file__).parent / "fixtures" / "every_eval_ever"
SAMPLES = sorted((FIXTURES / "data").rglob("*_samples.jsonl"))
PARAMS = {"every_eval_ever": {"score": "is_correct"}}


def _read(path, params=PARAMS):
    accounting = Accounting(study="t", run="r", file=str(path), sha256="")
    frame = every_eval_ever.read(path, params=params, accounting=accounting)
    accounting.check_balance()
    return frame, accounting


def test_fixtures_come_from_the_recorded_release():
    assert "every-eval-ever 0.3.0" in (FIXTURES / "VERSION").read_text()
    assert len(SAMPLES) == 4


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: "/".join(p.parts[-4:-1]))
def test_accuracy_equals_the_aggregate_score(path):
    aggregate = json.loads(every_eval_ever.aggregate_of(path).read_text())
    (result,) = aggregate["evaluation_results"]
    frame, accounting = _read(path)
    assert len(frame) == aggregate["detailed_evaluation_results"]["total_rows"]
    assert accounting.rows_used == len(frame)
    assert set(frame["model"]) == {aggregate["model_info"]["id"]}
    assert set(frame["task"]) == {result["evaluation_name"]}
    assert frame["doc_hash"].notna().all()
    assert frame["correct"].mean() == pytest.approx(result["score_details"]["score"], abs=1e-12)
    reported = every_eval_ever.reported(path, params=PARAMS)
    assert reported["value"].tolist() == [result["score_details"]["score"]]
    assert reported["filter"].tolist() == [result["evaluation_result_id"]]
    assert every_eval_ever.files(path) == [path, every_eval_ever.aggregate_of(path)]


def test_score_field_reads_the_same_grades():
    by_flag, _ = _read(SAMPLES[0])
    by_score, _ = _read(SAMPLES[0], {"every_eval_ever": {"score": "score"}})
    assert by_flag["correct"].tolist() == by_score["correct"].tolist()


def _edited(tmp_path, edit):
    lines = [json.loads(x) for x in SAMPLES[0].read_text().splitlines()]
    edit(lines)
    path = tmp_path / "x_samples.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def test_broken_lines_name_line_and_field(tmp_path):
    with pytest.raises(InputError) as info:
        _read(_edited(tmp_path, lambda ls: ls[2]["evaluation"].pop("is_correct")))
    assert (info.value.line, info.value.field) == (3, "evaluation.is_correct")
    with pytest.raises(InputError) as info:
        _read(_edited(tmp_path, lambda ls: ls[1].update(schema_version="0.2.1")))
    assert (info.value.line, info.value.field) == (2, "schema_version")
    with pytest.raises(InputError, match="already on line 1"):
        _read(_edited(tmp_path, lambda ls: ls.append(dict(ls[0]))))


def test_null_grade_is_a_counted_exclusion(tmp_path):
    frame, accounting = _read(
        _edited(tmp_path, lambda ls: ls[0]["evaluation"].update(is_correct=None))
    )
    assert len(frame) == 19
    assert accounting.excluded == {"missing score (evaluation.is_correct is null)": 1}


def test_find_runs_keeps_aggregates_with_their_samples(tmp_path):
    shutil.copytree(FIXTURES / "data", tmp_path / "data")
    runs = every_eval_ever.find_runs(tmp_path / "data")
    assert len(runs) == 4 and all(path.name.endswith("_samples.jsonl") for _, path in runs)
    (tmp_path / "data" / "lonely.json").write_text("{}")
    with pytest.raises(InputError, match="aggregate without instance-level samples"):
        every_eval_ever.find_runs(tmp_path / "data")
