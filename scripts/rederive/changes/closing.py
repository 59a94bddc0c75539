"""The closing lines of a run: per analysis, what its build changed.

Read from each analysis's ``changes/changes.json``: a report written during
this run (modified at or after its start) describes this run's build; an
analysis whose report was not rewritten had nothing to do.
"""

from __future__ import annotations

import json
from pathlib import Path

__all__ = ["closing_lines"]


def closing_lines(names, started: float, results: str | Path = "results") -> list[str]:
    """One ``rederive:`` line per analysis whose build changed something, then
    one naming the analyses that did not (``no changes``)."""
    changed, unchanged = [], []
    for name in names:
        report = Path(results) / name / "changes" / "changes.json"
        try:
            fresh = report.stat().st_mtime >= started
            summary = json.loads(report.read_text(encoding="utf-8")) if fresh else None
        except (OSError, ValueError):
            summary = None
        if summary and summary.get("changed"):
            changed.append(f"rederive: {summary['line']} — {report.with_name('changes.md')}")
        else:
            unchanged.append(name)
    if unchanged:
        changed.append("rederive: no changes" + (f": {', '.join(unchanged)}" if changed else ""))
    return changed
