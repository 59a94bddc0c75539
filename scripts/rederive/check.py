"""Reviewer mode: compare recomputed numbers with a paper's published numbers.

Two kinds of check, both reported with their numbers:

* ``cell``: a recomputed value against the published value, pass when the
  absolute difference is within the tolerance.
* ``identity``: a relation the published tables must satisfy among themselves
  (overall = weighted mean of dimensions, rates that must sum to at most 100%, …).
  A failing identity is a finding about the paper, not about this workflow.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from pathlib import Path

import pandas as pd

from rederive.report.markdown import row as md_row

COLUMNS = [
    "study",
    "table",
    "kind",
    "item",
    "quantity",
    "published",
    "ours",
    "difference",
    "tolerance",
    "relation",
    "status",
    "note",
]


@dataclass
class Check:
    study: str
    table: str
    kind: str  # "cell" | "identity"
    item: str  # which row / model / pair
    quantity: str  # which number
    published: float | None
    ours: float | None
    tolerance: float
    note: str = ""
    # "==": |ours - published| <= tolerance; "<=": ours <= published + tolerance
    # (published then holds the bound, e.g. 100 for shares of one labelling).
    relation: str = "=="

    @property
    def difference(self) -> float | None:
        if self.published is None or self.ours is None:
            return None
        if any(isinstance(v, float) and math.isnan(v) for v in (self.published, self.ours)):
            return None
        return float(self.ours) - float(self.published)

    @property
    def status(self) -> str:
        diff = self.difference
        if diff is None:
            both_missing = _missing(self.published) and _missing(self.ours)
            return "pass" if both_missing else "n/a"
        # A tiny epsilon absorbs binary floating error in "diff == tolerance" cases.
        if self.relation == "<=":
            return "pass" if diff <= self.tolerance + 1e-9 else "FAIL"
        return "pass" if abs(diff) <= self.tolerance + 1e-9 else "FAIL"

    def row(self) -> dict:
        record = asdict(self)
        record["difference"] = self.difference
        record["status"] = self.status
        return record


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def checks_frame(checks: list[Check]) -> pd.DataFrame:
    """Tidy table of checks in a stable column order."""
    return pd.DataFrame([c.row() for c in checks], columns=COLUMNS)


def compare_cells(
    study: str,
    table: str,
    published: pd.DataFrame,
    ours: pd.DataFrame,
    *,
    keys: list[str],
    quantities: list[str],
    tolerance: float,
    note: str = "",
) -> list[Check]:
    """Cell-by-cell comparison of a published table with ours (long or wide).

    Rows of ``published`` missing from ``ours`` become checks with ``ours=None``
    (status ``n/a``), so a missing model is visible rather than skipped.
    """
    merged = published.merge(ours, on=keys, how="left", suffixes=("_pub", "_ours"))
    checks = []
    for _, row in merged.iterrows():
        item = " / ".join(str(row[k]) for k in keys)
        for q in quantities:
            pub = row.get(f"{q}_pub")
            our = row.get(f"{q}_ours")
            checks.append(
                Check(
                    study,
                    table,
                    "cell",
                    item,
                    q,
                    None if _missing(pub) else float(pub),
                    None if _missing(our) else float(our),
                    tolerance,
                    note,
                )
            )
    return checks


def write_checks(
    checks: list[Check],
    csv_path: str | Path,
    md_path: str | Path,
    *,
    title: str,
    preamble: str = "",
    analysis: str | None = None,
) -> pd.DataFrame:
    """Write the checks as CSV and as a markdown summary (counts, then every failure).

    ``analysis`` replaces the kind in the ``study`` column, so two analyses of one
    kind keep their rows apart when their tables are stacked.
    """
    frame = checks_frame(checks)
    if analysis is not None:
        frame["study"] = analysis
    frame.to_csv(csv_path, index=False, float_format="%.6g", lineterminator="\n")
    Path(md_path).write_text(summary_markdown(frame, title=title, preamble=preamble))
    return frame


def write_published_check(
    checks: list[Check],
    csv_path: str | Path,
    md_path: str | Path,
    *,
    title: str,
    preamble: str,
    data_note: str = "",
    separator: str = " ",
    analysis: str | None = None,
) -> pd.DataFrame:
    """Outputs of a ``check_<study>_published`` job (CSV and markdown), via :func:`write_checks`.

    ``data_note`` (e.g. that the raw data are simulated, or where they come from)
    follows ``preamble`` after ``separator`` when it is not empty; the output folder
    is created when missing.
    """
    if data_note:
        preamble = preamble + separator + data_note
    Path(csv_path).parent.mkdir(parents=True, exist_ok=True)
    return write_checks(
        checks, csv_path, md_path, title=title, preamble=preamble, analysis=analysis
    )


#: What a check says when the raw folder has no ``published/`` numbers.
NO_PUBLISHED = "no published numbers to compare"


def published_available(folder: str | Path, required=()) -> bool:
    """Whether ``folder`` holds published numbers to check against.

    A missing or empty folder is a normal case (the user's own runs of a study
    have no paper behind them): the check then reports :data:`NO_PUBLISHED`. A
    folder that exists but lacks one of the ``required`` file names is an input
    error naming the file, since checking against part of a paper would silently
    drop cells.
    """
    from rederive.errors import InputError

    root = Path(folder)
    if not root.is_dir() or not any(p.suffix == ".csv" for p in root.iterdir()):
        return False
    for name in required:
        if not (root / name).is_file():
            raise InputError(
                f"published/ holds some of the paper's numbers but not '{name}' "
                f"(needed: {', '.join(required)}); add it or remove the folder",
                file=root / name,
            )
    return True


def write_no_published_check(
    csv_path: str | Path,
    md_path: str | Path,
    *,
    title: str,
    folder: str | Path,
    analysis: str | None = None,
) -> pd.DataFrame:
    """Check outputs when there is nothing to compare: a header-only CSV and a note.

    The note names ``folder`` by its last part (``published/``, inside the
    analysis's raw_dir): outputs never carry where the inputs sit on this machine.
    """
    return write_published_check(
        [],
        csv_path,
        md_path,
        title=title,
        preamble=(
            f"{NO_PUBLISHED.capitalize()}: the analysis's {Path(folder).name}/ folder "
            "is missing or holds no CSV file."
        ),
        analysis=analysis,
    )


def fmt_number(value) -> str:
    return "--" if _missing(value) else f"{value:.4g}"


#: Columns of the "Not passing" table; ``tolerance`` prints as "relation ±tolerance".
FAILURE_FIELDS = (
    "table",
    "kind",
    "item",
    "quantity",
    "published",
    "ours",
    "difference",
    "tolerance",
    "status",
    "note",
)
_NUMBER_FIELDS = ("published", "ours", "difference")
_HEADERS = {"tolerance": "relation, tolerance"}


def _check_cell(record, field: str):
    if field in _NUMBER_FIELDS:
        return fmt_number(record[field])
    if field == "tolerance":
        return f"{record['relation']} ±{record['tolerance']:g}"
    return record[field]


def check_table(frame: pd.DataFrame, fields) -> list[str]:
    """Markdown lines of a table of check rows: header, alignment, one row per check.

    Numbers are right-aligned and printed with :func:`fmt_number`; every cell goes
    through :func:`rederive.report.markdown.cell`, so names cannot break the table.
    """
    align = ["---:" if f in _NUMBER_FIELDS else "---" for f in fields]
    lines = [md_row(*(_HEADERS.get(f, f) for f in fields)), "|" + "|".join(align) + "|"]
    lines += [md_row(*(_check_cell(r, f) for f in fields)) for _, r in frame.iterrows()]
    return lines


def summary_markdown(frame: pd.DataFrame, *, title: str, preamble: str = "") -> str:
    lines = [f"# {title}", ""]
    if preamble:
        lines += [preamble.strip(), ""]
    if frame.empty:
        # An empty check must not read as "every check passes".
        return "\n".join([*lines, "No checks were made."]) + "\n"
    lines += ["| table | kind | checks | pass | FAIL | n/a |", "|---|---|---:|---:|---:|---:|"]
    for (table, kind), group in frame.groupby(["table", "kind"], sort=True):
        counts = group["status"].value_counts()
        lines.append(
            md_row(
                table,
                kind,
                len(group),
                counts.get("pass", 0),
                counts.get("FAIL", 0),
                counts.get("n/a", 0),
            )
        )
    failures = frame[frame["status"] != "pass"]
    lines += ["", f"## Not passing ({len(failures)})", ""]
    if failures.empty:
        lines.append("Every check passes.")
    else:
        lines += check_table(failures, FAILURE_FIELDS)
    return "\n".join(lines) + "\n"
