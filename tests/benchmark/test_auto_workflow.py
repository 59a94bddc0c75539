"""``inputs: {auto: <folder>}`` end to end through the real Snakefile: a folder holding
two real lm-evaluation-harness model folders and a long CSV of a third model."""

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from test_docs import DOCS, parse_blocks
from workflow_utils import run_workflow

LM_EVAL = Path(__file__).parent / "fixtures" / "lm_eval" / "out"


def _samples(folder: Path, task: str) -> list[dict]:
    (path,) = folder.glob(f"samples_{task}_*.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines()]


def mixed(root: Path) -> Path:
    folder = root / "all_results"
    for model in ("dummy-a", "dummy-b"):
        shutil.copytree(LM_EVAL / model, folder / "lm_eval_out" / model)
    rows = ["model,task,item_id,correct"]
    for task in ("tiny_mc", "tiny_gen"):
        rows += [
            f"m3,{task},{s['doc_id']},{s['doc_id'] % 2}"
            for s in _samples(LM_EVAL / "dummy-a", task)
        ]
    (folder / "m3.csv").write_text("\n".join(rows) + "\n")
    return folder


@pytest.mark.slow
def test_auto_folder_builds_and_names_each_format(tmp_path):
    folder = mixed(tmp_path)
    raw = tmp_path / "raw"
    raw.mkdir()
    settings = {
        "kind": "benchmark",
        "raw_dir": str(raw),
        "inputs": {"auto": str(folder)},
        "bootstrap": {"n_boot": 200},
        "irt": {"epochs": 50},
        "min_n": 1,
    }
    run_workflow(tmp_path, {"build": ["mixed"], "analyses": {"mixed": settings}})
    tables = tmp_path / "results" / "mixed" / "tables"
    quality = pd.read_csv(tables / "data_quality.csv")
    formats = quality.drop_duplicates("run").set_index("run")["format"].to_dict()
    assert formats == {
        "long-m3.csv": "long",
        "lm_eval-lm_eval_out_dummy-a": "lm_eval",
        "lm_eval-lm_eval_out_dummy-b": "lm_eval",
    }
    accuracy = pd.read_csv(tables / "accuracy.csv").set_index("model")["accuracy"]
    assert sorted(accuracy.index) == ["dummy-a", "dummy-b", "m3"]
    assert accuracy["m3"] == pytest.approx(
        sum(i % 2 for i in range(20)) / 30 + sum(i % 2 for i in range(10)) / 30
    )
    check = pd.read_csv(tmp_path / "results" / "mixed" / "check" / "published_check.csv")
    harness = check[check["table"] == "harness-reported"]
    assert len(harness) == 4 and (harness["status"] == "pass").all()


@pytest.mark.slow
def test_auto_refuses_an_unknown_file_before_any_job(tmp_path):
    folder = mixed(tmp_path)
    (folder / "notes.txt").write_text("which runs these are\n")
    raw = tmp_path / "raw"
    raw.mkdir()
    settings = {"kind": "benchmark", "raw_dir": str(raw), "inputs": {"auto": str(folder)}}
    proc = run_workflow(
        tmp_path, {"build": ["mixed"], "analyses": {"mixed": settings}}, check=False
    )
    assert proc.returncode != 0
    message = proc.stderr.strip().splitlines()[-1]
    assert message.startswith("rederive: input error: analysis mixed:")
    assert "notes.txt: inputs.auto: no input format recognises this file" in message
    # The message as docs/input-formats.md shows it (every registered format tried).
    (shown,) = [
        b.text for b in parse_blocks(DOCS / "input-formats.md") if "all_results/notes.txt" in b.text
    ]
    assert message == shown
