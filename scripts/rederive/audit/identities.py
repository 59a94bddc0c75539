"""Relations the cells of one table must satisfy among themselves.

- **partition**: shares of one partition (``--partition a,b,c``) sum to 100% (or 1)
  within their rounding (each part may be off by half a unit, or a whole unit when
  truncated);
- **count**: a rate beside a count column and an N prints as ``k/N``;
- **weighted total**: a total row (``overall``, ``all``…) equals the size-weighted
  mean of the other rows of its group, sizes from ``--sizes`` or the N column;
  and the total's own N equals the sum of its parts'.

These generalise the identity checks of the SaliTrap tables
(``rederive.studies.salitrap.check``) to any table.
"""

from __future__ import annotations

from fractions import Fraction

from rederive.audit.columns import TOTAL_LABELS, Layout, Options
from rederive.audit.findings import Finding
from rederive.audit.grim import MODES, fmt, round_as
from rederive.audit.sizes import cell_n
from rederive.errors import InputError


def _where(layout: Layout, i: int, column: str) -> dict:
    return dict(
        table=layout.table.path, line=layout.table.lines[i], row=layout.label(i), column=column
    )


def partition_findings(layout: Layout, options: Options) -> list[Finding]:
    out = []
    header = layout.table.header
    for parts in options.partitions:
        missing = [p for p in parts if p not in header]
        if missing:
            raise InputError(
                f"--partition: no column {', '.join(map(repr, missing))}", file=layout.table.path
            )
        cols = [layout.columns[header.index(p)] for p in parts]
        scale = cols[0].scale or (100 if any(c.scale == 100 for c in cols) else 1)
        for i, row in enumerate(layout.cells):
            cells = [row[c.index] for c in cols]
            if not all(c.numeric for c in cells):
                continue
            total = sum(c.value.value for c in cells)
            slack = sum(c.value.half_step for c in cells)
            if scale - 2 * slack <= total <= scale + slack:
                continue
            d = max(c.value.decimals for c in cells)
            out.append(
                Finding(
                    **_where(layout, i, " + ".join(parts)),
                    check="identity: partition",
                    printed=" + ".join(c.value.text for c in cells) + f" = {fmt(total, d)}",
                    possible=f"shares of one partition sum to {scale} "
                    f"(± {fmt(2 * slack, d)} from rounding)",
                    severity="error",
                )
            )
    return out


def count_findings(layout: Layout, options: Options) -> list[Finding]:
    out = []
    counts = layout.of("count")
    if len(counts) != 1:
        return out
    kcol = counts[0]
    for col in layout.of("score"):
        for i, row in enumerate(layout.cells):
            k, v = row[kcol.index], row[col.index]
            n, _ = cell_n(layout, options, i, col)
            if not (k.numeric and v.numeric) or n is None:
                continue
            kk = int(k.value.value)
            if kk > n:
                out.append(
                    Finding(
                        **_where(layout, i, kcol.name),
                        check="identity: count",
                        printed=f"{kk} of N = {n}",
                        possible=f"a count is at most N = {n}",
                        severity="error",
                    )
                )
                continue
            exact = Fraction(kk * col.scale, n)
            if any(round_as(exact, v.value.decimals, m) == v.value.value for m in MODES):
                continue
            out.append(
                Finding(
                    **_where(layout, i, col.name),
                    check="identity: count",
                    printed=f"{v.value.text} with {kcol.name} = {kk}, N = {n}",
                    possible=f"{kk}/{n} prints as {fmt(exact, v.value.decimals)}",
                    severity="error",
                )
            )
    return out


def _total_column(layout: Layout):
    for c in layout.of("label"):
        if any(TOTAL_LABELS.match(r[c.index].strip()) for r in layout.table.rows):
            return c
    return None


def _row_size(layout, options, i, col):
    n, source = cell_n(layout, options, i, col)
    return n if source.startswith("size of") or source.startswith("column") else None


def total_findings(layout: Layout, options: Options) -> list[Finding]:
    part_col = _total_column(layout)
    if part_col is None:
        return []
    others = [c for c in layout.of("label") if c.index != part_col.index]
    groups: dict[tuple, list[int]] = {}
    for i, r in enumerate(layout.table.rows):
        groups.setdefault(tuple(r[c.index] for c in others), []).append(i)
    out = []
    for rows in groups.values():
        totals = [
            i for i in rows if TOTAL_LABELS.match(layout.table.rows[i][part_col.index].strip())
        ]
        parts = [i for i in rows if i not in totals]
        if len(totals) != 1 or len(parts) < 2:
            continue
        t = totals[0]
        for col in layout.of("score"):
            sizes = [_row_size(layout, options, i, col) for i in parts]
            cells = [layout.cells[i][col.index] for i in parts]
            total = layout.cells[t][col.index]
            if None in sizes or not total.numeric or not all(c.numeric for c in cells):
                continue
            weight = sum(sizes)
            lo = (
                sum(
                    n * (c.value.value - c.value.half_step)
                    for n, c in zip(sizes, cells, strict=True)
                )
                / weight
            )
            hi = (
                sum(
                    n * (c.value.value + 2 * c.value.half_step)
                    for n, c in zip(sizes, cells, strict=True)
                )
                / weight
            )
            v = total.value
            if v.value + 2 * v.half_step >= lo and v.value - v.half_step <= hi:
                continue
            d = v.decimals
            out.append(
                Finding(
                    **_where(layout, t, col.name),
                    check="identity: weighted total",
                    printed=v.text,
                    possible=f"size-weighted mean of its {len(parts)} parts (sizes "
                    + ", ".join(map(str, sizes))
                    + f"): {fmt(lo, d)}–{fmt(hi, d)}",
                    severity="error",
                )
            )
        for ncol in layout.of("n"):
            ns = [layout.cells[i][ncol.index] for i in parts]
            tn = layout.cells[t][ncol.index]
            if tn.numeric and all(c.numeric for c in ns):
                s = sum(int(c.value.value) for c in ns)
                if s != int(tn.value.value):
                    out.append(
                        Finding(
                            **_where(layout, t, ncol.name),
                            check="identity: total N",
                            printed=tn.value.text,
                            possible=f"sum of its parts: {s}",
                            severity="error",
                        )
                    )
    return out


def identity_findings(layout: Layout, options: Options) -> list[Finding]:
    return (
        partition_findings(layout, options)
        + count_findings(layout, options)
        + total_findings(layout, options)
    )
