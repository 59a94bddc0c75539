"""Names are data (issue 26): ids stay text through every CSV, Markdown tables keep
their cells, figures and LaTeX print names literally."""

import re
import subprocess
from types import SimpleNamespace

import matplotlib.pyplot as plt
import pandas as pd
from latex_utils import NEEDS_LATEX

from rederive import summary
from rederive.check import Check, checks_frame, summary_markdown
from rederive.io.names import read_csv, write_csv
from rederive.io.source import read_csv_frame
from rederive.plots.theme import apply_theme, save_figure
from rederive.report.latex import bold_extremes, booktabs, escape
from rederive.report.markdown import cell, row

NA_LIKE = ["NA", "None", "null", "nan", "N/A", "n/a", "NaN", "<NA>", "#N/A"]
NUMERIC = ["1000", "2000", "0001", "1e3", "-5", "+7"]
HOSTILE = [
    '=HYPERLINK("x")',
    "@org/model",
    "a,b",
    'say "hi"',
    "line\nbreak",
    "crlf\r\nbreak",
    " padded ",
    "org/model | v2",
    "a\\|b",
    "$\\undefinedmacro$",
    "a$b$c",
    "中文模型",
    "😀-bot",
    "עברית",
    "BH q < 0.05 > p",
]
NAMES = NA_LIKE + NUMERIC + HOSTILE


def test_name_columns_read_back_byte_exact(tmp_path):
    frame = pd.DataFrame(
        {
            "model": NAMES,
            "item_id": NAMES[::-1],
            "accuracy": [i / 10 for i in range(len(NAMES))],
            "n": range(len(NAMES)),
        }
    )
    path = tmp_path / "t.csv"
    write_csv(frame, path, float_format="%.6g")
    back = read_csv(path)
    assert back["model"].tolist() == NAMES
    assert back["item_id"].tolist() == NAMES[::-1]
    pd.testing.assert_frame_equal(back[["accuracy", "n"]], frame[["accuracy", "n"]])


def test_lookups_by_name_work_for_numeric_and_na_like_names(tmp_path):
    path = tmp_path / "t.csv"
    write_csv(pd.DataFrame({"model": ["1000", "NA", "2000"], "score": [0.1, 0.2, 0.3]}), path)
    by_model = read_csv(path).set_index("model")["score"]
    assert by_model["1000"] == 0.1 and by_model["NA"] == 0.2


def test_other_columns_parse_as_pandas_does(tmp_path):
    text = "model,x,y,label\nNA,NA,1.5,\n1000,,n/a,c\nnull,2,3,NA\n"
    path = tmp_path / "t.csv"
    path.write_text(text)
    ours = read_csv(path)
    plain = pd.read_csv(path)
    pd.testing.assert_frame_equal(ours.drop(columns="model"), plain.drop(columns="model"))
    assert ours["model"].tolist() == ["NA", "1000", "null"]


