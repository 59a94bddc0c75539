"""The Inspect reader on logs written by the real inspect-ai (tests/benchmark/fixtures/inspect).

0.3.205 writes deflate ``.eval`` members, 0.3.285 zstd ones (the default since 0.3.206).
Every number is checked against what Inspect itself wrote in the same log: its
per-sample reductions and its reported accuracy.
"""

import json
import shutil
import zipfile
from pathlib import Path

import pytest

from rederive.errors import InputError
from rederive.io.accounting import Accounting
from rederive.io.inspect_log import read_eval_log, reported_scores
from rederive.io.zipread import ZipReader

FIXTURES = Path(__file__).parent / "fixtures" / "inspect"
RELEASES = ["0.3.205", "0.3.285"]
MODELS = {"mean": "alpha", "at_least_1": "beta", "sample_error": "gamma"}
FINISHED = [
    (release, log, scorer)
    for release in RELEASES
    for log, scorers in (
        ("mean.eval", ("match", "includes")),
        ("at_least_1.eval", ("match",)),
        ("sample_error.eval", ("match",)),
    )
    for scorer in scorers
] + [("0.3.285", "mean.json", "match"), ("0.3.285", "mean.json", "includes")]


def _acc(path) -> Accounting:
    return Accounting(study="benchmark", run="r", file=str(path), sha256="")


def _inspect_own(path: Path, scorer: str) -> tuple[dict, str]:
    """Inspect's reductions for ``scorer`` (sample id -> value) and its reducer."""
    if path.suffix == ".json":
        log = json.loads(path.read_text())
        reductions, header = log["reductions"], log
    else:
        with ZipReader(path) as archive:
            reductions = json.loads(archive.read("reductions.json"))
            header = json.loads(archive.read("header.json"))
    (reducer,) = header["eval"]["config"]["epochs_reducer"]
    entry = next(r for r in reductions if r["scorer"] == scorer and r["reducer"] == reducer)
    letters = {"C": 1.0, "I": 0.0}
    return {s["sample_id"]: letters.get(s["value"], s["value"]) for s in entry["samples"]}, reducer


def test_fixture_compression_is_what_the_releases_write():
    for release, method in (("0.3.205", zipfile.ZIP_DEFLATED), ("0.3.285", 93)):
        with zipfile.ZipFile(FIXTURES / release / "mean.eval") as archive:
            assert {i.compress_type for i in archive.infolist()} == {method}


@pytest.mark.parametrize(("release", "log", "scorer"), FINISHED)
def test_per_item_grades_equal_inspects_reductions_and_accuracy(release, log, scorer):
    path = FIXTURES / release / log
    acc = _acc(path)
    frame = read_eval_log(path, scorer=scorer, category_field="category", accounting=acc)
    acc.check_balance()
    ours = frame.groupby("item_id")["correct"].mean().to_dict()
    theirs, reducer = _inspect_own(path, scorer)
    assert ours == pytest.approx(theirs, abs=1e-12)
    reported = reported_scores(path, scorer=scorer)
    assert reported["value"].item() == pytest.approx(sum(ours.values()) / len(ours), abs=1e-12)
    assert set(frame["model"]) == {f"mockllm/{MODELS[path.stem]}"}
    assert set(frame["category"]) <= {"arithmetic", "biology"}
    assert f"reducer={reducer}" in acc.notes[0]


def test_at_least_1_is_not_averaged():
    for release in RELEASES:
        path = FIXTURES / release / "at_least_1.eval"
        acc = _acc(path)
        frame = read_eval_log(path, accounting=acc)
        # q3 was wrong in one epoch and right in the other: at_least_1 gives 1, the mean 0.5.
        assert frame.set_index("item_id")["correct"].to_dict() == {"q1": 1.0, "q2": 0.0, "q3": 1.0}
        assert (acc.rows_read, acc.rows_used, len(frame)) == (6, 6, 3)
        assert "epochs reduced with 'at_least_1'" in acc.notes[-1]


def test_deflate_zstd_and_json_logs_read_alike():
    frames = [
        read_eval_log(FIXTURES / p, scorer="includes")
        for p in ("0.3.205/mean.eval", "0.3.285/mean.eval", "0.3.285/mean.json")
    ]
    keyed = [f.set_index(["item_id", "epoch"])["correct"].sort_index() for f in frames]
    assert keyed[0].to_dict() == keyed[1].to_dict() == keyed[2].to_dict()
    assert frames[2]["source_file"].iloc[0].endswith("mean.json!samples[0]")


