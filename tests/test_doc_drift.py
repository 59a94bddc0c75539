"""What the docs and docstrings name exists: rules, library objects, functions, files,
input formats, the repository's folders, the tables each kind page lists.

Each test reads text only (no workflow run), so a rename that leaves a stale name
behind fails here, naming the file and the name.
"""

from __future__ import annotations

import ast
import importlib
import re
import subprocess
from pathlib import Path

import pytest
from test_docs import DOCS, README, parse_blocks, prose
from workflow_utils import REPO

from rederive.io import formats

CONTRIBUTING = REPO / "CONTRIBUTING.md"
PAGES = [README, CONTRIBUTING, *sorted(DOCS.rglob("*.md"))]
RULE_FILES = [REPO / "Snakefile", *sorted((REPO / "rules").glob("*.smk"))]
LIBRARY = REPO / "scripts" / "rederive"

#: Rules a module names that the workflow does not have yet, with where that is said.
NOT_YET_WIRED: dict[str, str] = {}


def _where(path: Path) -> str:
    return str(path.relative_to(REPO))


def workflow_rules() -> set[str]:
    return {
        name
        for path in RULE_FILES
        for name in re.findall(r"^rule (\w+):", path.read_text(encoding="utf-8"), re.M)
    }


# "Rule ``x``", "rules ``x`` and ``y``", "rule `x`" (Markdown): every name after it.
RULE_MENTION = re.compile(r"\b[Rr]ules?\s+((?:`{1,2}\w+`{1,2}(?:,\s*|\s+and\s+|\s+or\s+)?)+)")


def mentioned_rules(text: str) -> set[str]:
    return {
        name for group in RULE_MENTION.findall(text) for name in re.findall(r"`{1,2}(\w+)`", group)
    }


def module_docstrings() -> dict[Path, str]:
    docs = {}
    for path in sorted(LIBRARY.rglob("*.py")):
        docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
        if docstring:
            docs[path] = docstring
    return docs


def test_rule_mentions_are_found():
    text = "Rule ``a_b``: x; rules ``c`` and ``d``; the rule `e_f` writes; rule all"
    assert mentioned_rules(text) == {"a_b", "c", "d", "e_f"}


def test_every_rule_a_module_docstring_names_exists():
    rules = workflow_rules() | {"all"}
    stale = [
        f"{_where(path)}: rule {name}"
        for path, docstring in module_docstrings().items()
        for name in sorted(mentioned_rules(docstring))
        if name not in rules and name not in NOT_YET_WIRED
    ]
    assert not stale, "docstrings name rules the workflow does not have:\n" + "\n".join(stale)


def test_every_rule_the_docs_and_rule_comments_name_exists():
    rules = workflow_rules() | {"all"}
    texts = {path: prose(path) for path in PAGES}
    texts.update(
        {
            path: "\n".join(re.findall(r"#(.*)$", path.read_text(encoding="utf-8"), re.M))
            for path in RULE_FILES
        }
    )
    stale = [
        f"{_where(path)}: rule {name}"
        for path, text in texts.items()
        for name in sorted(mentioned_rules(text))
        if name not in rules and name not in NOT_YET_WIRED
    ]
    assert not stale, "the docs name rules the workflow does not have:\n" + "\n".join(stale)


def test_rules_not_yet_wired_are_still_missing():
    """Once the rule exists, its entry in NOT_YET_WIRED goes (and the docstring's note)."""
    wired = sorted(set(NOT_YET_WIRED) & workflow_rules())
    assert not wired, f"remove {wired} from NOT_YET_WIRED and the 'not in the workflow' notes"


def _code_spans(path: Path) -> list[str]:
    return re.findall(r"`([^`\n]+)`", prose(path))


def _resolves(reference: str) -> bool:
    parts = reference.split(".")
    for i in range(len(parts), 0, -1):
        try:
            target = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attribute in parts[i:]:
            if hasattr(target, attribute):
                target = getattr(target, attribute)
                continue
            try:
                target = importlib.import_module(f"{target.__name__}.{attribute}")
            except (ImportError, AttributeError):
                return False
        return True
    return False


def test_every_library_name_the_docs_cite_exists():
    """`rederive.io.batches.per_run_files`, `python -m rederive.audit`: module, then attributes."""
    cited = {
        (path, match)
        for path in PAGES
        for span in _code_spans(path)
        for match in re.findall(r"\brederive(?:\.[A-Za-z_]\w*)+", span)
    }
    assert len(cited) > 50  # the pattern still finds what the docs cite
    missing = sorted(f"{_where(path)}: {name}" for path, name in cited if not _resolves(name))
    assert not missing, "the docs cite library names that do not exist:\n" + "\n".join(missing)


