"""Every kind end to end on hostile names (tests/names_corpus/make_names_corpus.py):
no traceback, every Markdown table well-formed, every name back byte for byte from
the CSVs, the summary's counts equal each analysis's, every ``.tex`` compiles."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from latex_utils import NEEDS_LATEX
from names_corpus.make_names_corpus import write_corpus
from workflow_utils import run_workflow

from rederive.io.names import read_csv

pytestmark = pytest.mark.slow

# An unescaped cell separator: a "|" not preceded by a backslash.
SEPARATOR = re.compile(r"(?<!\\)\|")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    root = tmp_path_factory.mktemp("names_corpus")
    config = write_corpus(root)
    names = config.pop("names")
    proc = run_workflow(root, config)
    return root, names, proc


def _results(root: Path, suffix: str) -> list[Path]:
    return sorted((root / "results").rglob(f"*{suffix}"))


def test_no_traceback(corpus):
    _, _, proc = corpus
    assert "Traceback" not in proc.stdout + proc.stderr
    assert "rederive: done (5 analyses" in proc.stdout + proc.stderr


def _tables(text: str) -> list[list[str]]:
    """Blocks of consecutive lines that start with '|'."""
    blocks, block = [], []
    for line in text.splitlines():
        if line.startswith("|"):
            block.append(line)
        elif block:
            blocks.append(block)
            block = []
    return blocks + ([block] if block else [])


def test_every_markdown_table_is_well_formed(corpus):
    root, _, _ = corpus
    files = _results(root, ".md")
    assert len(files) >= 6  # five checks and the summary
    for path in files:
        text = path.read_text(encoding="utf-8")
        for block in _tables(text):
            widths = {len(SEPARATOR.split(line)) for line in block}
            assert len(widths) == 1, f"{path}: ragged table {block[:3]}"
            assert re.fullmatch(r"\|(\s*:?-{3,}:?\s*\|)+", block[1]), f"{path}: {block[:2]}"
        # A name's line break or "|" outside a table would end the table early: no
        # line may look like the tail of a broken row.
        for line in text.splitlines():
            assert not (line.endswith("|") and not line.startswith("|")), f"{path}: {line!r}"


# The table of each kind that lists every model it analysed.
MODEL_TABLES = {
    "salitrap": "tables/table1_tar_hfr.csv",
    "tag_sycophancy": "tables/tag_effects.csv",
    "bias_awareness": "tables/rates.csv",
    "cot_loadbearing": "tables/table1_main.csv",
    "benchmark": "tables/accuracy.csv",
}


def test_every_name_comes_back_byte_exact(corpus):
    root, names, _ = corpus
    for kind, table in MODEL_TABLES.items():
        analysis = f"names_{kind}"
        frame = read_csv(root / "results" / analysis / table)
        assert set(frame["model"]) == set(names[analysis]), analysis
    # Items, tasks and categories of the benchmark too.
    from names_corpus.make_names_corpus import CATEGORIES, ITEM_NAMES, TASKS

    results = root / "results" / "names_benchmark" / "tables"
    difficulty = read_csv(results / "irt_difficulty.csv")
    assert set(difficulty["item_id"]) == set(ITEM_NAMES)
    assert set(read_csv(results / "accuracy_by_task.csv")["task"]) == set(TASKS)
    assert set(read_csv(results / "accuracy_by_category.csv")["category"]) == set(CATEGORIES)


def test_ranking_keeps_its_ties(corpus):
    root, names, _ = corpus
    ranking = read_csv(root / "results" / "names_benchmark" / "tables" / "ranking.csv")
    assert set(ranking["model"]) == set(names["names_benchmark"])
    # Models with equal accuracy cannot be separated: at least one tie group of two.
    accuracy = read_csv(root / "results" / "names_benchmark" / "tables" / "accuracy.csv")
    assert accuracy["accuracy"].duplicated().any()
    assert (ranking["n_tied"] > 0).any()


def test_published_names_reach_the_check_intact(corpus):
    """Issue 37: every hostile name is a cell row of the benchmark's published check
    (the leaderboard is in percent: read as printed and converted, with a note), and
    the check's Markdown keeps one table row per failing check, whatever the name."""
    from names_corpus.make_names_corpus import GHOST_MODEL

    root, names, _ = corpus
    folder = root / "results" / "names_benchmark" / "check"
    check = read_csv(folder / "published_check.csv", text=("status", "note", "kind"))
    cells = check[check["kind"] == "cell"].set_index("item")
    assert set(cells.index) == {*names["names_benchmark"], GHOST_MODEL}
    real = cells.drop(index=GHOST_MODEL)
    assert (real["status"] == "pass").all()
    assert real["note"].str.contains("read as a percentage (cells carry %)", regex=False).all()
    assert cells.loc[GHOST_MODEL, "status"] == "n/a"
    markdown = (folder / "published_check.md").read_text(encoding="utf-8")
    assert "## Cells: n/a (1)" in markdown
    assert r"ghost \| model<br>not in the run" in markdown


def test_summary_counts_equal_each_analysis(corpus):
    root, names, _ = corpus
    summary = read_csv(root / "results" / "summary" / "published_check.csv")
    for analysis in names:
        own = read_csv(root / "results" / analysis / "check" / "published_check.csv")
        assert set(own["study"]) <= {analysis}
        mine = summary[summary["study"] == analysis]
        assert len(mine) == len(own), analysis
        assert mine["status"].value_counts().to_dict() == own["status"].value_counts().to_dict(), (
            analysis
        )


@NEEDS_LATEX
def test_every_tex_table_compiles(corpus, tmp_path):
    root, _, _ = corpus
    tables = _results(root, ".tex")
    assert tables
    for path in tables:
        document = "\n".join(
            [
                r"\documentclass{article}",
                r"\usepackage{booktabs}",
                r"\usepackage{threeparttable}",
                r"\begin{document}",
                path.read_text(encoding="utf-8"),
                r"\end{document}",
            ]
        )
        (tmp_path / "doc.tex").write_text(document, encoding="utf-8")
        done = subprocess.run(
            ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"],
            cwd=tmp_path,
            capture_output=True,
            encoding="utf-8",
            errors="replace",
            timeout=120,
        )
        assert done.returncode == 0, f"{path}:\n{done.stdout[-1500:]}"
