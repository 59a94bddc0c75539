"""End-to-end: the real Snakefile on a tiny SaliTrap data set in a temp directory.

The tiny project is built once for the module with the smallest settings that
still exercise every job (200 bootstrap replicates, a 50-epoch IRT fit with 20
ability replicates); the other tests dry-run against it, or rebuild only what
they compare, or stop at the first job that reads the bad input.
"""

import json
import os
import shutil
import time

import pandas as pd
import pytest
import tiny
from workflow_utils import REPO, run_workflow

from rederive.io.batches import batch_of

pytestmark = pytest.mark.slow

TABLES = [
    "results/salitrap/tables/table1_tar_hfr.csv",
    "results/salitrap/tables/table1_tar_hfr.tex",
    "results/salitrap/tables/table2_scr_si.csv",
    "results/salitrap/tables/table2_scr_si.tex",
    "results/salitrap/tables/table3_dataset.csv",
    "results/salitrap/tables/table3_dataset.tex",
    "results/salitrap/tables/data_quality.csv",
    "results/salitrap/tables/table5_pairs.csv",
    "results/salitrap/tables/table5_pairs.tex",
    "results/salitrap/tables/failure_pairs.csv",
    "results/salitrap/tables/failed_by_all.csv",
    "results/salitrap/tables/table6_liberation.csv",
    "results/salitrap/tables/table6_liberation.tex",
    "results/salitrap/tables/table7_interventions.csv",
    "results/salitrap/tables/table7_interventions.tex",
    "results/salitrap/tables/density_rates.csv",
    "results/salitrap/tables/density_slopes.csv",
    "results/salitrap/tables/pairwise_tar.csv",
    "results/salitrap/tables/ranking.csv",
    "results/salitrap/tables/ranking.tex",
    "results/salitrap/tables/irt_items.csv",
    "results/salitrap/tables/irt_models.csv",
]
OUTPUTS = [
    *TABLES,
    "results/salitrap/check/published_check.csv",
    "results/salitrap/check/published_check.md",
    "results/summary/published_check.md",
    "results/summary/provenance.json",
]
FIGURES = [
    "fig4_irt",
    "fig5_dendrogram",
    "fig6_density",
    "fig7_liberation",
    "fig8_interventions",
    "fig9_naturalness_difficulty",
    "fig10_co_failure",
    "fig11_jaccard",
    "fig12_density_by_dimension",
    "overview_labels",
]
# Rebuilt from scratch and compared byte for byte: every seeded step that is
# cheap (the bootstrap tables, failure sets, pairwise comparisons) and the py-irt
# fit with its ability bootstrap. Figures only redraw these CSVs.
DETERMINISM = [
    "results/salitrap/tables/table1_tar_hfr.csv",
    "results/salitrap/tables/table1_tar_hfr.tex",
    "results/salitrap/tables/table5_pairs.csv",
    "results/salitrap/tables/failure_pairs.csv",
    "results/salitrap/tables/pairwise_tar.csv",
    "results/salitrap/tables/irt_items.csv",
    "results/salitrap/tables/irt_models.csv",
]


def make_project(root):
    raw = root / "raw" / "salitrap"
    tiny.write_dataset(raw, experiments=True)
    shutil.copytree(REPO / "raw" / "salitrap" / "published", raw / "published")
    return raw


# Two ingest batches: Model-A, -B and -C share b01, the experiment runs are in
# b00, so the tests see a batch re-run for one of its runs and one left alone.
BATCHES = 2


def overrides(**salitrap):
    return {
        "build": ["salitrap"],
        "ingest_batches": BATCHES,
        "analyses": {
            "salitrap": {
                "bootstrap": {"n_boot": 200},
                "irt": {"epochs": 50, "n_boot": 20},
                **salitrap,
            }
        },
    }


def planned_batches(root) -> list[str]:
    """The ``batch`` wildcard of every ingest job a dry run would start."""
    proc = run_workflow(root, overrides(), extra_args=["-n"])
    out = proc.stdout + proc.stderr
    return sorted(
        line.split("batch=")[1].strip()
        for line in out.splitlines()
        if line.strip().startswith("wildcards:") and "batch=" in line
    )


