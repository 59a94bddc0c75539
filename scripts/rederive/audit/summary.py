"""Rule script: every analysis's published-table audit in one reviewer summary.

``results/summary/published_audit.csv`` stacks the per-analysis findings with an
``analysis`` column; ``.md`` counts them per analysis and table and lists every
inconsistent cell and warning (notes stay in the per-analysis reports).
"""

import csv
import io
from pathlib import Path

from rederive.audit.findings import COLUMNS, SEVERITIES
from rederive.report.markdown import row


def combine(paths) -> list[dict]:
    """Rows of every ``results/<analysis>/audit/published_audit.csv``, analysis first."""
    out = []
    for path in paths:
        analysis = Path(path).parts[-3]
        with open(path, encoding="utf-8", newline="") as handle:
            out += [{"analysis": analysis, **r} for r in csv.DictReader(handle)]
    return out


def summary_markdown(rows: list[dict], analyses: list[str]) -> str:
    lines = [
        "# Audit of the published tables, all analyses",
        "",
        "Checks from the tables alone (docs/audit.md): GRIM, error bars, claims, ranks, identities.",
        "",
        row("analysis", "table", *SEVERITIES),
        row(*["---"] * (2 + len(SEVERITIES))),
    ]
    for analysis in analyses:
        mine = [r for r in rows if r["analysis"] == analysis]
        tables = sorted({r["table"] for r in mine})
        if not tables:
            lines.append(row(analysis, "(no findings)", *["0"] * len(SEVERITIES)))
        for t in tables:
            lines.append(
                row(
                    analysis,
                    t,
                    *(
                        str(sum(r["table"] == t and r["severity"] == s for r in mine))
                        for s in SEVERITIES
                    ),
                )
            )
    serious = [r for r in rows if r["severity"] != "note"]
    lines += ["", "## Inconsistent cells and warnings", ""]
    if serious:
        lines += [row("analysis", *COLUMNS), row(*["---"] * (1 + len(COLUMNS)))]
        lines += [row(r["analysis"], *(r[c] for c in COLUMNS)) for r in serious]
    else:
        lines.append("none")
    return "\n".join(lines) + "\n"


def main(snakemake):
    paths = list(snakemake.input.audits)
    rows = combine(paths)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=["analysis", *COLUMNS], lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    Path(snakemake.output.csv).write_text(out.getvalue(), encoding="utf-8")
    analyses = [Path(p).parts[-3] for p in paths]
    Path(snakemake.output.md).write_text(summary_markdown(rows, analyses), encoding="utf-8")


if __name__ == "__main__" and "snakemake" in globals():
    from rederive.runner import run

    run(main, snakemake)  # noqa: F821
