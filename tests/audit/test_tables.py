"""Cells and the three table syntaxes (CSV, Markdown, LaTeX tabular)."""

from fractions import Fraction

import pytest

from rederive.audit.cells import parse_cell
from rederive.audit.tables import read_table
from rederive.errors import InputError


@pytest.mark.parametrize(
    ("text", "value", "decimals", "extra"),
    [
        ("72.55", Fraction(7255, 100), 2, {}),
        (r"\textbf{56.8}", Fraction(568, 10), 1, {"bold": True}),
        ("**61.2**", Fraction(612, 10), 1, {"bold": True}),
        ("30.3%", Fraction(303, 10), 1, {"percent_sign": True}),
        (r"82.1\%", Fraction(821, 10), 1, {"percent_sign": True}),
        ("0.51*", Fraction(51, 100), 2, {"stars": 1}),
        ("71.0$^{**}$", Fraction(71), 1, {"stars": 2}),
        (r"\underline{44.1}", Fraction(441, 10), 1, {"underline": True}),
        ("3,000", Fraction(3000), 0, {}),
    ],
)
def test_cell_values_and_marks(text, value, decimals, extra):
    cell = parse_cell(text)
    assert cell.value.value == value and cell.value.decimals == decimals
    for key, expected in extra.items():
        assert getattr(cell, key) == expected


def test_cell_pm_and_ci():
    assert parse_cell("45.3 ± 1.2").pm.value == Fraction(12, 10)
    assert parse_cell(r"$45.3 \pm 1.20$").pm.decimals == 2
    ci = parse_cell("12.0 [10.1, 13.9]").ci
    assert (ci[0].value, ci[1].value) == (Fraction(101, 10), Fraction(139, 10))
    only = parse_cell("(0.41–0.52)")
    assert only.value is None and only.ci[1].value == Fraction(52, 100)


def test_cell_missing_and_text():
    assert parse_cell("—").missing and parse_cell("n/a").missing
    assert not parse_cell("GPT-4o").numeric and not parse_cell("GPT-4o").missing


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_three_syntaxes_read_alike(tmp_path):
    csv = _write(tmp_path, "t.csv", "model,acc\nA,61.0\nB,58.5\n")
    md = _write(tmp_path, "t.md", "| model | acc |\n|---|:---:|\n| A | 61.0 |\n| B | 58.5 |\n")
    tex = _write(
        tmp_path,
        "t.tex",
        "\\begin{tabular}{lr}\n\\toprule\nmodel & acc \\\\\n\\midrule\nA & 61.0 \\\\\nB & 58.5 \\\\\n"
        "\\bottomrule\n\\end{tabular}\n",
    )
    tables = [read_table(p) for p in (csv, md, tex)]
    assert [t.syntax for t in tables] == ["csv", "markdown", "latex"]
    for t in tables:
        assert t.header == ["model", "acc"] and t.rows == [["A", "61.0"], ["B", "58.5"]]
    assert tables[0].lines == [2, 3] and tables[1].lines == [3, 4] and tables[2].lines == [5, 6]


def test_latex_multicolumn_and_escaped_ampersand(tmp_path):
    tex = _write(
        tmp_path, "t.tex", "\\multicolumn{2}{c}{Model} & acc \\\\\nA \\& B & x & 1.0 \\\\\n"
    )
    t = read_table(tex)
    assert t.header == ["Model", "", "acc"] and t.rows[0][0] == "A \\& B"


def test_long_table_widens(tmp_path):
    path = _write(
        tmp_path,
        "long.csv",
        "table,item,quantity,value,source\nt1,A,acc_pct,61.0,x\nt1,A,n,100,x\nt1,B,acc_pct,58.0,x\nt1,B,n,100,x\n",
    )
    t = read_table(path)
    assert t.header == ["item", "acc_pct", "n"] and t.rows == [
        ["A", "61.0", "100"],
        ["B", "58.0", "100"],
    ]


def test_long_table_duplicate_is_an_error(tmp_path):
    path = _write(tmp_path, "long.csv", "item,quantity,value\nA,acc,1\nA,acc,2\n")
    with pytest.raises(InputError, match="printed twice"):
        read_table(path)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty"),
        ("model,acc\n", "no rows"),
        ("model,acc\nA,1,2\n", "3 fields"),
        ("| a | b |\n|---|---|\n| 1 |\n", "1 cells"),
    ],
)
def test_bad_tables(tmp_path, text, message):
    with pytest.raises(InputError, match=message):
        read_table(_write(tmp_path, "bad.csv", text))
