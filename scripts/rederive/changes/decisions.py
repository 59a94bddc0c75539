"""Decisions that flipped between two builds of one analysis.

A cell that moves in the third decimal is a change; a comparison that stops
being significant, a model that leaves the top tie group, a published check
that turns from pass to FAIL, or a new top model is a *decision* that changed,
and a reader of the report must not have to find it among the cells. Decisions
are read from the columns the tables print, never recomputed:

* significance: ``significant``, ``bh_significant``, ``reject`` and
  ``separable_from_above/below`` (each is q < ``fdr_q`` as the table decided
  it), with the q-value beside it when the table prints one. ``power.csv``
  repeats its comparison table's decisions and is not read again;
* rank ranges (``rank_best``–``rank_worst``) and tie groups (``tied_with``,
  ``tier``);
* flags of a model: ``small_n``, ``partial``, ``shared``, ``not_estimable``,
  reported once per row key whichever tables repeat them;
* classes a table assigns (``class``, e.g. sycophantic / not);
* the status of each published check (``check/published_check.csv``);
* the verdict of each gate row (``gate/gate.csv``: better, not worse, worse,
  inconclusive; overall and per task), with the interval and margin beside it;
* the headline's top model (the kind's headline table, as the site reads it).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace

from rederive.changes.tables import key_text
from rederive.io.csv_text import Table

__all__ = ["Decision", "flipped_decisions"]

SIGNIFICANCE = {
    "significant": "q_value",
    "bh_significant": "q_value",
    "reject": "q_value",
    "separable_from_above": "q_vs_above",
    "separable_from_below": "q_vs_below",
}
FLAGS = ("small_n", "partial", "shared", "not_estimable")
TIE_GROUPS = ("tied_with", "tier")
CLASSES = ("class",)
#: Tables that copy another table's decisions (read once, from the original).
MIRRORS = ("tables/power.csv",)
CHECK_TABLE = "check/published_check.csv"
GATE_TABLE = "gate/gate.csv"
#: Columns of a gate row shown beside its verdict when they moved.
GATE_DETAIL = ("diff_pp", "ci_low_pp", "ci_high_pp", "margin_pp", "n_items")


@dataclass(frozen=True)
class Decision:
    """One decision that flipped: what kind, where, and its two values."""

    decision: str  # significance | rank range | tie group | flag | class | check | gate | headline
    table: str
    key: str  # the row key as JSON text ("" for the headline)
    column: str
    old: str
    new: str
    detail: str = ""


def _significance(name: str, diff) -> list[Decision]:
    out = []
    changed = {(key_text(c.key), c.column): c for c in diff.cells}
    for column, q_column in SIGNIFICANCE.items():
        for (key, col), change in sorted(changed.items()):
            if col != column:
                continue
            q = changed.get((key, q_column))
            detail = f"{q_column} {q.old} → {q.new}" if q else ""
            out.append(Decision("significance", name, key, column, change.old, change.new, detail))
    return out


def _rank_ranges(name: str, diff, old: Table, new: Table) -> list[Decision]:
    """A model's rank range, best–worst, where either end moved."""
    moved = sorted({key_text(c.key) for c in diff.cells if c.column in ("rank_best", "rank_worst")})
    if not moved:
        return []

    def ranges(table: Table) -> dict[str, str]:
        out = {}
        for record in table.records():
            key = key_text({k: record.get(k, "") for k in diff.key})
            out[key] = f"{record.get('rank_best', '')}–{record.get('rank_worst', '')}"
        return out

    before, after = ranges(old), ranges(new)
    return [
        Decision("rank range", name, key, "rank_best, rank_worst", before[key], after[key])
        for key in moved
        if key in before and key in after
    ]


def _columns(decision: str, columns, name: str, diff) -> list[Decision]:
    return [
        Decision(decision, name, key_text(c.key), c.column, c.old, c.new)
        for c in diff.cells
        if c.column in columns
    ]