def test_every_function_the_docs_call_by_name_exists():
    """`finish_workflow()`: a function of the rule files or of the library."""
    defined = {
        name
        for path in [*RULE_FILES, *(REPO / "rules").glob("*.smk"), *LIBRARY.rglob("*.py")]
        for name in re.findall(r"^\s*def (\w+)\(", path.read_text(encoding="utf-8"), re.M)
    }
    called = {
        (path, name)
        for path in PAGES
        for span in _code_spans(path)
        for name in re.findall(r"^(\w+)\(\)$", span)
    }
    missing = sorted(f"{_where(path)}: {name}()" for path, name in called if name not in defined)
    assert not missing, "the docs call functions that do not exist:\n" + "\n".join(missing)


TOP_FOLDERS = ("scripts", "rules", "config", "tests", "bench", "docs", "envs", "raw", "profiles")


def test_every_repository_path_the_docs_name_exists():
    """`scripts/rederive/plots/power.py`, `rules/common.smk`: paths without placeholders."""
    named = {
        (path, span.split("::")[0].rstrip(".,:;"))
        for path in PAGES
        for span in _code_spans(path)
        if re.match(rf"^(?:{'|'.join(TOP_FOLDERS)}|\.ci)/[^\s<>{{}}*…]*$", span)
    }
    assert len(named) > 50
    missing = sorted(
        f"{_where(path)}: {name}" for path, name in named if not (REPO / name).exists()
    )
    assert not missing, "the docs name files that do not exist:\n" + "\n".join(missing)


def test_the_input_formats_table_lists_every_registered_format():
    """docs/input-formats.md's table of folders: one row per format of rederive.io.formats."""
    text = prose(DOCS / "input-formats.md")
    table = text[text.index("| folder under `raw_dir` |") :].split("\n\n")[0]
    rows = re.findall(r"^\| `([\w.-]+)[/`]", table, re.M)
    listed = [row for row in rows if row not in {"items.csv", "published"}]
    assert sorted(listed) == sorted(formats.names()), (
        f"docs/input-formats.md lists {sorted(listed)}; rederive.io.formats has "
        f"{sorted(formats.names())}"
    )


def test_the_layout_names_every_top_level_entry():
    """The ``text`` layout block of docs/index.md: every entry exists, every top-level
    folder of the repository is there."""
    (block,) = [b for b in parse_blocks(DOCS / "index.md") if b.text.startswith("Snakefile")]
    paths = [line.split()[0] for line in block.text.splitlines() if line.strip()]
    missing = sorted(path for path in paths if not (REPO / path).exists())
    assert not missing, f"docs/index.md's layout names {missing}, which do not exist"
    listed = {path.split("/")[0] for path in paths}
    try:
        tracked = subprocess.run(
            ["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True
        ).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: the repository's folders are unknown")
    folders = {line.split("/")[0] for line in tracked if "/" in line}
    assert folders <= listed, f"docs/index.md's layout lacks {sorted(folders - listed)}"


def _declared_outputs() -> set[str]:
    """File names (``accuracy.csv``) of every output path the rule files write."""
    names = set()
    for path in RULE_FILES:
        for output in re.findall(r'"results/[^"]+"', path.read_text(encoding="utf-8")):
            names.add(output.strip('"').rsplit("/", 1)[-1])
    return names


def _expand(name: str) -> list[str]:
    """``ranking.{csv,tex}`` -> ``ranking.csv``, ``ranking.tex``."""
    braces = re.match(r"^(.*)\{([^}]*)\}(.*)$", name)
    if not braces:
        return [name]
    return [f"{braces.group(1)}{part}{braces.group(3)}" for part in braces.group(2).split(",")]


@pytest.mark.parametrize("page", sorted((DOCS / "kinds").glob("*.md")), ids=lambda p: p.stem)
def test_the_tables_a_kind_page_lists_are_written(page):
    """The first column of a kind page's outputs table names files the rules declare."""
    declared = _declared_outputs()
    listed = set()
    for line in prose(page).splitlines():
        first = line.split("|")[1] if line.startswith("| `") else ""
        for name in re.findall(r"`([\w.{},-]+\.(?:csv|md|tex|png|pdf|\{[\w,]+\}))`", first):
            listed.update(_expand(name))
    if page.stem == "preference-inputs":  # a kind's input formats: it lists no outputs
        assert not listed, f"{_where(page)}: an inputs page lists outputs {sorted(listed)}"
        return
    assert listed, f"{_where(page)}: no outputs table found"
    missing = sorted(listed - declared)
    assert not missing, f"{_where(page)} lists {missing}, which no rule writes"