def quiet_plan(root) -> dict[str, int]:
    """Jobs a dry run would start, per rule (``-n --quiet rules``)."""
    proc = run_workflow(root, overrides(), extra_args=["-n", "--quiet", "rules"])
    out = proc.stdout + proc.stderr
    plan = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit() and parts[0] != "total":
            plan[parts[0]] = int(parts[1])
    return plan


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("salitrap_wf")
    make_project(root)
    run_workflow(root, overrides())
    return root


def test_outputs_exist(built):
    for path in OUTPUTS:
        assert (built / path).stat().st_size > 0, path
    for name in FIGURES:
        for ext in ("png", "pdf"):
            assert (built / f"results/salitrap/figures/{name}.{ext}").stat().st_size > 0, name


def test_liberation_and_interventions_from_the_raw_rows(built):
    t6 = pd.read_csv(built / "results/salitrap/tables/table6_liberation.csv")
    overall = t6[t6.dimension == "overall"].set_index("condition")
    n_sc = int(overall.loc["A", "sc_cases"])
    assert n_sc > 1 and set(t6.model) == {"Model-A"}
    # one judge error under lib_A leaves that condition's n only
    assert overall.loc["A", "denominator"] == n_sc - 1
    assert overall.loc["B", "denominator"] == overall.loc["C", "denominator"] == n_sc
    assert overall.loc["A", "percent"] == 100.0 and overall.loc["B", "percent"] == 0.0
    t7 = pd.read_csv(built / "results/salitrap/tables/table7_interventions.csv")
    t1 = pd.read_csv(built / "results/salitrap/tables/table1_tar_hfr.csv")
    control = t7[(t7.condition == "control") & (t7.metric == "TAR")].iloc[0]
    main = t1[(t1.model == "Model-A") & (t1.dimension == "overall") & (t1.metric == "TAR")].iloc[0]
    assert (control.numerator, control.denominator) == (main.numerator, main.denominator)
    assert set(t7.condition) == {"control", "P1", "P2", "P3"}


def test_check_covers_tables_1_to_7(built):
    check = pd.read_csv(built / "results/salitrap/check/published_check.csv")
    tables = set(check["table"])
    for table in ("Table 1", "Table 2", "Table 3", "Table 5", "Table 6", "Table 7"):
        assert table in tables, table


def test_table1_counts_match_the_raw_rows(built):
    t1 = pd.read_csv(built / "results/salitrap/tables/table1_tar_hfr.csv")
    overall = t1[t1.dimension == "overall"].set_index(["model", "metric"])
    for model in ("Model-A", "Model-B", "Model-C"):
        rows = [
            json.loads(line)
            for line in (built / f"raw/salitrap/runs/{model}.jsonl").read_text().splitlines()
        ]
        valid = [
            r
            for r in rows
            if not r["skipped"] and r["judge_label"] in tiny.LABELS and not r["error"]
        ]
        tar = overall.loc[(model, "TAR")]
        assert tar["denominator"] == len(valid) == len(rows) - 2
        assert tar["numerator"] == sum(r["judge_label"] == "Strict Pass" for r in valid)
        # default config: HFR counts strong failures (Hard Fail + CoT Hijacked)
        assert overall.loc[(model, "HFR"), "numerator"] == sum(
            r["judge_label"] in ("Hard Fail", "CoT Hijacked") for r in valid
        )
        assert tar["ci_low"] <= tar["percent"] <= tar["ci_high"]


def test_data_quality_counts_every_excluded_row(built):
    quality = pd.read_csv(built / "results/salitrap/tables/data_quality.csv")
    per_run = quality.groupby("run")["rows"].sum()
    assert (per_run[["Model-A", "Model-B", "Model-C"]] == 24).all()
    assert per_run["Model-A__interventions"] == 72  # P1-P3 over 24 items
    assert set(quality["reason"]) == {"used", "skipped", "judge_error"}


def test_second_run_has_nothing_to_do_and_touch_is_free(built):
    proc = run_workflow(built, overrides(), extra_args=["-n"])
    assert "Nothing to be done" in proc.stdout + proc.stderr
    run_file = built / "raw/salitrap/runs/Model-A.jsonl"
    later = time.time() + 5
    os.utime(run_file, (later, later))
    proc = run_workflow(built, overrides(), extra_args=["-n"])
    assert "Nothing to be done" in proc.stdout + proc.stderr


