"""The SWE-bench reader on real harness run reports.

fixtures/swebench/public/ holds reports copied from public repositories
(fetch_public.sh names repository and commit); generated/ holds the Kimi-K2.6 report
rewritten by swebench 5.0.2's own ``make_run_report`` from that run's real
per-instance logs (make_report.py).
"""

import json
import shutil
from pathlib import Path

import pytest

from rederive.errors import InputError
from rederive.io.accounting import Accounting
from rederive.io.formats import swebench

FIXTURES = Path(__file__).parent / "fixtures" / "swebench"
KIMI = FIXTURES / "public" / "nebius__moonshotai__Kimi-K2.6.test.json"
REGRADED = FIXTURES / "generated" / "nebius__moonshotai__Kimi-K2.6.test.json"
PARAMS = {"swebench": {"task": "swe-bench", "incomplete": "unresolved"}}


def _read(path, params=PARAMS):
    accounting = Accounting(study="t", run="r", file=str(path), sha256="")
    frame = swebench.read(path, params=params, accounting=accounting)
    accounting.check_balance()
    return frame, accounting


@pytest.mark.parametrize("path", [KIMI, REGRADED], ids=["swebench-4.1.0", "swebench-5.0.2"])
def test_denominator_is_total_instances_and_matches_the_report(path):
    report = json.loads(path.read_text())
    frame, accounting = _read(path)
    assert len(frame) == report["total_instances"] == 500
    assert set(frame["model"]) == {"nebius__moonshotai__Kimi-K2.6"}
    assert frame.set_index("item_id")["correct"].to_dict()["astropy__astropy-12907"] == 1.0
    assert frame["correct"].sum() == report["resolved_instances"] == 1
    reported = swebench.reported(path, params=PARAMS)
    assert reported["value"].tolist() == [pytest.approx(frame["correct"].mean(), abs=1e-15)]
    assert reported["value"].iloc[0] == report["resolved_instances"] / report["total_instances"]
    assert accounting.rows_used == 500 and not accounting.excluded
    assert "incomplete=497" in accounting.notes[0] and "resolved=1" in accounting.notes[0]
    assert frame.set_index("item_id")["category"]["django__django-11099"] == "django__django"


def test_incomplete_can_be_a_counted_exclusion():
    frame, accounting = _read(KIMI, {"swebench": {"task": "t", "incomplete": "exclude"}})
    assert len(frame) == 3 and frame["correct"].mean() == pytest.approx(1 / 3)
    assert accounting.excluded == {swebench.EXCLUDED_INCOMPLETE: 497}


def test_errors_and_empty_patches_count_as_unresolved():
    errors, _ = _read(FIXTURES / "public" / "baseline_no_enhancement.iteration3.json")
    assert len(errors) == 10 and errors["correct"].sum() == 0
    empty, _ = _read(
        FIXTURES / "public" / "baseline_empty_patch_probe.secondpaper_custom_baseline_probe.json"
    )
    assert empty["correct"].tolist() == [0.0]


def test_submitted_predictions_outside_the_evaluated_set_are_counted():
    path = FIXTURES / "public" / "gold.validate-gold.json"
    report = json.loads(path.read_text())
    frame, accounting = _read(path)
    assert frame["item_id"].tolist() == report["error_ids"] and frame["correct"].tolist() == [0.0]
    assert accounting.excluded == {swebench.NOT_EVALUATED: len(report["submitted_ids"]) - 1}
    assert swebench.reported(path, params=PARAMS)["value"].tolist() == [0.0]


def test_instances_missing_from_every_list_are_refused():
    path = FIXTURES / "public" / "baseline_no_enhancement.baseline_no_enhancement.json"
    with pytest.raises(InputError) as info:
        _read(path)
    assert info.value.field == "total_instances"
    assert "total_instances is 500 but the report names 499" in info.value.message


def _mutated(tmp_path, change, name="m.run1.json"):
    report = json.loads(KIMI.read_text())
    change(report)
    path = tmp_path / name
    path.write_text(json.dumps(report, indent=4))
    return path


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        (lambda r: r["unresolved_ids"].append("astropy__astropy-12907"), "unresolved_ids", "both"),
        (lambda r: r["completed_ids"].append("astropy__astropy-13398"), "completed_ids", "none of"),
        (lambda r: r.update(schema_version=1), "schema_version", "is not 2"),
        (lambda r: r.update(total_instances="500"), "total_instances", "whole number"),
        (lambda r: r.update(resolved_ids="astropy__astropy-12907"), "resolved_ids", "list"),
        (lambda r: r.pop("error_ids"), "error_ids", "missing"),
    ],
)
def test_broken_reports_name_file_and_field(tmp_path, change, field, words):
    path = _mutated(tmp_path, change)
    with pytest.raises(InputError) as info:
        _read(path)
    assert info.value.field == field and words in info.value.message
    assert info.value.file.endswith("m.run1.json")


def test_file_name_must_carry_model_and_run_id(tmp_path):
    path = tmp_path / "report.json"
    shutil.copy(KIMI, path)
    with pytest.raises(InputError, match="<model>.<run_id>.json"):
        _read(path)


def test_find_runs_refuses_other_files(tmp_path):
    shutil.copy(KIMI, tmp_path / KIMI.name)
    assert swebench.find_runs(tmp_path) == [(KIMI.stem, tmp_path / KIMI.name)]
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(InputError, match="not a SWE-bench run report"):
        swebench.find_runs(tmp_path)
