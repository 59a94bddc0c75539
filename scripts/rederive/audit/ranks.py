"""Ranks a table's N cannot tell apart: adjacent ranks that could be tied, and tie groups.

Within each column (and each group of rows sharing their other labels, e.g. one
benchmark dimension), rows are sorted by their printed value; two neighbours could
be tied when their difference is not significant even at the most favourable
plausible item correlation (the top of ``--corr``,
:mod:`rederive.audit.separability`). A tie group is a maximal run of such
neighbours. Total rows (``overall``, ``all``…) are not ranked.
"""

from __future__ import annotations

from rederive.audit.columns import TOTAL_LABELS, Layout, Options
from rederive.audit.findings import Finding
from rederive.audit.separability import separation
from rederive.audit.sizes import cell_n


def groups(layout: Layout) -> dict[str, list[int]]:
    """Rows by their labels other than the first (one group when there is one label column)."""
    labels = layout.of("label")
    out: dict[str, list[int]] = {}
    for i, row in enumerate(layout.table.rows):
        names = [row[c.index] for c in labels]
        if any(TOTAL_LABELS.match(n.strip()) for n in names[:1]):
            continue
        key = " / ".join(names[1:])
        out.setdefault(key, []).append(i)
    return out


def tie_groups(values, n: int, options: Options) -> list[list[int]]:
    """Positions (into ``values``, sorted high to low) grouped into runs of possible ties."""
    order = sorted(range(len(values)), key=lambda i: -values[i])
    runs = [[order[0]]] if order else []
    for a, b in zip(order, order[1:], strict=False):
        sep = separation(values[a], values[b], n, options.corr, options.alpha, options.power)
        if sep.verdict(options.corr) == "never":
            runs[-1].append(b)
        else:
            runs.append([b])
    return runs


def rank_findings(layout: Layout, options: Options) -> list[Finding]:
    out = []
    for col in layout.of("score"):
        for group, rows in groups(layout).items():
            cells = [(i, layout.cells[i][col.index]) for i in rows]
            # An impossible cell (outside 0–100%) is GRIM's finding, not a rank.
            cells = [(i, c) for i, c in cells if c.numeric and 0 <= c.value.value <= col.scale]
            ns = {cell_n(layout, options, i, col)[0] for i, _ in cells}
            if len(cells) < 2 or len(ns) != 1 or None in ns:
                continue
            n = ns.pop()
            values = [float(c.value.value) / col.scale for _, c in cells]
            runs = tie_groups(values, n, options)
            tied = [r for r in runs if len(r) > 1]
            if not tied:
                continue
            pairs = len(cells) - 1
            could = sum(len(r) - 1 for r in tied)
            first = layout.of("label")[:1]

            def name(i, first=first):
                return layout.table.rows[i][first[0].index] if first else layout.label(i)

            names = "; ".join(" = ".join(name(cells[k][0]) for k in r) for r in tied)
            out.append(
                Finding(
                    table=layout.table.path,
                    line=None,
                    row=group or "(all rows)",
                    column=col.name,
                    check="ranks",
                    printed=f"{len(cells)} rows ranked",
                    possible=f"{could} of {pairs} adjacent ranks could be tied at N = {n} "
                    f"(ρ ≤ {options.corr[1]}); tie groups: {names}",
                    severity="note",
                )
            )
    return out
