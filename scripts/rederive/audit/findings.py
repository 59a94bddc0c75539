"""Findings of an audit and how they are written (CSV and Markdown).

Severity: ``error`` = the printed cell is inconsistent (no count, no N, no rounding
gives it: the exit status is 1); ``warning`` = a claim the table makes that its own
N cannot support, or a degenerate error bar; ``note`` = information a reviewer
should see (ranks that could be tied, checks that could not run).
"""

from __future__ import annotations

import csv
import io
from dataclasses import asdict, dataclass

from rederive.report.markdown import row

SEVERITIES = ("error", "warning", "note")
COLUMNS = ("table", "line", "row", "column", "check", "printed", "possible", "severity")


@dataclass(frozen=True)
class Finding:
    """One finding: where (table, line, row, column), which check, what is printed,
    what would be consistent, how serious."""

    table: str
    line: int | None
    row: str
    column: str
    check: str
    printed: str
    possible: str
    severity: str

    def __post_init__(self):
        if self.severity not in SEVERITIES:
            raise ValueError(f"unknown severity {self.severity!r}")


def sort_key(finding: Finding):
    return (
        finding.table,
        SEVERITIES.index(finding.severity),
        finding.line if finding.line is not None else 10**9,
        finding.column,
        finding.check,
        finding.row,
    )


def to_csv(findings) -> str:
    """Findings as CSV text (header always present, rows in :func:`sort_key` order)."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for f in sorted(findings, key=sort_key):
        record = asdict(f)
        record["line"] = "" if f.line is None else f.line
        writer.writerow(record)
    return out.getvalue()


def to_markdown(findings, *, with_table: bool = False) -> list[str]:
    """Findings as Markdown table lines (empty list when there are none)."""
    findings = sorted(findings, key=sort_key)
    if not findings:
        return []
    head = (("table",) if with_table else ()) + (
        "line",
        "row",
        "column",
        "check",
        "printed",
        "possible",
        "severity",
    )
    lines = [row(*head), row(*["---"] * len(head))]
    for f in findings:
        values = ((f.table,) if with_table else ()) + (
            "" if f.line is None else str(f.line),
            f.row,
            f.column,
            f.check,
            f.printed,
            f.possible,
            f.severity,
        )
        lines.append(row(*values))
    return lines


def counts(findings) -> dict[str, int]:
    """Number of findings per severity."""
    out = dict.fromkeys(SEVERITIES, 0)
    for f in findings:
        out[f.severity] += 1
    return out
