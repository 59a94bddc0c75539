"""End-to-end: the real Snakefile on a tiny SaliTrap data set in a temp directory."""

import json
import os
import shutil
import time

import pandas as pd
import pytest
import tiny
from workflow_utils import REPO, run_workflow

pytestmark = pytest.mark.slow

OUTPUTS = [
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


def make_project(root):
    raw = root / "raw" / "salitrap"
    tiny.write_dataset(raw, experiments=True)
    shutil.copytree(REPO / "raw" / "salitrap" / "published", raw / "published")
    return raw


def overrides(**salitrap):
    return {
        "studies": ["salitrap"],
        "salitrap": {
            "bootstrap": {"n_boot": 200},
            "irt": {"epochs": 100, "n_boot": 3},
            **salitrap,
        },
    }


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
    runs = {}
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
        runs[model] = valid
        overall = t1[(t1.model == model) & (t1.dimension == "overall") & (t1.metric == "TAR")].iloc[
            0
        ]
        assert overall["denominator"] == len(valid) == len(rows) - 2
        assert overall["numerator"] == sum(r["judge_label"] == "Strict Pass" for r in valid)
        hfr = t1[(t1.model == model) & (t1.dimension == "overall") & (t1.metric == "HFR")].iloc[0]
        # default config: HFR counts strong failures (Hard Fail + CoT Hijacked)
        assert hfr["numerator"] == sum(
            r["judge_label"] in ("Hard Fail", "CoT Hijacked") for r in valid
        )
        assert overall["ci_low"] <= overall["percent"] <= overall["ci_high"]


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
    root = tmp_path / "copy"
    shutil.copytree(built, root, ignore=shutil.ignore_patterns(".snakemake"))
    shutil.copytree(built / ".snakemake", root / ".snakemake", symlinks=True)
    shutil.copy(
        root / "raw/salitrap/runs/Model-B.jsonl", root / "raw/salitrap/runs/Model-B-rerun.jsonl"
    )
    proc = run_workflow(root, overrides(), extra_args=["-n", "--quiet", "rules"])
    out = proc.stdout + proc.stderr
    assert "ingest_salitrap_run" in out and "build_salitrap_warehouse" in out
    ingest_line = next(
        line for line in out.splitlines() if line.strip().startswith("ingest_salitrap_run")
    )
    assert ingest_line.split()[-1] == "1", out
    run_workflow(root, overrides())
    quality = pd.read_csv(root / "results/salitrap/tables/data_quality.csv")
    assert quality["reason"].str.contains("reported as 'Model-B \\[Model-B-rerun\\]'").any()


def test_identical_tables_on_rerun_from_scratch(built, tmp_path):
    root = tmp_path / "again"
    make_project(root)
    run_workflow(root, overrides())
    for path in OUTPUTS:
        if path.endswith("provenance.json"):
            continue
        assert (root / path).read_bytes() == (built / path).read_bytes(), path


def test_bad_input_gives_a_clear_message_not_a_traceback(tmp_path):
    raw = make_project(tmp_path)
    run_file = raw / "runs" / "Model-A.jsonl"
    lines = run_file.read_text().splitlines()
    lines[4] = lines[4].replace('"Hard Fail"', '"Hardfail"').replace('"Strict Pass"', '"Hardfail"')
    lines[4] = json.dumps({**json.loads(lines[4]), "judge_label": "Hardfail"})
    run_file.write_text("\n".join(lines) + "\n")
    proc = run_workflow(tmp_path, overrides(), check=False)
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
    proc = run_workflow(tmp_path, overrides(n_bot=5), check=False)
    assert proc.returncode != 0
    assert "n_bot" in proc.stderr
