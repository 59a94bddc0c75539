"""Ingest batches: stable assignment, per-run files found in run order."""

import zlib

import pytest

from rederive.errors import InputError
from rederive.io.batches import (
    batch_of,
    group_runs,
    in_run_order,
    per_run_files,
    prepare,
    run_file,
)

RUNS = [f"model-{i:03d}" for i in range(200)]


def test_batch_is_a_crc32_of_the_run_id():
    # Pinned values: a change of hash would silently re-ingest every run.
    assert batch_of("Model-A", 8) == "b01"
    assert batch_of("Model-B", 8) == "b03"
    assert batch_of("GPT-4o", 8) == "b04"
    assert batch_of("Model-A", 8) == f"b{zlib.crc32(b'Model-A') % 8:02d}"


def test_batch_does_not_depend_on_the_other_runs():
    alone = {run: batch_of(run, 8) for run in RUNS}
    for present in (RUNS, RUNS[::3], RUNS[50:60], ["model-007"]):
        for batch, runs in group_runs(present, 8).items():
            assert all(alone[run] == batch for run in runs)


def test_adding_a_run_changes_only_its_batch():
    before = group_runs(RUNS, 8)
    after = group_runs([*RUNS, "new-model"], 8)
    changed = {b for b in after if after[b] != before.get(b)}
    assert changed == {batch_of("new-model", 8)}


def test_only_batches_with_runs_exist_and_runs_are_sorted():
    groups = group_runs(["c", "a", "b"], 100)
    assert sorted(r for runs in groups.values() for r in runs) == ["a", "b", "c"]
    assert len(groups) <= 3 and list(groups) == sorted(groups)
    assert all(runs == sorted(runs) for runs in groups.values())
    assert group_runs([], 8) == {}
    assert list(group_runs(RUNS, 1)) == ["b00"]


def test_batches_spread_the_runs():
    sizes = [len(runs) for runs in group_runs(RUNS, 8).values()]
    assert len(sizes) == 8 and min(sizes) >= 15


@pytest.mark.parametrize("n", [0, 101])
def test_batch_count_is_bounded(n):
    with pytest.raises(ValueError, match="1-100"):
        batch_of("x", n)


def _ingested(root, runs, n, kinds=("labelled",)):
    """Batch folders as the ingest jobs write them: manifest, then each run's files."""
    for batch, members in group_runs(runs, n).items():
        prepare(root / batch, kinds, members)
        for run in members:
            for kind in kinds:
                run_file(root / batch, kind, run).write_text(run)
    return [root / b for b in group_runs(runs, n)]


def test_per_run_files_come_in_the_one_job_per_run_order(tmp_path):
    # "a-b.parquet" sorts before "a.parquet" ('-' < '.'): the order the files had
    # in one labelled/ folder, whichever batch folder holds them now.
    runs = ["a", "a-b", "b", "Model-B", "Model-B-rerun"]
    dirs = _ingested(tmp_path, runs, 4)
    (dirs[0] / ".snakemake_timestamp").write_text("")
    found = per_run_files(reversed(dirs), "labelled")
    names = [f"{run}.parquet" for run in runs]
    assert [p.rsplit("/", 1)[1] for p in found] == sorted(names)


def test_a_deleted_per_run_file_is_named_not_skipped(tmp_path):
    dirs = _ingested(tmp_path, ["a", "b", "c"], 1)
    lost = run_file(dirs[0], "labelled", "b")
    lost.unlink()
    with pytest.raises(InputError, match="missing per-run file") as err:
        per_run_files(dirs, "labelled")
    assert err.value.file == str(lost)
    assert "delete that folder" in err.value.message


def test_a_foreign_file_in_a_batch_folder_is_refused(tmp_path):
    dirs = _ingested(tmp_path, ["a", "b"], 1)
    stray = run_file(dirs[0], "labelled", "copied-in")
    stray.write_text("x")
    with pytest.raises(InputError, match="of no ingested run") as err:
        per_run_files(dirs, "labelled")
    assert err.value.file == str(stray)


def test_a_folder_without_manifest_is_refused(tmp_path):
    dirs = _ingested(tmp_path, ["a"], 1)
    (dirs[0] / "manifest.json").unlink()
    with pytest.raises(InputError, match="missing ingest manifest"):
        per_run_files(dirs, "labelled")


def test_a_kind_the_job_did_not_write_is_missing(tmp_path):
    dirs = _ingested(tmp_path, ["a"], 1, kinds=("labelled",))
    with pytest.raises(InputError, match="missing per-run file"):
        per_run_files(dirs, "accounting")


def test_in_run_order_ignores_the_folder():
    paths = ["x/b07/labelled/a.parquet", "x/b00/labelled/c.parquet", "x/b03/labelled/b.parquet"]
    assert in_run_order(paths) == [paths[0], paths[2], paths[1]]


def test_runs_without_a_file_of_an_optional_kind_are_listed_and_checked(tmp_path):
    from rederive.io.batches import finish

    dirs = _ingested(tmp_path, ["a", "b", "c"], 1, kinds=("labelled", "reported"))
    run_file(dirs[0], "reported", "b").unlink()
    finish(dirs[0], ("labelled", "reported"))
    assert [p.rsplit("/", 1)[1] for p in per_run_files(dirs, "reported")] == ["a.csv", "c.csv"]
    # A file for a run listed as without one was put there later.
    run_file(dirs[0], "reported", "b").write_text("b")
    with pytest.raises(InputError, match="of no ingested run"):
        per_run_files(dirs, "reported")


def test_a_run_without_its_labelled_file_is_an_error_when_the_batch_ends(tmp_path):
    from rederive.io.batches import finish

    dirs = _ingested(tmp_path, ["a", "b"], 1, kinds=("labelled", "accounting"))
    run_file(dirs[0], "accounting", "a").unlink()
    with pytest.raises(InputError, match="wrote no file"):
        finish(dirs[0], ("labelled", "accounting"))
