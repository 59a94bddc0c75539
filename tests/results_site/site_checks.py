"""What the browser tests check on every page of a built site (shared by the
test on a small workflow run and the one on the bundled results)."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import unquote, urlsplit

# Runs in the page: per table widget its id, declared row count, the first row
# of its JSON payload and the cells of the first drawn row.
TABLES_JS = """
[...document.querySelectorAll('.tbl')].map(w => ({
  id: w.id,
  rows: Number(w.dataset.rows),
  first: (JSON.parse(w.querySelector('script.tbl-data').textContent).rows[0] || null),
  drawn: [...(w.querySelector('tbody tr') || {children: []}).children].map(td => td.textContent),
}))
"""

LINKS_JS = """
[...document.querySelectorAll('a[href], img[src], link[href], script[src]')]
  .map(e => e.getAttribute('href') || e.getAttribute('src'))
"""

IDS_JS = "[...document.querySelectorAll('[id]')].map(e => e.id)"

IMAGES_JS = """
[...document.images].filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.getAttribute('src'))
"""


def pages_of(site: Path) -> list[Path]:
    return sorted(site.rglob("index.html"))


def broken_links(page: Path, links: list[str], ids_of) -> list[str]:
    """Links of ``page`` that name no file (or no element, for a #fragment)."""
    broken = []
    for link in links:
        parts = urlsplit(link)
        if parts.scheme or parts.netloc:
            broken.append(f"{link} (not a local file: the site must work offline)")
            continue
        target = (page.parent / unquote(parts.path)).resolve() if parts.path else page.resolve()
        if not target.is_file():
            broken.append(link)
        elif parts.fragment and target.suffix == ".html" and parts.fragment not in ids_of(target):
            broken.append(f"{link} (no element with that id)")
    return broken


def sort_check(browser) -> list[str]:
    """Click the header of a numeric column of the first table with two or more
    distinct values in it (a real mouse click); its drawn column must then read
    ascending, and after a second click descending."""
    plan = browser.evaluate(
        """
(() => {
  for (const w of document.querySelectorAll('.tbl')) {
    const data = JSON.parse(w.querySelector('script.tbl-data').textContent);
    if (data.rows.length < 2) continue;
    for (let k = 0; k < data.columns.length; k++) {
      const values = new Set(data.rows.map(r => r[k]).filter(v => v !== ''));
      if (data.numeric[k] && values.size > 1) {
        const b = w.querySelectorAll('thead th button')[k];
        b.scrollIntoView({block: 'center'});
        const r = b.getBoundingClientRect();
        return {id: w.id, column: k, x: r.x + r.width / 2, y: r.y + r.height / 2};
      }
    }
  }
  return null;
})()
"""
    )
    if plan is None:
        return []
    problems = []
    for direction in ("ascending", "descending"):
        browser.click(plan["x"], plan["y"])
        state = browser.evaluate(
            f"""
(() => {{
  const w = document.getElementById({json.dumps(plan["id"])});
  const th = w.querySelectorAll('thead th')[{plan["column"]}];
  const cells = [...w.querySelectorAll('tbody tr')].map(tr => tr.children[{plan["column"]}].textContent);
  return {{sort: th.getAttribute('aria-sort'), cells: cells}};
}})()
"""
        )
        values = [float(c.replace(",", "").rstrip("%")) for c in state["cells"] if c != ""]
        expected = sorted(values, reverse=direction == "descending")
        if state["sort"] != direction or values != expected:
            problems.append(
                f"table {plan['id']} column {plan['column']}: not {direction} after a click"
            )
    return problems


def check_site(browser, site: Path, shots: Path | None = None) -> dict[str, list[str]]:
    """Load every page of ``site``; return the problems found per page (empty lists
    when all is well)."""
    ids: dict[Path, set[str]] = {}

    def ids_of(target: Path) -> set[str]:
        if target not in ids:
            browser.open(target)
            ids[target] = set(browser.evaluate(IDS_JS))
        return ids[target]

    report = {}
    for page in pages_of(site):
        mark = len(browser.events)
        browser.open(page)
        problems = list(browser.errors(mark))
        for table in browser.evaluate(TABLES_JS):
            if table["rows"] and table["drawn"] != table["first"]:
                problems.append(f"table {table['id']}: first row not shown ({table['drawn']!r})")
        problems += [f"image not loaded: {src}" for src in browser.evaluate(IMAGES_JS)]
        links = browser.evaluate(LINKS_JS)
        if shots is not None:
            name = "index" if page.parent == site else page.parent.name
            browser.screenshot(shots / f"{name}.png", max_height=4000)
        problems += sort_check(browser)
        problems += broken_links(page, links, ids_of)
        report[str(page.relative_to(site))] = problems
    return report
