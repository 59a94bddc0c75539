"""The change report and `python -m rederive.diff` on results folders and history."""

import csv
import json
import shutil
from pathlib import Path

import pytest

from rederive import diff
from rederive.changes.history import History
from rederive.changes.report import compare_snapshots
from rederive.changes.snapshots import FolderSnapshot, MemorySnapshot

RANKING = "order,model,accuracy_pct,rank_best,rank_worst,tied_with,small_n\n1,A|x,60.0,1,1,,False\n2,B,50.0,2,2,,False\n"
CHECK = "study,table,kind,item,quantity,published,ours,status\ns,T,cell,A|x,acc,0.6,0.6,pass\ns,T,cell,B,acc,0.5,0.5,pass\n"


def manifest(run_sha="r1", n_boot=10):
    return {
        "analysis": "bench",
        "kind": "benchmark",
        "settings": {"label": "Bench | test", "bootstrap": {"n_boot": n_boot}},
        "runs": {"m": {"sha256": run_sha, "files": {"long/m.csv": run_sha}}},
        "inputs": {},
        "code": {"commit": "c1", "dirty": False, "library": "lib", "lock": "l"},
        "headline": {"table": "ranking", "score": "accuracy_pct"},
    }


def write_build(folder: Path, files: dict, man: dict) -> None:
    """A results folder as the workflow leaves it: the files, and the build recorded."""
    for rel, text in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)
    History(folder / "history").record(man, {rel: text.encode() for rel, text in files.items()})


def test_report_line_rows_and_markdown(tmp_path):
    old = MemorySnapshot(
        manifest(),
        {"tables/ranking.csv": RANKING.encode(), "check/published_check.csv": CHECK.encode()},
    )
    ranking = (
        "order,model,accuracy_pct,rank_best,rank_worst,tied_with,small_n\n"
        "1,B,50.0,1,1,,False\n2,A|x,40.0,2,2,,False\n"
    )
    check = CHECK.replace("0.6,0.6,pass", "0.6,0.4,FAIL")
    new = MemorySnapshot(
        manifest("r2"),
        {"tables/ranking.csv": ranking.encode(), "check/published_check.csv": check.encode()},
    )
    report = compare_snapshots(
        "bench", "benchmark", old, new, old_name="build 1", new_name="build 2"
    )
    assert report.line() == (
        "bench: 1 run changed (m): 1 table changed, 1 check pass→FAIL, 3 decisions flipped, "
        "top model A|x → B"
    )
    rows = report.rows()
    sections = [r["section"] for r in rows]
    assert sections.index("run") < sections.index("decision") < sections.index("cell")
    cells = {(r["key"], r["column"], r["old"], r["new"]) for r in rows if r["section"] == "cell"}
    assert ('{"model": "A|x"}', "accuracy_pct", "60.0", "40.0") in cells
    md = report.markdown("Bench | test")
    assert "# What changed: Bench \\| test" in md
    assert "model=A\\|x" in md  # names cannot break the Markdown tables
    summary = report.summary()
    assert summary["runs"]["changed"] == ["m"] and summary["headline"] == {"old": "A|x", "new": "B"}
    assert summary["checks"] == [
        {
            "key": {"table": "T", "kind": "cell", "item": "A|x", "quantity": "acc"},
            "old": "pass",
            "new": "FAIL",
        }
    ]


def test_first_build_and_no_change():
    snap = MemorySnapshot(manifest(), {"tables/ranking.csv": RANKING.encode()})
    first = compare_snapshots("bench", "benchmark", None, snap, old_name=None, new_name="build 1")
    assert first.first_build and first.line() == "bench: first build (1 run): 1 tables"
    same = compare_snapshots(
        "bench", "benchmark", snap, snap, old_name="build 1", new_name="this build"
    )
    assert not same.changed and same.line() == "bench: no changes"
    assert same.rows() == []


def run_diff(capsys, *args):
    status = diff.main([str(a) for a in args])
    return status, capsys.readouterr()


def test_diff_of_two_results_folders(tmp_path, capsys):
    a, b = tmp_path / "a" / "bench", tmp_path / "b" / "bench"
    write_build(a, {"tables/ranking.csv": RANKING}, manifest())
    shutil.copytree(a, b)
    status, out = run_diff(capsys, a, b, "--brief")
    assert (status, out.out.strip()) == (0, "bench: no changes")
    (b / "tables" / "ranking.csv").write_text(RANKING.replace("50.0", "50.2"))
    status, out = run_diff(capsys, a, b)
    assert status == 1
    assert "| model=B | accuracy_pct | 50.0 | 50.2 |" in out.out
    # Edited after its build: its inputs are unknown, and the report says so.
    assert "not recorded" in out.out
    status, out = run_diff(capsys, a, b, "--tolerance", "0.5", "--brief")
    assert status == 0


def test_diff_of_kept_builds_and_the_csv(tmp_path, capsys):
    folder = tmp_path / "bench"
    write_build(folder, {"tables/ranking.csv": RANKING}, manifest())
    write_build(
        folder, {"tables/ranking.csv": RANKING.replace("50.0", "51.0")}, manifest(n_boot=20)
    )
    status, out = run_diff(capsys, folder, "--history", "1", "--brief")
    assert status == 1
    assert out.out.strip() == "bench: settings changed (bootstrap.n_boot): 1 table changed"
    out_csv = tmp_path / "c.csv"
    status, _ = run_diff(capsys, folder, "--history", "-2", "-1", "--csv", out_csv)
    rows = list(csv.DictReader(out_csv.open()))
    assert {(r["section"], r["subject"], r["old"], r["new"]) for r in rows} >= {
        ("setting", "bootstrap.n_boot", "10", "20"),
        ("cell", "tables/ranking.csv", "50.0", "51.0"),
    }
    status, out = run_diff(capsys, folder, "--json", "--history", "1", "2")
    assert json.loads(out.out)["settings"] == ["bootstrap.n_boot"]
    status, out = run_diff(capsys, folder, "--list")
    assert status == 0 and out.out.splitlines()[0].startswith("build")


@pytest.mark.parametrize(
    "args, message",
    [
        (["{tmp}/missing", "{tmp}/bench"], "no such folder"),
        (["{tmp}", "{tmp}/bench"], "not the results folder of an analysis"),
        (["{tmp}/bench", "--history", "9"], "build 9 is not kept"),
        (["{tmp}/bench"], "give two results folders"),
    ],
)
def test_unusable_input_exits_2_with_a_message(tmp_path, capsys, args, message):
    write_build(tmp_path / "bench", {"tables/ranking.csv": RANKING}, manifest())
    status, out = run_diff(capsys, *[a.format(tmp=tmp_path) for a in args])
    assert status == 2
    assert out.err.startswith("rederive: diff:") and message in out.err


def test_folder_snapshot_takes_the_manifest_only_when_the_files_are_the_recorded_ones(tmp_path):
    folder = tmp_path / "bench"
    write_build(folder, {"tables/ranking.csv": RANKING}, manifest())
    assert FolderSnapshot(folder).manifest["runs"]["m"]["sha256"] == "r1"
    (folder / "tables" / "ranking.csv").write_text(RANKING + "3,C,1.0,3,3,,False\n")
    assert FolderSnapshot(folder).manifest is None
