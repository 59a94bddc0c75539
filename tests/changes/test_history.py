"""The history store: an entry per build that changed something, compact, pruned."""

import gzip

import pytest

from rederive.changes.history import History


def manifest(run_sha="r1", library="lib1", commit="c1"):
    return {
        "analysis": "x",
        "kind": "benchmark",
        "settings": {"label": "X", "bootstrap": {"n_boot": 10}},
        "runs": {"m": {"sha256": run_sha, "files": {"runs/m.jsonl": run_sha}}},
        "inputs": {},
        "code": {"commit": commit, "dirty": False, "library": library, "lock": "l"},
    }


def test_first_build_then_no_entry_for_an_unchanged_build(tmp_path):
    history = History(tmp_path / "history")
    previous, current = history.record(manifest(), {"tables/a.csv": b"x\n1\n"})
    assert previous is None and current.number == 1
    again_previous, again = history.record(manifest(), {"tables/a.csv": b"x\n1\n"})
    assert again_previous.number == 1 and again is again_previous
    assert [e.number for e in history.entries()] == [1]


def test_a_new_commit_alone_adds_no_entry_but_library_code_does(tmp_path):
    history = History(tmp_path / "history")
    history.record(manifest(), {"tables/a.csv": b"1"})
    _, same = history.record(manifest(commit="c2"), {"tables/a.csv": b"1"})
    assert same.number == 1
    _, new = history.record(manifest(library="lib2"), {"tables/a.csv": b"1"})
    assert new.number == 2


def test_contents_are_stored_once_and_read_back(tmp_path):
    history = History(tmp_path / "history")
    files = {"tables/a.csv": b"a\n1\n", "tables/b.csv": b"b\n2\n"}
    history.record(manifest(), files)
    history.record(manifest(run_sha="r2"), {**files, "tables/a.csv": b"a\n3\n"})
    objects = sorted((tmp_path / "history" / "objects").iterdir())
    assert len(objects) == 3  # b.csv unchanged: stored once
    first, second = history.entries()
    assert first.read("tables/a.csv") == b"a\n1\n"
    assert second.read("tables/a.csv") == b"a\n3\n"
    assert second.read("tables/b.csv") == b"b\n2\n"
    # Compressed without a timestamp: the same content gives the same bytes.
    data = objects[0].read_bytes()
    assert gzip.compress(gzip.decompress(data), compresslevel=6, mtime=0) == data


def test_prune_keeps_the_newest_entries_and_their_objects(tmp_path):
    history = History(tmp_path / "history")
    for i in range(7):
        history.record(manifest(run_sha=f"r{i}"), {"tables/a.csv": f"a\n{i}\n".encode()})
    history.prune(3)
    assert [e.number for e in history.entries()] == [5, 6, 7]
    assert len(list((tmp_path / "history" / "objects").iterdir())) == 3
    assert history.entry(-1).number == 7 and history.entry(5).read("tables/a.csv") == b"a\n4\n"
    with pytest.raises(KeyError):
        history.entry(2)
    history.prune(0)  # at least one build is kept
    assert [e.number for e in history.entries()] == [7]


def test_a_damaged_object_is_named_not_read_as_data(tmp_path):
    history = History(tmp_path / "history")
    _, entry = history.record(manifest(), {"tables/a.csv": b"a\n1\n"})
    sha = entry.files["tables/a.csv"]
    (tmp_path / "history" / "objects" / f"{sha}.gz").write_bytes(gzip.compress(b"other"))
    with pytest.raises(ValueError, match="damaged"):
        entry.read("tables/a.csv")
