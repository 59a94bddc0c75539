"""A full disk under results/ ends as one `rederive: disk full` paragraph naming
the disk's path and what to free (issue 26 item 3), for a DuckDB write and for a
parquet/CSV write, instead of a DuckDB or OSError traceback."""

import errno
import os
import stat
from types import SimpleNamespace

import duckdb
import pandas as pd
import pytest

from rederive.io import warehouse
from rederive.runner import disk_full_message, disk_full_path, run

FRAME = pd.DataFrame({"model": ["a", "b"], "x": [1.0, 2.0]})
# Large enough that the write itself fails, not only the flush on close.
BIG = pd.DataFrame({"model": ["m"] * 100_000, "x": range(100_000)})


def job(tmp_path, output):
    return SimpleNamespace(rule="tabulate_x", log=[str(tmp_path / "job.log")], output=[output])


def failing_run(tmp_path, capsys, main, output):
    """The message the job leaves in its log; the workflow prints it once, at the
    end of the run (a job writes it to stderr only when its log cannot take it)."""
    with pytest.raises(SystemExit) as stop:
        run(main, job(tmp_path, output))
    assert stop.value.code == 1
    assert "rederive:" not in capsys.readouterr().err
    return (tmp_path / "job.log").read_text()


@pytest.mark.parametrize(
    "write",
    [
        lambda: BIG.to_csv("/dev/full", index=False),
        # What pyarrow raises on a full disk (seen on a 2 MB tmpfs); not /dev/full,
        # which pandas deletes after a failed parquet write.
        lambda: (_ for _ in ()).throw(
            OSError(28, "Error writing bytes to file. Detail: [errno 28] No space left on device")
        ),
    ],
    ids=["csv", "parquet"],
)
def test_a_csv_or_parquet_write_on_a_full_disk_is_named(tmp_path, capsys, write):
    # /dev/full answers every write with ENOSPC, as a full disk does (only if it
    # is the device: never point DuckDB at it, which replaces it with a file).
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)
    err = failing_run(tmp_path, capsys, lambda _: write(), "results/a/tables/x.csv")
    assert "rederive: disk full in rule tabulate_x" in err
    assert "no space left on the disk holding" in err
    assert "results/benchmarks/" in err and "run the same command again" in err
    assert "Traceback" not in err


class FullConnection:
    """A DuckDB connection whose writes fail as they do on a full disk."""

    def __init__(self, path, exc):
        self.path, self.exc = path, exc

    def register(self, *args):
        pass

    def unregister(self, *args):
        pass

    def execute(self, sql):
        open(self.path, "wb").write(b"partial")
        raise self.exc

    def close(self):
        pass


@pytest.mark.parametrize(
    "exc",
    [
        duckdb.IOException('IO Error: Could not write file "{tmp}": No space left on device'),
        duckdb.TransactionException(
            "TransactionException: Failed to commit: could not write to file: "
            "No space left on device"
        ),
    ],
    ids=["IOException", "TransactionException"],
)
def test_a_duckdb_write_on_a_full_disk_is_named_and_leaves_no_partial_file(
    tmp_path, capsys, monkeypatch, exc
):
    db = tmp_path / "a.duckdb"
    tmp = tmp_path / "a.duckdb.tmp"
    exc = type(exc)(str(exc).replace("{tmp}", str(tmp)))
    monkeypatch.setattr(warehouse.duckdb, "connect", lambda path: FullConnection(path, exc))
    err = failing_run(tmp_path, capsys, lambda _: warehouse.build(db, {"t": FRAME}), str(db))
    assert "rederive: disk full in rule tabulate_x" in err
    # The file named: DuckDB's own when it names one, else the job's output.
    assert (str(tmp) if "Could not write file" in str(exc) else str(db)) in err
    assert not tmp.exists()  # the partial warehouse does not keep the space


def test_other_errors_are_not_taken_for_a_full_disk(tmp_path):
    assert disk_full_path(ValueError("no"), ["x"]) is None
    assert disk_full_path(OSError(errno.EACCES, "Permission denied"), ["x"]) is None
    with pytest.raises(ValueError):
        run(lambda _: (_ for _ in ()).throw(ValueError("boom")), job(tmp_path, "x"))


def test_the_chain_is_searched_and_the_quota_counts():
    try:
        try:
            raise OSError(errno.EDQUOT, "Disk quota exceeded", "/q/file.csv")
        except OSError as inner:
            raise RuntimeError("writing failed") from inner
    except RuntimeError as outer:
        assert disk_full_path(outer, ["out"]) == "/q/file.csv"
    assert "MB free of" in disk_full_message("r", "/tmp/x")
