"""One published-number check summary across all built analyses."""

from pathlib import Path

import pandas as pd

from rederive.check import NO_PUBLISHED, check_table, summary_markdown
from rederive.io.names import read_csv
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


def summary_html(frame: pd.DataFrame) -> str:
    """The same summary as a self-contained HTML page for the Snakemake report."""
    # unstack() names the new column level "status"; written out, that name
    # became an empty first column headed "status" (issue 25), so drop it.
    counts = (
        frame.groupby(["study", "table", "kind"], sort=False)["status"]
        .value_counts()
        .unstack(fill_value=0)
        .rename_axis(columns=None)
        .reset_index()
        if len(frame)
        else pd.DataFrame({"study": [], "checks": []})
    )
    failures = frame[frame["status"] != "pass"]
    style = "body{font-family:sans-serif;font-size:13px} table{border-collapse:collapse} td,th{border:1px solid #ccc;padding:2px 6px}"
    return (
        f"<html><head><meta charset='utf-8'><style>{style}</style></head><body>"
        "<h1>Published-number check, all studies</h1>"
        "<p>Cell checks compare recomputed values with the papers' printed values; identity checks test "
        "relations the published tables must satisfy among themselves (a failing identity is a finding "
        "about the paper). Where a study's data is simulated, cell checks measure the simulator.</p>"
        f"<h2>Counts</h2>{counts.to_html(index=False)}"
        f"<h2>Not passing ({len(failures)})</h2>{failures.to_html(index=False, na_rep='--')}"
        "</body></html>\n"
    )


def main(snakemake):
    frame = combine(snakemake.input.checks)
    frame.to_csv(snakemake.output.csv, index=False, lineterminator="\n", float_format="%.6g")
    per_study = []
    for path in snakemake.input.checks:
        # results/<study>/check/published_check.csv; a study without published
        # numbers has a header-only file and still gets its row.
        study = Path(path).parts[-3]
        group = frame[frame["study"] == study] if len(frame) else frame
        if group.empty:
            per_study.append(row(study, 0, 0, 0, 0, NO_PUBLISHED))
            continue
        counts = group["status"].value_counts()
        per_study.append(
            row(
                study,
                len(group),
                counts.get("pass", 0),
                counts.get("FAIL", 0),
                counts.get("n/a", 0),
            )
            + " |"  # the empty note cell
        )
    preamble = "\n".join(
        [
            "Every number each study's paper states that the data determines, recomputed and compared "
            "(`cell`), and the identities the published tables must satisfy (`identity`). Per-study "
            "details: `results/<study>/check/published_check.md`.",
            "",
            "| study | checks | pass | FAIL | n/a | note |",
            "|---|---:|---:|---:|---:|---|",
            *per_study,
        ]
    )
    Path(snakemake.output.html).write_text(summary_html(frame))
    Path(snakemake.output.md).write_text(
        summary_markdown(
            frame, title="rederive: published-number check, all studies", preamble=preamble
        )
    )


if __name__ == "__main__" and "snakemake" in globals():
    from rederive.runner import run

    run(main, snakemake)  # noqa: F821
