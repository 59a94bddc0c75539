"""Issue 37's damaged-file, symlink, raw_dir, --directory, alias-bomb, one-item and
refusal rows, as a user meets them: the real Snakefile on one small benchmark
analysis in a temporary folder, run as ``snakemake -s <repo>/Snakefile
--directory <dir>`` with no copy of ``config/`` there. Each case ends with a
clear ``rederive:`` message or a correct build on the same command.

The analysis's ``raw/long`` is a link to a folder elsewhere (the symlink row);
two run files, so that they sit in two ingest batches.
"""

import hashlib
import json
import os
import re
import shutil
import time
from pathlib import Path

import pandas as pd
import pytest
from corpus.config_bombs import CASES as BOMBS
from test_docs import DOCS, parse_blocks
from workflow_utils import REPO, run_workflow

from rederive.io.batches import group_runs

NAME = "tiny"
SETTINGS = {
    "kind": "benchmark",
    "raw_dir": "raw",
    "bootstrap": {"n_boot": 100},
    "irt": {"epochs": 50},
}
OVERRIDES = {"analyses": {NAME: SETTINGS}, "build": [NAME]}
TEXT = {".csv", ".md", ".tex", ".json"}


def write_scores(path: Path, models: list[str], n_items: int = 30, seed: int = 0) -> None:
    rows = ["model,task,item_id,correct"]
    for k, model in enumerate(models):
        for i in range(n_items):
            rows.append(f"{model},bench,q{i},{(i * 7 + k * 3 + seed) % 5 < 3:d}")
    path.write_text("\n".join(rows) + "\n")


def make_root(root: Path) -> Path:
    """``root/inputs/long_files`` (the runs) and ``root/work`` (the working
    directory) whose ``raw/long`` links to them by a relative path."""
    files = root / "inputs" / "long_files"
    files.mkdir(parents=True)
    write_scores(files / "first.csv", ["A", "B"])
    write_scores(files / "second.csv", ["C"], seed=1)
    work = root / "work"
    (work / "raw").mkdir(parents=True)
    os.symlink("../../inputs/long_files", work / "raw" / "long")
    return work


def run(work: Path, **command):
    return run_workflow(work, OVERRIDES, copy_config=False, **command)


def tables(work: Path) -> dict[str, bytes]:
    folder = work / "results" / NAME
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        # changes/ and history/ describe each build against the one before: a rebuild
        # that restores the tables reports on itself there.
        if p.is_file()
        and p.suffix in TEXT
        and not {"ingested", "changes", "history"} & set(p.relative_to(folder).parts)
    }


def rederive_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("rederive:")]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """One build (from another folder, no config copy); each test copies it."""
    root = tmp_path_factory.mktemp("robust")
    work = make_root(root)
    proc = run(work)
    return root, proc, tables(work)


def copy_of(built, tmp_path) -> Path:
    root, _, _ = built
    shutil.copytree(root, tmp_path / "copy", symlinks=True)
    return tmp_path / "copy" / "work"


@pytest.mark.slow
def test_the_config_is_found_beside_the_snakefile(built):
    """Before: KeyError 'ingest_batches' (config/config.yaml looked up in --directory)."""
    root, proc, _ = built
    assert not (root / "work" / "config").exists()
    assert rederive_lines(proc.stderr)[-1].startswith(f"rederive: done (1 analysis: {NAME})")


@pytest.mark.slow
def test_a_symlinked_runs_folder_is_hashed_in_provenance(built):
    """Before: provenance.json hashed none of the run files behind raw/long."""
    root, _, _ = built
    record = pd.read_json(root / "work" / "results" / "summary" / "provenance.json", typ="series")
    files = record["analyses"][NAME]["files"]
    for name in ("first.csv", "second.csv"):
        data = (root / "inputs" / "long_files" / name).read_bytes()
        assert files[f"long/{name}"] == hashlib.sha256(data).hexdigest()


