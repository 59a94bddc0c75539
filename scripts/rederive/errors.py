"""User-facing input errors.

Every problem a user can fix in their own files is raised as :class:`InputError`,
which names the file, the 1-based line (when the format has lines) and the field.
The Snakemake entry points turn it into a one-paragraph message instead of a
traceback (see :func:`rederive.runner.run`).
"""

from __future__ import annotations

import functools
import os
from pathlib import Path


class InputError(Exception):
    """A problem in an input file that the user must fix.

    Parameters
    ----------
    message : str
        What is wrong and, where possible, how to fix it.
    file : str or Path, optional
        The offending file.
    line : int, optional
        1-based line number (or row number for CSV, counting the header as line 1).
    field : str, optional
        The field / column / key at fault.
    """

    def __init__(self, message, *, file=None, line=None, field=None):
        self.message = message
        self.file = str(file) if file is not None else None
        self.line = line
        self.field = field
        super().__init__(str(self))

    def __str__(self):
        where = []
        if self.file is not None:
            where.append(self.file if self.line is None else f"{self.file}:{self.line}")
        if self.field is not None:
            where.append(f"field '{self.field}'")
        prefix = ", ".join(where)
        return f"{prefix}: {self.message}" if prefix else self.message


def relpath(path) -> str:
    """Path relative to the working directory when possible (shorter messages)."""
    return _relpath(os.fspath(path), os.getcwd())


# Resolving walks every component of both paths: readers name the same file
# several times per run, thousands of runs per job.
@functools.lru_cache(maxsize=1024)
def _relpath(path: str, cwd: str) -> str:
    p = Path(path)
    try:
        return str(p.resolve().relative_to(Path(cwd).resolve()))
    except ValueError:
        return str(p)


def under_root(path, root) -> str:
    """``path`` as outputs print it: relative to the analysis's raw_dir.

    Tables and notes name an analysis by its label, never by where its files
    sit on the machine that built it; outside ``root`` only the file name is
    printed (messages, which must name a file the user can open, use
    :func:`relpath`).
    """
    if root is not None:
        try:
            return Path(path).resolve().relative_to(_resolved(os.fspath(root))).as_posix()
        except ValueError:
            pass
    return Path(path).name


# An ingest job names thousands of files under one root.
@functools.lru_cache(maxsize=64)
def _resolved(root: str) -> Path:
    return Path(root).resolve()
