"""Where each output of an analysis goes on its page.

Outputs are discovered from what the workflow declares (the site rule's
inputs), not listed here: a table or figure goes to the section its
``report(..., subcategory=...)`` names, check files to the published check,
the gate's report (``gate/gate.md``, with its CSV and JSON beside it) to "Gate",
and anything without a report entry to "More tables" or "Downloads". Each kind
names its headline table when it registers (``register_kind(headline=...)``),
so a new kind gets a page without a change here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePosixPath

HEADLINE = "Headline"
CHANGES = "What changed"
GATE = "Gate"
CHECK = "Published check"
MORE = "More tables"
DOWNLOADS = "Downloads"

# Section order on every page; sections not listed (a new kind's subcategories)
# follow in the order their first output is declared, before the catch-alls.
SECTION_ORDER = [
    HEADLINE,
    CHANGES,
    GATE,
    CHECK,
    "Overview",
    "Figures",
    "Sampling",
    "Data quality",
    "Labelling",
    "Power",
    "IRT",
    "Item analysis",
    "Failure clustering",
    "Failure sets",
]
TRAILING = ["Tables", MORE, DOWNLOADS]
#: Folders whose Markdown report is shown with these files of its name beside it
#: (the gate's JSON is its interface: a download beside its report).
REPORT_COMPANIONS = {"check": (".csv",), "changes": (".csv",), "gate": (".csv", ".json")}
COMPANION_LABELS = {".csv": "CSV", ".json": "JSON"}

# Shown instead of a report subcategory name.
SECTION_TITLES = {"Tables": "Results tables"}


@dataclass(frozen=True)
class HeadlineSpec:
    """A kind's headline table and the columns its sentence quotes.

    ``table`` is the stem under ``tables/``. The top model and its tie group
    are read from the table's ``tied_with`` column (every model the top one is
    not separable from) or, failing that, its ``tier`` column (models sharing
    the top one's tier); a table with neither is shown without a sentence.
    """

    table: str = "ranking"
    score: str | None = None
    low: str | None = None
    high: str | None = None
    score_label: str = ""
    unit: str = ""
    ranks_models: bool = True


@dataclass
class Item:
    """One output on a page: a table (CSV, with its LaTeX twin when there is one),
    a figure (PNG, with its PDF), a check report (Markdown) or a plain download."""

    kind: str  # "table" | "figure" | "markdown" | "download"
    path: str  # the main file, as the workflow wrote it
    section: str
    companions: dict[str, str] = field(default_factory=dict)  # label -> path
    caption: str | None = None  # path of its .rst caption
    caption_params: dict = field(default_factory=dict)

    @property
    def stem(self) -> str:
        return PurePosixPath(self.path).stem

    @property
    def name(self) -> str:
        return PurePosixPath(self.path).name


def arrange(
    outputs: list[str], reports: dict[str, dict], headline_table: str
) -> dict[str, list[Item]]:
    """Group an analysis's output files into page sections, in page order.

    Parameters
    ----------
    outputs : list of str
        The analysis's files under ``tables/``, ``figures/`` and ``check/``, in
        the order the rules declare them.
    reports : dict
        Per file that has a report entry: ``caption`` (the .rst path),
        ``subcategory`` and ``params`` (the values the caption's template reads).
    headline_table : str
        Stem of the table that leads the page.
    """
    present = set(outputs)
    used: set[str] = set()
    items: list[Item] = []
    for path in outputs:
        if path in used:
            continue
        p = PurePosixPath(path)
        folder, suffix = p.parent.name, p.suffix
        beside_report = REPORT_COMPANIONS.get(folder, (".csv",))
        twins = {
            ".csv": [(".tex", "LaTeX")],
            ".png": [(".pdf", "PDF")],
            ".md": [(s, COMPANION_LABELS[s]) for s in beside_report],
        }
        if (
            suffix in (".tex", ".pdf")
            and str(p.with_suffix({".tex": ".csv", ".pdf": ".png"}[suffix])) in present
        ):
            continue  # listed beside its table or figure
        if (
            folder in REPORT_COMPANIONS
            and suffix in beside_report
            and str(p.with_suffix(".md")) in present
        ):
            continue  # beside its Markdown report
        companions = {}
        for twin_suffix, label in twins.get(suffix, []):
            if str(p.with_suffix(twin_suffix)) in present:
                companions[label] = str(p.with_suffix(twin_suffix))
                used.add(companions[label])
        report = reports.get(path, {})
        kind = {".csv": "table", ".png": "figure", ".md": "markdown"}.get(suffix, "download")
        if folder == "check":
            section = CHECK
        elif folder == "changes":
            section = CHANGES
        elif folder == "gate":
            section = GATE
        elif kind == "table" and folder == "tables" and p.stem == headline_table:
            section = HEADLINE
        elif report.get("subcategory"):
            section = report["subcategory"]
        elif kind == "table":
            section = MORE
        elif kind == "figure":
            section = "Figures"
        else:
            section = DOWNLOADS
        used.add(path)
        items.append(
            Item(
                kind=kind,
                path=path,
                section=section,
                companions=companions,
                caption=report.get("caption"),
                caption_params=report.get("params", {}),
            )
        )
    found = list(dict.fromkeys(i.section for i in items))
    middle = [s for s in found if s not in SECTION_ORDER and s not in TRAILING]
    order = [s for s in SECTION_ORDER if s in found] + middle + [s for s in TRAILING if s in found]
    return {s: [i for i in items if i.section == s] for s in order}


def section_title(section: str) -> str:
    return SECTION_TITLES.get(section, section)


def anchor(text: str) -> str:
    """An id for a section or item: lower-case letters, digits and hyphens."""
    out = "".join(c.lower() if c.isascii() and c.isalnum() else "-" for c in text)
    return "-".join(part for part in out.split("-") if part) or "x"
