"""The warm process: import the libraries once, fork one child per job.

Started by :mod:`rederive.jobserver.client` as
``python -m rederive.jobserver.server FD [--no-preload]``, where FD is one end of a Unix
socket pair whose other end only the Snakemake process holds. Over it the
client passes, for each job, one end of a fresh socket pair (``SCM_RIGHTS``).
On that job socket:

- the client sends one JSON line: ``{"script", "cwd", "env"}``;
- the server forks, answers ``P <pid>``; the child waits until the client
  sends ``G`` (go), so that the client can start measuring it first;
- when the server has reaped the child, it answers ``X <status>`` (an exit
  status) or ``S <signal>`` (killed by a signal);
- the client may send ``T`` (terminate) or ``K`` (kill); if it closes the
  socket before the job ends, the job is killed (or never starts).

End of file on the control socket (the Snakemake process ended, however it
ended) stops the server: live jobs get SIGTERM, then SIGKILL after a grace
period. The server reaps every child itself, so their CPU time counts in its
own and, once Snakemake has reaped the server, in Snakemake's children's:
``/usr/bin/time snakemake`` still measures the whole build.
"""

from __future__ import annotations

import atexit
import builtins
import contextlib
import ctypes
import gc
import importlib
import importlib.machinery
import io
import json
import os
import selectors
import signal
import socket
import sys
import tempfile
import threading
import time
import types

#: What the jobs import, ahead of them (a module missing here is imported by the
#: job itself, as before). Measured per job with bench/job_cpu.py.
PRELOAD = (
    "numpy",
    "pandas",
    "pyarrow",
    "pyarrow.compute",
    "pyarrow.csv",
    "pyarrow.parquet",
    "duckdb",
    "yaml",
    "jsonschema",
    "jinja2",
    "markdown_it",
    "scipy.cluster.hierarchy",
    "scipy.linalg",
    "scipy.optimize",
    "scipy.sparse",
    "scipy.spatial",
    "scipy.special",
    "scipy.stats",
    "statsmodels.api",
    "statsmodels.formula.api",
    "statsmodels.miscmodels.ordinal_model",
    "statsmodels.stats.contingency_tables",
    "statsmodels.stats.inter_rater",
    "statsmodels.stats.proportion",
    "matplotlib",
    "matplotlib.pyplot",
    "matplotlib.ticker",
    "seaborn",
    "torch",
    "pyro",
    "py_irt",
    # What Snakemake's script preamble unpickles and imports.
    "snakemake.io",
    "snakemake.iocontainers",
    "snakemake.logging",
    "snakemake.script",
)

#: Seconds between SIGTERM and SIGKILL for the jobs still running at shutdown.
GRACE_S = 3.0

_PR_SET_PDEATHSIG = 1


def preload(names=PRELOAD) -> list[str]:
    """Import ``names``; return those that could not be imported (their jobs
    import them, or fail on them, themselves)."""
    import matplotlib

    # The jobs draw headless (rederive.plots.theme); choosing the backend before
    # pyplot is imported keeps pyplot from probing for a display.
    matplotlib.use("Agg")
    missing = []
    for name in names:
        try:
            importlib.import_module(name)
        except Exception:  # a library that fails here fails in its job, visibly
            missing.append(name)
    return missing


