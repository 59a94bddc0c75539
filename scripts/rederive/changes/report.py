"""The change report between two builds of one analysis.

Given two *snapshots* — anything with a ``manifest`` (or None), ``files`` (path
under ``results/<name>/`` -> SHA-256) and ``read(path) -> bytes``: a history
entry, a results folder, a replication package — :func:`compare_snapshots`
says what went in differently (runs, other inputs, settings, code), which
tables were added, removed or changed, every changed cell by its row key, and
the decisions that flipped. The report is written three ways: a tidy CSV (one
row per change), Markdown for people, and a JSON summary for programs (the
closing line of a run and the site read it).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field

from rederive.changes.decisions import Decision, flipped_decisions
from rederive.changes.manifest import InputChanges, compare_manifests
from rederive.changes.tables import TableDiff, compare_tables, key_text
from rederive.io.csv_text import parse_table
from rederive.report.markdown import cell
from rederive.report.markdown import row as md_row

__all__ = ["CSV_COLUMNS", "ChangeReport", "compare_snapshots"]

CSV_COLUMNS = ["section", "subject", "table", "key", "column", "change", "old", "new", "detail"]
SCHEMA_VERSION = 1
#: Changed cells listed per table in changes.csv; beyond it the table's row
#: says how many there are and how to list them all.
MAX_CELLS = 10_000
#: Changed cells shown per table in changes.md.
MD_CELLS = 40
NAMES_IN_LINE = 3


@dataclass
class ChangeReport:
    analysis: str
    kind: str
    previous: str | None  # how the older build is named ("build 3"), None: first build
    current: str
    inputs: InputChanges | None  # None when a manifest is missing
    diffs: dict[str, TableDiff] = field(default_factory=dict)  # changed CSVs in both
    added: list[str] = field(default_factory=list)  # files only in the newer build
    removed: list[str] = field(default_factory=list)
    other_changed: list[str] = field(default_factory=list)  # non-CSV files that differ
    decisions: list[Decision] = field(default_factory=list)
    commits: tuple[str, str] = ("", "")
    n_runs: int = 0

    # ------------------------------------------------------------ summaries
    @property
    def first_build(self) -> bool:
        return self.previous is None

    @property
    def changed(self) -> bool:
        return self.first_build or bool(
            (self.inputs and self.inputs.any)
            or self.diffs
            or self.added
            or self.removed
            or self.other_changed
        )

    def _tables(self, paths) -> list[str]:
        return [p for p in paths if p.startswith("tables/") and p.endswith(".csv")]

    @property
    def tables_changed(self) -> list[str]:
        return self._tables(self.diffs)

    @property
    def checks(self) -> list[Decision]:
        return [d for d in self.decisions if d.decision == "check"]

    @property
    def other_decisions(self) -> list[Decision]:
        return [d for d in self.decisions if d.decision != "check"]

    def _names(self, names: list[str]) -> str:
        shown = ", ".join(names[:NAMES_IN_LINE])
        return shown + (f", … ({len(names)} in all)" if len(names) > NAMES_IN_LINE else "")

    def input_summary(self) -> str:
        if self.first_build:
            return f"first build ({self.n_runs} run{'s' * (self.n_runs != 1)})"
        if self.inputs is None:
            return "inputs not recorded"
        parts = []
        for verb, runs in (
            ("changed", list(self.inputs.runs_changed)),
            ("added", self.inputs.runs_added),
            ("removed", self.inputs.runs_removed),
        ):
            if runs:
                parts.append(
                    f"{len(runs)} run{'s' * (len(runs) != 1)} {verb} ({self._names(runs)})"
                )
        others = self.inputs.inputs_changed + self.inputs.inputs_added + self.inputs.inputs_removed
        if others:
            parts.append(
                f"{len(others)} other input{'s' * (len(others) != 1)} changed ({self._names(others)})"
            )
        if self.inputs.settings:
            parts.append(
                f"settings changed ({self._names([k for k, _, _ in self.inputs.settings])})"
            )
        if self.inputs.code:
            parts.append(
                " and ".join(
                    f"{'code' if p == 'library' else 'lock file'} changed"
                    for p, _, _ in self.inputs.code
                )
            )
        return "; ".join(parts) or "no input, setting or code changed"

    def output_summary(self) -> str:
        if self.first_build:
            return f"{len(self._tables(self.added))} tables"
        parts = []
        tables = self.tables_changed
        added, removed = self._tables(self.added), self._tables(self.removed)
        if tables or added or removed:
            text = f"{len(tables)} table{'s' * (len(tables) != 1)} changed"
            if added:
                text += f", {len(added)} added"
            if removed:
                text += f", {len(removed)} removed"
            parts.append(text)
        else:
            parts.append("no table changed")
        for (old, new), n in sorted(Counter((d.old, d.new) for d in self.checks).items()):
            parts.append(f"{n} check{'s' * (n != 1)} {old}→{new}")
        n = len(self.other_decisions)
        if n:
            parts.append(f"{n} decision{'s' * (n != 1)} flipped")
        top = [d for d in self.decisions if d.decision == "headline"]
        if top:
            parts.append(f"top model {top[0].old} → {top[0].new}")
        for d in self.decisions:
            key = json.loads(d.key) if d.decision == "gate" else {}
            if key.get("scope") == "overall":
                parts.append(f"gate {key.get('candidate', '')} {d.old} → {d.new}")
        return ", ".join(parts)

    def line(self) -> str:
        """One line for the end of a run: what went in differently, what came out."""
        if not self.changed:
            return f"{self.analysis}: no changes"
        return f"{self.analysis}: {self.input_summary()}: {self.output_summary()}"

    # ------------------------------------------------------------ CSV rows
    def rows(self, max_cells: int = MAX_CELLS) -> list[dict[str, str]]:
        out: list[dict[str, str]] = []

        def add(
            section, subject="", table="", key="", column="", change="", old="", new="", detail=""
        ):
            out.append(
                dict(
                    zip(
                        CSV_COLUMNS,
                        (section, subject, table, key, column, change, old, new, detail),
                        strict=True,
                    )
                )
            )

        if self.inputs is not None:
            for run, files in self.inputs.runs_changed.items():
                add("run", run, change="changed", detail="; ".join(files))
            for run in self.inputs.runs_added:
                add("run", run, change="added")
            for run in self.inputs.runs_removed:
                add("run", run, change="removed")
            for verb, paths in (
                ("changed", self.inputs.inputs_changed),
                ("added", self.inputs.inputs_added),
                ("removed", self.inputs.inputs_removed),
            ):
                for path in paths:
                    add("input", path, change=verb)
            for key, old, new in self.inputs.settings:
                add("setting", key, change="changed", old=old, new=new)
            for part, old, new in self.inputs.code:
                add("code", part, change="changed", old=old, new=new)
        for d in self.decisions:
            add("decision", d.decision, d.table, d.key, d.column, "flipped", d.old, d.new, d.detail)
        for path in self.added:
            add("file", path, path, change="added")
        for path in self.removed:
            add("file", path, path, change="removed")
        for path in self.other_changed:
            add("file", path, path, change="changed")
        for path, diff in sorted(self.diffs.items()):
            listed = diff.cells[:max_cells]
            detail = (
                f"{diff.rows_changed} rows changed, {len(diff.rows_added)} added, "
                f"{len(diff.rows_removed)} removed; key: {', '.join(diff.key) or 'row position'}"
            )
            if len(listed) < len(diff.cells):
                detail += (
                    f"; cells listed: {len(listed):,} of {len(diff.cells):,} "
                    "(python -m rederive.diff lists all)"
                )
            add(
                "table",
                path,
                path,
                change="changed",
                old=str(diff.n_rows_old),
                new=str(diff.n_rows_new),
                detail=detail,
            )
            for column in diff.columns_added:
                add("column", path, path, column=column, change="added")
            for column in diff.columns_removed:
                add("column", path, path, column=column, change="removed")
            for key in diff.rows_added:
                add("row", path, path, key_text(key), change="added")
            for key in diff.rows_removed:
                add("row", path, path, key_text(key), change="removed")
            for c in listed:
                add("cell", path, path, key_text(c.key), c.column, "changed", c.old, c.new)
        return out

    # ------------------------------------------------------------ JSON summary
    def summary(self) -> dict:
        inputs = self.inputs or InputChanges()
        return {
            "schema_version": SCHEMA_VERSION,
            "analysis": self.analysis,
            "kind": self.kind,
            "previous": self.previous,
            "current": self.current,
            "changed": self.changed,
            "first_build": self.first_build,
            "inputs_recorded": self.inputs is not None or self.first_build,
            "runs": {
                "added": inputs.runs_added,
                "removed": inputs.runs_removed,
                "changed": list(inputs.runs_changed),
            },
            "inputs": {
                "added": inputs.inputs_added,
                "removed": inputs.inputs_removed,
                "changed": inputs.inputs_changed,
            },
            "settings": [k for k, _, _ in inputs.settings],
            "code": [p for p, _, _ in inputs.code],
            "tables": {
                "changed": self.tables_changed,
                "added": self._tables(self.added),
                "removed": self._tables(self.removed),
            },
            "files": {
                "added": self.added,
                "removed": self.removed,
                "changed": sorted(self.diffs) + self.other_changed,
            },
            "checks": [{"key": json.loads(d.key), "old": d.old, "new": d.new} for d in self.checks],
            "decisions": len(self.other_decisions),
            "headline": next(
                ({"old": d.old, "new": d.new} for d in self.decisions if d.decision == "headline"),
                None,
            ),
            "line": self.line(),
        }

    # ------------------------------------------------------------ Markdown
    def markdown(self, label: str, *, max_cells: int = MD_CELLS) -> str:
        lines = [f"# What changed: {cell(label)}", ""]
        if self.first_build:
            tables = self._tables(self.added)
            lines += [
                f"The first recorded build of this analysis ({self.current}): {self.n_runs} "
                f"run{'s' * (self.n_runs != 1)}, {len(tables)} tables, {len(self.added)} files "
                "kept in history/. The next build that changes anything is compared with it.",
                "",
            ]
            return "\n".join(lines)
        lines += [f"{cell(self.current)} compared with {cell(self.previous)}."]
        old_commit, new_commit = self.commits
        if old_commit != new_commit:
            lines[-1] += f" Code commit {old_commit[:12] or '?'} → {new_commit[:12] or '?'}."
        elif new_commit:
            lines[-1] += f" Both at code commit {new_commit[:12]}."
        lines += ["", f"**{cell(self.line())}**", ""]
        if not self.changed:
            return "\n".join(lines)
        lines += self._md_inputs()
        lines += self._md_decisions()
        lines += self._md_tables(max_cells)
        return "\n".join(lines)

    def _md_inputs(self) -> list[str]:
        if self.inputs is None:
            return ["The inputs of one of the builds were not recorded.", ""]
        i = self.inputs
        rows = [("run", r, "changed", "; ".join(f)) for r, f in i.runs_changed.items()]
        rows += [("run", r, "added", "") for r in i.runs_added]
        rows += [("run", r, "removed", "") for r in i.runs_removed]
        rows += [("input", p, "changed", "") for p in i.inputs_changed]
        rows += [("input", p, "added", "") for p in i.inputs_added]
        rows += [("input", p, "removed", "") for p in i.inputs_removed]
        out = ["## Inputs", ""]
        if rows:
            out += ["| what | name | change | files |", "|---|---|---|---|"]
            out += [md_row(*r) for r in rows]
        else:
            out.append("No run or input file changed (compared by content).")
        out.append("")
        if i.settings:
            out += ["## Settings", "", "| setting | old | new |", "|---|---|---|"]
            out += [md_row(k, o, n) for k, o, n in i.settings]
            out.append("")
        if i.code:
            out += ["## Code", "", "| part | old | new |", "|---|---|---|"]
            out += [md_row(p, o, n) for p, o, n in i.code]
            out.append("")
        return out

    def _md_decisions(self) -> list[str]:
        n_checks = len(self.checks)
        out = [
            f"## Decisions that flipped ({len(self.other_decisions)} decisions, "
            f"{n_checks} published check{'s' * (n_checks != 1)})",
            "",
        ]
        if not self.decisions:
            return [
                *out,
                "None: every significance call, rank range, tie group, flag, "
                "published check and the top model are as before.",
                "",
            ]
        out += [
            "| decision | table | row | column | old | new | detail |",
            "|---|---|---|---|---|---|---|",
        ]
        out += [
            md_row(d.decision, d.table, _key_cell(d.key), d.column, d.old, d.new, d.detail)
            for d in self.decisions
        ]
        return [*out, ""]

    def _md_tables(self, max_cells: int) -> list[str]:
        out = ["## Tables", ""]
        files = (
            [(p, "changed", d) for p, d in sorted(self.diffs.items())]
            + [(p, "added", None) for p in self.added]
            + [(p, "removed", None) for p in self.removed]
            + [(p, "changed", None) for p in self.other_changed]
        )
        if not files:
            return [*out, "No table changed.", ""]
        out += [
            "| file | change | rows | rows changed | rows added | rows removed | row key |",
            "|---|---|---:|---:|---:|---:|---|",
        ]
        for path, change, diff in files:
            if diff is None:
                out.append(md_row(path, change, "", "", "", "", ""))
            else:
                out.append(
                    md_row(
                        path,
                        change,
                        f"{diff.n_rows_old} → {diff.n_rows_new}",
                        diff.rows_changed,
                        len(diff.rows_added),
                        len(diff.rows_removed),
                        ", ".join(diff.key) or "row position",
                    )
                )
        out.append("")
        for path, diff in sorted(self.diffs.items()):
            out += [f"### {cell(path)}", ""]
            if diff.columns_added or diff.columns_removed:
                out += [
                    f"Columns added: {cell(', '.join(diff.columns_added) or '—')}; removed: {cell(', '.join(diff.columns_removed) or '—')}.",
                    "",
                ]
            if diff.rows_added or diff.rows_removed:
                keys = [("added", k) for k in diff.rows_added] + [
                    ("removed", k) for k in diff.rows_removed
                ]
                shown = keys[:max_cells]
                out += [
                    f"Rows {', '.join(sorted({c for c, _ in keys}))}: "
                    + "; ".join(f"{c} {_key_cell(key_text(k))}" for c, k in shown)
                    + (
                        f"; … {len(keys) - len(shown)} more in changes.csv"
                        if len(keys) > len(shown)
                        else ""
                    )
                    + ".",
                    "",
                ]
            if diff.cells:
                out += ["| row | column | old | new |", "|---|---|---|---|"]
                out += [
                    md_row(_key_cell(key_text(c.key)), c.column, c.old, c.new)
                    for c in diff.cells[:max_cells]
                ]
                if len(diff.cells) > max_cells:
                    out.append(
                        f"\n… and {len(diff.cells) - max_cells:,} more changed cells in changes.csv."
                    )
                out.append("")
        return out


def _key_cell(key: str) -> str:
    """A row key for a person: ``model=GPT-4o, task=x`` (JSON in the CSV)."""
    if not key:
        return ""
    return ", ".join(f"{k}={v}" for k, v in json.loads(key).items())


def compare_snapshots(
    analysis: str,
    kind: str,
    old,
    new,
    *,
    old_name: str | None,
    new_name: str,
    tolerance: float = 0.0,
) -> ChangeReport:
    """The change report from snapshot ``old`` (None: a first build) to ``new``.

    Parameters
    ----------
    analysis, kind : str
    old, new : snapshot
        Objects with ``manifest`` (dict or None), ``files`` (path -> SHA-256) and
        ``read(path) -> bytes``; ``old`` may be None.
    old_name, new_name : str
        How the report names the two builds ("build 3", a folder).
    tolerance : float
        Two numeric cells within this absolute difference agree (0: the
        printed text must be equal).

    The top model is compared in the headline table the newer build's
    manifest names (its kind's ``headline``), when a manifest says it.
    """
    manifest_new = new.manifest or {}
    report = ChangeReport(
        analysis=analysis,
        kind=kind,
        previous=old_name if old is not None else None,
        current=new_name,
        inputs=None,
        n_runs=len(manifest_new.get("runs", {})),
    )
    if old is None:
        report.added = sorted(new.files)
        return report
    if old.manifest is not None and new.manifest is not None:
        report.inputs = compare_manifests(old.manifest, new.manifest)
        report.commits = (
            str(old.manifest.get("code", {}).get("commit") or ""),
            str(new.manifest.get("code", {}).get("commit") or ""),
        )
    report.added = sorted(set(new.files) - set(old.files))
    report.removed = sorted(set(old.files) - set(new.files))
    old_tables, new_tables = {}, {}
    for path in sorted(set(old.files) & set(new.files)):
        if old.files[path] == new.files[path]:
            continue
        if not path.endswith(".csv"):
            report.other_changed.append(path)
            continue
        old_tables[path] = parse_table(old.read(path))
        new_tables[path] = parse_table(new.read(path))
        diff = compare_tables(path, old_tables[path], new_tables[path], tolerance=tolerance)
        if diff.changed:
            report.diffs[path] = diff
    if tolerance > 0:
        report.other_changed = [p for p in report.other_changed if not _text_twin_agrees(p, report)]
    report.decisions = flipped_decisions(
        headline_from(new.manifest or old.manifest), report.diffs, old_tables, new_tables
    )
    return report


def headline_from(manifest: dict | None):
    """The headline table a manifest records (None when it records none)."""
    from rederive.site.layout import HeadlineSpec

    spec = (manifest or {}).get("headline")
    return HeadlineSpec(**spec) if spec else None


def _text_twin_agrees(path: str, report: ChangeReport) -> bool:
    """With a tolerance, a LaTeX or Markdown rendering of a CSV that agrees
    within it is not reported as changed (its digits differ by the same amount)."""
    for suffix in (".tex", ".md"):
        if path.endswith(suffix):
            return path[: -len(suffix)] + ".csv" not in report.diffs
    return False
