"""Run file names Snakemake or the filesystem cannot carry, files a runs folder
holds but no reader reads, and raw_dirs that are not study folders (issue 26
item 3): each is mapped to a safe run id, read, or refused with a `rederive:`
message before any job."""

import gzip
import shutil
from pathlib import Path

import pytest
from workflow_utils import REPO, run_workflow

from rederive.io.run_files import (
    MAX_RUN_ID,
    RunFilesError,
    discover_runs,
    missing_layout,
    run_id,
)
from rederive.studies.benchmark.sources import discover

LONG_CSV = "model,item_id,correct\nm1,i1,1\nm1,i2,0\nm2,i1,1\nm2,i2,1\n"


# ------------------------------------------------------------------ run ids
@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("GPT-4o", "GPT-4o"),
        ("GPT*4o [v2]", "GPT_4o_v2"),
        ("org/model | v2", "org_model_v2"),
        ("模型-七", "模型-七"),  # letters of any script are kept
        ("..hidden", "hidden"),
        ("***", "run"),
    ],
)
def test_run_id_keeps_safe_characters_and_replaces_the_rest(name, expected):
    assert run_id(name) == expected


def test_long_names_get_a_short_unique_deterministic_run_id():
    a, b = "m" * 240 + "a", "m" * 240 + "b"
    ids = {run_id(a), run_id(b)}
    assert len(ids) == 2  # the hash of the whole name keeps them apart
    assert all(len(i.encode()) <= MAX_RUN_ID for i in ids)
    assert run_id(a) == run_id(a)
    # Multi-byte names are cut on a character boundary, within the byte limit.
    cjk = run_id("模" * 200)
    assert len(cjk.encode()) <= MAX_RUN_ID
    assert cjk.encode().decode() == cjk


def test_short_safe_ids_are_unchanged_so_bundled_runs_keep_their_ids():
    for folder in ("salitrap", "tag_sycophancy", "bias_awareness", "cot_loadbearing"):
        runs = discover_runs(REPO / "raw" / folder / "runs")
        assert list(runs) == sorted(p.stem for p in (REPO / "raw" / folder / "runs").iterdir())


# ---------------------------------------------------------- paper runs folders
def write(path: Path, text: str = '{"a": 1}\n') -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_upper_case_extension_is_read(tmp_path):
    write(tmp_path / "runs" / "x.JSONL")
    write(tmp_path / "runs" / "y.jsonl")
    assert discover_runs(tmp_path / "runs") == {
        "x": tmp_path / "runs" / "x.JSONL",
        "y": tmp_path / "runs" / "y.jsonl",
    }


@pytest.mark.parametrize(
    ("entry", "says"),
    [
        ("x.json", "JSON Lines"),
        ("x.jsonl.gz", "gunzip -k"),
        ("x.jsonl.zst", "unzstd"),
        ("sub/x.jsonl", "sub-folders of runs/ are not searched"),
        ("notes.txt", "only <run>.jsonl files are read"),
        (".DS_Store", "only <run>.jsonl files are read"),
        ("x{4o}.jsonl", "Snakemake reads {…} as a wildcard"),
    ],
)
def test_every_entry_not_read_is_refused_naming_it(tmp_path, entry, says):
    write(tmp_path / "runs" / "ok.jsonl")
    write(tmp_path / "runs" / entry)
    with pytest.raises(RunFilesError) as err:
        discover_runs(tmp_path / "runs")
    (problem,) = err.value.problems
    assert entry.split("/")[0] in problem
    assert says in problem


def test_two_files_with_one_run_id_are_refused_naming_both(tmp_path):
    write(tmp_path / "runs" / "GPT 4o.jsonl")
    write(tmp_path / "runs" / "GPT_4o.jsonl")
    with pytest.raises(RunFilesError) as err:
        discover_runs(tmp_path / "runs")
    (problem,) = err.value.problems
    assert "GPT 4o.jsonl" in problem and "GPT_4o.jsonl" in problem and "'GPT_4o'" in problem


def test_every_problem_is_listed_at_once(tmp_path):
    for name in ("a.json", "b.jsonl.gz", "c.txt"):
        write(tmp_path / "runs" / name)
    with pytest.raises(RunFilesError) as err:
        discover_runs(tmp_path / "runs")
    assert len(err.value.problems) == 3


def test_missing_layout_names_each_missing_part(tmp_path):
    assert missing_layout(tmp_path, ["items.jsonl"]) == ["items.jsonl", "runs/"]
    write(tmp_path / "items.jsonl")
    (tmp_path / "runs").mkdir()
    assert missing_layout(tmp_path, ["items.jsonl"]) == []


