"""Rule ``build_site``: write ``results/site/`` (an index page, one page per
analysis, the CSS/JS, and a copy of every table, check and figure the pages
show), from the files the workflow already wrote."""

import json
import shutil
from pathlib import Path, PurePosixPath

import jinja2
from markdown_it import MarkdownIt
from markupsafe import Markup

from rederive.errors import InputError
from rederive.site.captions import render_caption
from rederive.site.headline import read_headline
from rederive.site.layout import HEADLINE, HeadlineSpec, anchor, arrange, section_title
from rederive.site.tables import (
    INLINE_ROWS,
    Table,
    check_badges,
    failures_first,
    json_payload,
    read_table,
)

HERE = Path(__file__).parent
ASSETS = ("site.css", "site.js")


def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE / "templates"),
        autoescape=True,  # every name, label and cell is text, whatever it holds
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals["payload"] = json_payload
    return env


def markdown_html(text: str) -> Markup:
    """A check report's Markdown as HTML: raw HTML in it is shown as text, and
    its headings start at <h4> so they sit under the page's own."""
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    tokens = md.parse(text)
    for token in tokens:
        if token.type in ("heading_open", "heading_close"):
            token.tag = f"h{min(6, int(token.tag[1]) + 3)}"
    return Markup(md.renderer.render(tokens, md.options, {}))


def png_size(path) -> tuple[int, int]:
    """Width and height in pixels, from the PNG header."""
    with open(path, "rb") as handle:
        head = handle.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        raise InputError("not a PNG file", file=str(path))
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")


# Figures are saved at 200 dpi (rederive.plots.theme); shown at 100 CSS px per
# inch their text has the size it has on paper instead of twice that.
FIGURE_SCALE = 0.5


def site_path(path: str, name: str) -> str:
    """Where an output of analysis ``name`` is copied, relative to its page:
    ``results/<name>/tables/x.csv`` -> ``tables/x.csv``."""
    parts = PurePosixPath(path).parts
    try:
        start = parts.index(name, parts.index("results"))
    except ValueError as exc:
        raise InputError(f"not an output of analysis {name!r}", file=path) from exc
    return PurePosixPath(*parts[start + 1 :]).as_posix()


def change_summary(path: Path) -> dict:
    """What the index says of an analysis's last build: its change line without
    the analysis's name, and whether anything changed."""
    record = json.loads(path.read_text(encoding="utf-8"))
    line = record.get("line", "")
    prefix = f"{record.get('analysis', '')}: "
    return {
        "changed": bool(record.get("changed")),
        "summary": line[len(prefix) :] if line.startswith(prefix) else line,
    }


#: The gate's report (gate/gate.md; its JSON beside it) and the title of each
#: report's inline table.
GATE_REPORT = "gate.md"
TABLE_TITLES = {
    "published_check.md": "Every check, not passing first",
    GATE_REPORT: "Every verdict (gate.csv)",
}


def gate_summary(path: Path) -> dict:
    """What the index says of an analysis's gate (its gate.json): the baseline,
    each candidate's overall verdict, and whether the gate passes under ``fail_on``."""
    record = json.loads(path.read_text(encoding="utf-8"))
    return {
        "baseline": record["baseline"]["model"],
        "verdicts": [
            (c["candidate"]["model"], c["overall"]["verdict"], bool(c["passed"]))
            for c in record["comparisons"]
        ],
        "passed": bool(record["passed"]),
        "exit_code": int(record["exit_code"]),
    }


def provenance_record(prov: dict, name: str, earlier: dict | None = None) -> dict | None:
    """An analysis's provenance: this run's record (provenance.json) or, for an
    analysis an earlier run built, what its kept build recorded."""
    record = prov.get("analyses", {}).get(name) or earlier
    if record is None:
        return None
    files = sorted(record.get("files", {}).items())
    return {
        "kind": record.get("kind", ""),
        "root": record.get("root", ""),
        "files": files,
        "inputs": Table(columns=["file", "sha256"], rows=[list(f) for f in files]),
        "options_text": json.dumps(
            record.get("options", {}), indent=2, sort_keys=True, ensure_ascii=False
        ),
    }