def die_with_parent(parent_pid: int) -> None:
    """Have the kernel kill this process when its parent ends (Linux)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent_pid:
        os._exit(1)


class Job:
    """One running child and the socket of the client waiting for it."""

    def __init__(self, sock: socket.socket):
        self.sock = sock
        self.request = b""
        self.pid = None
        self.go = None  # the pipe the child waits on before it runs the script

    def release(self, command: bytes = b"") -> None:
        """Let the child run (``G``), or, with nothing, have it exit unrun."""
        if self.go is None:
            return
        with contextlib.suppress(OSError):
            if command:
                os.write(self.go, command)
        os.close(self.go)
        self.go = None


class Server:
    def __init__(self, control: socket.socket):
        self.control = control
        self.selector = selectors.DefaultSelector()
        self.jobs_by_pid = {}
        self.running = True
        wake_read, wake_write = os.pipe()
        os.set_blocking(wake_read, False)
        os.set_blocking(wake_write, False)
        self.wake_read = wake_read
        signal.set_wakeup_fd(wake_write)
        self.wake_write = wake_write
        # A handler (not SIG_IGN): children must be reaped here, so that their
        # CPU time is counted (the kernel drops it for auto-reaped children).
        signal.signal(signal.SIGCHLD, lambda *_: None)
        # Ctrl-C reaches the jobs directly (one process group); the server
        # itself ends when Snakemake does.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        self.selector.register(control, selectors.EVENT_READ, self.on_control)
        self.selector.register(wake_read, selectors.EVENT_READ, self.on_wake)

    def serve(self) -> None:
        while self.running:
            for key, _ in self.selector.select():
                key.data(key.fileobj)
        self.shutdown()

    def on_control(self, control) -> None:
        try:
            _, fds, _, _ = socket.recv_fds(control, 1, 1)
        except OSError:
            fds = []
        if not fds:
            self.running = False
            return
        job = Job(socket.socket(fileno=fds[0]))
        self.selector.register(job.sock, selectors.EVENT_READ, lambda _: self.on_job(job))

    def on_job(self, job: Job) -> None:
        try:
            data = job.sock.recv(65536)
        except OSError:
            data = b""
        if job.pid is None:
            if not data:
                self.forget(job)
                return
            job.request += data
            if job.request.endswith(b"\n"):
                self.start(job)
            return
        if not data:  # the client is gone: so is its job
            job.release()
            self.signal(job, signal.SIGKILL)
            self.selector.unregister(job.sock)
            return
        for command in data.decode(errors="replace"):
            if command == "G":
                job.release(b"G")
            elif command == "T":
                self.signal(job, signal.SIGTERM)
            elif command == "K":
                self.signal(job, signal.SIGKILL)

    def start(self, job: Job) -> None:
        request = json.loads(job.request)
        server_pid = os.getpid()
        sys.stdout.flush()
        sys.stderr.flush()
        # The child waits for the client's go: the client first starts measuring
        # the child (Snakemake's benchmark reads it by pid), which a job that
        # ended and was reaped already would make fail.
        go_read, go_write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(go_write)
            self.become_job(server_pid)
            if os.read(go_read, 1) != b"G":
                os._exit(1)  # the client went away before the job started
            os.close(go_read)
            os._exit(run_script(request["script"], request["cwd"], request["env"]))
        os.close(go_read)
        job.go = go_write
        job.pid = pid
        self.jobs_by_pid[pid] = job
        try:
            job.sock.sendall(f"P {pid}\n".encode())
        except OSError:
            self.signal(job, signal.SIGKILL)

    def become_job(self, server_pid: int) -> None:
        """In the child: drop the server's sockets and signal handling."""
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        for key in list(self.selector.get_map().values()):
            fileobj = key.fileobj
            fileobj.close() if hasattr(fileobj, "close") else os.close(fileobj)
        for other in self.jobs_by_pid.values():
            if other.go is not None:
                os.close(other.go)
        os.close(self.wake_write)
        self.selector.close()
        die_with_parent(server_pid)

    def on_wake(self, _) -> None:
        try:
            while os.read(self.wake_read, 512):
                pass
        except BlockingIOError:
            pass
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            job = self.jobs_by_pid.pop(pid, None)
            if job is not None:
                self.report(job, status)

    def report(self, job: Job, status: int) -> None:
        if os.WIFSIGNALED(status):
            answer = f"S {os.WTERMSIG(status)}\n"
        else:
            answer = f"X {os.waitstatus_to_exitcode(status)}\n"
        try:
            job.sock.sendall(answer.encode())
        except OSError:
            pass
        self.forget(job)

    def forget(self, job: Job) -> None:
        job.release()
        try:
            self.selector.unregister(job.sock)
        except (KeyError, ValueError):
            pass
        job.sock.close()

    def signal(self, job: Job, signum: int) -> None:
        # Only a child not yet reaped: its pid cannot have been reused.
        if job.pid in self.jobs_by_pid:
            try:
                os.kill(job.pid, signum)
            except ProcessLookupError:
                pass

    def shutdown(self) -> None:
        for job in list(self.jobs_by_pid.values()):
            self.signal(job, signal.SIGTERM)
        deadline = time.monotonic() + GRACE_S
        while self.jobs_by_pid and time.monotonic() < deadline:
            self.on_wake(None)
            time.sleep(0.05)
        for job in list(self.jobs_by_pid.values()):
            self.signal(job, signal.SIGKILL)
        while self.jobs_by_pid:
            pid, status = os.waitpid(-1, 0)
            job = self.jobs_by_pid.pop(pid, None)
            if job is not None:
                self.report(job, status)


def run_script(script: str, cwd: str, env: dict) -> int:
    """Run ``script`` as ``python script`` would, in this (forked) process, and
    return the exit status the interpreter would have given."""
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    tempfile.tempdir = None  # chosen again from this job's TMPDIR
    sys.argv = [script]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    main = types.ModuleType("__main__")
    main.__file__ = script
    main.__builtins__ = builtins
    main.__loader__ = importlib.machinery.SourceFileLoader("__main__", script)
    sys.modules["__main__"] = main
    status = 0
    try:
        with io.open_code(script) as handle:
            code = compile(handle.read(), script, "exec")
        exec(code, main.__dict__)
    except SystemExit as exc:
        status = exit_status(exc.code)
    except KeyboardInterrupt:
        sys.excepthook(*sys.exc_info())
        flush()
        # As the interpreter does: end by the signal, so the parent sees it.
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    except BaseException:  # reported as the interpreter reports it
        sys.excepthook(*sys.exc_info())
        status = 1
    # What the interpreter does on its way out: wait for non-daemon threads, run
    # atexit hooks, then free __main__ (closing what the job left open), flush.
    shutdown_threads = getattr(threading, "_shutdown", None)
    if shutdown_threads is not None:
        shutdown_threads()
    atexit._run_exitfuncs()
    main.__dict__.clear()
    gc.collect()
    flush()
    return status


def exit_status(code) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass


def main(argv: list[str]) -> None:
    # Not die_with_parent: the parent is a thread of Snakemake's job pool, and the
    # kernel's parent-death signal follows threads. The control socket's end of
    # file follows the process.
    control = socket.socket(fileno=int(argv[0]))
    if "--no-preload" not in argv:
        preload()
    gc.collect()
    # The imported libraries are never freed: keep the collector from walking
    # (and copy-on-write touching) them in every job.
    gc.freeze()
    control.sendall(b"R")
    Server(control).serve()
    # Not the interpreter's own finalisation: with the libraries frozen above,
    # DuckDB's bindings print pages of "leaked instances" at it.
    atexit._run_exitfuncs()
    flush()
    os._exit(0)


if __name__ == "__main__":
    main(sys.argv[1:])
