"""What each kind of published-check row tests, its statuses, and their counts.

One vocabulary for the per-analysis check report (:mod:`rederive.check`), the
summary over every analysis (:mod:`rederive.summary`) and the results site
(:mod:`rederive.site`), so none of them adds a self-check or a power row to the
reproduced cells:

``cell``      a published number against ours, recomputed from the raw data
``claim``     a qualitative conclusion of the paper, tested on ours
``identity``  a relation the published numbers must satisfy among themselves
``internal``  a relation among this workflow's own outputs (a self-test)
``power``     whether the paper's sample could detect the difference it reports

A power row is ``detectable`` or ``underpowered``, never ``pass``/``FAIL``: it
says what a sample can show, not whether a number was reproduced. Every kind
may be ``n/a`` (a value missing on one side).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

__all__ = [
    "NA",
    "Category",
    "CATEGORIES",
    "category",
    "holds",
    "tally",
]

NA = "n/a"


@dataclass(frozen=True)
class Category:
    """One kind of check row: its name, what it tests, and its two statuses."""

    kind: str
    plural: str
    tests: str
    good: str = "pass"
    bad: str = "FAIL"


CATEGORIES = (
    Category("cell", "cells", "a published number against ours, recomputed from the raw data"),
    Category("claim", "claims", "a qualitative conclusion of the paper, tested on ours"),
    Category(
        "identity",
        "identities",
        "a relation the published numbers must satisfy among themselves "
        "(a FAIL is a finding about the paper)",
    ),
    Category(
        "internal",
        "internal checks",
        "a relation among this workflow's own outputs (a self-test, not a comparison "
        "with the paper)",
    ),
    Category(
        "power",
        "power rows",
        "whether the paper's sample could detect the difference it reports (not a reproduction)",
        good="detectable",
        bad="underpowered",
    ),
)
_BY_KIND = {c.kind: c for c in CATEGORIES}


def category(kind: str) -> Category:
    """The :class:`Category` of ``kind``; an unknown kind keeps its name and pass/FAIL."""
    return _BY_KIND.get(kind) or Category(kind, f"{kind} rows", f"rows of kind {kind!r}")


def holds(kind: str, status: str) -> bool:
    """Whether a row of ``kind`` with ``status`` needs no reader's attention."""
    return status == category(kind).good


def tally(rows: Iterable[tuple[str, str]]) -> dict[str, dict[str, int]]:
    """Counts per kind, then per status: ``{kind: {good: n, bad: n, "n/a": n}}``.

    Kinds in :data:`CATEGORIES` order (others after, in first-seen order), only
    the kinds present; each kind's good, bad and ``n/a`` statuses are always
    there (0 when none), any other status after them.
    """
    counts: dict[str, dict[str, int]] = {}
    for kind, status in rows:
        known = category(kind)
        own = counts.setdefault(kind, {known.good: 0, known.bad: 0, NA: 0})
        own[status] = own.get(status, 0) + 1
    order = [c.kind for c in CATEGORIES if c.kind in counts]
    order += [k for k in counts if k not in order]
    return {k: counts[k] for k in order}
