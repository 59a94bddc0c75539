"""The version of the library code a job imports: a hash of its modules.

Snakemake's code trigger hashes only the file a rule's ``script:`` names; a
change in a module that file imports (a statistic, a reader) would leave stale
results. Every job therefore carries, as a parameter, the SHA-256 of the
library code it may import: the shared modules plus its kind's package. The
same hash, recorded in each build's manifest, tells a reviewer whether two
builds ran the same code for that kind, whatever their git commits.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

__all__ = ["NOT_IN_JOBS", "RULE_PACKAGES", "library_version"]

#: Library packages imported by one rule alone: editing them re-runs that rule only.
RULE_PACKAGES = {
    "build_site": ("site",),
    "report_changes": ("changes", "site"),
    "gate_benchmark_candidates": ("gate",),
}
#: Modules no job imports: generators that write raw/ or config/kinds/,
#: command-line tools (a top-level module or package, or a path under the
#: package such as a package's ``__main__.py`` whose other modules jobs do import),
#: and the job server, which starts jobs (byte-identical outputs with or without
#: it, tests/test_jobserver.py) but computes nothing in them.
NOT_IN_JOBS = (
    "simulate",
    "cli",
    "jobserver",
    "config_yaml.py",
    "diff.py",
    "package.py",
    "verify.py",
    "power.py",
    "audit/__main__.py",
    "gate/__main__.py",
)


def library_version(root: str | Path, kind: str | None = None, packages=()) -> str:
    """First 16 hex digits of the SHA-256 of the modules a job may import.

    Parameters
    ----------
    root : path
        ``scripts/rederive`` of the workflow.
    kind : str or None
        The job's kind: its package under ``studies/`` counts, the other kinds'
        do not. None counts every kind's package; ``"-"`` none of them.
    packages : tuple of str
        The :data:`RULE_PACKAGES` the job imports (others are left out).
    """
    root = Path(root)
    own = {p for names in RULE_PACKAGES.values() for p in names}
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        part = path.relative_to(root).parts
        if part[0] in NOT_IN_JOBS or "/".join(part) in NOT_IN_JOBS:
            continue
        if part[0] in own and part[0] not in packages:
            continue  # a page or a change report re-derives no table
        if kind and part[0] == "studies" and len(part) > 2 and part[1] != kind:
            continue
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]