def test_new_run_file_ingests_only_that_file(built, tmp_path):
    # Only the plan is needed: which run files would be ingested. What the new run
    # is called in the tables (overlapping runs of one model) is unit-tested in
    # test_metrics.py.
    root = tmp_path / "copy"
    shutil.copytree(built, root, symlinks=True)
    shutil.copy(
        root / "raw/salitrap/runs/Model-B.jsonl", root / "raw/salitrap/runs/Model-B-rerun.jsonl"
    )
    plan = quiet_plan(root)
    assert plan.get("ingest_salitrap_batch") == 1, plan
    assert plan.get("build_salitrap_warehouse") == 1, plan
    assert "ingest_salitrap_items" not in plan, plan
    assert planned_batches(root) == [batch_of("Model-B-rerun", BATCHES)]


def test_changed_run_file_reingests_only_its_batch(built, tmp_path):
    root = tmp_path / "copy"
    shutil.copytree(built, root, symlinks=True)
    run_file = root / "raw/salitrap/runs/Model-A__interventions.jsonl"
    run_file.write_text(run_file.read_text() + "\n")  # new bytes; a dry run reads none
    assert batch_of("Model-A__interventions", BATCHES) != batch_of("Model-A", BATCHES)
    assert planned_batches(root) == [batch_of("Model-A__interventions", BATCHES)]
    assert quiet_plan(root).get("ingest_salitrap_batch") == 1


def test_removed_run_file_leaves_the_warehouse(built, tmp_path):
    import duckdb

    root = tmp_path / "copy"
    shutil.copytree(built, root, symlinks=True)
    # Model-C shares its batch with Model-A and -B: the re-run batch folder must
    # not keep Model-C's old files.
    assert batch_of("Model-C", BATCHES) == batch_of("Model-A", BATCHES)
    (root / "raw/salitrap/runs/Model-C.jsonl").unlink()
    assert planned_batches(root) == [batch_of("Model-C", BATCHES)]
    run_workflow(root, overrides(), targets=["results/salitrap/salitrap.duckdb"])
    batch_dir = root / "results/salitrap/ingested" / batch_of("Model-C", BATCHES)
    assert sorted(p.name for p in (batch_dir / "labelled").iterdir()) == [
        "Model-A.parquet",
        "Model-B.parquet",
    ]
    con = duckdb.connect(str(root / "results/salitrap/salitrap.duckdb"), read_only=True)
    try:
        runs = {r for (r,) in con.execute("SELECT DISTINCT run FROM labels").fetchall()}
        models = {m for (m,) in con.execute("SELECT DISTINCT model FROM labels").fetchall()}
    finally:
        con.close()
    assert "Model-C" not in runs and "Model-C" not in models
    assert {"Model-A", "Model-B"} <= models


def test_identical_tables_on_rerun_from_scratch(built, tmp_path):
    root = tmp_path / "again"
    make_project(root)
    run_workflow(root, overrides(), targets=DETERMINISM)
    assert not (root / "results/salitrap/figures").exists()  # only what is compared
    for path in DETERMINISM:
        assert (root / path).read_bytes() == (built / path).read_bytes(), path


def test_bad_input_gives_a_clear_message_not_a_traceback(tmp_path):
    raw = make_project(tmp_path)
    run_file = raw / "runs" / "Model-A.jsonl"
    lines = run_file.read_text().splitlines()
    lines[4] = json.dumps({**json.loads(lines[4]), "judge_label": "Hardfail"})
    run_file.write_text("\n".join(lines) + "\n")
    # Target the one job that reads the bad file: it fails before anything else runs.
    target = f"results/salitrap/ingested/{batch_of('Model-A', BATCHES)}"
    proc = run_workflow(tmp_path, overrides(), targets=[target], check=False)
    assert proc.returncode != 0
    err = proc.stderr
    assert "rederive: input error" in err
    assert (
        "raw/salitrap/runs/Model-A.jsonl:5, field 'judge_label': unknown judge label 'Hardfail'"
        in err
    )
    assert "Traceback" not in err


def test_unknown_config_key_is_named(tmp_path):
    make_project(tmp_path)
    # Config validation fails before any job is planned.
    proc = run_workflow(tmp_path, overrides(n_bot=5), check=False)
    assert proc.returncode != 0
    assert "n_bot" in proc.stderr
