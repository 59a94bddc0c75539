"""Audit one table: read, infer, run every check, and say what was done."""

from __future__ import annotations

from dataclasses import dataclass

from rederive.audit.cellchecks import cell_findings, modes_text
from rederive.audit.claims import claim_findings
from rederive.audit.columns import Layout, Options, describe, infer
from rederive.audit.findings import Finding, counts, to_markdown
from rederive.audit.identities import identity_findings
from rederive.audit.ranks import rank_findings
from rederive.audit.sizes import column_n_text
from rederive.audit.tables import read_table


@dataclass
class Audit:
    layout: Layout
    findings: list[Finding]
    inference: list[str]
    grim: str

    @property
    def inconsistent(self) -> bool:
        return any(f.severity == "error" for f in self.findings)

    def text(self) -> str:
        """What the CLI prints: the inference, the findings table, the tally."""
        c = counts(self.findings)
        lines = [*self.inference, "", self.grim]
        table = to_markdown(self.findings)
        lines += ["", *table] if table else ["", "no findings"]
        lines += ["", f"{c['error']} inconsistent, {c['warning']} warnings, {c['note']} notes"]
        return "\n".join(lines)


def audit_layout(layout: Layout, options: Options) -> Audit:
    findings, tally = cell_findings(layout, options)
    findings += claim_findings(layout, options)
    findings += rank_findings(layout, options)
    findings += identity_findings(layout, options)
    inference = describe(layout, options, lambda c: column_n_text(layout, options, c))
    return Audit(layout, findings, inference, modes_text(tally))


def audit_file(path, options: Options) -> Audit:
    """Audit the table in ``path`` (CSV, Markdown or LaTeX) under ``options``."""
    return audit_layout(infer(read_table(path), options), options)
