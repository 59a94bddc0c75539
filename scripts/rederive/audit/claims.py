""" "Better than" claims against what N can show.

A claim is a bold (or ``**x**``) cell — the best of its column and row group beats
the best cell not in bold —, a starred cell against ``--baseline``, or a claim
given as ``--claims "A>B"`` (``"A>B@column"`` for one column). Each is tested with
:mod:`rederive.audit.separability` over the plausible correlations: "cannot be
significant at any plausible correlation", "needs correlation ≥ ρ*", or nothing
when it is significant across the range. A claim the printed numbers contradict
(A printed below B) is an error.
"""

from __future__ import annotations

import math

from rederive.audit.columns import Layout, Options
from rederive.audit.findings import Finding
from rederive.audit.ranks import groups
from rederive.audit.separability import separation
from rederive.audit.sizes import cell_n
from rederive.errors import InputError


def parse_claim(text: str) -> tuple[str, str, str | None]:
    """``"A>B"`` or ``"A>B@column"`` → (A, B, column or None)."""
    body, _, column = text.partition("@")
    if ">" not in body:
        raise InputError(f"--claims {text!r}: write a claim as 'A>B' or 'A>B@column'")
    a, b = (s.strip() for s in body.split(">", 1))
    if not a or not b:
        raise InputError(f"--claims {text!r}: both sides need a row name")
    return a, b, column.strip() or None


def _test(layout, options, col, i_a, i_b, kind, where_row) -> list[Finding]:
    ca, cb = layout.cells[i_a][col.index], layout.cells[i_b][col.index]
    na, _ = cell_n(layout, options, i_a, col)
    nb, _ = cell_n(layout, options, i_b, col)
    if not (ca.numeric and cb.numeric):
        return []
    printed = f"{layout.label(i_a)} {ca.value.text} vs {layout.label(i_b)} {cb.value.text}"
    base = dict(
        table=layout.table.path, line=layout.table.lines[i_a], row=where_row, column=col.name
    )
    if ca.value.value <= cb.value.value:
        return [
            Finding(
                **base,
                check=f"claim: {kind}",
                printed=printed,
                possible="the table prints the claimed winner at or below the other",
                severity="error",
            )
        ]
    if na is None or nb is None:
        return []
    n = min(na, nb)
    pa, pb = float(ca.value.value) / col.scale, float(cb.value.value) / col.scale
    if not (0 <= pa <= 1 and 0 <= pb <= 1):
        return []  # an impossible cell is GRIM's finding
    sep = separation(pa, pb, n, options.corr, options.alpha, options.power)
    verdict = sep.verdict(options.corr)
    if verdict == "significant":
        return []
    lo, hi = options.corr
    mde = f"MDE (power {options.power:.0%}) {sep.mde_pp[0]:.1f}–{sep.mde_pp[1]:.1f} pp at ρ {lo}–{hi}, N = {n}"
    if verdict == "never":
        text = f"cannot be significant at any plausible correlation ({lo}–{hi}); {mde}"
    else:
        text = f"needs correlation ≥ {math.ceil(sep.needed * 100) / 100:.2f}; {mde}"
    return [
        Finding(**base, check=f"claim: {kind}", printed=printed, possible=text, severity="warning")
    ]


def _find_row(layout: Layout, name: str) -> int:
    hits = [i for i in range(len(layout.table.rows)) if layout.label(i) == name]
    if not hits:
        hits = [
            i
            for i in range(len(layout.table.rows))
            if any(layout.table.rows[i][c.index] == name for c in layout.of("label"))
        ]
    if len(hits) != 1:
        raise InputError(
            f"--claims row {name!r} {'matches no row' if not hits else 'matches several rows'} of the table",
            file=layout.table.path,
        )
    return hits[0]


def claim_findings(layout: Layout, options: Options) -> list[Finding]:
    out: list[Finding] = []
    scores = layout.of("score")
    for col in scores:
        for group, rows in groups(layout).items():
            cells = [
                (i, layout.cells[i][col.index]) for i in rows if layout.cells[i][col.index].numeric
            ]
            bold = [(i, c) for i, c in cells if c.bold]
            plain = [(i, c) for i, c in cells if not c.bold]
            if bold and plain:
                values = [c.value.value for _, c in cells]
                lower_better = all(c.value.value == min(values) for _, c in bold) and not all(
                    c.value.value == max(values) for _, c in bold
                )
                for i, _ in bold:
                    rival = (min if lower_better else max)(plain, key=lambda x: x[1].value.value)[0]
                    a, b = (rival, i) if lower_better else (i, rival)
                    out += _test(layout, options, col, a, b, "bold", group or layout.label(i))
            starred = [(i, c) for i, c in cells if c.stars]
            if starred and options.baseline:
                base = _find_row(layout, options.baseline)
                for i, _ in starred:
                    if i != base:
                        out += _test(layout, options, col, i, base, "stars", layout.label(i))
            elif starred:
                out.append(
                    Finding(
                        table=layout.table.path,
                        line=layout.table.lines[starred[0][0]],
                        row=group or "(all rows)",
                        column=col.name,
                        check="claim: stars",
                        printed=f"{len(starred)} starred cells",
                        possible="stars are tested against a baseline row: give --baseline ROW",
                        severity="note",
                    )
                )
    for text in options.claims:
        a, b, column = parse_claim(text)
        i_a, i_b = _find_row(layout, a), _find_row(layout, b)
        targets = [c for c in scores if column is None or c.name == column]
        if column is not None and not targets:
            raise InputError(
                f"--claims {text!r}: no score column {column!r}", file=layout.table.path
            )
        for col in targets:
            out += _test(layout, options, col, i_a, i_b, f"{a} > {b}", layout.label(i_a))
    return out
