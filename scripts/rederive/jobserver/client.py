"""Snakemake's side: start Python script jobs as forks of the warm server.

:func:`install` (called by rules/common.smk) replaces
``snakemake.script.PythonScript.execute_script``, the method that runs
``python <script>`` through Snakemake's ``shell()``, with one that asks the
server (started on the first job, stopped with the run) to run the script.
What ``shell()`` gives a job is kept: its environment (with the thread
variables), its benchmark record (measured on the forked child's process, as
Snakemake measures the one it starts), Snakemake's way to kill it
(``shell.kill`` / ``shell.terminate``), and a failure as a
``CalledProcessError``. A job the server cannot take runs the usual way.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import socket
import subprocess
import sys
import threading

#: Set to 0 to start every job as its own interpreter.
SWITCH = "REDERIVE_JOB_SERVER"

_THREAD_VARIABLES = (
    "OMP_NUM_THREADS",
    "GOTO_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
)


class ServerError(RuntimeError):
    """The server could not be started or stopped answering."""


class JobServer:
    """The warm server process of this Snakemake run and the way to it."""

    def __init__(self, python: str = sys.executable, *, preload: bool = True):
        self.python = python
        self.preload = preload
        self.process = None
        self.control = None
        self.lock = threading.Lock()
        self.failed = False

    def ensure_started(self) -> bool:
        """Start the server on first use; False if it cannot run (jobs then run
        the usual way)."""
        with self.lock:
            if self.failed:
                return False
            if self.process is not None and self.process.poll() is None:
                return True
            if self.process is not None:
                self.failed = True  # it died: do not restart it job after job
                return False
            try:
                self._start()
            except (OSError, ServerError) as exc:
                sys.stderr.write(
                    f"rederive: the job server could not start ({exc}); jobs run as "
                    "separate interpreters\n"
                )
                self.failed = True
                return False
            return True

    def _start(self) -> None:
        ours, theirs = socket.socketpair()
        env = dict(os.environ)
        # One thread per job (rules say `threads: 1`; others do not come here):
        # BLAS reads these once, when the server imports NumPy.
        env.update(dict.fromkeys(_THREAD_VARIABLES, "1"))
        # -P: like `python script`, nothing from the working directory shadows
        # a library; the job's own script folder goes first in the job.
        self.process = subprocess.Popen(
            [self.python, "-P", "-m", "rederive.jobserver.server", str(theirs.fileno())]
            + ([] if self.preload else ["--no-preload"]),
            pass_fds=[theirs.fileno()],
            env=env,
        )
        theirs.close()
        self.control = ours
        if ours.recv(1) != b"R":
            self.process.wait()
            raise ServerError(f"it exited with status {self.process.returncode}")

    def give_up(self, reason) -> None:
        """Run the rest of this run's jobs the usual way."""
        with self.lock:
            if not self.failed:
                sys.stderr.write(
                    f"rederive: {reason}; the remaining jobs run as separate interpreters\n"
                )
            self.failed = True

    def submit(self) -> socket.socket:
        """A socket for one job, its other end handed to the server."""
        ours, theirs = socket.socketpair()
        try:
            with self.lock:
                socket.send_fds(self.control, [b"J"], [theirs.fileno()])
        finally:
            theirs.close()
        return ours

    def stop(self) -> None:
        """End the server (and any job still running in it); idempotent."""
        with self.lock:
            if self.control is not None:
                self.control.close()
                self.control = None
            if self.process is not None and self.process.poll() is None:
                try:
                    self.process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait()


class RunningJob:
    """What Snakemake's ``shell.kill``/``shell.terminate`` call for a job (they
    take any object with ``kill()`` and ``terminate()``)."""

    def __init__(self, sock: socket.socket):
        self.sock = sock

    def _send(self, command: bytes) -> None:
        with contextlib.suppress(OSError):
            self.sock.sendall(command)

    def kill(self) -> None:
        self._send(b"K")

    def terminate(self) -> None:
        self._send(b"T")