@pytest.mark.slow
def test_a_truncated_warehouse_is_rebuilt_by_the_same_command(built, tmp_path):
    """Before: a raw _duckdb.IOException traceback in every downstream job, every rerun."""
    work = copy_of(built, tmp_path)
    db = work / "results" / NAME / f"{NAME}.duckdb"
    os.truncate(db, db.stat().st_size // 2)
    proc = run(work)
    line = rederive_lines(proc.stderr)[0]
    assert f"rederive: results/{NAME}/{NAME}.duckdb was damaged (truncated to " in line
    # docs/guarantees.md shows this line for an analysis called my_eval.
    (shown,) = [b.text for b in parse_blocks(DOCS / "guarantees.md") if "was damaged" in b.text]
    assert _shape(line, NAME) == _shape(shown, "my_eval"), f"the run printed {line!r}"
    assert "Traceback" not in proc.stderr
    assert tables(work) == built[2]


def _shape(line: str, name: str) -> str:
    """A message with the analysis name and every number replaced by placeholders."""
    return re.sub(r"\d[\d,]*", "N", line.strip().replace(name, "NAME"))


@pytest.mark.slow
def test_a_truncated_labelled_parquet_is_rebuilt_by_the_same_command(built, tmp_path):
    """Before: "Nothing to be done", then after any change "No magic bytes found"."""
    work = copy_of(built, tmp_path)
    labelled = sorted((work / "results" / NAME / "ingested").glob("b*/labelled/*.parquet"))[0]
    os.truncate(labelled, labelled.stat().st_size - 100)
    proc = run(work)
    relative = labelled.relative_to(work).as_posix()
    first = rederive_lines(proc.stderr)[0]
    assert first.startswith(f"rederive: {relative} was damaged (truncated to ")
    assert f"removed {labelled.parent.parent.relative_to(work).as_posix()}/" in first
    assert tables(work) == built[2]


@pytest.mark.slow
def test_a_damaged_input_of_an_explicit_target_is_named_once(built, tmp_path):
    """A run of one target checks nothing beforehand: the failing job names the file."""
    work = copy_of(built, tmp_path)
    db = work / "results" / NAME / f"{NAME}.duckdb"
    os.truncate(db, db.stat().st_size // 2)
    proc = run(work, targets=[f"results/{NAME}/tables/accuracy.csv"], check=False)
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    assert proc.stderr.count("is damaged (truncated to") == 1
    assert f"delete results/{NAME}/{NAME}.duckdb and run the same command again" in proc.stderr


@pytest.mark.slow
def test_ingest_folders_of_runs_that_left_are_removed(built, tmp_path):
    """Before: results/<name>/ingested/bXX/ of a removed or renamed run stayed."""
    work = copy_of(built, tmp_path)
    files = work.parent / "inputs" / "long_files"
    os.rename(files / "second.csv", files / "renamed.csv")
    before = {p.name for p in (work / "results" / NAME / "ingested").iterdir()}
    proc = run(work)
    now = {p.name for p in (work / "results" / NAME / "ingested").iterdir()}
    expected = set(group_runs(["long-first.csv", "long-renamed.csv"], 8))
    assert now == expected and before != expected
    gone = sorted(before - expected)
    assert f"removed {len(gone)} ingest folder(s) of runs no longer in analysis {NAME}" in (
        proc.stderr
    )


def test_a_raw_dir_inside_results_is_refused_before_any_job(tmp_path):
    """Before: accepted; provenance listed 55 of its own outputs; reruns redid jobs."""
    work = make_root(tmp_path)
    (work / "results" / "old").mkdir(parents=True)
    shutil.copytree(work / "raw" / "long", work / "results" / "old" / "long")
    overrides = {"analyses": {NAME: {**SETTINGS, "raw_dir": "results/old"}}, "build": [NAME]}
    proc = run_workflow(work, overrides, copy_config=False, check=False)
    assert proc.returncode != 0
    assert rederive_lines(proc.stderr)[0].startswith(
        f"rederive: config error: analyses.{NAME}.raw_dir: results/old is inside results/"
    )
    assert not (work / "results" / "logs").exists()  # no job ran


def test_a_loop_in_raw_dir_is_refused_before_any_job(tmp_path):
    work = make_root(tmp_path)
    (work / "raw" / "notes").mkdir()
    os.symlink("..", work / "raw" / "notes" / "loop")
    proc = run(work, check=False)
    assert proc.returncode != 0
    assert "raw/notes/loop is a link that leads back to" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("case", ["unknown_top_level_key", "unknown_key_in_an_analysis"])
def test_an_alias_bomb_is_refused_before_any_job(tmp_path, case):
    """Before: past 2 GB and 240 s (the config was coerced before being refused)."""
    work = make_root(tmp_path)
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text(BOMBS[case] + "\n")
    start = time.perf_counter()
    proc = run(work, extra_args=["--configfile", str(bomb)], check=False)
    assert time.perf_counter() - start < 120
    assert proc.returncode != 0
    assert "once its YAML aliases (*name) are expanded" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_require_equal_refusal_names_the_key_once(tmp_path):
    """Before: named `benchmark.item_sets` and printed twice."""
    work = make_root(tmp_path)
    write_scores(work.parent / "inputs" / "long_files" / "second.csv", ["C"], n_items=25)
    proc = run(work, targets=[f"results/{NAME}/{NAME}.duckdb"], check=False)
    assert proc.returncode != 0
    assert proc.stderr.count("the models were not graded on the same items") == 1
    assert f"set analyses.{NAME}.item_sets: intersection" in proc.stderr
    assert rederive_lines(proc.stderr)[-1].startswith("rederive: input error in rule")


@pytest.mark.slow
def test_a_one_item_matrix_builds_every_table_saying_what_is_undefined(tmp_path):
    """Before: ValueError "need at least 2 models and 2 items" in analyse_benchmark_items."""
    work = tmp_path / "work"
    (work / "raw" / "matrix").mkdir(parents=True)
    (work / "raw" / "matrix" / "one.csv").write_text("item_id,A,B,C\nq1,1,0,1\n")
    proc = run(work)
    assert "Traceback" not in proc.stderr
    folder = work / "results" / NAME / "tables"
    items = pd.read_csv(folder / "item_analysis.csv")
    assert len(items) == 1 and items.loc[0, "n_correct"] == 2 and items["item_rest_r"].isna().all()
    assert (
        "No item has an item-rest correlation or fit statistics"
        in (folder / "suspect_items.md").read_text()
    )
    assert (
        "1PL not fitted: needs at least 2 models and 2 items"
        in (folder / "irt_fit.csv").read_text()
    )


KINDS = ["salitrap", "tag_sycophancy", "bias_awareness", "cot_loadbearing", "benchmark"]


def _first_batch(kind: str) -> str:
    from rederive.io.batches import batch_of
    from rederive.io.run_files import discover_runs
    from rederive.studies.benchmark.sources import discover

    raw = REPO / "raw" / kind
    runs = discover(raw) if kind == "benchmark" else discover_runs(raw / "runs")
    return batch_of(sorted(runs)[0], 8)


def _plant(output: Path, work: Path, files: dict[str, bytes], written: dict[str, bytes]) -> None:
    """``output`` holding ``files`` now, and a stamp saying its job wrote ``written``."""
    from rederive.io import intact

    for name, data in files.items():
        path = output / name if name else output
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    entries = {
        name: {"size": len(data), "sha256": hashlib.sha256(data).hexdigest(), "stat": []}
        for name, data in written.items()
    }
    stamp = {
        "version": 1,
        "output": output.relative_to(work).as_posix(),
        "rule": "planted",
        "directory": bool(next(iter(files))),
        "files": entries,
    }
    stamp_file = work / intact.stamp_path(stamp["output"])
    stamp_file.parent.mkdir(parents=True, exist_ok=True)
    stamp_file.write_text(json.dumps(stamp))


def test_every_kinds_intermediates_are_checked(tmp_path):
    """Each kind's warehouse, ingest batch folder and items.parquet (salitrap,
    bias_awareness), damaged: a dry run of the bundled five names every one,
    and the stale batch folder of each, and removes nothing."""
    work = tmp_path / "work"
    work.mkdir()
    os.symlink(REPO / "raw", work / "raw")
    planted = []
    for kind in KINDS:
        folder = work / "results" / kind
        _plant(folder / f"{kind}.duckdb", work, {"": b"cut"}, {"": b"cut short"})
        batch = folder / "ingested" / _first_batch(kind)
        _plant(batch, work, {"manifest.json": b"{}"}, {"manifest.json": b'{"runs": []}'})
        planted += [folder / f"{kind}.duckdb", batch / "manifest.json"]
        if kind in ("salitrap", "bias_awareness"):
            _plant(folder / "items.parquet", work, {"": b"PAR1x"}, {"": b"PAR1y"})
            planted.append(folder / "items.parquet")
        (folder / "ingested" / "b99").mkdir()
    proc = run_workflow(work, {}, copy_config=False, extra_args=["-n"], check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    for path in planted:
        relative = path.relative_to(work).as_posix()
        assert f"rederive: {relative} is damaged (" in proc.stderr, relative
        assert path.exists()  # a dry run removes nothing
    for kind in KINDS:
        assert f"of runs no longer in analysis {kind} would be removed" in proc.stderr
        assert (work / "results" / kind / "ingested" / "b99").is_dir()
