"""The gate in the workflow: the bundled ChemBench analysis with a ``gate:`` block.

GPT-4o is the baseline, o1 and Claude-3.5 (Sonnet) the candidates, margin 1
point (what config/config.yaml sets, written out here). The workflow's
``gate/gate.csv`` must be byte-identical to what ``python -m rederive.gate`` writes
from the same raw folder, and gate.json the same report but for where the scores
were read; a CI step reads the exit status from gate.json as docs/gate.md shows; a
rebuild at a 0.5-point margin turns Claude's ``not worse`` into ``inconclusive``,
which the change report lists as a decision and its closing line names, and only
the gate job reruns.

Lean: the first build is the gate and what it needs (ingest, warehouse); the
change report needs every table the analysis keeps, built once with 200 bootstrap
replicates.
"""

import csv
import json
import re
import shlex
import subprocess
import sys

import pytest
from workflow_utils import REPO, run_workflow

from rederive.gate.__main__ import main as gate_cli

pytestmark = pytest.mark.slow

BASELINE, CANDIDATES = "GPT-4o", ["o1", "Claude-3.5 (Sonnet)"]
GATE = "results/benchmark/gate/gate.md"
CHANGES = "results/benchmark/changes/changes.json"


def overrides(margin_pp: float) -> dict:
    return {
        "analyses": {
            "benchmark": {
                "bootstrap": {"n_boot": 200},
                "gate": {"baseline": BASELINE, "candidate": CANDIDATES, "margin_pp": margin_pp},
            }
        },
        "build": ["benchmark"],
    }


def build(root, margin_pp: float, target: str):
    return run_workflow(root, overrides(margin_pp), targets=[target])


def without_sources(report: dict) -> dict:
    """The report but for where each side was read (a path, or the analysis)."""
    report = json.loads(json.dumps(report))
    report["baseline"].pop("source")
    for comparison in report["comparisons"]:
        comparison["candidate"].pop("source")
    return report


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    root = tmp_path_factory.mktemp("gate")
    (root / "raw").symlink_to(REPO / "raw", target_is_directory=True)
    build(root, 1.0, GATE)
    return root


def cli(tmp_path, capsys, margin_pp: float) -> tuple[int, dict]:
    argv = [str(REPO / "raw" / "benchmark"), "--baseline", BASELINE]
    for name in CANDIDATES:
        argv += ["--candidate", name]
    argv += ["--margin-pp", str(margin_pp), "--out", str(tmp_path / "cli"), "--json"]
    code = gate_cli(argv)
    return code, json.loads(capsys.readouterr().out)


def test_the_workflow_gate_equals_the_cli_on_the_raw_folder(root, tmp_path, capsys):
    gate = root / "results" / "benchmark" / "gate"
    # Only the gate and what it needs were built.
    assert not (root / "results" / "benchmark" / "tables").exists()
    code, expected = cli(tmp_path, capsys, 1.0)
    written = json.loads((gate / "gate.json").read_text())
    assert without_sources(written) == without_sources(expected)
    assert written["baseline"]["source"] == "analysis benchmark"
    assert (gate / "gate.csv").read_bytes() == (tmp_path / "cli" / "gate.csv").read_bytes()
    verdicts = [c["overall"]["verdict"] for c in written["comparisons"]]
    assert verdicts == ["better", "not worse"] and code == written["exit_code"] == 0
    rows = list(csv.DictReader((gate / "gate.csv").open(encoding="utf-8")))
    assert [(r["candidate"], r["verdict"]) for r in rows] == list(
        zip(CANDIDATES, verdicts, strict=True)
    )
    md = (gate / "gate.md").read_text(encoding="utf-8")
    assert "| o1 | **better** | 2,854 |" in md and "| Claude-3.5 (Sonnet) | **not worse** |" in md


def ci_step() -> list[str]:
    """The CI step of docs/gate.md that reads the exit status from gate.json."""
    text = (REPO / "docs" / "gate.md").read_text(encoding="utf-8")
    (line,) = re.findall(r"^\.venv/bin/python -c .*gate\.json.*$", text, re.M)
    argv = shlex.split(line)
    return [sys.executable, *argv[1:]]


def test_a_ci_step_reads_the_exit_status_from_gate_json(root):
    proc = subprocess.run(ci_step(), cwd=root, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_a_rebuild_at_another_margin_flips_the_verdict_in_the_change_report(root, tmp_path, capsys):
    build(root, 1.0, CHANGES)
    proc = build(root, 0.5, CHANGES)
    # A margin is a setting of the gate job alone.
    ran = re.findall(r"^(\w+)\s+1$", proc.stdout + proc.stderr, re.M)
    assert sorted(set(ran) - {"total"}) == ["gate_benchmark_candidates", "report_changes"]
    changes = root / "results" / "benchmark" / "changes"
    summary = json.loads((changes / "changes.json").read_text())
    assert summary["decisions"] == 1
    line = "gate Claude-3.5 (Sonnet) not worse → inconclusive"
    assert line in summary["line"] and line in proc.stderr
    rows = list(csv.DictReader((changes / "changes.csv").open(encoding="utf-8")))
    (decision,) = [r for r in rows if r["section"] == "decision"]
    assert (decision["subject"], decision["table"], decision["column"]) == (
        "gate",
        "gate/gate.csv",
        "verdict",
    )
    assert json.loads(decision["key"]) == {
        "baseline": BASELINE,
        "candidate": "Claude-3.5 (Sonnet)",
        "scope": "overall",
        "task": "",
    }
    assert (decision["old"], decision["new"]) == ("not worse", "inconclusive")
    assert decision["detail"] == "margin_pp 1.00 → 0.50"
    # The new verdict is the CLI's at that margin, and the CI step now fails with it.
    code, expected = cli(tmp_path, capsys, 0.5)
    written = json.loads((root / "results" / "benchmark" / "gate" / "gate.json").read_text())
    assert without_sources(written) == without_sources(expected)
    assert code == written["exit_code"] == 2
    assert subprocess.run(ci_step(), cwd=root, capture_output=True).returncode == 2
