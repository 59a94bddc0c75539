"""Per-cell checks: GRIM on every score, and the error bar printed with it.

Each score cell with a known N is tested by :func:`rederive.audit.grim.grim`
(outside 0–100% is impossible outright; a win rate over 2N, a draw being half a
win); its ``±``, its bracketed CI, and the SE / CI-bound columns that belong to
it by :mod:`rederive.audit.errorbars`. A ``mean`` cell (a weighted win rate: a
mean of per-item values in [0, 1], not k/N) is only bounded: it must lie in
0–100%, and its SE cannot exceed the largest a mean of N such values can have,
√(p(1−p)/(N−1)) (:func:`rederive.audit.errorbars.mean_se_findings`).
"""

from __future__ import annotations

from collections import Counter

from rederive.audit.cells import Number
from rederive.audit.columns import Layout, Options
from rederive.audit.errorbars import ci_findings, mean_se_findings, pm_findings
from rederive.audit.findings import Finding
from rederive.audit.grim import MODES, fmt, grim
from rederive.audit.sizes import cell_n


def _outside(where, value: Number, scale: int) -> list[Finding]:
    unit = "%" if scale == 100 else ""
    return [
        Finding(
            **where,
            check="GRIM",
            printed=value.text + unit,
            possible=f"a proportion lies in 0–{scale}{unit}",
            severity="error",
        )
    ]


def _grim_one(
    where, value: Number, n: int, scale: int, tally: Counter, halves: bool = False
) -> list[Finding]:
    unit = "%" if scale == 100 else ""
    if not 0 <= value.value <= scale:
        return _outside(where, value, scale)
    # A win rate counts a draw as half a win: k/N in halves is k'/2N.
    result = grim(value, 2 * n if halves else n, scale)
    if result.consistent:
        if result.informative:
            tally["testable"] += 1
            tally["consistent"] += 1
            tally.update(f"mode:{m}" for m in result.modes)
        return []
    tally["testable"] += 1
    near = [
        f"{fmt(v, value.decimals)} ({k / 2 if halves else k:g}/{n})"
        for k, v in (result.below, result.above)
        if v is not None
    ]
    what = f"k/{n} (k in halves: a draw counts half)" if halves else f"k/{n}"
    return [
        Finding(
            **where,
            check="GRIM",
            printed=value.text + unit,
            possible=f"no {what} prints as {value.text}; nearest: " + " or ".join(near),
            severity="error",
        )
    ]


def cell_findings(layout: Layout, options: Options) -> tuple[list[Finding], Counter]:
    """Findings and a tally (``testable`` cells, rounding ``mode:…`` that fit) of GRIM."""
    out: list[Finding] = []
    tally: Counter = Counter()
    by_target: dict[int, dict[str, int]] = {}
    for c in layout.columns:
        if c.target is not None:
            by_target.setdefault(c.target, {})[c.role] = c.index
    for col in layout.of("mean"):
        extra = by_target.get(col.index, {})
        for i, row in enumerate(layout.cells):
            cell = row[col.index]
            if not cell.numeric:
                continue
            where = dict(
                table=layout.table.path,
                line=layout.table.lines[i],
                row=layout.label(i),
                column=col.name,
            )
            if not 0 <= cell.value.value <= col.scale:
                out += _outside(where, cell.value, col.scale)
                continue
            n, _ = cell_n(layout, options, i, col)
            se = row[extra["se"]] if "se" in extra else None
            if n is not None and se is not None and se.numeric:
                out += mean_se_findings(where, cell.value, se.value, n, col.scale)
    for col in layout.of("score"):
        extra = by_target.get(col.index, {})
        for i, row in enumerate(layout.cells):
            cell = row[col.index]
            n, _ = cell_n(layout, options, i, col)
            if n is None or not (cell.numeric or cell.ci):
                continue
            where = dict(
                table=layout.table.path,
                line=layout.table.lines[i],
                row=layout.label(i),
                column=col.name,
            )
            if cell.numeric:
                out += _grim_one(where, cell.value, n, col.scale, tally, col.halves)
                if not 0 <= cell.value.value <= col.scale:
                    continue
            if cell.pm is not None and cell.numeric and col.pm:
                out += pm_findings(
                    where,
                    cell.value,
                    cell.pm,
                    n,
                    col.scale,
                    col.pm,
                    col.ci_level,
                    options.clusters,
                    col.halves,
                )
            if cell.ci is not None:
                out += ci_findings(
                    where,
                    cell.value,
                    *cell.ci,
                    n,
                    col.scale,
                    col.ci_level,
                    options.clusters,
                    col.halves,
                )
            if "se" in extra and row[extra["se"]].numeric and cell.numeric:
                out += pm_findings(
                    where,
                    cell.value,
                    row[extra["se"]].value,
                    n,
                    col.scale,
                    "se",
                    0.95,
                    options.clusters,
                    col.halves,
                )
            lo = row[extra["ci_low"]] if "ci_low" in extra else None
            hi = row[extra["ci_high"]] if "ci_high" in extra else None
            if lo is not None and hi is not None and lo.numeric and hi.numeric:
                level = layout.columns[extra["ci_low"]].ci_level
                out += ci_findings(
                    where,
                    cell.value if cell.numeric else None,
                    lo.value,
                    hi.value,
                    n,
                    col.scale,
                    level,
                    options.clusters,
                    col.halves,
                )
            if "ci" in extra and row[extra["ci"]].ci is not None:
                level = layout.columns[extra["ci"]].ci_level
                out += ci_findings(
                    where,
                    cell.value if cell.numeric else None,
                    *row[extra["ci"]].ci,
                    n,
                    col.scale,
                    level,
                    options.clusters,
                    col.halves,
                )
    return out, tally


def modes_text(tally: Counter) -> str:
    """How many cells GRIM could test, and which rounding conventions fit every consistent one."""
    tested = tally["testable"]
    if not tested:
        return "GRIM: no cell testable at its precision and N"
    fit = [m for m in MODES if tally["consistent"] and tally[f"mode:{m}"] == tally["consistent"]]
    text = f"GRIM: {tested} cells testable, {tested - tally['consistent']} inconsistent"
    return text + (f"; rounding that fits every consistent cell: {', '.join(fit)}" if fit else "")
