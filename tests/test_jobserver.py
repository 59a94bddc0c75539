"""The job server (rederive.jobserver) runs a script as `python script` would:
same directory, environment, argv, __main__, exit status and output; jobs can
be killed; nothing outlives the Snakemake process that started it; the CPU of
its jobs is counted in that process's children."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from rederive.jobserver import client
from rederive.jobserver.client import JobServer, job_environment, run_job, takes


@contextlib.contextmanager
def running_server(preload: bool = False):
    # Started in the test's body when the test reads a job's output (capfd): the
    # children write to the descriptors the server was started with.
    started = JobServer(preload=preload)
    assert started.ensure_started()
    try:
        yield started
    finally:
        started.stop()


@pytest.fixture
def server():
    with running_server() as started:
        yield started


def script(tmp_path: Path, body: str, name: str = "job.py") -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return str(path)


def test_a_script_runs_as_python_would_run_it(server, tmp_path, monkeypatch):
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    job = script(
        tmp_path,
        """
        import json, os, sys, tempfile
        json.dump({
            "name": __name__,
            "file": __file__,
            "argv": sys.argv,
            "path0": sys.path[0],
            "cwd": os.getcwd(),
            "var": os.environ.get("JOB_VAR"),
            "threads": os.environ.get("OMP_NUM_THREADS"),
            "tmp": tempfile.gettempdir(),
            "main_is_me": sys.modules["__main__"].__dict__ is globals(),
        }, open("seen.json", "w"))
        """,
    )
    (tmp_path / "tmp").mkdir()
    env = job_environment(1, {"tmpdir": str(tmp_path / "tmp")}) | {"JOB_VAR": "x"}
    run_job(server, job, env)
    import json

    seen = json.loads((work / "seen.json").read_text())
    assert seen == {
        "name": "__main__",
        "file": job,
        "argv": [job],
        "path0": str(tmp_path),
        "cwd": str(work),
        "var": "x",
        "threads": "1",
        "tmp": str(tmp_path / "tmp"),
        "main_is_me": True,
    }


@pytest.mark.parametrize(
    ("body", "status", "stderr"),
    [
        ("import sys; sys.exit(3)", 3, ""),
        ("raise SystemExit('rederive: a message')", 1, "rederive: a message"),
        ("raise ValueError('broken input')", 1, "ValueError: broken input"),
        ("import os, signal; os.kill(os.getpid(), signal.SIGTERM)", -signal.SIGTERM, ""),
    ],
)
def test_a_failing_script_fails_with_the_interpreters_status(capfd, tmp_path, body, status, stderr):
    with running_server() as server, pytest.raises(subprocess.CalledProcessError) as failed:
        run_job(server, script(tmp_path, body), dict(os.environ))
    assert failed.value.returncode == status
    assert stderr in capfd.readouterr().err


def test_output_and_atexit_are_flushed_and_left_open_files_closed(capfd, tmp_path):
    job = script(
        tmp_path,
        f"""
        import atexit, sys
        print("to stdout", end="")
        sys.stderr.write("to stderr")
        atexit.register(lambda: open({str(tmp_path / "atexit")!r}, "w").write("ran"))
        left_open = open({str(tmp_path / "buffered")!r}, "w")
        left_open.write("written at exit")
        """,
    )
    with running_server() as server:
        run_job(server, job, dict(os.environ))
    out, err = capfd.readouterr()
    assert (out, err) == ("to stdout", "to stderr")
    assert (tmp_path / "atexit").read_text() == "ran"
    assert (tmp_path / "buffered").read_text() == "written at exit"


def test_snakemake_can_kill_a_running_job(server, tmp_path):
    from snakemake.shell import shell

    started = tmp_path / "started"
    job = script(
        tmp_path,
        f"import time; open({str(started)!r}, 'w').close(); time.sleep(60)",
    )

    def kill_when_started():
        while not started.exists():
            time.sleep(0.02)
        shell.kill("job-7")

    killer = threading.Thread(target=kill_when_started)
    killer.start()
    begun = time.monotonic()
    with pytest.raises(subprocess.CalledProcessError) as failed:
        run_job(server, job, dict(os.environ), jobid="job-7")
    killer.join()
    assert failed.value.returncode == -signal.SIGKILL
    assert time.monotonic() - begun < 30
    assert "job-7" not in shell._processes


def test_jobs_run_side_by_side(server, tmp_path, monkeypatch):
    jobs = [
        script(tmp_path, f"import time; time.sleep(1); open('{i}.done', 'w').close()", f"j{i}.py")
        for i in range(4)
    ]
    monkeypatch.chdir(tmp_path)
    begun = time.monotonic()
    threads = [
        threading.Thread(target=run_job, args=(server, job, dict(os.environ))) for job in jobs
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(p.name for p in tmp_path.glob("*.done")) == [f"{i}.done" for i in range(4)]
    assert time.monotonic() - begun < 3.5  # four one-second sleeps, not one after another


def driver_command(template: str, job: str) -> list[str]:
    """A Python process standing in for Snakemake: it starts a server and runs ``job``."""
    scripts = str(Path(client.__file__).parents[2])
    return [sys.executable, "-c", template.format(scripts=scripts, job=job)]


DRIVER = """
import os, sys, time
sys.path.insert(0, {scripts!r})
from rederive.jobserver.client import JobServer, run_job

