"""Named analyses end to end: a user's own evaluations beside the bundled five,
nothing stale after a content change, labels instead of paths.

The user's config is what README shows: one YAML file naming two benchmark
analyses (an lm-evaluation-harness folder and a long-CSV folder).
"""

import os
import shutil
from pathlib import Path

import pandas as pd
import pytest
from benchmark_formats import chembench_slice, write_lm_eval
from workflow_utils import copy_build, run_workflow

MODELS = ["o1", "GPT-4o", "Claude-3.5 (Sonnet)"]
BUNDLED = ["salitrap", "tag_sycophancy", "bias_awareness", "cot_loadbearing", "benchmark"]
EXTRA = {"lm_eval_slice": "ChemBench slice via lm-eval", "long_slice": "ChemBench slice, long CSV"}
TEXT_SUFFIXES = {".csv", ".md", ".tex", ".json", ".html"}


def user_inputs(root: Path) -> dict:
    """Two users' folders and the analyses config naming them (absolute paths)."""
    data = chembench_slice(40, MODELS)
    write_lm_eval(root / "lm_eval_folder" / "lm_eval", data)
    long_dir = root / "long_folder" / "long"
    long_dir.mkdir(parents=True)
    data[["model", "item_id", "correct"]].to_csv(long_dir / "scores.csv", index=False)
    return {
        "lm_eval_slice": {
            "kind": "benchmark",
            "label": EXTRA["lm_eval_slice"],
            "raw_dir": str(root / "lm_eval_folder"),
        },
        "long_slice": {
            "kind": "benchmark",
            "label": EXTRA["long_slice"],
            "raw_dir": str(root / "long_folder"),
        },
    }


def tables(work: Path, name: str) -> dict[str, bytes]:
    folder = work / "results" / name
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        # history/ records when each build ran (docs/changes.md): not a table.
        if p.is_file()
        and p.suffix in TEXT_SUFFIXES
        and "ingested" not in p.parts
        and "history" not in p.parts
    }


@pytest.fixture(scope="module")
def seven(tmp_path_factory, bundled_build):
    # The user's two analyses added to a copy of the bundled build (README's first
    # command, then theirs): the bundled five are up to date and stay as they are.
    root = tmp_path_factory.mktemp("seven")
    analyses = user_inputs(root / "inputs")
    work = copy_build(bundled_build, root / "work")
    proc = run_workflow(work, {"analyses": analyses}, cores=8, extra_args=["--quiet", "rules"])
    return root, work, analyses, proc


@pytest.mark.slow
def test_user_analyses_build_beside_the_bundled_five(seven):
    root, work, analyses, proc = seven
    for name in BUNDLED + list(EXTRA):
        assert (work / "results" / name / "check" / "published_check.md").is_file(), name
    summary = (work / "results" / "summary" / "published_check.md").read_text()
    for name in BUNDLED + list(EXTRA):
        assert f"| {name} |" in summary
    # The run ends with one line naming where the results are.
    assert proc.stderr.strip().splitlines()[-1].startswith("rederive: done (7 analyses")
    accuracy = pd.read_csv(work / "results" / "long_slice" / "tables" / "accuracy.csv")
    expected = chembench_slice(40, MODELS).groupby("model")["correct"].mean()
    got = accuracy.set_index("model")["accuracy"]
    assert (got.loc[expected.index] - expected).abs().max() < 1e-12


@pytest.mark.slow
def test_each_analysis_is_byte_identical_to_building_it_alone(seven, tmp_path, bundled_build):
    root, work, analyses, _ = seven
    for name, entry in analyses.items():
        alone = tmp_path / name
        alone.mkdir()
        run_workflow(alone, {"analyses": {name: entry}, "build": [name]})
        assert tables(alone, name) == tables(work, name), name
        # Nothing of the other analyses is written by a build of one.
        assert sorted(p.name for p in (alone / "results").iterdir()) == sorted(
            ["benchmarks", "logs", "site", "summary", name]
        )

    # Adding the user's analyses rebuilt none of the bundled five: their tables
    # are the shared bundled build's (each built without the user's analyses).
    for name in BUNDLED:
        assert tables(bundled_build, name) == tables(work, name), name