def _headline(spec, old: Table | None, new: Table | None) -> list[Decision]:
    from rederive.site.headline import read_headline

    before, after = read_headline(old, spec), read_headline(new, spec)
    if before.top == after.top:
        return []
    return [
        Decision(
            "headline",
            f"tables/{spec.table}.csv",
            "",
            "top model",
            before.top or "(none)",
            after.top or "(none)",
            after.score,
        )
    ]


def flipped_decisions(
    headline, diffs: dict, old: dict[str, Table], new: dict[str, Table]
) -> list[Decision]:
    """Every decision that differs between two builds' tables.

    Parameters
    ----------
    headline : rederive.site.layout.HeadlineSpec or None
        The analysis's headline table, as its kind registered it (None: no
        headline decision).
    diffs : dict of str to TableDiff
        :func:`rederive.changes.tables.compare_tables` of every table in both
        builds, by path under ``results/<name>/`` (``tables/ranking.csv``,
        ``check/published_check.csv``, …).
    old, new : dict of str to Table
        The builds' tables by the same paths (the headline is read from them).

    Returns
    -------
    list of Decision
        In table order, then decision order; one decision repeated in several
        tables once, naming the others.
    """
    out: list[Decision] = []
    for name in sorted(diffs):
        diff = diffs[name]
        if name in MIRRORS or not diff.cells:
            continue
        if name == CHECK_TABLE:
            out += [
                Decision(
                    "check",
                    name,
                    key_text(c.key),
                    "status",
                    c.old,
                    c.new,
                    _check_detail(diff, c.key),
                )
                for c in diff.cells
                if c.column == "status"
            ]
            continue
        if name == GATE_TABLE:
            out += [
                Decision(
                    "gate",
                    name,
                    key_text(c.key),
                    "verdict",
                    c.old,
                    c.new,
                    _detail(diff, c.key, GATE_DETAIL),
                )
                for c in diff.cells
                if c.column == "verdict"
            ]
            continue
        out += _significance(name, diff)
        if diff.key:
            out += _rank_ranges(name, diff, old[name], new[name])
        out += _columns("tie group", TIE_GROUPS, name, diff)
        out += _columns("class", CLASSES, name, diff)
        out += _columns("flag", FLAGS, name, diff)
    table = f"tables/{headline.table}.csv" if headline is not None else None
    if table in old or table in new:
        out += _headline(headline, old.get(table), new.get(table))
    return _merge_repeats(out)


def _merge_repeats(decisions: list[Decision]) -> list[Decision]:
    """One decision printed in several tables (a model's class on each of its
    rows, one test in the effects and the arms table) is one decision: the
    first table keeps it and names the others."""
    first: dict[tuple, int] = {}
    also: dict[int, list[str]] = {}
    for i, d in enumerate(decisions):
        model = json.loads(d.key).get("model", d.key) if d.key else ""
        ident = (d.decision, d.column, model, d.old, d.new, d.detail)
        if ident in first:
            tables = also.setdefault(first[ident], [])
            if d.table not in tables and d.table != decisions[first[ident]].table:
                tables.append(d.table)
        else:
            first[ident] = i
    out = []
    for i in sorted(first.values()):
        d = decisions[i]
        if also.get(i):
            note = "also in " + ", ".join(also[i])
            d = replace(d, detail=f"{d.detail}; {note}" if d.detail else note)
        out.append(d)
    return out


def _check_detail(diff, key: dict) -> str:
    """The check's published value and ours, old → new, for its status flip."""
    return _detail(diff, key, ("published", "ours"))


def _detail(diff, key: dict, columns) -> str:
    """The row's cells in ``columns`` that changed too, old → new, in table order."""
    parts = []
    for change in diff.cells:
        if change.key == key and change.column in columns:
            parts.append(f"{change.column} {change.old} → {change.new}")
    return "; ".join(parts)
