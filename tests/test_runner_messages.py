"""How a job ends (issue 37, items 6 and 8): its `rederive:` message once, in its
log (the workflow prints it at the end of the run), naming a setting as the user
writes it, and a damaged input named instead of a DuckDB traceback; a job that
succeeds stamps its outputs."""

import os
from types import SimpleNamespace

import pandas as pd
import pytest

from rederive.errors import InputError
from rederive.io import intact, warehouse
from rederive.runner import run


def job(tmp_path, *, log=True, inputs=(), outputs=(), analysis="my_eval"):
    return SimpleNamespace(
        rule="build_benchmark_warehouse",
        log=[str(tmp_path / "job.log")] if log else [],
        input=list(inputs),
        output=list(outputs),
        wildcards=SimpleNamespace(analysis=analysis),
    )


def refuse(_):
    raise InputError(
        "the models were not graded on the same items. Fix the runs, or set "
        "analyses.<name>.item_sets: intersection",
        file="long/a.csv",
    )


def test_an_input_error_is_logged_once_and_names_the_analysis(tmp_path, capsys):
    with pytest.raises(SystemExit):
        run(refuse, job(tmp_path))
    assert capsys.readouterr().err == ""  # the workflow prints the log's message at the end
    logged = (tmp_path / "job.log").read_text()
    assert logged.count("rederive: input error in rule build_benchmark_warehouse") == 1
    assert "set analyses.my_eval.item_sets: intersection" in logged


def test_without_a_log_the_message_goes_to_stderr(tmp_path, capsys):
    with pytest.raises(SystemExit):
        run(refuse, job(tmp_path, log=False))
    assert "set analyses.my_eval.item_sets: intersection" in capsys.readouterr().err


def test_a_damaged_warehouse_input_is_named_not_a_traceback(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    db = "results/my_eval/my_eval.duckdb"
    os.makedirs("results/my_eval")
    warehouse.build(db, {"t": pd.DataFrame({"x": range(100_000)})})
    os.truncate(db, os.path.getsize(db) // 2)
    with pytest.raises(SystemExit):
        run(lambda _: warehouse.query(db, "SELECT sum(x) FROM t"), job(tmp_path, inputs=[db]))
    logged = (tmp_path / "job.log").read_text()
    assert f"rederive: damaged file in rule build_benchmark_warehouse:\n  {db} is damaged" in logged
    assert f"delete {db} and run the same command again" in logged


def test_a_successful_job_stamps_its_outputs_and_a_failed_one_leaves_none(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = "results/my_eval/tables/x.csv"
    os.makedirs("results/my_eval/tables")

    def write(_):
        with open(out, "w") as handle:
            handle.write("a\n1\n")

    run(write, job(tmp_path, outputs=[out]))
    assert intact.stamp_path(out).is_file() and intact.check(out) is None
    with pytest.raises(ValueError):
        run(lambda _: (_ for _ in ()).throw(ValueError("a bug")), job(tmp_path, outputs=[out]))
    assert not intact.stamp_path(out).exists()
