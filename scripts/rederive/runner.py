"""Entry-point wrapper for Snakemake ``script:`` jobs.

Each script module ends with::

    if __name__ == "__main__" and "snakemake" in globals():
        run(main, snakemake)

``run`` sends Python logging to the rule's ``log:`` file, pins BLAS/torch to one
thread (parallelism comes from Snakemake running jobs side by side), and turns an
:class:`~rederive.errors.InputError`, a full disk or a damaged input into a short
message in the log instead of a traceback, exiting non-zero so Snakemake stops
the DAG; the workflow prints the messages of the failed jobs once, as the last
lines of the run (``failure_message`` in rules/common.smk). When the job
succeeds, its outputs are stamped (:mod:`rederive.io.intact`), so a file damaged
later is found before another job reads it.
"""

from __future__ import annotations

import errno
import logging
import os
import re
import shutil
import sys
from pathlib import Path

from rederive.errors import InputError
from rederive.io import intact

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")


def run(main, snakemake) -> None:
    log_path = snakemake.log[0] if len(snakemake.log) else None
    # The terminal gets warnings only; the rule's log file gets our INFO lines too.
    terminal = logging.StreamHandler(sys.stderr)
    terminal.setLevel(logging.WARNING)
    handlers = [terminal]
    if log_path:
        handlers.append(logging.FileHandler(log_path, mode="w"))
    # Our own modules log at INFO; third-party libraries only above WARNING (matplotlib's
    # font subsetter alone writes hundreds of INFO lines per PDF).
    logging.basicConfig(
        level=logging.WARNING,
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
        handlers=handlers,
        force=True,
    )
    for name in ("rederive", "__main__"):  # __main__: the script module Snakemake runs
        logging.getLogger(name).setLevel(logging.INFO)
    outputs = list(snakemake.output)
    # The outputs are about to be written anew: a stamp of the old ones must not
    # outlive a failed job.
    _stamps(intact.forget, outputs)
    try:
        main(snakemake)
    except InputError as exc:
        message = with_analysis(str(exc), snakemake)
        _fail(f"\nrederive: input error in rule {snakemake.rule}:\n  {message}\n", log_path)
    except Exception as exc:
        path = disk_full_path(exc, outputs)
        if path is not None:
            _fail(disk_full_message(snakemake.rule, path), log_path)
        damage = intact.damaged_input(list(getattr(snakemake, "input", [])), exc)
        if damage is None:
            raise
        _fail(damaged_input_message(snakemake.rule, damage), log_path)
    _stamps(intact.record, outputs, snakemake.rule)


def _stamps(action, *args) -> None:
    """Forget or record output stamps; a stamp that cannot be written leaves the
    output unchecked (a warning), never fails a job whose outputs are written."""
    try:
        action(*args)
    except OSError as exc:
        logging.getLogger("rederive").warning(
            "output stamps not updated (%s): damage to these outputs will not be "
            "found before a job reads them",
            exc,
        )


#: How a message names a setting of the job's analysis: readers and statistics do
#: not know the analysis, so :func:`with_analysis` puts its name in.
SETTING_PREFIX = "analyses.<name>."


def with_analysis(message: str, snakemake) -> str:
    """``message`` with ``analyses.<name>.`` naming the job's analysis
    (``analyses.my_eval.item_sets``), as the user writes it in a config file."""
    name = getattr(getattr(snakemake, "wildcards", None), "analysis", None)
    return message.replace(SETTING_PREFIX, f"analyses.{name}.") if name else message


def damaged_input_message(rule: str, damage: intact.Damage) -> str:
    """The `rederive:` paragraph for a job that failed on a damaged intermediate."""
    return (
        f"\nrederive: damaged file in rule {rule}:\n  {damage.file} is damaged "
        f"({damage.reason}); {intact.advice(damage)}.\n"
    )


def _fail(message: str, log_path: str | None) -> None:
    """End the job with ``message``: in its log, which the workflow prints once
    at the end of the run; on stderr only when the log cannot take it (no log, a
    full disk), so that it is never lost nor printed twice."""
    logged = False
    if log_path:
        try:
            with open(log_path, "a") as handle:
                handle.write(message)
            logged = True
        except OSError:
            pass  # the log may sit on the full disk; the terminal still gets it
    if not logged:
        sys.stderr.write(message)
    sys.exit(1)


# What a full disk (or an exhausted quota) looks like from Python's file calls,
# from pyarrow (OSError, errno in the text) and from DuckDB (IOException, and a
# TransactionException after a failed write): matched on errno and on text.
_FULL_ERRNOS = {errno.ENOSPC, errno.EDQUOT}
_FULL_TEXT = ("No space left on device", "Disk quota exceeded")
_QUOTED_PATH = re.compile(r'file "([^"]+)"')


def disk_full_path(exc: BaseException, outputs: list[str]) -> str | None:
    """The path a disk-full error was writing, or None when ``exc`` is not one.

    Parameters
    ----------
    exc : BaseException
        The job's exception; its ``__cause__``/``__context__`` chain is searched.
    outputs : list of str
        The job's outputs (named when the error names no file).

    Returns
    -------
    str or None
        The file named by the error (``OSError.filename``, DuckDB's
        ``file "…"``), else the job's first output, else ``"."``.
    """
    seen = set()
    found = False
    named = None
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        text = str(exc)
        if (isinstance(exc, OSError) and exc.errno in _FULL_ERRNOS) or any(
            t in text for t in _FULL_TEXT
        ):
            found = True
            if named is None and isinstance(exc, OSError) and exc.filename:
                named = str(exc.filename)
            match = _QUOTED_PATH.search(text)
            if named is None and match:
                named = match.group(1)
        exc = exc.__cause__ or exc.__context__
    if not found:
        return None
    return named or (outputs[0] if outputs else ".")


def disk_full_message(rule: str, path: str) -> str:
    """The `rederive:` paragraph for a full disk: which disk, how full, what to free."""
    folder = Path(path).resolve().parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    try:
        usage = shutil.disk_usage(folder)
        state = f"{usage.free / 2**20:,.0f} MB free of {usage.total / 2**20:,.0f} MB"
    except OSError:
        state = "free space unknown"
    return (
        f"\nrederive: disk full in rule {rule}:\n  no space left on the disk holding "
        f"{path} ({state}). Free space on that disk — results/<name>/ of analyses you no "
        "longer build, results/benchmarks/ and results/logs/ are safe to delete (rebuilt "
        "or rewritten by the next run) — or run from a folder on a larger disk; then run "
        "the same command again: the outputs this job left incomplete are rebuilt.\n"
    )
