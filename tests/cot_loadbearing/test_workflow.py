"""The real Snakefile on a small simulated data set: every output, the accounting,
byte-identical tables on a rerun, and a readable message for a broken input."""

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from workflow_utils import run_workflow

from rederive.io.batches import batch_of
from rederive.simulate.cot_loadbearing import generate

REPO = Path(__file__).resolve().parents[2]
PUBLISHED = REPO / "raw" / "cot_loadbearing" / "published"
TARGETS = [
    "results/cot_loadbearing/check/published_check.md",
    "results/cot_loadbearing/tables/data_quality.csv",
    "results/cot_loadbearing/tables/rule_vs_judge_agreement.csv",
    "results/cot_loadbearing/figures/shares.png",
    "results/cot_loadbearing/figures/judge_sensitivity.pdf",
]


def overrides(raw):
    return {
        "build": ["cot_loadbearing"],
        "analyses": {
            "cot_loadbearing": {
                "raw_dir": str(raw),
                "bootstrap": {"n_boot": 200, "seed": 5},
                "min_subject_n": 5,
            }
        },
    }


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    work = tmp_path_factory.mktemp("cot_wf")
    raw = work / "raw" / "cot_loadbearing"
    generate(raw, PUBLISHED, scale=0.04)
    shutil.copytree(PUBLISHED, raw / "published")
    (raw / "SIMULATED.md").write_text("test data\n")
    run_workflow(work, overrides(raw), targets=TARGETS)
    return work, raw


@pytest.mark.slow
def test_outputs_and_accounting(small_run):
    work, raw = small_run
    res = work / "results" / "cot_loadbearing"
    quality = pd.read_csv(res / "tables" / "data_quality.csv")
    for run in ("gemma-2-9b-it", "llama-3.1-8b-instruct"):
        batch = res / "ingested" / batch_of(run, 8)
        acc = json.loads((batch / "accounting" / f"{run}.json").read_text())
        lines = sum(1 for line in open(raw / "runs" / f"{run}.jsonl") if line.strip())
        assert acc["rows_read"] == lines
        assert acc["rows_used"] + acc["rows_excluded"] == lines
        assert acc["rows_excluded"] > 0
        q = quality[quality["run"] == run]
        assert q["rows"].sum() == lines
    table1 = pd.read_csv(res / "tables" / "table1_main.csv")
    assert set(table1["model"]) == {
        "gemma-2-9b-it",
        "llama-3.1-8b-instruct",
        "deepseek-r1-distill-qwen-7b",
    }
    assert (table1[["A_pct", "B_pct", "C_pct"]].sum(axis=1).sub(100).abs() <= 0.15).all()
    assert (table1["C_lo"] <= table1["C_pct"]).all() and (table1["C_pct"] <= table1["C_hi"]).all()
    t5 = pd.read_csv(res / "tables" / "table5_deviance.csv")
    assert set(t5["order"]) == {"paper", "family first"}
    totals = t5[t5["term"] == "total"]["delta_deviance"]
    assert totals.nunique() == 1  # both orders explain the same total deviance
    check = pd.read_csv(res / "check" / "published_check.csv")
    assert {"table1", "table2", "table5", "gradients", "judge", "models"} <= set(check["table"])
    assert "SIMULATED" in (res / "check" / "published_check.md").read_text()
    for name in ("shares", "gradients", "mmlu_subjects", "judge_sensitivity"):
        assert (res / "figures" / f"{name}.png").stat().st_size > 1000


@pytest.mark.slow
def test_rerun_is_byte_identical(small_run):
    """Rerun the statistics jobs (bootstrap, ordinal fits) and compare bytes."""
    work, raw = small_run
    tables = work / "results" / "cot_loadbearing" / "tables"
    rerun = {
        "tabulate_cot_loadbearing_shares": [
            "table1_main.csv",
            "table1_main.tex",
            "table2_decoupling.csv",
        ],
        "fit_cot_loadbearing_ordinal": ["table5_deviance.csv", "table5_deviance.tex"],
        "tabulate_cot_loadbearing_gradients": [
            "position.csv",
            "remaining_steps.csv",
            "strength.tex",
        ],
    }
    names = [n for files in rerun.values() for n in files]
    before = {n: (tables / n).read_bytes() for n in names}
    run_workflow(
        work,
        overrides(raw),
        targets=[f"results/cot_loadbearing/tables/{files[0]}" for files in rerun.values()],
        extra_args=["--forcerun", *rerun],
    )
    assert [n for n in names if (tables / n).read_bytes() != before[n]] == []
    # Wall-clock seconds differ on every run: they go to the rule's log, never into results/.
    assert not list((work / "results" / "cot_loadbearing").rglob("*timing*"))
    log = (work / "results/logs/cot_loadbearing/fit_cot_loadbearing_ordinal.log").read_text()
    assert '"total_seconds"' in log


@pytest.mark.slow
def test_broken_input_is_a_short_message(tmp_path):
    raw = tmp_path / "raw" / "cot_loadbearing"
    (raw / "runs").mkdir(parents=True)
    shutil.copytree(PUBLISHED, raw / "published")
    good = {
        "model": "m",
        "problem_id": "p",
        "dataset": "gsm8k",
        "subject": "gsm8k",
        "difficulty": 1,
        "strategy": "numeric_value",
        "family": "math",
        "position": "early",
        "n_steps": 4,
        "remaining_steps": 3,
        "continuation": "So 5.",
        "original_answer": "5",
        "continuation_answer": "5",
        "judge_label": "A",
    }
    bad = {**good, "position": "beginning"}
    (raw / "runs" / "m.jsonl").write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n")
    (raw / "baselines.csv").write_text(
        "model,dataset,n_problems,n_correct,n_baselines\nm,gsm8k,1,1,1\n"
    )
    proc = run_workflow(
        tmp_path,
        overrides(raw),
        targets=["results/cot_loadbearing/tables/data_quality.csv"],
        check=False,
    )
    assert proc.returncode != 0
    message = proc.stderr
    assert "m.jsonl:2" in message and "field 'position'" in message
    log = (
        tmp_path
        / f"results/logs/cot_loadbearing/ingest_cot_loadbearing_batch/{batch_of('m', 8)}.log"
    )
    assert "run m: " in log.read_text() and "Traceback" not in log.read_text()
