"""The site and summary list every analysis under results/, not only this run's
(issue 37, item 9): one built with another config file stays on the index with
the settings it was built with, and is marked stale once its inputs change."""

import json
import os

import pytest
from workflow_utils import run_workflow

pytestmark = pytest.mark.slow


def long_csv(folder, shift=0):
    (folder / "long").mkdir(parents=True, exist_ok=True)
    rows = ["model,item_id,correct,task"] + [
        f"{m},q{i},{(i + k + shift) % 2},tiny"
        for k, m in enumerate(["alpha", "beta"])
        for i in range(30)
    ]
    (folder / "long" / "tiny.csv").write_text("\n".join(rows) + "\n")


def config(name, raw):
    return {
        "analyses": {name: {"kind": "benchmark", "label": f"Analysis {name}", "raw_dir": str(raw)}},
        "build": [name],
    }


def test_an_analysis_of_another_config_stays_on_the_site_and_turns_stale(tmp_path):
    work = tmp_path / "work"
    long_csv(tmp_path / "a")
    long_csv(tmp_path / "b", shift=1)
    run_workflow(work, config("first", tmp_path / "a"))
    run_workflow(work, config("second", tmp_path / "b"))
    index = (work / "results/site/index.html").read_text()
    assert 'href="first/index.html"' in index and 'href="second/index.html"' in index
    assert "earlier run: up to date" in index
    page = (work / "results/site/first/index.html").read_text()
    assert "From an earlier run." in page and "its inputs are unchanged since" in page
    assert "Analysis first" in page  # its label, from the settings it was built with
    summary = (work / "results/summary/published_check.md").read_text()
    assert "| first |" in summary and "not rebuilt in this run" in summary
    # first's inputs change (an older mtime, as a copy would leave it): still not
    # rebuilt by a run of the second config, but marked stale, naming the run.
    csv = tmp_path / "a" / "long" / "tiny.csv"
    csv.write_text(csv.read_text().replace("alpha,q0,0", "alpha,q0,1"))
    os.utime(csv, (1577836800, 1577836800))
    run_workflow(work, config("second", tmp_path / "b"))
    index = (work / "results/site/index.html").read_text()
    assert "earlier run: stale" in index
    page = (work / "results/site/first/index.html").read_text()
    assert "STALE: its inputs changed since (run long-tiny.csv changed (long/tiny.csv))" in page
    # Nothing of first was rebuilt: its change report is still its first build's.
    assert json.loads((work / "results/first/changes/changes.json").read_text())["first_build"]
