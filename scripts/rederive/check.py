"""Reviewer mode: compare recomputed numbers with a paper's published numbers.

Every row has a kind (:mod:`rederive.report.check_counts` says what each tests
and counts them apart): ``cell`` (a published number against ours), ``claim``
(a conclusion of the paper, tested on ours), ``identity`` (a relation the
published tables must satisfy among themselves; a failing identity is a finding
about the paper, not about this workflow), ``internal`` (a relation among our
own outputs) and ``power`` (could the paper's sample detect what it reports:
``detectable`` or ``underpowered``, never a failed reproduction).

A cell read from a published CSV carries the precision it was printed at
(``printed_decimals``, :mod:`rederive.printed`): it passes when ours rounds to
the printed value, i.e. lies within half a unit of its last digit, with the
tolerance on top.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from pathlib import Path

import pandas as pd

from rederive.printed import DECIMALS, ULPS, half_unit
from rederive.report.check_counts import NA, category, holds, tally
from rederive.report.markdown import cell as md_cell
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
    "printed_decimals",
    "relation",
    "status",
    "note",
]

#: Absolute margin on rows without a printed precision (values computed by the
#: check itself, e.g. a bound of 100): binary floating error in "diff == tolerance".
FLOAT_MARGIN = 1e-9


@dataclass
class Check:
    study: str
    table: str
    kind: str  # see rederive.report.check_counts.CATEGORIES
    item: str  # which row / model / pair
    quantity: str  # which number
    published: float | None
    ours: float | None
    tolerance: float
    note: str = ""
    # "==": ours within the allowance of published; "<=": ours <= published +
    # allowance (published then holds the bound, e.g. 100 for shares of one labelling).
    relation: str = "=="
    # Place of the last digit the published value was printed with (3 for 0.273;
    # rederive.printed); None when it was not read from a printed cell.
    printed_decimals: int | None = None

    @property
    def difference(self) -> float | None:
        if self.published is None or self.ours is None:
            return None
        if any(isinstance(v, float) and math.isnan(v) for v in (self.published, self.ours)):
            return None
        return float(self.ours) - float(self.published)

    @property
    def allowance(self) -> float:
        """Half a unit of the printed last digit plus the tolerance."""
        return half_unit(self.printed_decimals) + float(self.tolerance)

    def _margin(self) -> float:
        if self.printed_decimals is None:
            return FLOAT_MARGIN
        largest = max(abs(float(self.ours)), abs(float(self.published)), self.allowance)
        return ULPS * math.ulp(largest)

    @property
    def status(self) -> str:
        kind = category(self.kind)
        diff = self.difference
        if diff is None:
            both_missing = _missing(self.published) and _missing(self.ours)
            return kind.good if both_missing else NA
        limit = self.allowance + self._margin()
        ok = diff <= limit if self.relation == "<=" else abs(diff) <= limit
        return kind.good if ok else kind.bad

    def row(self) -> dict:
        record = asdict(self)
        record["difference"] = self.difference
        record["status"] = self.status
        return record


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def checks_frame(checks: list[Check]) -> pd.DataFrame:
    """Tidy table of checks in a stable column order."""
    frame = pd.DataFrame([c.row() for c in checks], columns=COLUMNS)
    frame["printed_decimals"] = frame["printed_decimals"].astype("Int64")
    return frame


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
    (status ``n/a``), so a missing model is visible rather than skipped. A
    ``published`` read with :func:`rederive.printed.read_published` carries each
    quantity's printed precision (``<quantity>__decimals``), which every check
    then uses.
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
                    printed_decimals=printed_decimals(row.get(q + DECIMALS)),
                )
            )
    return checks


def printed_decimals(value) -> int | None:
    """A ``<column>__decimals`` cell as :attr:`Check.printed_decimals` (None when absent)."""
    return None if value is None or pd.isna(value) else int(value)


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


#: Columns of the tables of rows that do not pass; ``tolerance`` prints as
#: "relation ±tolerance", ``printed_decimals`` as the decimals the paper printed.
FAILURE_FIELDS = (
    "table",
    "kind",
    "item",
    "quantity",
    "published",
    "ours",
    "difference",
    "tolerance",
    "printed_decimals",
    "status",
    "note",
)
_NUMBER_FIELDS = ("published", "ours", "difference")
_HEADERS = {"tolerance": "relation, tolerance", "printed_decimals": "printed decimals"}


def _check_cell(record, field: str):
    if field in _NUMBER_FIELDS:
        return fmt_number(record[field])
    if field == "tolerance":
        return f"{record['relation']} ±{record['tolerance']:g}"
    if field == "printed_decimals":
        value = record.get("printed_decimals")
        return "" if _missing(value) or pd.isna(value) else str(int(value))
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


def status_columns(counts: dict[str, dict[str, int]]) -> list[str]:
    """The statuses a counts table needs, in order (pass, FAIL, detectable, underpowered, n/a)."""
    columns: list[str] = []
    for statuses in counts.values():
        columns += [s for s in statuses if s != NA and s not in columns]
    return [*columns, NA]


def counts_table(frame: pd.DataFrame, by: list[str]) -> list[str]:
    """Markdown counts of ``frame``'s rows per ``by`` (which ends with ``kind``).

    One column per status that occurs in the kinds shown, empty where a kind
    cannot have that status, so a power row is never counted as a FAIL.
    """
    overall = tally(zip(frame["kind"], frame["status"], strict=True))
    columns = status_columns(overall)
    lines = [
        md_row(*by, "checks", *columns),
        "|" + "---|" * len(by) + "---:|" * (len(columns) + 1),
    ]
    for key, group in frame.groupby(by, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        own = tally(zip(group["kind"], group["status"], strict=True))[key[-1]]
        lines.append(md_row(*key, len(group), *(own.get(c, "") for c in columns)))
    return lines


def _sorted_by_kind(frame: pd.DataFrame, first: list[str]) -> pd.DataFrame:
    """``frame`` ordered by ``first`` then kind in the categories' order (stable)."""
    order = {k: i for i, k in enumerate(tally(zip(frame["kind"], frame["status"], strict=True)))}
    keyed = frame.assign(_kind_order=frame["kind"].map(order))
    return keyed.sort_values([*first, "_kind_order"], kind="stable").drop(columns="_kind_order")