def run_job(server: JobServer, script: str, env: dict, *, jobid=None, bench_record=None):
    """Run ``script`` in the server, as ``python script`` with ``env`` in the
    working directory; raise CalledProcessError as ``shell()`` does on failure,
    ServerError when the server could not start the job."""
    from snakemake.shell import shell

    command = f"{server.python} {script}"
    try:
        sock = server.submit()
    except OSError as exc:
        raise ServerError(f"the job server does not answer ({exc})") from exc
    with sock, sock.makefile("rb") as answers:
        request = {"script": script, "cwd": os.getcwd(), "env": env}
        try:
            sock.sendall(json.dumps(request).encode() + b"\n")
            started = answers.readline().split()
        except OSError:
            started = []
        if not started or started[0] != b"P":
            # Nothing of the job has run: the caller may run it the usual way.
            raise ServerError("the job server ended before the job started")
        pid = int(started[1])
        if jobid is not None:
            with shell._lock:
                shell._processes[jobid] = RunningJob(sock)
        try:
            with contextlib.ExitStack() as measured:
                if bench_record is not None:
                    from snakemake.benchmark import benchmarked

                    # Before the go: the child is alive (waiting) when measuring starts.
                    measured.enter_context(benchmarked(pid, bench_record))
                with contextlib.suppress(OSError):
                    sock.sendall(b"G")
                ended = answers.readline().split()
        finally:
            if jobid is not None:
                with shell._lock:
                    shell._processes.pop(jobid, None)
    if not ended:
        sys.stderr.write(
            f"rederive: the job server ended while running {script} (killed, or out of "
            "memory?); the job failed with it. Run again; REDERIVE_JOB_SERVER=0 runs "
            "every job as its own interpreter\n"
        )
        raise subprocess.CalledProcessError(1, command)
    kind, value = ended[0], int(ended[1])
    returncode = -value if kind == b"S" else value
    if returncode:
        raise subprocess.CalledProcessError(returncode, command)


def job_environment(threads, resources) -> dict:
    """The environment ``shell()`` gives a job: this process's, the thread
    variables, and TMPDIR from the `tmpdir` resource."""
    env = dict(os.environ)
    env.update(dict.fromkeys(_THREAD_VARIABLES, str(threads)))
    tmpdir = (resources or {}).get("tmpdir")
    if tmpdir:
        env.update(dict.fromkeys(("TMPDIR", "TMP", "TEMPDIR", "TEMP"), tmpdir))
    return env


def takes(script_job) -> bool:
    """Whether the server can run this job as Snakemake would run it itself."""
    try:
        threads = int(script_job.threads)
    except (TypeError, ValueError):
        return False
    return (
        threads == 1
        and script_job.conda_env is None
        and script_job.container_img is None
        and script_job.env_modules is None
        and not script_job.shadow_dir
        and not (script_job.resources or {}).get("shell_exec")
    )


_SERVER = JobServer()


def install(workflow) -> None:
    """Run the Python script jobs of this Snakemake process in the server when
    it is the main process of a local run (not on a cluster, not in a job
    step) and REDERIVE_JOB_SERVER is not 0."""
    from snakemake.script import PythonScript

    if os.environ.get(SWITCH, "1") == "0" or getattr(PythonScript, "_rederive", False):
        return
    usual = PythonScript.execute_script

    def execute_script(self, fname, edit=False):
        if (
            edit
            or not (workflow.is_main_process and workflow.local_exec)
            or not takes(self)
            or not _SERVER.ensure_started()
        ):
            return usual(self, fname, edit=edit)
        try:
            run_job(
                _SERVER,
                fname,
                job_environment(self.threads, self.resources),
                jobid=self.jobid,
                bench_record=self.bench_record,
            )
        except ServerError as exc:
            _SERVER.give_up(exc)
            return usual(self, fname, edit=edit)

    PythonScript.execute_script = execute_script
    PythonScript._rederive = True
    atexit.register(stop)


def stop() -> None:
    """End this run's server (the workflow's onsuccess/onerror, and at exit)."""
    _SERVER.stop()
