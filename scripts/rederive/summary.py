"""One published-number check summary across all built analyses."""

from pathlib import Path

import pandas as pd

from rederive.check import NO_PUBLISHED, check_table, summary_markdown
from rederive.io.names import read_csv
from rederive.report.check_counts import CATEGORIES, NA, category, holds, tally
from rederive.report.markdown import cell, row

# Text columns of a published_check.csv besides the names: "n/a" is a status,
# not a missing value (read as NaN it counted as 0 and printed "nan").
CHECK_TEXT = ("study", "table", "kind", "item", "quantity", "relation", "status", "note")


def combine(paths) -> pd.DataFrame:
    """Every analysis's check rows; ``study`` names the analysis (its folder,
    ``results/<name>/check/published_check.csv``), not its kind, so two analyses
    of one kind stay apart."""
    frames = [read_csv(p, text=CHECK_TEXT).assign(study=Path(p).parts[-3]) for p in paths]
    # A study without published numbers has a header-only file: nothing to add.
    filled = [f for f in frames if len(f)]
    if filled:
        return pd.concat(filled, ignore_index=True)
    return frames[0] if frames else pd.DataFrame()


def side_by_side(frame: pd.DataFrame) -> str:
    """Every check, paper beside ours, one section per study (the reviewer's view)."""
    lines = ["", "## Every check, paper beside ours", ""]
    for study, group in frame.groupby("study", sort=False):
        lines += [
            f"### {cell(study)}",
            "",
        ]
        lines += check_table(
            group, ("table", "kind", "item", "quantity", "published", "ours", "status")
        )
        lines.append("")
    return "\n".join(lines)


#: Status columns of the summary's counts, whatever kinds the analyses have.
STATUSES = tuple(dict.fromkeys([s for c in CATEGORIES for s in (c.good, c.bad)] + [NA]))


def study_rows(paths, frame: pd.DataFrame, notes: dict | None = None) -> list[list]:
    """Per analysis and kind: checks and counts per status (:data:`STATUSES`), and a note.

    An analysis without published numbers (a header-only CSV) still gets its row,
    with the note :data:`rederive.check.NO_PUBLISHED`; ``notes`` (analysis ->
    text) is added to an analysis's rows (an analysis an earlier run built).
    """
    notes = notes or {}
    rows = []
    for path in paths:
        # results/<study>/check/published_check.csv
        study = Path(path).parts[-3]
        extra = notes.get(study, "")
        group = frame[frame["study"] == study] if len(frame) else frame
        if group.empty:
            note = "; ".join(x for x in (NO_PUBLISHED, extra) if x)
            rows.append([study, "", 0, *([""] * len(STATUSES)), note])
            continue
        for kind, statuses in tally(zip(group["kind"], group["status"], strict=True)).items():
            shown = [statuses[s] if s in statuses else "" for s in STATUSES]
            rows.append([study, kind, sum(statuses.values()), *shown, extra])
    return rows


def summary_html(frame: pd.DataFrame, rows: list[list] | None = None) -> str:
    """The same summary as a self-contained HTML page for the Snakemake report.

    ``rows`` are :func:`study_rows` (computed from ``frame`` when not given);
    the rows that need a reader's attention follow, one table per kind.
    """
    from html import escape

    if rows is None:
        paths = [f"results/{s}/check/published_check.csv" for s in frame["study"].unique()]
        rows = study_rows(paths, frame) if len(frame) else []
    counts = pd.DataFrame(rows, columns=["study", "kind", "checks", *STATUSES, "note"])
    style = "body{font-family:sans-serif;font-size:13px} table{border-collapse:collapse} td,th{border:1px solid #ccc;padding:2px 6px}"
    kinds = "".join(
        f"<li><code>{escape(c.kind)}</code>: {escape(c.tests)} ({escape(c.good)} / {escape(c.bad)})</li>"
        for c in CATEGORIES
    )
    sections = []
    if len(frame):
        attention = frame[
            [not holds(k, s) for k, s in zip(frame["kind"], frame["status"], strict=True)]
        ]
        for kind in tally(zip(attention["kind"], attention["status"], strict=True)):
            group = attention[attention["kind"] == kind]
            sections.append(
                f"<h2>{escape(category(kind).plural.capitalize())}: "
                f"{escape(' or '.join(group['status'].unique()))} ({len(group)})</h2>"
                + group.to_html(index=False, na_rep="--")
            )
    return (
        f"<html><head><meta charset='utf-8'><style>{style}</style></head><body>"
        "<h1>Published-number check, all studies</h1>"
        "<p>Each kind of check row is counted apart; only <code>cell</code> (and "
        "<code>claim</code>) rows compare recomputed values with the papers' printed values. "
        "Where a study's data is simulated, cell checks measure the simulator.</p>"
        f"<ul>{kinds}</ul>"
        f"<h2>Counts</h2>{counts.to_html(index=False, na_rep='')}"
        + ("".join(sections) if sections else "<p>Every check passes.</p>" if len(frame) else "")
        + "</body></html>\n"
    )


def main(snakemake):
    frame = combine(snakemake.input.checks)
    frame.to_csv(snakemake.output.csv, index=False, lineterminator="\n", float_format="%.6g")
    rows = study_rows(snakemake.input.checks, frame, dict(snakemake.params.earlier))
    preamble = "\n".join(
        [
            "Every number each study's paper states that the data determines, recomputed and "
            "compared, counted per kind of check row: `cell` (a published number against ours), "
            "`claim`, `identity` (relations the published tables must satisfy among themselves), "
            "`internal` (our own outputs against each other) and `power` (could the paper's sample "
            "detect what it reports: detectable or underpowered, never a failed reproduction). "
            "Per-study details: `results/<study>/check/published_check.md`.",
            "",
            row("study", "kind", "checks", *STATUSES, "note"),
            "|---|---|" + "---:|" * (len(STATUSES) + 1) + "---|",
            *(row(*r) for r in rows),
        ]
    )
    Path(snakemake.output.html).write_text(summary_html(frame, rows))
    Path(snakemake.output.md).write_text(
        summary_markdown(
            frame,
            title="rederive: published-number check, all studies",
            preamble=preamble,
            keys=["study", "table"],
        )
    )


if __name__ == "__main__" and "snakemake" in globals():
    from rederive.runner import run

    run(main, snakemake)  # noqa: F821