def summary_markdown(
    frame: pd.DataFrame, *, title: str, preamble: str = "", keys=("table",)
) -> str:
    """The check report: counts per kind, per table, then every row that does not hold.

    Each kind is counted and listed apart (:mod:`rederive.report.check_counts`):
    reproduced cells are never mixed with identities, internal checks or power
    rows, and an underpowered power row is listed as such, not as a failure.
    ``keys`` name a table (``("study", "table")`` over several analyses); they
    lead the per-table counts and the lists of rows.
    """
    keys = list(keys)
    lines = [f"# {title}", ""]
    if preamble:
        lines += [preamble.strip(), ""]
    if frame.empty:
        # An empty check must not read as "every check passes".
        return "\n".join([*lines, "No checks were made."]) + "\n"
    frame = _sorted_by_kind(frame, [])
    lines += ["## Counts by kind", ""]
    lines += counts_table(frame, ["kind"])
    lines += [""]
    lines += [f"- `{md_cell(k)}`: {category(k).tests}" for k in frame["kind"].unique()]
    lines += ["", "## Counts by table", ""]
    lines += counts_table(_sorted_by_kind(frame, keys), [*keys, "kind"])
    attention = frame[
        [not holds(k, s) for k, s in zip(frame["kind"], frame["status"], strict=True)]
    ]
    if attention.empty:
        lines += ["", "Every check passes."]
    for kind, group in attention.groupby("kind", sort=False):
        statuses = " or ".join(group["status"].unique())
        lines += ["", f"## {category(kind).plural.capitalize()}: {statuses} ({len(group)})", ""]
        lines += check_table(group, [*keys, *(f for f in FAILURE_FIELDS if f not in keys)])
    return "\n".join(lines) + "\n"
