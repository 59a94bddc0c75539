"""The HELM reader on run folders written by crfm-helm itself.

tests/benchmark/fixtures/helm/ (README.md there): ``helm-run`` of the
``simple_mcqa`` scenario for two guessing models, 6 instances x 2 train trials,
one of them with the ``lower`` perturbation, then ``helm-summarize`` with a
schema naming ``quasi_exact_match`` the main metric.
"""

import json
import shutil
from pathlib import Path

import pytest
from format_fixtures import other_formats_paths, truncated_copy

from rederive.errors import InputError
from rederive.io.accounting import Accounting
from rederive.io.formats import helm

FIXTURES = Path(__file__).parent / "fixtures" / "helm"
OUTPUT = FIXTURES / "benchmark_output"
SUITE = OUTPUT / "runs" / "fixture"
PERTURBED = SUITE / "simple_mcqa:model=helmfix_guesser-a,data_augmentation=lower"
PLAIN = SUITE / "simple_mcqa:model=helmfix_guesser-b"
RUNS = [PERTURBED, PLAIN]


def _read(path, options=None):
    accounting = Accounting(study="t", run="r", file=str(path), sha256="")
    frame = helm.read(path, params={"helm": options or {}}, accounting=accounting)
    accounting.check_balance()
    return frame, accounting


def _helm_stat(run: Path, metric: str, computed_on: str | None = None) -> float:
    """HELM's own aggregate for the test split in stats.json."""
    for stat in json.loads((run / "stats.json").read_text()):
        name = stat["name"]
        if name["name"] == metric and name["split"] == "test":
            if (name.get("perturbation") or {}).get("computed_on") == computed_on:
                return stat["mean"]
    raise AssertionError(f"no {metric} ({computed_on}) in {run}")


def test_fixtures_come_from_the_recorded_release():
    assert (FIXTURES / "VERSION").read_text().strip() == "Version: 0.5.16"


@pytest.mark.parametrize("run", RUNS, ids=lambda p: p.name)
def test_accuracy_equals_helms_aggregate_and_reported(run):
    frame, accounting = _read(run)
    assert set(frame["metric"]) == {"quasi_exact_match"}  # the schema's main metric
    assert any("main metric in" in note for note in accounting.notes)
    per_item = frame.groupby("item_id")["correct"].mean()
    assert len(per_item) == 6
    assert set(frame["epoch"]) == {1, 2}  # train_trial_index 0 and 1
    assert per_item.mean() == pytest.approx(_helm_stat(run, "quasi_exact_match"), abs=1e-12)
    scores = helm.reported(run, params={"helm": {}})
    assert scores[["model", "task", "metric", "filter"]].values.tolist() == [
        [frame["model"].iloc[0], "simple_mcqa", "quasi_exact_match", "test"]
    ]
    assert scores["value"].iloc[0] == _helm_stat(run, "quasi_exact_match")


def test_model_task_item_and_response_as_helm_wrote_them():
    frame, _ = _read(PLAIN)
    assert set(frame["model"]) == {"helmfix/guesser-b"}
    assert set(frame["task"]) == {"simple_mcqa"}
    predictions = json.loads((PLAIN / "display_predictions.json").read_text())
    expected = {
        (p["instance_id"], p["train_trial_index"] + 1): p["predicted_text"] for p in predictions
    }
    got = {(r.item_id, r.epoch): r.response for r in frame.itertuples()}
    assert got == expected
    # The same instance text for both models: equal doc hashes on the originals.
    other, _ = _read(PERTURBED)
    hashes = frame.groupby("item_id")["doc_hash"].first()
    assert hashes.notna().all()
    assert other.groupby("item_id")["doc_hash"].first().equals(hashes)


def test_perturbed_copies_are_counted_exclusions_by_default():
    frame, accounting = _read(PERTURBED)
    assert set(frame["task"]) == {"simple_mcqa"}
    assert dict(accounting.excluded) == {
        "perturbed copy (lowercase; helm.perturbations: exclude)": 12
    }
    assert accounting.rows_read == 24 and accounting.rows_used == 12