def test_sample_errors_are_counted_exclusions():
    for release in RELEASES:
        acc = _acc("x")
        frame = read_eval_log(FIXTURES / release / "sample_error.eval", accounting=acc)
        assert dict(acc.excluded) == {"sample error (no grade)": 2}
        assert acc.rows_read == 6 and len(frame) == 4 and "q3" not in set(frame["item_id"])


@pytest.mark.parametrize("release", RELEASES)
def test_aborted_eval_is_refused(release):
    path = FIXTURES / release / "error.eval"
    with pytest.raises(InputError) as info:
        read_eval_log(path, scorer="match")
    assert info.value.field == "status" and info.value.file.endswith("error.eval")
    assert "status 'error': RuntimeError('mock failure on sample q3')" in info.value.message
    assert "3 samples x 2 epochs" in info.value.message


@pytest.mark.parametrize("release", RELEASES)
def test_the_aborted_eval_message_is_the_documented_one(release, tmp_path, monkeypatch):
    """The message docs/input-formats.md shows, as the ingest job prints it
    (rederive.runner.run), for an aborted log at logs/delta.eval."""
    from types import SimpleNamespace

    from test_docs import DOCS, parse_blocks

    from rederive.runner import run

    page = parse_blocks(DOCS / "input-formats.md")
    (shown,) = [b.text for b in page if "logs/delta.eval" in b.text and b.lang == "text"]
    monkeypatch.chdir(tmp_path)  # messages name files relative to the working directory
    (tmp_path / "logs").mkdir()
    shutil.copy(FIXTURES / release / "error.eval", tmp_path / "logs" / "delta.eval")
    log = tmp_path / "ingest.log"
    job = SimpleNamespace(
        log=[str(log)],
        output=[],
        rule="ingest_benchmark_batch",
        wildcards=SimpleNamespace(analysis="agents"),
    )
    with pytest.raises(SystemExit):
        run(lambda _: read_eval_log(Path("logs/delta.eval"), scorer="match"), job)
    printed = log.read_text()
    assert printed[printed.index("rederive: ") :].rstrip("\n") == shown


def _rewrite(src: Path, dst: Path, edit) -> Path:
    """Copy of a real log with ``edit(members)`` applied (deflate, readable by zipfile)."""
    with ZipReader(src) as archive:
        members = {n: archive.read(n) for n in archive.namelist()}
    edit(members)
    with zipfile.ZipFile(dst, "w", compression=zipfile.ZIP_DEFLATED) as out:
        for name, data in members.items():
            out.writestr(name, data)
    return dst


def test_cancelled_eval_is_refused(tmp_path):
    def cancel(members):
        header = json.loads(members["header.json"])
        header["status"] = "cancelled"
        members["header.json"] = json.dumps(header).encode()

    path = _rewrite(FIXTURES / "0.3.285" / "mean.eval", tmp_path / "c.eval", cancel)
    with pytest.raises(InputError, match="status 'cancelled'") as info:
        read_eval_log(path, scorer="match")
    assert info.value.field == "status"
    log = json.loads((FIXTURES / "0.3.285" / "mean.json").read_text())
    log["status"] = "started"
    (tmp_path / "s.json").write_text(json.dumps(log))
    with pytest.raises(InputError, match="status 'started'"):
        read_eval_log(tmp_path / "s.json", scorer="match")


@pytest.mark.parametrize("log", ["0.3.205/mean.eval", "0.3.285/mean.eval", "0.3.285/mean.json"])
def test_absent_scorer_names_the_scorers_present(log):
    with pytest.raises(InputError) as info:
        read_eval_log(FIXTURES / log, scorer="exact")
    assert "scorer 'exact'" in info.value.message
    assert "['includes', 'match']" in info.value.message
    with pytest.raises(InputError, match="several scorers"):
        read_eval_log(FIXTURES / log)


def test_absent_scorer_without_results_is_found_in_the_samples(tmp_path):
    def drop_results(members):
        header = json.loads(members["header.json"])
        header["results"] = None
        members["header.json"] = json.dumps(header).encode()

    path = _rewrite(FIXTURES / "0.3.205" / "sample_error.eval", tmp_path / "r.eval", drop_results)
    with pytest.raises(InputError, match=r"in no sample; the samples' scorers: \['match'\]"):
        read_eval_log(path, scorer="exact")


