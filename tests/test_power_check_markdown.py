"""The power rows of a published check ("… <= reported |difference|") keep every
number under its own header (issue 26 row "published_check.md power rows")."""

import re

import numpy as np

from rederive.check import checks_frame, summary_markdown
from rederive.report.power import headline_check

CELL_SEPARATOR = re.compile(r"(?<!\\)\|")


def cells(line: str) -> list[str]:
    return [c.strip() for c in CELL_SEPARATOR.split(line)[1:-1]]


def test_power_rows_have_as_many_cells_as_the_header():
    checks = [
        headline_check(
            "s",
            "a vs b (top two)",
            1.822,
            sd_pp=60.2,
            n_units=2854,
            unit="item",
            alpha=0.05,
            power=0.8,
        ),
        headline_check(
            "s", "a | b", 0.1, sd_pp=np.nan, n_units=1, unit="question", alpha=0.05, power=0.8
        ),
    ]
    markdown = summary_markdown(checks_frame(checks), title="t")
    table = [line for line in markdown.splitlines() if line.startswith("| table | kind | item")]
    (header,) = table
    rows = markdown.split(header, 1)[1].strip().splitlines()[1:]
    assert len(rows) == 2
    names = cells(header)
    for row in rows:
        values = dict(zip(names, cells(row), strict=True))
        assert values["quantity"].endswith(r"reported \|difference\|")
    first = dict(zip(names, cells(rows[0]), strict=True))
    assert first["published"] == "1.822"  # the reported |difference|, not shifted
    assert first["relation, tolerance"].startswith("<=")