@pytest.mark.slow
def test_outputs_name_the_label_never_the_path(seven):
    root, work, analyses, _ = seven
    for name, entry in analyses.items():
        texts = tables(work, name)
        assert texts
        for path, content in texts.items():
            assert entry["raw_dir"].encode() not in content, (name, path)
            assert str(root).encode() not in content, (name, path)
        captions = (work / "results" / name / "tables" / "ranking.tex").read_text()
        assert entry["label"] in captions
    provenance = (work / "results" / "summary" / "provenance.json").read_text()
    assert provenance.count(analyses["long_slice"]["raw_dir"]) == 1  # its root, once


# ---------------------------------------------------------------- staleness
def small_analysis(root: Path) -> tuple[Path, dict]:
    raw = root / "raw_long"
    (raw / "long").mkdir(parents=True)
    (raw / "published").mkdir()
    write_scores(raw / "long" / "run.csv", correct_m1=3)
    (raw / "published" / "scores.csv").write_text("model,score\nm1,0.75\nm2,0.5\n")
    work = root / "work"
    work.mkdir()
    overrides = {
        "build": ["mine"],
        "analyses": {
            "mine": {
                "kind": "benchmark",
                "raw_dir": str(raw),
                "bootstrap": {"n_boot": 200},
                "irt": {"epochs": 50},
                "min_n": 1,
            }
        },
    }
    return work, overrides


def write_scores(path: Path, *, correct_m1: int) -> None:
    rows = ["model,item_id,correct"]
    rows += [f"m1,i{i},{int(i < correct_m1)}" for i in range(4)]
    rows += [f"m2,i{i},{int(i < 2)}" for i in range(4)]
    path.write_text("\n".join(rows) + "\n")


def planned_rules(work, overrides) -> list[str]:
    proc = run_workflow(work, overrides, extra_args=["-n"])
    if "Nothing to be done" in proc.stdout + proc.stderr:
        return []
    return sorted(
        {
            line.split()[1].rstrip(":")
            for line in proc.stdout.splitlines()
            if line.startswith("rule ")
        }
    )


def accuracy_of(work, model):
    frame = pd.read_csv(work / "results" / "mine" / "tables" / "accuracy.csv")
    return float(frame.set_index("model").loc[model, "accuracy"])


OLD = 946_684_800  # 2000-01-01: older than any output


@pytest.mark.slow
def test_nothing_stale_after_content_changes_with_old_mtimes(tmp_path):
    work, overrides = small_analysis(tmp_path)
    run_workflow(work, overrides)
    assert accuracy_of(work, "m1") == 0.75
    run = Path(overrides["analyses"]["mine"]["raw_dir"]) / "long" / "run.csv"

    # Touching, or rewriting the same bytes (a re-checkout), redoes nothing.
    run.touch()
    assert planned_rules(work, overrides) == []
    run.write_bytes(run.read_bytes())
    assert planned_rules(work, overrides) == []

    # `cp -p` of an older, different file: ingest and everything after it.
    newer = tmp_path / "other.csv"
    write_scores(newer, correct_m1=1)
    os.utime(newer, (OLD, OLD))
    shutil.copy2(newer, run)
    assert run.stat().st_mtime == OLD
    plan = planned_rules(work, overrides)
    assert {
        "ingest_benchmark_batch",
        "analyse_benchmark_accuracy",
        "check_benchmark_published",
    } <= set(plan)
    run_workflow(work, overrides)
    assert accuracy_of(work, "m1") == 0.25
    assert planned_rules(work, overrides) == []

    # An edited published CSV with an old mtime re-runs the check against the new value.
    published = Path(overrides["analyses"]["mine"]["raw_dir"]) / "published" / "scores.csv"
    check = work / "results" / "mine" / "check" / "published_check.csv"
    status = pd.read_csv(check).query("table == 'scores'").set_index("item")
    assert status.loc["m1", "status"] == "FAIL"  # 0.75 published, 0.25 now
    published.write_text("model,score\nm1,0.25\nm2,0.5\n")
    os.utime(published, (OLD, OLD))
    plan = planned_rules(work, overrides)
    assert "check_benchmark_published" in plan and "ingest_benchmark_batch" not in plan
    run_workflow(work, overrides)
    status = pd.read_csv(check).query("table == 'scores'").set_index("item")
    assert status.loc["m1", "status"] == "pass"
    summary = (work / "results" / "summary" / "published_check.md").read_text()
    assert "| mine | " in summary