def test_non_mean_reducer_without_reductions_is_refused(tmp_path):
    path = _rewrite(
        FIXTURES / "0.3.285" / "at_least_1.eval",
        tmp_path / "n.eval",
        lambda members: members.pop("reductions.json"),
    )
    with pytest.raises(InputError) as info:
        read_eval_log(path)
    assert info.value.field == "reductions" and "'at_least_1', not the mean" in info.value.message
    with pytest.raises(InputError, match=r"reducer 'max' .* its reducers: \['at_least_1'\]"):
        read_eval_log(FIXTURES / "0.3.285" / "at_least_1.eval", reducer="max")


def test_several_reducers_need_a_choice(tmp_path):
    def two_reducers(members):
        header = json.loads(members["header.json"])
        header["eval"]["config"]["epochs_reducer"] = ["mean", "at_least_1"]
        members["header.json"] = json.dumps(header).encode()

    path = _rewrite(FIXTURES / "0.3.285" / "at_least_1.eval", tmp_path / "two.eval", two_reducers)
    with pytest.raises(InputError, match="several epochs reducers"):
        read_eval_log(path)
    assert read_eval_log(path, reducer="mean")["correct"].mean() == pytest.approx(0.5)
    assert read_eval_log(path, reducer="at_least_1")["correct"].mean() == pytest.approx(2 / 3)


def test_fixtures_stay_small():
    logs = [*FIXTURES.rglob("*.eval"), *FIXTURES.rglob("*.json")]
    assert sum(p.stat().st_size for p in logs) < 200_000


def test_discovery_and_ingest_pass_the_reader_settings(tmp_path):
    from rederive.studies.benchmark.ingest import ingest, reported
    from rederive.studies.benchmark.sources import discover

    folder = tmp_path / "raw" / "inspect"
    folder.mkdir(parents=True)
    shutil.copy(FIXTURES / "0.3.285" / "at_least_1.eval", folder / "beta.eval")
    shutil.copy(FIXTURES / "0.3.285" / "mean.json", folder / "alpha.json")
    for manifest in ("logs.json", "eval-set.json"):  # written by Inspect, not logs
        (folder / manifest).write_text("{}")
    sources = discover(tmp_path / "raw")
    assert {run: s.path.name for run, s in sources.items()} == {
        "inspect-alpha": "alpha.json",
        "inspect-beta": "beta.eval",
    }
    params = {"inspect": {"scorer": "match", "reducer": None, "category_field": "category"}}
    beta = sources["inspect-beta"]
    frame, accounting = ingest(beta.run, "inspect", beta.path, beta.files(), params)
    assert frame["correct"].tolist() == [1.0, 0.0, 1.0] and accounting.rows_used == 6
    assert reported("inspect", beta.path, params=params)["value"].item() == pytest.approx(2 / 3)
    small = {**params, "zip_limits": {"max_member_mib": 0.001, "max_total_mib": 1}}
    with pytest.raises(InputError, match="benchmark.zip_limits.max_member_mib"):
        ingest(beta.run, "inspect", beta.path, beta.files(), small)


def test_invalidated_samples_are_counted_exclusions(tmp_path):
    def invalidate(members):
        sample = json.loads(members["samples/q2_epoch_1.json"])
        sample["invalidation"] = {"timestamp": "2026-12-02T00:00:00Z", "reason": "broken env"}
        members["samples/q2_epoch_1.json"] = json.dumps(sample).encode()

    path = _rewrite(FIXTURES / "0.3.285" / "mean.eval", tmp_path / "i.eval", invalidate)
    acc = _acc(path)
    frame = read_eval_log(path, scorer="match", accounting=acc)
    assert dict(acc.excluded) == {"sample invalidated": 1} and len(frame) == 5
    acc.check_balance()


def test_json_that_is_not_a_log(tmp_path):
    (tmp_path / "notes.json").write_text('{"todo": 1}')
    with pytest.raises(InputError, match="not an Inspect log"):
        read_eval_log(tmp_path / "notes.json")
    (tmp_path / "cut.json").write_text('{"eval": {\n  "model": ')
    with pytest.raises(InputError) as info:
        read_eval_log(tmp_path / "cut.json")
    assert info.value.line == 2 and "malformed JSON" in info.value.message
