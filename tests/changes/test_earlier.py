"""Analyses earlier runs built: found by their kept build, judged stale by content."""

from rederive.changes.earlier import NOT_FOUND, STALE, UP_TO_DATE, find_earlier, staleness
from rederive.changes.history import History

MANIFEST = {
    "analysis": "old",
    "kind": "benchmark",
    "settings": {"kind": "benchmark", "label": "Old"},
    "runs": {"m": {"sha256": "x", "files": {"long/m.csv": "aa"}}},
    "inputs": {"items.csv": "ii"},
    "code": {},
    "location": {"raw_dir": "/data/old"},
}


def test_staleness_by_content_run_by_run():
    assert staleness(MANIFEST, {"long/m.csv": "aa", "items.csv": "ii"}) == (UP_TO_DATE, [])
    state, problems = staleness(MANIFEST, {"long/m.csv": "bb", "new.csv": "nn"})
    assert state == STALE
    assert problems == [
        "run m changed (long/m.csv)",
        "items.csv removed",
        "1 new file(s) (new.csv)",
    ]
    assert staleness(MANIFEST, None) == (NOT_FOUND, ["no folder /data/old"])


def test_find_earlier_lists_kept_builds_other_than_this_runs(tmp_path):
    results = tmp_path / "results"
    History(results / "old" / "history").record(MANIFEST, {"tables/a.csv": b"a\n1\n"})
    History(results / "now" / "history").record({**MANIFEST, "analysis": "now"}, {})
    (results / "summary").mkdir()
    (results / "nohistory" / "tables").mkdir(parents=True)
    found = find_earlier(
        results, {"now", "summary"}, lambda raw: {"long/m.csv": "aa", "items.csv": "ii"}
    )
    assert [e.name for e in found] == ["old"]
    old = found[0]
    assert (old.kind, old.raw_dir, old.state) == ("benchmark", "/data/old", UP_TO_DATE)
    assert old.note().startswith("build 1 of ") and old.note().endswith(
        "its inputs are unchanged since"
    )