def test_an_empty_name_cell_is_still_missing(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("model,category\nA,\nB,NA\n")
    categories = read_csv(path)["category"]
    assert pd.isna(categories[0]) and categories[1] == "NA"


def test_side_tables_keep_names_as_text(tmp_path):
    path = tmp_path / "models.csv"
    path.write_text("model,display_order\nNA,1\n1000,2\nnull,3\n")
    frame = read_csv_frame(path)
    assert frame["model"].tolist() == ["NA", "1000", "null"]
    assert frame["display_order"].tolist() == [1, 2, 3]
    # A caller's own NA handling wins.
    assert read_csv_frame(path, dtype=str, keep_default_na=False)["display_order"][0] == "1"


def _cells(line: str) -> int:
    """Cells of a GFM table row: pipes not escaped by an odd run of backslashes."""
    separators = [m for m in re.finditer(r"(\\*)\|", line) if len(m.group(1)) % 2 == 0]
    return len(separators) - 1


def _tables_are_well_formed(markdown: str) -> None:
    header = None
    for line in markdown.split("\n"):
        if line.startswith("|"):
            header = header or _cells(line)
            assert _cells(line) == header, line
        else:
            header = None


def test_markdown_cell_escapes_pipes_and_line_breaks():
    assert cell("org/model | v2") == r"org/model \| v2"
    assert cell("a\\|b") == r"a\\\|b"
    assert cell("one\ntwo\r\nthree\u2028four") == "one<br>two<br>three<br>four"
    assert cell(float("nan")) == "" and cell(None, missing="--") == "--"
    assert row("a|b", 1, "c") == r"| a\|b | 1 | c |"


def _checks(names):
    return [
        Check("study", "table", "cell", name, "TAR | HFR\nrow", 1.0, 2.0, 0.1, note=f"n|{name}")
        for name in names
    ]


def test_check_markdown_tables_keep_their_cells_with_any_name():
    frame = checks_frame(_checks(NAMES))
    markdown = summary_markdown(frame, title="t", preamble="p")
    _tables_are_well_formed(markdown)
    assert markdown.count("\n| table | cell |") == len(NAMES) + 1  # the counts row, then each


def test_check_preambles_escape_the_names_they_carry():
    """Issue 37: a model left out of the shared items is named in the check's opening
    paragraph; a "|" or a line break in its name must not start a table there."""
    from rederive.studies.benchmark.check import check_preamble

    name = "x\n| a | b |\n|---|---|\n# heading"
    text = check_preamble("Published scores from a|b.csv.", "", f"Left out: {name} (3 items).")
    assert "\n" not in text and text.count(r"\|") == 7
    markdown = summary_markdown(checks_frame(_checks(NAMES)), title="t", preamble=text)
    _tables_are_well_formed(markdown)
    before_counts = markdown.split("## Counts by kind")[0]
    assert not any(line.startswith(("|", "#")) for line in before_counts.splitlines()[1:])


def test_summary_reads_n_a_status_as_text_and_keeps_tables_well_formed(tmp_path):
    checks = _checks(["org/model | v2", "NA"]) + [
        Check("study", "table", "cell", "x", "q", None, 1.0, 0.1)  # status n/a
    ]
    csv = tmp_path / "results" / "a|b" / "check" / "published_check.csv"
    csv.parent.mkdir(parents=True)
    checks_frame(checks).to_csv(csv, index=False)
    output = SimpleNamespace(csv=tmp_path / "s.csv", md=tmp_path / "s.md", html=tmp_path / "s.html")
    summary.main(
        SimpleNamespace(
            input=SimpleNamespace(checks=[str(csv)]),
            output=output,
            params=SimpleNamespace(earlier={}),
        )
    )
    markdown = output.md.read_text()
    _tables_are_well_formed(markdown)
    # n/a counted, not read as NaN; no power rows, so no detectable / underpowered counts
    assert r"| a\|b | cell | 3 | 0 | 2 |  |  | 1 |  |" in markdown
    assert "nan" not in markdown.lower().replace("| nan |", "")
    combined = read_csv(output.csv, text=summary.CHECK_TEXT)
    assert sorted(combined["status"]) == ["FAIL", "FAIL", "n/a"]
    assert set(combined["item"]) == {"org/model | v2", "NA", "x"}


def test_figures_draw_dollar_names_literally(tmp_path):
    apply_theme()
    names = ["$\\undefinedmacro$", "a$b$c", "1000", "NA"]
    fig, ax = plt.subplots()
    ax.bar(names, [1, 2, 3, 4])
    ax.set_title("$\\undefinedmacro$")
    fig.canvas.draw()  # mathtext would raise ValueError on the first name
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels == names
    assert not any(t.get_parse_math() for t in ax.get_xticklabels())
    save_figure(fig, tmp_path / "f.png", tmp_path / "f.pdf", note="a$b$c")
    assert (tmp_path / "f.pdf").stat().st_size > 0


def test_latex_escape_covers_angle_brackets_bar_and_non_ascii():
    assert escape("BH q < 0.05") == r"BH q \textless{} 0.05"
    assert escape("a > b | c") == r"a \textgreater{} b \textbar{} c"
    assert escape("café Łódź") == "café Łódź"  # typeset by pdfLaTeX as they are
    assert escape("中") == r"\texttt{[U+4E2D]}"
    assert escape("😀") == r"\texttt{[U+1F600]}"
    assert escape("a\nb\tc") == "a b c"
    assert escape("\x07") == r"\texttt{[U+0007]}"


def test_small_n_rows_are_never_bold():
    table = pd.DataFrame({"TAR": [100.0, 60.0, 40.0], "HFR": [0.0, 10.0, 20.0]})
    plain = bold_extremes(table, {"TAR": "max", "HFR": "min"})
    assert plain.iloc[0].all()
    bold = bold_extremes(table, {"TAR": "max", "HFR": "min"}, eligible=[False, True, True])
    assert bold["TAR"].tolist() == [False, True, False]
    assert bold["HFR"].tolist() == [False, True, False]


def _compile(tex: str, tmp_path) -> subprocess.CompletedProcess:
    document = "\n".join(
        [
            r"\documentclass{article}",
            r"\usepackage{booktabs}",
            r"\begin{document}",
            tex,
            r"\end{document}",
        ]
    )
    (tmp_path / "doc.tex").write_text(document, encoding="utf-8")
    return subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"],
        cwd=tmp_path,
        capture_output=True,
        encoding="utf-8",
        errors="replace",  # the log echoes input bytes one at a time
        timeout=120,
    )


@NEEDS_LATEX
def test_booktabs_with_hostile_names_compiles(tmp_path):
    body = pd.DataFrame({"Model": NAMES, "TAR": [float(i) for i in range(len(NAMES))]})
    tex = booktabs(
        body,
        caption="Names: <, >, |, é, 中",
        label="tab:x",
        notes="BH q < 0.05; P(endorse | tag); Ð þ ą; 😀",
    )
    done = _compile(tex, tmp_path)
    assert done.returncode == 0, done.stdout[-2000:]


@NEEDS_LATEX
def test_every_character_kept_as_is_compiles(tmp_path):
    from rederive.report.latex import TYPESET_AS_IS

    kept = "".join(chr(c) for low, high in TYPESET_AS_IS for c in range(low, high + 1))
    assert escape(kept) == kept
    done = _compile(escape(kept), tmp_path)
    assert done.returncode == 0, done.stdout[-2000:]
