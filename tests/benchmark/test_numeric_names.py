"""Checkpoint-style model names (``1000`` … ``5000``) through a whole benchmark
build (issue 26 row "numeric-looking names in the benchmark"): the ranking keeps
every tie, names stay text in every table, the run finishes."""

import pandas as pd
import pytest
from benchmark_formats import chembench_slice
from workflow_utils import run_workflow

from rederive.io.names import read_csv

NAMES = ["1000", "2000", "3000", "4000", "5000"]


@pytest.mark.slow
def test_numeric_names_keep_every_tie_and_stay_text(tmp_path):
    one = chembench_slice(40, ["GPT-4o"])
    # Five checkpoints with identical answers: no pair is separable, so each
    # model is tied with the four others.
    data = pd.concat([one.assign(model=name) for name in NAMES], ignore_index=True)
    raw = tmp_path / "raw" / "long"
    raw.mkdir(parents=True)
    data[["model", "item_id", "correct"]].to_csv(raw / "scores.csv", index=False)
    work = tmp_path / "work"
    work.mkdir()
    entry = {"kind": "benchmark", "label": "Checkpoints", "raw_dir": str(tmp_path / "raw")}
    proc = run_workflow(work, {"analyses": {"ckpt": entry}, "build": ["ckpt"]})
    assert "Traceback" not in proc.stderr
    ranking = read_csv(work / "results" / "ckpt" / "tables" / "ranking.csv")
    assert sorted(ranking["model"]) == NAMES
    assert ranking["n_tied"].tolist() == [4] * 5
    for _, row in ranking.iterrows():
        assert sorted(row["tied_with"].split("; ")) == sorted(set(NAMES) - {row["model"]})
    pairs = read_csv(work / "results" / "ckpt" / "tables" / "pairwise.csv")
    assert set(pairs["a"]) | set(pairs["b"]) == set(NAMES)