server = JobServer(preload=False)
assert server.ensure_started()
print(server.process.pid, flush=True)
run_job(server, {job!r}, dict(os.environ))
"""


def test_nothing_outlives_a_killed_snakemake(tmp_path):
    """A SIGKILL of the process that started the server ends the server and its jobs."""
    pid_file = tmp_path / "job.pid"
    job = script(
        tmp_path,
        f"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(120)",
    )
    driver = subprocess.Popen(driver_command(DRIVER, job), stdout=subprocess.PIPE, text=True)
    server_pid = int(driver.stdout.readline())
    deadline = time.monotonic() + 30
    while not pid_file.exists() or not pid_file.read_text():
        assert time.monotonic() < deadline
        time.sleep(0.05)
    job_pid = int(pid_file.read_text())
    driver.kill()
    driver.wait()
    deadline = time.monotonic() + 30
    while alive(server_pid) or alive(job_pid):
        assert time.monotonic() < deadline, "the server or its job outlived Snakemake"
        time.sleep(0.05)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie waiting for its parent is gone for our purpose.
    state = Path(f"/proc/{pid}/stat")
    return state.exists() and state.read_text().split(")")[-1].split()[0] != "Z"


CPU_DRIVER = """
import os, resource, sys
sys.path.insert(0, {scripts!r})
from rederive.jobserver.client import JobServer, run_job

server = JobServer(preload=False)
server.ensure_started()
run_job(server, {job!r}, dict(os.environ))
server.stop()
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(usage.ru_utime + usage.ru_stime)
"""


@pytest.mark.parametrize("burn", [0.0, 1.5])
def test_the_cpu_of_jobs_counts_in_the_starting_processs_children(tmp_path, burn):
    job = script(
        tmp_path,
        f"import time\nend = time.process_time() + {burn}\nwhile time.process_time() < end: pass",
    )
    out = subprocess.run(
        driver_command(CPU_DRIVER, job),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    counted = float(out)
    assert burn <= counted < burn + 1.0


def test_jobs_the_server_cannot_run_as_snakemake_would_run_the_usual_way():
    plain = dict(
        threads=1,
        conda_env=None,
        container_img=None,
        env_modules=None,
        shadow_dir=None,
        resources={"tmpdir": "/tmp"},
    )
    assert takes(SimpleNamespace(**plain))
    for change in (
        {"threads": 2},
        {"conda_env": "/envs/x"},
        {"container_img": "docker://x"},
        {"env_modules": ["python"]},
        {"shadow_dir": ".snakemake/shadow/x"},
        {"resources": {"shell_exec": "/bin/zsh"}},
    ):
        assert not takes(SimpleNamespace(**(plain | change))), change


def test_a_server_that_died_is_not_restarted_job_after_job(server):
    server.process.kill()
    server.process.wait()
    assert not server.ensure_started()
    assert not server.ensure_started()


@pytest.mark.slow
def test_the_workflow_gives_the_same_files_without_the_server(bundled_build, tmp_path, monkeypatch):
    """The bundled benchmark analysis built with every job its own interpreter is
    byte-identical to the shared build (job server on), bar the warehouse file's
    layout and the history's build times."""
    from workflow_utils import run_workflow

    work = tmp_path / "work"
    work.mkdir()
    (work / "raw").symlink_to(bundled_build / "raw", target_is_directory=True)
    monkeypatch.setenv(client.SWITCH, "0")
    run_workflow(work, {"build": ["benchmark"]}, cores=2)

    def files(root: Path) -> dict[str, bytes]:
        return {
            p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*"))
            if p.is_file() and p.suffix != ".duckdb" and "history" not in p.parts
        }

    with_server = files(bundled_build / "results" / "benchmark")
    without = files(work / "results" / "benchmark")
    assert len(without) > 30
    assert without.keys() == with_server.keys()
    assert [name for name in without if without[name] != with_server[name]] == []


def test_a_job_whose_server_dies_fails_with_a_message_and_ends(capfd, tmp_path):
    pid_file = tmp_path / "job.pid"
    job = script(
        tmp_path,
        f"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(120)",
    )
    with running_server() as server:

        def kill_server_when_started():
            while not pid_file.exists() or not pid_file.read_text():
                time.sleep(0.02)
            server.process.kill()

        killer = threading.Thread(target=kill_server_when_started)
        killer.start()
        with pytest.raises(subprocess.CalledProcessError):
            run_job(server, job, dict(os.environ))
        killer.join()
    assert "rederive: the job server ended while running" in capfd.readouterr().err
    job_pid = int(pid_file.read_text())
    deadline = time.monotonic() + 30
    while alive(job_pid):
        assert time.monotonic() < deadline, "the job outlived its server"
        time.sleep(0.05)


def test_a_job_a_dead_server_cannot_start_is_left_to_run_the_usual_way(server, tmp_path):
    server.process.kill()
    server.process.wait()
    with pytest.raises(client.ServerError):
        run_job(server, script(tmp_path, "pass"), dict(os.environ))


def test_a_job_that_ends_at_once_is_still_measured(server, tmp_path):
    """Snakemake's benchmark reads the job by pid: the job must not have ended
    (and been reaped) before the measuring starts."""
    from snakemake.benchmark import BenchmarkRecord

    quick = script(tmp_path, "pass")
    for _ in range(30):
        record = BenchmarkRecord()
        run_job(server, quick, dict(os.environ), bench_record=record)
        assert record.running_time is not None


@pytest.mark.slow
def test_the_preloaded_server_starts_and_ends_without_a_word(capfd, tmp_path):
    """With every library imported ahead, a job using DuckDB and pandas runs and
    the server ends silently (the interpreter's own finalisation of the frozen
    libraries printed pages of DuckDB "leaked instances")."""
    job = script(
        tmp_path,
        """
        import duckdb, pandas
        con = duckdb.connect()
        print(con.execute("select 41 + 1").fetchone()[0], end="")
        """,
    )
    with running_server(preload=True) as server:
        run_job(server, job, dict(os.environ))
    out, err = capfd.readouterr()
    assert (out, err) == ("42", "")
