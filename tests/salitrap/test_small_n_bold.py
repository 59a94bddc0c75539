"""A small-n model is never bold or "best" in SaliTrap Tables 1-2 (issue 26)."""

import pandas as pd

from rederive.studies.salitrap.common import OVERALL
from rederive.studies.salitrap.tables import paper_latex


def _rates(small_tiny: bool) -> pd.DataFrame:
    rows = []
    for model, tar, hfr in (("Tiny", 100.0, 0.0), ("Big", 60.0, 10.0), ("Other", 40.0, 20.0)):
        for dimension in ("d|1", OVERALL):
            rows.append((model, dimension, "TAR", tar, model == "Tiny" and small_tiny))
            rows.append((model, dimension, "HFR", hfr, model == "Tiny" and small_tiny))
    return pd.DataFrame(rows, columns=["model", "dimension", "metric", "percent", "small_n"])


def _tex(rates):
    return paper_latex(
        rates,
        ["TAR", "HFR"],
        {"TAR": "max", "HFR": "min"},
        ["d|1"],
        ["Tiny", "Big", "Other"],
        caption="c",
        label="tab:t",
        simulated=False,
    )


def test_one_row_model_is_not_bold_and_the_note_says_so():
    tex = _tex(_rates(small_tiny=True))
    tiny = next(line for line in tex.splitlines() if line.startswith("Tiny"))
    big = next(line for line in tex.splitlines() if line.startswith("Big"))
    assert r"\textbf" not in tiny
    assert big.count(r"\textbf{60.0}") == 2 and big.count(r"\textbf{10.0}") == 2
    assert "Never bold: 1 model(s)" in tex


def test_without_a_flag_the_best_row_is_bold_and_the_note_is_unchanged():
    tex = _tex(_rates(small_tiny=False))
    tiny = next(line for line in tex.splitlines() if line.startswith("Tiny"))
    assert tiny.count(r"\textbf{100.0}") == 2
    assert "Never bold" not in tex
    # A "|" in a dimension name is escaped in the header, not a column separator.
    assert r"d\textbar{}1 TAR" in tex