# ---------------------------------------------------------- benchmark folders
def test_benchmark_flat_folders_refuse_what_they_do_not_read(tmp_path):
    write(tmp_path / "long" / "scores.CSV", LONG_CSV)
    assert list(discover(tmp_path)) == ["long-scores.CSV"]
    write(tmp_path / "long" / "more.csv.gz")
    write(tmp_path / "matrix" / "sub" / "m.csv")
    with pytest.raises(RunFilesError) as err:
        discover(tmp_path)
    text = "\n".join(err.value.problems)
    assert "more.csv.gz" in text and "gunzip -k" in text
    assert "matrix/sub/" in text and "sub-folders of matrix/" in text


def test_benchmark_refuses_compressed_logs_in_tool_folders(tmp_path):
    write(tmp_path / "inspect" / "deep" / "log.eval.gz")
    with pytest.raises(RunFilesError, match="log.eval.gz: compressed"):
        discover(tmp_path)


def test_benchmark_run_ids_are_shortened(tmp_path):
    name = "chembench-" + "y" * 231 + ".csv"
    write(tmp_path / "matrix" / name, "item_id,m\ni1,1\n")
    (run,) = discover(tmp_path)
    assert len(f"{run}.parquet".encode()) < 255
    assert run.startswith("matrix-chembench-yyy")


# --------------------------------------------------------- end to end (dry run)
def dry_run(work: Path, kind: str, raw_dir: Path | str):
    work.mkdir(parents=True, exist_ok=True)
    entry = {"kind": kind, "label": "A", "raw_dir": str(raw_dir)}
    return run_workflow(
        work, {"analyses": {"a": entry}, "build": ["a"]}, check=False, extra_args=["-n"]
    )


def assert_refused(proc, *needles):
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr + proc.stdout
    assert "Exception" not in proc.stderr + proc.stdout
    message = proc.stderr[proc.stderr.index("rederive: ") :]
    for needle in needles:
        assert needle in message, message


@pytest.mark.parametrize(
    ("kind", "raw_dir"),
    # "/" itself holds the working directory's results/: refused for that first
    # (tests/test_workflow_robustness.py).
    [
        ("salitrap", "/usr"),
        ("tag_sycophancy", "/etc"),
        ("cot_loadbearing", "/etc"),
        ("benchmark", "/usr"),
    ],
)
def test_a_raw_dir_that_is_not_a_study_folder_is_refused_before_any_job(tmp_path, kind, raw_dir):
    proc = dry_run(tmp_path, kind, raw_dir)
    holds = {"benchmark": "inputs: {auto: <folder>}", "cot_loadbearing": "baselines.csv"}
    assert_refused(
        proc,
        f"raw_dir {raw_dir} is not a {kind} study folder",
        holds.get(kind, "items.jsonl"),
        f"docs/kinds/{kind}.md",
    )


def test_a_study_folder_without_runs_is_refused(tmp_path):
    raw = tmp_path / "raw"
    write(raw / "items.jsonl")
    (raw / "runs").mkdir()
    assert_refused(dry_run(tmp_path / "w", "bias_awareness", raw), "has no run file in runs/")


def test_a_raw_dir_with_braces_is_refused(tmp_path):
    raw = tmp_path / "raw{x}"
    shutil.copytree(REPO / "raw" / "bias_awareness", raw)
    assert_refused(dry_run(tmp_path / "w", "bias_awareness", raw), "rename it without braces")


def test_unread_files_in_runs_are_refused_by_the_workflow(tmp_path):
    raw = tmp_path / "raw"
    shutil.copytree(REPO / "raw" / "bias_awareness", raw)
    runs = raw / "runs"
    (runs / "x.json").write_text("{}")
    with gzip.open(runs / "y.jsonl.gz", "wt") as handle:
        handle.write("{}\n")
    write(runs / "sub" / "z.jsonl")
    write(runs / "GPT{4o}.jsonl")
    assert_refused(
        dry_run(tmp_path / "w", "bias_awareness", raw),
        "x.json: .json files are not read",
        "y.jsonl.gz: compressed",
        "sub/: sub-folders",
        "GPT{4o}.jsonl",
    )


def test_a_brace_name_anywhere_under_raw_dir_is_refused(tmp_path):
    # Every file under raw_dir is an input of write_provenance.
    raw = tmp_path / "raw"
    shutil.copytree(REPO / "raw" / "bias_awareness", raw)
    write(raw / "notes" / "{draft}.md", "x")
    assert_refused(dry_run(tmp_path / "w", "bias_awareness", raw), "{draft}.md")


def test_odd_and_long_run_names_plan_one_job_per_batch(tmp_path):
    raw = tmp_path / "raw"
    shutil.copytree(REPO / "raw" / "bias_awareness", raw)
    runs = raw / "runs"
    (runs / "GPT-4o.jsonl").rename(runs / ("GPT-4o-" + "x" * 232 + ".jsonl"))
    (runs / "Claude-Sonnet-4.jsonl").rename(runs / "Claude*Sonnet[4].JSONL")
    proc = dry_run(tmp_path / "w", "bias_awareness", raw)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "ingest_bias_awareness_batch" in proc.stdout
