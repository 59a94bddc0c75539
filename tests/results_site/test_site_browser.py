"""The results site in a real browser (headless Chromium over the DevTools
protocol): every page loads without a console error or a failed load, every
table shows its first row, a click on a header sorts, every link and image
resolves to a file of the site. Skips, saying so, without Chromium."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from benchmark_formats import chembench_slice, write_matrix
from browser_cdp import Browser, find_browser
from site_checks import check_site, pages_of
from workflow_utils import run_workflow

BROWSER = find_browser()
needs_browser = pytest.mark.skipif(
    BROWSER is None,
    reason="no Chromium on PATH (Debian: apt-get install -y chromium); the site's "
    "browser test needs a real browser",
)
# Names a page must print as text: markup, entities, table and list separators,
# quotes, a line break, right-to-left script, emoji.
MODELS = {
    "o1": "<script>alert(1)</script>",
    "GPT-4o": "A & B | \"quoted\" 'single'",
    "Claude-3.5 (Sonnet)": "עברית; מודל",
    "Gemma-1.1-7B-it": "😀-bot\nsecond line",
    "Galatica-120b": "</td></tr>&amp;",
}


def shots_dir(tmp_path: Path) -> Path:
    """REDERIVE_SITE_SHOTS keeps the screenshots (e.g. /tmp/site-shots)."""
    return Path(os.environ.get("REDERIVE_SITE_SHOTS", tmp_path / "shots"))


@pytest.fixture(scope="module")
def browser():
    if BROWSER is None:
        pytest.skip("no Chromium")
    instance = Browser(BROWSER)
    yield instance
    instance.close()


@pytest.fixture(scope="module")
def small_site(tmp_path_factory):
    """results/site/ of a real workflow run: the benchmark kind on a 40-item
    ChemBench slice whose five models carry hostile names."""
    root = tmp_path_factory.mktemp("site-run")
    data = chembench_slice(40, list(MODELS))
    data["model"] = data["model"].map(MODELS)
    write_matrix(root / "raw" / "matrix" / "slice.csv", data)
    overrides = {
        "build": ["benchmark"],
        "analyses": {
            "benchmark": {
                "raw_dir": str(root / "raw"),
                "bootstrap": {"n_boot": 200},
                "irt": {"epochs": 100},
                # The gate's page section and index line print the names as text too.
                "gate": {
                    "baseline": MODELS["GPT-4o"],
                    "candidate": [MODELS["o1"], MODELS["Claude-3.5 (Sonnet)"]],
                },
            }
        },
    }
    run_workflow(root, overrides, targets=["results/site"])
    return root / "results" / "site"


@pytest.mark.slow
@needs_browser
def test_site_of_a_workflow_run_in_chromium(small_site, browser, tmp_path):
    assert [p.relative_to(small_site).as_posix() for p in pages_of(small_site)] == [
        "benchmark/index.html",
        "index.html",
    ]
    report = check_site(browser, small_site, shots_dir(tmp_path) / "small")
    assert report == {page: [] for page in report}, report
    # The names are text on the page, not markup.
    browser.open(small_site / "index.html")
    text = browser.evaluate("document.body.innerText")
    assert "<script>alert(1)</script>" in text
    # The gate's line beside the published check names the candidates as text.
    assert f"gate vs {MODELS['GPT-4o']}:" in text
    assert f"{MODELS['o1']} " in text.split("gate vs", 1)[1]
    # Only the JSON payloads of the tables: no script among the page's content.
    assert browser.evaluate(
        "[...document.querySelectorAll('main script')].every(s => s.type === 'application/json')"
    )
    # The report's captions, rendered for this analysis.
    browser.open(small_site / "benchmark" / "index.html")
    text = browser.evaluate("document.body.innerText")
    assert "Ranking that shows ties" in text  # rules/report/benchmark/ranking.rst
    assert "Tied with it: A & B | \"quoted\" 'single'" in text


@pytest.mark.slow
@needs_browser
def test_bundled_site_in_chromium(browser, tmp_path, bundled_build):
    """The site of the bundled analyses (README's first command's results)."""
    site = bundled_build / "results" / "site"
    report = check_site(browser, site, shots_dir(tmp_path) / "bundled")
    assert report == {page: [] for page in report}, report
    size = sum(p.stat().st_size for p in site.rglob("*") if p.is_file())
    assert size <= 30 * 1024 * 1024, f"bundled site is {size / 2**20:.1f} MB"


@pytest.mark.slow
@needs_browser
def test_browser_checks_see_a_broken_page(small_site, browser, tmp_path):
    """The checks can fail: a dead link, a console error, a missing script and the
    undrawn tables it leaves are each reported."""
    site = tmp_path / "site"
    shutil.copytree(small_site, site)
    page = site / "benchmark" / "index.html"
    html = page.read_text(encoding="utf-8")
    html = html.replace(
        "</main>",
        '<a href="tables/missing.csv">gone</a><script>console.error("boom")</script></main>',
    )
    page.write_text(html, encoding="utf-8")
    problems = check_site(browser, site)["benchmark/index.html"]
    assert "tables/missing.csv" in problems
    assert any("boom" in p for p in problems)
    # Without its script no table draws a row, and the failed load is an error.
    (site / "assets" / "site.js").unlink()
    problems = check_site(browser, site)["benchmark/index.html"]
    assert any("first row not shown" in p for p in problems)
    assert any("site.js" in p for p in problems)