def analysis_page(entry: dict, prov: dict) -> dict:
    """Everything one analysis page (and its index row) shows."""
    name = entry["name"]
    spec = HeadlineSpec(**entry["headline"])
    sections = arrange(list(entry["outputs"]), dict(entry.get("reports", {})), spec.table)
    headline_table = None
    check_counts, check_note = [], ""
    changes = None
    gate = None
    page_sections = []
    for title, items in sections.items():
        shown = []
        for item in items:
            view = {
                "kind": item.kind,
                "name": item.name,
                "id": anchor(f"{item.kind}-{item.stem}"),
                "href": site_path(item.path, name),
                "caption": render_caption(item.caption, item.caption_params)
                if item.caption
                else None,
                "downloads": [],
                "table": None,
                "md_class": None,  # a check or change report: the check's colour
            }
            companions = {label: site_path(p, name) for label, p in item.companions.items()}
            if item.kind == "table":
                full = read_table(item.path)
                view["table"] = full.head(INLINE_ROWS)
                view["downloads"] = [("CSV", view["href"]), *companions.items()]
                if item.section == HEADLINE:
                    headline_table = full
            elif item.kind == "figure":
                view["downloads"] = [("PNG", view["href"]), *companions.items()]
                width, height = png_size(item.path)
                view["width"] = round(width * FIGURE_SCALE)
                view["height"] = round(height * FIGURE_SCALE)
            elif item.kind == "markdown":
                view["html"] = markdown_html(Path(item.path).read_text(encoding="utf-8"))
                view["downloads"] = [("Markdown", view["href"]), *companions.items()]
                file_name = PurePosixPath(item.path).name
                if file_name == GATE_REPORT and "JSON" in item.companions:
                    gate = gate_summary(Path(item.companions["JSON"]))
                    view["md_class"] = "allpass" if gate["passed"] else "findings"
                if "CSV" in item.companions:
                    rows = read_table(item.companions["CSV"])
                    is_check = file_name == "published_check.md"
                    view["table"] = (failures_first(rows) if is_check else rows).head(INLINE_ROWS)
                    view["table_title"] = TABLE_TITLES.get(file_name, "Every change")
                    if is_check:
                        check_counts = check_badges(rows)
                        if not rows.rows:
                            check_note = "no published numbers to compare"
            if item.kind == "download" and PurePosixPath(item.path).name == "changes.json":
                changes = change_summary(Path(item.path))
            shown.append(view)
        page_sections.append({"id": anchor(title), "title": section_title(title), "entries": shown})
    return {
        "name": name,
        "kind": entry["kind"],
        "label": entry["label"],
        "simulated": bool(entry["simulated"]),
        "data_note": entry["data_note"],
        "headline": read_headline(headline_table, spec),
        "headline_present": headline_table is not None,
        "headline_ranks": spec.ranks_models,
        "check_counts": check_counts,
        "check_failing": any(kind["attention"] for kind in check_counts),
        "check_note": check_note,
        "changes": changes,
        "gate": gate,
        "sections": page_sections,
        "provenance": provenance_record(prov, name, entry.get("earlier")),
        "earlier": entry.get("earlier"),
    }


def load_provenance(path) -> dict:
    prov = json.loads(Path(path).read_text(encoding="utf-8"))
    prov.setdefault("code", {})
    prov.setdefault("packages", {})
    prov["settings_text"] = json.dumps(
        prov.get("settings", {}), indent=2, sort_keys=True, ensure_ascii=False
    )
    return prov


def build_site(site: Path, analyses: list[dict], provenance: str, summary: list[str]) -> list[dict]:
    """Write the site under ``site`` and return the analysis pages' contents.

    Parameters
    ----------
    site : Path
        The output folder (created; must not exist or be empty).
    analyses : list of dict
        Per analysis, in report order: ``name``, ``kind``, ``label``,
        ``simulated``, ``data_note``, ``outputs`` (its files under tables/,
        figures/ and check/) and ``reports`` (caption, subcategory and caption
        parameters per file with a report entry).
    provenance : str
        ``results/summary/provenance.json``.
    summary : list of str
        Files of ``results/summary/`` the index links to (copied to ``summary/``).
    """
    env = environment()
    prov = load_provenance(provenance)
    site.mkdir(parents=True, exist_ok=True)
    (site / "assets").mkdir(exist_ok=True)
    for asset in ASSETS:
        shutil.copyfile(HERE / "assets" / asset, site / "assets" / asset)
    (site / "summary").mkdir(exist_ok=True)
    for path in [*summary, provenance]:
        shutil.copyfile(path, site / "summary" / Path(path).name)
    pages = []
    for entry in analyses:
        page = analysis_page(entry, prov)
        folder = site / entry["name"]
        for path in entry["outputs"]:
            target = folder / site_path(path, entry["name"])
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
        html = env.get_template("analysis.html.j2").render(
            title=f"{entry['name']}: rederive",
            root="../",
            a=page,
            sections=page["sections"],
            prov=prov,
        )
        (folder / "index.html").write_text(html, encoding="utf-8")
        pages.append(page)
    html = env.get_template("index.html.j2").render(
        title="rederive results", root="", analyses=pages, prov=prov
    )
    (site / "index.html").write_text(html, encoding="utf-8")
    return pages


def main(snakemake):
    build_site(
        Path(snakemake.output.site),
        list(snakemake.params.analyses),
        snakemake.input.provenance,
        list(snakemake.input.summary),
    )


if __name__ == "__main__" and "snakemake" in globals():
    from rederive.runner import run

    run(main, snakemake)  # noqa: F821