def test_perturbations_as_tasks_match_helms_perturbed_aggregate():
    frame, accounting = _read(PERTURBED, {"perturbations": "tasks"})
    assert not accounting.excluded
    ours = frame.groupby(["task", "item_id"])["correct"].mean().groupby("task").mean()
    assert set(ours.index) == {"simple_mcqa", "simple_mcqa [lowercase]"}
    assert ours["simple_mcqa [lowercase]"] == pytest.approx(
        _helm_stat(PERTURBED, "quasi_exact_match", "perturbed"), abs=1e-12
    )
    scores = helm.reported(PERTURBED, params={"helm": {"perturbations": "tasks"}})
    assert scores["task"].tolist() == ["simple_mcqa", "simple_mcqa [lowercase]"]
    for row in scores.itertuples():
        assert ours[row.task] == pytest.approx(row.value, abs=1e-12)


def test_metrics_option_overrides_the_schema():
    frame, accounting = _read(PLAIN, {"metrics": ["no_such_metric", "exact_match"]})
    assert set(frame["metric"]) == {"exact_match"}
    assert frame.groupby("item_id")["correct"].mean().mean() == pytest.approx(
        _helm_stat(PLAIN, "exact_match")
    )
    with pytest.raises(InputError, match="none of the metrics") as error:
        _read(PLAIN, {"metrics": ["rouge_l"]})
    assert error.value.file.endswith("per_instance_stats.json")


def test_without_schema_the_default_metric_is_exact_match(tmp_path):
    run = tmp_path / PLAIN.name
    shutil.copytree(PLAIN, run)
    frame, accounting = _read(run)
    assert set(frame["metric"]) == {"exact_match"}
    assert any("exact_match (default)" in note for note in accounting.notes)


def test_other_split_is_a_counted_exclusion_and_a_missing_split_an_error(tmp_path):
    run = tmp_path / "suite" / PLAIN.name
    shutil.copytree(PLAIN, run)
    entries = json.loads((run / "per_instance_stats.json").read_text())
    for stat in entries[0]["stats"]:
        stat["name"]["split"] = "valid"
    (run / "per_instance_stats.json").write_text(json.dumps(entries))
    frame, accounting = _read(run)
    assert dict(accounting.excluded) == {"other HELM split (valid)": 1}
    assert len(frame) == 11
    with pytest.raises(InputError, match="split 'train' is not in this run") as error:
        _read(run, {"split": "train"})
    assert error.value.field == "stats.name.split"


def test_find_runs_from_benchmark_output_runs_and_suite():
    expected = [(f"runs/fixture/{run.name}", run) for run in RUNS]
    assert helm.find_runs(OUTPUT) == expected
    assert helm.find_runs(SUITE) == [(run.name, run) for run in RUNS]
    assert helm.find_runs(PLAIN) == [(PLAIN.name, PLAIN)]
    files = helm.files(PLAIN)
    assert [p.name for p in files] == [
        "run_spec.json",
        "per_instance_stats.json",
        "stats.json",
        "display_predictions.json",
        "scenario_state.json",
        "schema.json",
    ]


def test_find_runs_names_a_stray_file(tmp_path):
    shutil.copytree(OUTPUT, tmp_path / "benchmark_output")
    (tmp_path / "benchmark_output" / "scenarios" / "mmlu").mkdir(parents=True)
    (tmp_path / "benchmark_output" / "scenarios" / "mmlu" / "data.csv").write_text("x\n")
    assert len(helm.find_runs(tmp_path / "benchmark_output")) == 2  # downloaded data: known
    stray = tmp_path / "benchmark_output" / "runs" / "fixture" / "notes.txt"
    stray.write_text("x\n")
    with pytest.raises(InputError, match="not part of a HELM run") as error:
        helm.find_runs(tmp_path / "benchmark_output")
    assert error.value.file.endswith("notes.txt")


