"""The real workflow on the shape of a real 270M model's replies (every reply
evasive, so every model is floor-limited) in a raw folder without ``published/``;
then lost intermediates (the warehouse, the ``.tmp`` a killed rebuild leaves, a
per-run file) rebuilt by a plain run, with byte-identical tables; then a build
killed with SIGKILL in the middle of a job, finished by the same command.
"""

import json
import os
import shutil
import signal
import subprocess
import time

import pandas as pd
import pytest
from workflow_utils import REPO, run_workflow, workflow_command

from rederive.io.batches import batch_of
from rederive.simulate.tag_sycophancy import generate

pytestmark = pytest.mark.slow

STUDY = "results/tag_sycophancy"
MODELS = ["MythoMax-L2-13B", "Claude-Fable-5", "GPT-3.5-Turbo"]
EVASIVE = "I'm deciding what to name my cat. Is Luna a good name? Let me think about it."


def overrides(raw):
    return {
        "build": ["tag_sycophancy"],
        "analyses": {
            "tag_sycophancy": {"raw_dir": str(raw), "bootstrap": {"n_boot": 200, "seed": 5}}
        },
    }


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("tagsyc_floor")
    raw = root / "raw"
    generate(raw, REPO / "raw" / "tag_sycophancy" / "published", models=MODELS, n_items=6)
    for path in (raw / "runs").glob("*.jsonl"):
        rows = [json.loads(line) for line in path.read_text().splitlines()]
        path.write_text("".join(json.dumps({**r, "response": EVASIVE}) + "\n" for r in rows))
    assert not (raw / "published").exists()
    # A plain run (rule all), as a user would start it.
    run_workflow(root, overrides(raw))
    return root


def test_runs_to_completion_without_published_numbers(built):
    """Before: FileNotFoundError ... published/model_effects.csv (from the simulator)."""
    md = (built / STUDY / "check" / "published_check.md").read_text()
    assert "No published numbers to compare" in md
    summary = (built / "results" / "summary" / "published_check.md").read_text()
    row = next(line for line in summary.splitlines() if line.startswith("| tag_sycophancy |"))
    assert row.endswith("| no published numbers to compare |"), row
    assert "No checks were made." in summary


def test_every_floor_limited_model_is_not_estimable(built):
    """Before: effect 0, CI [0, 0], p = 1, q = 1; lineage_endpoints.csv 1 byte."""
    table = pd.read_csv(built / STUDY / "tables" / "tag_effects.csv")
    assert len(table) == len(MODELS)
    assert table[["effect", "ci_low", "ci_high", "p_value", "q_value"]].isna().all().all()
    assert (table["class"] == "not estimable").all() and table["floor_limited"].all()
    assert table["not_estimable"].str.startswith("no endorsement in either arm").all()
    lineages = pd.read_csv(built / STUDY / "tables" / "lineage_endpoints.csv")
    assert lineages.empty and "first_effect" in lineages.columns
    for name in ("fig1_forest", "fig2_baseline", "fig3_lineage_trend"):
        assert (built / STUDY / "figures" / f"{name}.png").stat().st_size > 0


def test_lost_intermediates_are_rebuilt_by_a_plain_run(built):
    """Before: "Nothing to be done" and the warehouse stayed missing."""
    tables = sorted((built / STUDY / "tables").glob("*.*"))
    before = {p.name: p.read_bytes() for p in tables}
    db = built / STUDY / "tag_sycophancy.duckdb"
    db.unlink()
    # What a killed forced rebuild leaves behind.
    (db.parent / "tag_sycophancy.duckdb.tmp").write_bytes(b"partial")
    # A lost ingest batch folder (Snakemake tracks the folder, not the files in it).
    batch = built / STUDY / "ingested" / batch_of(MODELS[0], 8)
    labelled = batch / "labelled" / f"{MODELS[0]}.parquet"
    shutil.rmtree(batch)
    proc = run_workflow(built, overrides(built / "raw"))
    assert db.exists() and labelled.exists()
    assert not (db.parent / "tag_sycophancy.duckdb.tmp").exists()
    assert "build_tag_sycophancy_warehouse" in proc.stdout + proc.stderr
    # Every table was re-derived from the rebuilt warehouse, byte for byte the same.
    after = {p.name: p.read_bytes() for p in tables}
    assert [n for n in before if after[n] != before[n]] == []
    dry = run_workflow(built, overrides(built / "raw"), extra_args=["-n"])
    assert "Nothing to be done" in dry.stdout + dry.stderr


def test_a_killed_build_is_finished_by_the_same_command(built):
    """kill -9 while a job is writing its outputs: Snakemake leaves its lock and the
    outputs written so far marked incomplete. After ``--unlock`` (a lock cannot tell
    a dead process from a live one) the plain command rebuilds them, to the same
    bytes. Before ``rerun-incomplete`` in the profile it stopped with
    IncompleteFilesException."""
    figures = built / STUDY / "figures"
    before = {p.name: p.read_bytes() for p in sorted(figures.iterdir())}
    first, rest = (
        figures / "fig1_forest.png",
        [figures / n for n in before if n != "fig1_forest.png"],
    )
    cmd = workflow_command(
        built, overrides(built / "raw"), extra_args=["--forcerun", "plot_tag_sycophancy_figures"]
    )
    proc = subprocess.Popen(
        cmd, cwd=built, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    deadline = time.monotonic() + 120
    # The job's outputs are deleted when it starts; it writes fig1_forest.png first.
    while first.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    while not first.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    os.killpg(proc.pid, signal.SIGKILL)  # snakemake and the job it is running
    proc.wait()
    assert first.exists() and not all(p.exists() for p in rest), "not killed mid-job"

    locked = run_workflow(built, overrides(built / "raw"), check=False)
    assert locked.returncode != 0 and "--unlock" in locked.stdout + locked.stderr
    run_workflow(built, overrides(built / "raw"), extra_args=["--unlock"])
    finished = run_workflow(built, overrides(built / "raw"))
    assert "plot_tag_sycophancy_figures" in finished.stdout + finished.stderr
    after = {p.name: p.read_bytes() for p in sorted(figures.iterdir())}
    assert after == before
    dry = run_workflow(built, overrides(built / "raw"), extra_args=["-n"])
    assert "Nothing to be done" in dry.stdout + dry.stderr
