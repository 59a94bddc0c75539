"""The site builder without a browser: pages from a synthetic results folder,
names printed as text, the headline read from the ranking table, captions from
the report's .rst files, sections found from the outputs."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pytest

from rederive.errors import InputError
from rederive.site.build import build_site, markdown_html, site_path
from rederive.site.captions import render_caption
from rederive.site.headline import read_headline
from rederive.site.layout import CHANGES, CHECK, GATE, HEADLINE, MORE, HeadlineSpec, arrange
from rederive.site.tables import Table, check_badges, failures_first, json_payload

REPO = Path(__file__).resolve().parents[2]
HOSTILE = [
    "<script>alert(1)</script>",
    "A & B | \"q\" 's'",
    "a; b",  # the tied_with separator inside a name
    "line\nbreak",
    "עברית",
    "😀-bot",
]


def write(path: Path, text: str) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path.as_posix()


def csv_cell(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


@pytest.fixture
def results(tmp_path, monkeypatch):
    """A results folder of one benchmark-like analysis (hostile names) and one
    analysis of a kind the site has never heard of."""
    monkeypatch.chdir(tmp_path)
    top, tied, rest = HOSTILE[0], [HOSTILE[2], HOSTILE[1]], HOSTILE[3:]
    models = [top, *tied, *rest]
    rows = ["order,model,accuracy_pct,ci_low_pct,ci_high_pct,rank,n_tied,tied_with,small_n"]
    rows.append(f"1,{csv_cell(top)},70.0,65.0,75.0,1-3,2,{csv_cell('; '.join(tied))},False")
    for k, model in enumerate(models[1:], start=2):
        rows.append(f"{k},{csv_cell(model)},{70 - k}.0,{60 - k}.0,{75 - k}.0,{k},0,,False")
    ranking = write(Path("results/demo/tables/ranking.csv"), "\n".join(rows) + "\n")
    tex = write(Path("results/demo/tables/ranking.tex"), "\\begin{table}\\end{table}\n")
    fit = write(Path("results/demo/tables/irt_fit.csv"), "quantity,value\nepochs,100\n")
    check_csv = write(
        Path("results/demo/check/published_check.csv"),
        "study,table,kind,item,status,note\ndemo,T1,cell,x,pass,\ndemo,T1,cell,y,FAIL,off by 2\n"
        "demo,power,power,x vs y,underpowered,\n",
    )
    check_md = write(
        Path("results/demo/check/published_check.md"),
        "# Demo: check\n\n<b>raw html</b>\n\n| a | b |\n|---|---|\n| 1 | 2 |\n",
    )
    fig, ax = plt.subplots(figsize=(2, 1))
    ax.plot([0, 1])
    Path("results/demo/figures").mkdir(parents=True)
    fig.savefig("results/demo/figures/accuracy.png", dpi=50)
    plt.close(fig)
    pdf = write(Path("results/demo/figures/accuracy.pdf"), "%PDF-1.4\n")
    caption = write(
        Path("captions/accuracy.rst"),
        "**{{ snakemake.params.label }}.** Accuracy *per model*.\n\n"
        "{% if snakemake.params.simulated %}Simulated.{% endif %}\n",
    )
    other = write(Path("results/novel/tables/main.csv"), "model,score\nm,1\n")
    other_check = write(Path("results/novel/check/published_check.csv"), "study,status\n")
    other_md = write(
        Path("results/novel/check/published_check.md"), "# Novel\n\nNo checks were made.\n"
    )
    summary = [
        write(Path("results/summary/published_check.md"), "# all\n"),
        write(Path("results/summary/published_check.csv"), "study,status\n"),
    ]
    provenance = write(
        Path("results/summary/provenance.json"),
        json.dumps(
            {
                "python": "3.11",
                "packages": {"pandas": "2"},
                "code": {"commit": "abc", "dirty": False},
                "settings": {"ingest_batches": 8},
                "analyses": {
                    "demo": {
                        "kind": "benchmark",
                        "root": "raw/demo",
                        "files": {"matrix/<x>.csv": "f" * 64},
                        "options": {"min_n": 1},
                    }
                },
            }
        ),
    )
    reports = {
        ranking: {"caption": None, "subcategory": "Tables", "params": {}},
        "results/demo/figures/accuracy.png": {
            "caption": caption,
            "subcategory": "Figures",
            "params": {"label": "Demo *label* <b>", "simulated": True},
        },
    }
    analyses = [
        {
            "name": "demo",
            "kind": "benchmark",
            "headline": {
                "table": "ranking",
                "score": "accuracy_pct",
                "low": "ci_low_pct",
                "high": "ci_high_pct",
                "score_label": "accuracy",
                "unit": "%",
            },
            "label": "Demo <label>",
            "simulated": True,
            "data_note": "Data: demo & co.",
            "outputs": [
                ranking,
                tex,
                fit,
                "results/demo/figures/accuracy.png",
                pdf,
                check_csv,
                check_md,
            ],
            "reports": reports,
        },
        {
            "name": "novel",
            "kind": "a_new_kind",
            "headline": {},  # a kind that registers no headline table: the default
            "label": "Novel",
            "simulated": False,
            "data_note": "Real data.",
            "outputs": [other, other_check, other_md],
            "reports": {},
        },
    ]
    return {"analyses": analyses, "provenance": provenance, "summary": summary, "models": models}


class Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links, self.scripts = [], []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for key in ("href", "src"):
            if attrs.get(key):
                self.links.append(attrs[key])
        if tag == "script":
            self.scripts.append(attrs)


def test_site_pages_links_and_escaping(results, tmp_path):
    site = tmp_path / "site"
    pages = build_site(site, results["analyses"], results["provenance"], results["summary"])
    index = (site / "index.html").read_text(encoding="utf-8")
    demo = (site / "demo" / "index.html").read_text(encoding="utf-8")
    # Names are text: escaped in HTML, \u-escaped inside the JSON payloads.
    for html in (index, demo):
        assert "<script>alert" not in html and "<label>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in index
    assert "A &amp; B | &#34;q&#34; &#39;s&#39;" in index
    assert "<b>raw html</b>" not in demo and "&lt;b&gt;raw html&lt;/b&gt;" in demo
    assert "SIMULATED DATA" in index and "SIMULATED DATA" in demo
    # Every link names a file of the site (or an id of its page).
    for page in [site / "index.html", *site.glob("*/index.html")]:
        parser = Links()
        parser.feed(page.read_text(encoding="utf-8"))
        for link in parser.links:
            path, _, fragment = link.partition("#")
            target = (page.parent / path) if path else page
            assert target.is_file(), (page, link)
            if fragment:
                assert f'id="{fragment}"' in target.read_text(encoding="utf-8"), (page, link)
        # Only the site's own script and the JSON payloads: no inline code.
        assert all(s.get("src") or s.get("type") == "application/json" for s in parser.scripts)
    demo_page, novel_page = pages
    assert demo_page["headline"].top == results["models"][0]
    assert demo_page["headline"].tied == [HOSTILE[2], HOSTILE[1]]
    assert [(k["kind"], k["badges"]) for k in demo_page["check_counts"]] == [
        ("cell", [(1, "pass", "pass"), (1, "FAIL", "fail")]),
        ("power", [(1, "underpowered", "warn")]),
    ]
    assert [s["title"] for s in demo_page["sections"]] == [HEADLINE, CHECK, "Figures", MORE]
    # A kind without a map entry still gets its page: ranking.csv is its headline
    # table by default, main.csv then lands in "More tables".
    assert [s["title"] for s in novel_page["sections"]] == [CHECK, MORE]
    assert novel_page["check_note"] == "no published numbers to compare"
    assert (site / "demo" / "tables" / "ranking.tex").is_file()
    assert (site / "summary" / "provenance.json").is_file()


def gate_files(analysis: str, passed: bool) -> list[str]:
    """gate/gate.{md,csv,json} of an analysis, as the gate writes them (two candidates)."""
    base = Path(f"results/{analysis}/gate")
    verdicts = [("o1 <b>", "better", True), ("Claude", "inconclusive", passed)]
    report = {
        "schema_version": 1,
        "baseline": {"model": "GPT-4o", "source": f"analysis {analysis}"},
        "comparisons": [
            {"candidate": {"model": m}, "overall": {"verdict": v}, "passed": ok, "exit_code": 0}
            for m, v, ok in verdicts
        ],
        "exit_code": 0 if passed else 2,
        "passed": passed,
    }
    return [
        write(base / "gate.md", "# Gate: candidates against GPT-4o\n\n| a | b |\n|---|---|\n"),
        write(
            base / "gate.csv",
            "baseline,candidate,scope,task,verdict\n"
            + "".join(f"GPT-4o,{m},overall,,{v}\n" for m, v, _ in verdicts),
        ),
        write(base / "gate.json", json.dumps(report)),
    ]


def test_gate_section_follows_what_changed_and_the_index_shows_its_verdicts(results, tmp_path):
    demo = results["analyses"][0]
    changes = [
        write(Path("results/demo/changes/changes.md"), "# What changed\n"),
        write(Path("results/demo/changes/changes.csv"), "section,subject\n"),
        write(
            Path("results/demo/changes/changes.json"),
            json.dumps({"analysis": "demo", "line": "demo: no changes", "changed": False}),
        ),
    ]
    gate = gate_files("demo", passed=False)
    caption = write(Path("captions/gate.rst"), "Gate: {{ snakemake.params.gate_text }}\n")
    demo["outputs"] = [*demo["outputs"], *gate, *changes]
    demo["reports"] = {
        **demo["reports"],
        **{
            path: {"caption": caption, "subcategory": "Gate", "params": {"gate_text": "G."}}
            for path in gate
        },
    }
    site = tmp_path / "site"
    pages = build_site(site, results["analyses"], results["provenance"], results["summary"])
    sections = pages[0]["sections"]
    assert [s["title"] for s in sections] == [HEADLINE, CHANGES, GATE, CHECK, "Figures", MORE]
    (entry,) = sections[2]["entries"]
    assert entry["kind"] == "markdown" and entry["md_class"] == "findings"
    assert [label for label, _ in entry["downloads"]] == ["Markdown", "CSV", "JSON"]
    assert entry["table_title"] == "Every verdict (gate.csv)" and len(entry["table"].rows) == 2
    assert pages[0]["gate"] == {
        "baseline": "GPT-4o",
        "verdicts": [("o1 <b>", "better", True), ("Claude", "inconclusive", False)],
        "passed": False,
        "exit_code": 2,
    }
    assert pages[1]["gate"] is None
    index = (site / "index.html").read_text(encoding="utf-8")
    row = index[index.index('id="row-demo"') : index.index('id="row-novel"')]
    assert 'gate vs <bdi class="name">GPT-4o</bdi>' in row
    assert '<bdi class="name">o1 &lt;b&gt;</bdi> <span class="badge pass">better</span>' in row
    assert '<span class="badge fail">inconclusive</span>' in row
    assert (
        'href="demo/index.html#gate"' in row
        and "gate vs" not in index[index.index('id="row-novel"') :]
    )
    page = (site / "demo" / "index.html").read_text(encoding="utf-8")
    assert '<section id="gate">' in page and 'href="gate/gate.json"' in page
    assert (site / "demo" / "gate" / "gate.json").is_file()


def test_two_builds_are_byte_identical(results, tmp_path):
    for name in ("a", "b"):
        build_site(tmp_path / name, results["analyses"], results["provenance"], results["summary"])
    files = sorted(
        p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*") if p.is_file()
    )
    assert files == sorted(
        p.relative_to(tmp_path / "b") for p in (tmp_path / "b").rglob("*") if p.is_file()
    )
    for f in files:
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes(), f


def test_json_payload_cannot_end_its_script_element():
    table = Table(columns=["model"], rows=[["</script><script>alert(1)</script>"], ["a & b\u2028"]])
    text = str(json_payload(table))
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text)["rows"] == table.rows


def test_headline_of_a_tier_table_and_of_a_kind_without_ranking():
    tiers = Table(
        columns=["rank", "model", "tar", "tier", "small_n"],
        rows=[
            ["1", "a", "50.0", "1", "False"],
            ["2", "b", "49.0", "1", "False"],
            ["3", "c", "30.0", "2", "False"],
            ["", "tiny", "10.0", "", "True"],
        ],
    )
    headline = read_headline(tiers, HeadlineSpec(score="tar", score_label="TAR", unit="%"))
    assert (headline.top, headline.tied, headline.score) == ("a", ["b"], "TAR 50.0%")
    assert read_headline(tiers, HeadlineSpec(table="main", ranks_models=False)).top is None
    assert read_headline(None, HeadlineSpec()).top is None


def test_captions_render_the_report_rst_with_literal_params(tmp_path):
    rst = tmp_path / "c.rst"
    rst.write_text("**{{ snakemake.params.label }}.** Text.\n")
    html = str(render_caption(rst, {"label": "x*y* <b>|z|"}))
    assert "<strong>x*y* &lt;b&gt;|z|.</strong>" in html
    rst.write_text("{{ snakemake.params.missing }}\n")
    with pytest.raises(InputError, match="missing"):
        render_caption(rst, {})


def test_every_bundled_caption_renders():
    """The captions of rules/report with the parameters their rules give them."""
    params = {
        "label": "L",
        "data_note": "D.",
        "simulated": False,
        "title": "T",
        "unit": "items",
        "note": "N",
        "fractional_scores_text": "F.",
        "failure_set_text": "S.",
        "missing_grades_text": "M.",
        "gate_text": "G.",
        "sampling_text": "K.",
        "level": 0.95,
        "bootstrap_text": "B.",
        "length_control_text": "C.",
        "scores_text": "E.",
        "win_interval_text": "W.",
    }
    for rst in sorted((REPO / "rules" / "report").rglob("*.rst")):
        if rst.name == "workflow.rst":
            continue
        html = str(render_caption(rst, params))
        assert html.strip() and "{{" not in html and "System Message" not in html, rst


def test_failures_first_and_counts():
    table = Table(
        columns=["item", "status"], rows=[["a", "pass"], ["b", "FAIL"], ["c", "n/a"], ["d", "pass"]]
    )
    assert [r[0] for r in failures_first(table).rows] == ["b", "c", "a", "d"]
    assert check_badges(table) == [
        {
            "kind": "check",
            "label": "check rows",
            "attention": True,
            "badges": [(2, "pass", "pass"), (1, "FAIL", "fail"), (1, "n/a", "na")],
        }
    ]


def test_check_counts_keep_kinds_apart():
    """Issue 37: an internal self-check is not a reproduced cell, and a power row is
    detectable or underpowered, never a FAIL; a detectable row is not a finding."""
    rows = [
        ["cell", "a", "pass"],
        ["internal", "a", "pass"],
        ["internal", "b", "pass"],
        ["power", "a vs b", "detectable"],
        ["power", "a vs c", "underpowered"],
        ["identity", "sum", "FAIL"],
    ]
    table = Table(columns=["kind", "item", "status"], rows=rows)
    badges = {k["kind"]: k for k in check_badges(table)}
    assert list(badges) == ["cell", "identity", "internal", "power"]
    assert badges["cell"]["badges"] == [(1, "pass", "pass")]
    assert badges["internal"]["badges"] == [(2, "pass", "pass")]
    assert badges["power"]["badges"] == [(1, "detectable", "pass"), (1, "underpowered", "warn")]
    assert not badges["cell"]["attention"] and badges["power"]["attention"]
    first = [r[1] for r in failures_first(table).rows]
    assert first[:2] == ["a vs c", "sum"] and "a vs b" in first[2:]


def test_arrange_pairs_twins_and_keeps_rule_order():
    outputs = [
        "results/x/tables/accuracy.csv",
        "results/x/tables/accuracy.tex",
        "results/x/tables/orphan.tex",
        "results/x/figures/a.png",
        "results/x/figures/a.pdf",
        "results/x/tables/power.csv",
    ]
    reports = {
        "results/x/tables/power.csv": {"subcategory": "Power"},
        "results/x/tables/accuracy.csv": {"subcategory": "Tables"},
    }
    sections = arrange(outputs, reports, "ranking")
    assert list(sections) == ["Figures", "Power", "Tables", "Downloads"]
    assert sections["Tables"][0].companions == {"LaTeX": "results/x/tables/accuracy.tex"}
    assert sections["Figures"][0].companions == {"PDF": "results/x/figures/a.pdf"}


def test_markdown_shows_raw_html_as_text():
    html = str(markdown_html("# T\n\n<img src=x onerror=alert(1)>\n"))
    assert "<img" not in html and "&lt;img" in html
    assert re.search(r"<h4>T</h4>", html)


def test_large_analysis_inlines_only_the_first_rows(tmp_path, monkeypatch):
    """A leaderboard-sized analysis (5,000 models, 30,000 items): every table is
    copied whole, but each page inlines at most INLINE_ROWS rows per table and
    says how many the linked CSV has; the site stays under the 30 MB the bundled
    site is held to (tests/results_site/test_site_browser.py)."""
    from rederive.site.tables import INLINE_ROWS

    monkeypatch.chdir(tmp_path)
    n_models, n_items = 5000, 30000
    header = "order,model,accuracy_pct,ci_low_pct,ci_high_pct,rank,n_tied,tied_with,small_n"
    rows = [
        f"{k},model-{k:05d}-instruct,{90 - k / 100:.1f},1.0,2.0,{k},0,,False"
        for k in range(n_models)
    ]
    ranking = write(Path("results/big/tables/ranking.csv"), "\n".join([header, *rows]) + "\n")
    items = write(
        Path("results/big/tables/item_analysis.csv"),
        "item_key,category,p_value,item_rest_r,outfit_mnsq,infit_mnsq,flags\n"
        + "".join(
            f"item-{k:06d},organic chemistry,{k / n_items:.6f},0.123456,1.234567,0.987654,\n"
            for k in range(n_items)
        ),
    )
    small = write(Path("results/big/tables/irt_fit.csv"), "quantity,value\nepochs,100\n")
    provenance = write(
        Path("results/summary/provenance.json"),
        json.dumps({"python": "3.11", "code": {"commit": "abc", "dirty": False}}),
    )
    summary = [write(Path("results/summary/published_check.md"), "# all\n")]
    outputs = [ranking, items, small]
    analyses = [
        {
            "name": "big",
            "kind": "benchmark",
            "headline": {
                "table": "ranking",
                "score": "accuracy_pct",
                "low": "ci_low_pct",
                "high": "ci_high_pct",
                "score_label": "accuracy",
                "unit": "%",
            },
            "label": "Big",
            "simulated": True,
            "data_note": "Simulated.",
            "outputs": outputs,
            "reports": {
                p: {"caption": None, "subcategory": "Tables", "params": {}} for p in outputs
            },
        }
    ]
    site = tmp_path / "site"
    pages = build_site(site, analyses, provenance, summary)
    html = (site / "big" / "index.html").read_text(encoding="utf-8")
    payloads = re.findall(r'<script type="application/json" class="tbl-data">(.*?)</script>', html)
    inlined = sorted(len(json.loads(p)["rows"]) for p in payloads)
    assert inlined == [1, INLINE_ROWS, INLINE_ROWS], inlined
    assert f"First {INLINE_ROWS:,} of {n_items:,} rows shown here" in html
    assert f"First {INLINE_ROWS:,} of {n_models:,} rows shown here" in html
    assert html.count('class="tbl-note"') == 2  # the one-row table carries no note
    # The headline still reads the whole ranking, and the copies are whole.
    assert pages[0]["headline"].top == "model-00000-instruct"
    for path in outputs:
        assert (site / "big" / site_path(path, "big")).read_bytes() == Path(path).read_bytes()
    csv_bytes = sum(Path(p).stat().st_size for p in outputs)
    assert len(html.encode()) < csv_bytes / 5  # the page is not a second copy of the data
    size = sum(p.stat().st_size for p in site.rglob("*") if p.is_file())
    assert size <= 30 * 1024 * 1024, f"site is {size / 2**20:.1f} MB"