def test_detect():
    assert helm.detect(PLAIN) and helm.detect(PERTURBED)
    assert not helm.detect(SUITE) and not helm.detect(OUTPUT)
    assert not helm.detect(PLAIN / "per_instance_stats.json")
    for path in other_formats_paths("helm"):
        assert not helm.detect(path), path


@pytest.mark.parametrize("name", ["per_instance_stats.json", "run_spec.json"])
def test_truncated_file_is_an_input_error_naming_it(tmp_path, name):
    run = tmp_path / PLAIN.name
    shutil.copytree(PLAIN, run)
    truncated_copy(PLAIN / name, run / name)
    with pytest.raises(InputError, match="malformed JSON") as error:
        _read(run)
    assert error.value.file.endswith(name)


def test_missing_per_instance_stats_is_an_input_error(tmp_path):
    run = tmp_path / PLAIN.name
    shutil.copytree(PLAIN, run)
    (run / "per_instance_stats.json").unlink()
    with pytest.raises(InputError, match="no per_instance_stats.json"):
        _read(run)


def _edited(tmp_path, edit, name="per_instance_stats.json") -> Path:
    run = tmp_path / PLAIN.name
    shutil.copytree(PLAIN, run)
    record = json.loads((run / name).read_text())
    edit(record)
    (run / name).write_text(json.dumps(record))
    return run


def _set_mean(entries, value):
    for stat in entries[2]["stats"]:
        if stat["name"]["name"] == "exact_match":
            stat["mean"] = value


@pytest.mark.parametrize(
    ("edit", "field", "message"),
    [
        (lambda e: e[1].pop("train_trial_index"), "[1].train_trial_index", "missing"),
        (lambda e: e[1].update(instance_id=None), "[1].instance_id", "expected str or int"),
        (
            lambda e: e[3].update(
                instance_id=e[0]["instance_id"], train_trial_index=e[0]["train_trial_index"]
            ),
            "[3].instance_id",
            "already appears as entry 0",
        ),
        (lambda e: e[4].update(stats="x"), "[4].stats", "expected list"),
        (lambda e: _set_mean(e, 3.0), "[2].stats.exact_match.mean", "outside"),
    ],
)
def test_broken_entries_are_input_errors_naming_the_field(tmp_path, edit, field, message):
    run = _edited(tmp_path, edit)
    with pytest.raises(InputError, match=message) as error:
        _read(run)
    assert error.value.field == field
    assert error.value.file.endswith("per_instance_stats.json")


def test_run_spec_without_model_is_an_input_error(tmp_path):
    run = _edited(tmp_path, lambda r: r["adapter_spec"].pop("model"), "run_spec.json")
    with pytest.raises(InputError, match="missing") as error:
        _read(run)
    assert error.value.field == "adapter_spec.model"


def test_metric_not_computed_is_a_counted_exclusion(tmp_path):
    def drop(entries):
        for stat in entries[5]["stats"]:
            if stat["name"]["name"] == "exact_match":
                stat.update(count=0)
                stat.pop("mean")

    run = _edited(tmp_path, drop)
    frame, accounting = _read(run)
    assert dict(accounting.excluded) == {"exact_match not computed (count 0)": 1}
    assert len(frame) == 11


def test_task_name_drops_model_and_perturbation_arguments():
    assert helm.task_name(
        "mmlu:subject=anatomy,method=multiple_choice_joint,model=openai_gpt2"
    ) == ("mmlu:subject=anatomy,method=multiple_choice_joint")
    assert helm.task_name("simple_mcqa:model=a,data_augmentation=lower") == "simple_mcqa"
    assert (
        helm.perturbation_label(
            {"name": "misspellings", "prob": 0.05, "robustness": True, "computed_on": "perturbed"}
        )
        == "misspellings(prob=0.05)"
    )
