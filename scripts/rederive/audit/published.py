"""Rule script: audit every published table of one analysis (``audit_published``).

Each ``published/*.csv`` is audited with the analysis's ``audit`` settings (``n``:
the paper's benchmark size, ``sizes``: the sizes it states per subset). A table
the audit cannot read is not skipped silently: its message becomes a ``note``
finding. Writes ``published_audit.csv`` (every finding) and ``.md`` (the inferred
column meanings and the findings, per table).
"""

from pathlib import Path

from rederive.audit.columns import Options
from rederive.audit.findings import Finding, counts, to_csv, to_markdown
from rederive.audit.report import audit_file
from rederive.errors import InputError


def options_from(settings: dict, table: str = "") -> Options:
    """:class:`Options` of an analysis's ``audit`` settings for one table (its file stem).

    ``tables.<stem>`` replaces ``n`` / ``sizes`` for that table and may ``ignore``
    columns (a table whose denominators are not the benchmark's, e.g. rates over a
    model's own subset of items).
    """
    own = (settings.get("tables") or {}).get(table, {})
    n = own.get("n", settings.get("n"))
    sizes = own.get("sizes", settings.get("sizes") or {})
    return Options(
        n=n,
        n_source="the paper's stated size" if n else "",
        sizes=dict(sizes),
        ignore=tuple(own.get("ignore", ())),
    )


def audit_tables(paths, settings: dict, root) -> tuple[list[Finding], list[str]]:
    """Findings over every table in ``paths`` and the Markdown report lines.

    Tables are named relative to ``root`` (the published folder), never by where
    the folder sits on the machine that ran the audit.
    """
    findings: list[Finding] = []
    lines: list[str] = []
    for path in sorted(paths, key=str):
        name = (
            Path(path).relative_to(root).as_posix()
            if Path(path).is_relative_to(root)
            else Path(path).name
        )
        lines += [f"## {name}", ""]
        try:
            result = audit_file(path, options_from(settings, Path(path).stem))
        except InputError as err:
            message = str(err).replace(str(path), name)
            found = [Finding(name, None, "", "", "not audited", "", message, "note")]
            lines += [f"not audited: {message}", ""]
        else:
            found = [
                Finding(
                    name,
                    *(
                        getattr(f, k)
                        for k in (
                            "line",
                            "row",
                            "column",
                            "check",
                            "printed",
                            "possible",
                            "severity",
                        )
                    ),
                )
                for f in result.findings
            ]
            inference = [ln.replace(str(path), name) for ln in result.inference]
            lines += ["```text", *inference, result.grim, "```", ""]
            lines += to_markdown(found) or ["no findings"]
            lines.append("")
        findings += found
    return findings, lines


def main(snakemake):
    root = Path(snakemake.params.published_dir)
    findings, body = audit_tables(snakemake.input.published, dict(snakemake.params.audit), root)
    c = counts(findings)
    head = [
        f"# Audit of the published tables: {snakemake.params.label}",
        "",
        "From the tables alone (rederive.audit, docs/audit.md); N from the analysis's `audit` settings.",
        f"{len(snakemake.input.published)} tables: {c['error']} inconsistent cells, {c['warning']} warnings, {c['note']} notes.",
        "",
    ]
    Path(snakemake.output.csv).write_text(to_csv(findings), encoding="utf-8")
    Path(snakemake.output.md).write_text("\n".join(head + body) + "\n", encoding="utf-8")


if __name__ == "__main__" and "snakemake" in globals():
    from rederive.runner import run

    run(main, snakemake)  # noqa: F821
