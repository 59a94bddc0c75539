"""The user documentation (README.md, docs/) is checked, and its commands are run.

Markers (an HTML comment on the line just above a fenced block):

``<!-- docs-test -->``
    This module runs the block from the repository root: each line of a
    ``bash`` block must exit 0; each ``$ command`` of a ``console`` block must
    print exactly the lines shown under it.
``<!-- docs-test: built -->``
    As above, but in the scratch directory of :func:`test_warehouse_queries_run`,
    after the bundled analyses' warehouses (and the tables the commands read)
    were built there.
``<!-- docs-test: dry-run -->``
    Each ``.venv/bin/snakemake …`` line is run with ``-n`` in a scratch
    directory (:func:`test_config_examples_dry_run`); a ``--configfile NAME`` is
    the config example marked ``file=NAME`` on the same page.
``<!-- verified-by: PATH[::TEST] -->``
    Another test runs it: PATH must exist (and define TEST). A PATH that is not
    a Python file (e.g. ``.ci/run``) must contain every command line literally.
``<!-- verbatim-run -->``
    Pasted from a verbatim run, not re-run by a test.
``<!-- config-example: FIXTURE [file=NAME] -->``
    A YAML config file: its absolute ``raw_dir`` / ``inputs`` folders are
    replaced by scratch folders holding FIXTURE data (``lm_eval``, ``inspect``,
    ``lm_eval_family``, ``matrix``, ``long``, ``swebench``, ``every_eval_ever``,
    ``eval_arena``, ``auto``, kind preference's ``alpaca_eval``, ``arena_hard``,
    ``mt_bench``, ``battles``, ``preference_long``,
    a paper kind's name, or ``bundled`` = leave as is) and
    the workflow is dry-run on it.
``<!-- warehouse: NAME -->``
    A ``sql`` block in docs/warehouse.md, run against
    ``results/NAME/NAME.duckdb``; a ``text`` block right after it is its
    expected output (``DataFrame.to_string(index=False)``).
``<!-- output: results/NAME/PATH -->``
    A ``text``/``csv`` block showing the file PATH of analysis NAME, built from
    the config example of the same page that defines NAME (with its FIXTURE
    data) by :func:`test_example_outputs`; the block must equal the file.
``<!-- docs-test: examples -->``
    A ``console`` block run in the scratch directory of
    :func:`test_example_outputs`, after the analyses it names (``results/NAME/``)
    were built from their config examples.
``<!-- not-output -->``
    A ``text`` block that shows no output (a formula): nothing to check.

Every ``bash``/``console`` block must carry one of the first five, and every
fenced block must name its language. Every block showing output (``text``,
``console``, ``csv``) must be checked: run (``docs-test``), built (``output``),
an expected query result (after a ``warehouse`` query), or compared by the test
its ``verified-by`` names (which must read the page); ``<!-- verbatim-run:
REASON -->`` says why one is not.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from workflow_utils import REPO, SNAKEMAKE, copy_build, prepare_workdir, run_workflow

README = REPO / "README.md"
DOCS = REPO / "docs"
DOC_FILES = [README, *sorted(DOCS.rglob("*.md"))]
COMMAND_LANGS = {"bash", "console", "sh", "shell"}
COMMAND_MARKERS = {"docs-test", "verified-by", "verbatim-run"}
FIXTURES = REPO / "tests" / "benchmark" / "fixtures"
PAPER_KINDS = ("salitrap", "tag_sycophancy", "bias_awareness", "cot_loadbearing")
MARKER = re.compile(r"^<!--\s*([a-z-]+)(?::\s*(.*?))?\s*-->$")
FENCE = re.compile(r"^(\s*)```(.*)$")


@dataclass
class Block:
    path: Path
    line: int  # 1-based line of the opening fence
    lang: str
    text: str
    marker: str | None  # name of the marker comment just above, if any
    arg: str  # its argument ("" when none)

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(REPO)}:{self.line}"


def parse_blocks(path: Path) -> list[Block]:
    """Fenced blocks of a Markdown file, with the marker comment above each."""
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        start, lang = i, match.group(2).strip()
        i += 1
        body = []
        while i < len(lines) and lines[i].strip() != "```":
            body.append(lines[i])
            i += 1
        above = next((lines[j].strip() for j in range(start - 1, -1, -1) if lines[j].strip()), "")
        marker = MARKER.match(above)
        blocks.append(
            Block(
                path=path,
                line=start + 1,
                lang=lang,
                text="\n".join(body),
                marker=marker.group(1) if marker else None,
                arg=(marker.group(2) or "").strip() if marker else "",
            )
        )
        i += 1
    return blocks


def prose(path: Path) -> str:
    """The file without its fenced blocks (links and references in code don't count)."""
    out, inside = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            inside = not inside
            continue
        if not inside:
            out.append(line)
    return "\n".join(out)


def command_lines(block: Block) -> list[str]:
    """Commands of a bash block: non-blank lines without trailing comments."""
    commands = []
    for raw in block.text.splitlines():
        line = raw.split(" #", 1)[0].strip() if not raw.lstrip().startswith("#") else ""
        if line:
            commands.append(line)
    return commands


def console_steps(block: Block) -> list[tuple[str, list[str]]]:
    """``$ command`` lines of a console block, each with the output lines under it."""
    steps: list[tuple[str, list[str]]] = []
    for line in block.text.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        elif steps:
            steps[-1][1].append(line.rstrip())
        else:
            raise AssertionError(f"{block.where}: console block must start with '$ '")
    return steps


ALL_BLOCKS = [block for path in DOC_FILES for block in parse_blocks(path)]


def blocks_marked(marker: str, arg: str | None = None) -> list[Block]:
    return [b for b in ALL_BLOCKS if b.marker == marker and (arg is None or b.arg == arg)]


def _block_id(block):
    return block.where


# --- (a)-(c): length, no issue references, links ---------------------------------


def test_readme_is_a_front_door():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines (at most 200)"


ISSUE_REFERENCE = re.compile(
    r"\b(?:issues?|pull requests?|PRs?)[\s#-]*\d+\b|(?<![\w&/#])#\d+\b", re.IGNORECASE
)


@pytest.mark.parametrize("path", DOC_FILES, ids=lambda p: str(p.relative_to(REPO)))
def test_no_issue_references(path):
    found = [
        f"line {n}: {m.group(0)!r}"
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        for m in ISSUE_REFERENCE.finditer(line)
    ]
    assert not found, f"{path.relative_to(REPO)} refers to issues: {found}"


LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def slug(heading: str) -> str:
    """GitHub's anchor of a Markdown heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    return {
        slug(line.lstrip("#")) for line in prose(path).splitlines() if re.match(r"^#{1,6} ", line)
    }


@pytest.mark.parametrize("path", DOC_FILES, ids=lambda p: str(p.relative_to(REPO)))
def test_relative_links_resolve(path):
    broken = []
    for target in LINK.findall(prose(path)):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE):
            continue  # http:, https:, mailto:
        file_part, _, anchor = target.partition("#")
        resolved = (path.parent / file_part).resolve() if file_part else path
        if not resolved.exists():
            broken.append(f"{target} (no file {resolved})")
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            broken.append(f"{target} (no heading with anchor #{anchor})")
    assert not broken, f"{path.relative_to(REPO)}: broken links {broken}"


# --- (d): every command block is run by a test or marked as a verbatim run ------------


def test_every_fenced_block_names_its_language():
    bare = [b.where for b in ALL_BLOCKS if not b.lang]
    assert not bare, f"fenced blocks without a language: {bare}"


@pytest.mark.parametrize("block", [b for b in ALL_BLOCKS if b.lang in COMMAND_LANGS], ids=_block_id)
def test_command_block_is_verified_or_verbatim(block):
    assert block.marker in COMMAND_MARKERS, (
        f"{block.where}: a {block.lang} block needs <!-- docs-test -->, "
        "<!-- verified-by: tests/... --> or <!-- verbatim-run --> just above it"
    )
    if block.marker == "docs-test":
        assert block.arg in {"", "built", "dry-run", "examples"}, (
            f"{block.where}: docs-test: {block.arg}?"
        )
    if block.marker == "verified-by":
        file_part, _, test_name = block.arg.partition("::")
        target = REPO / file_part
        assert file_part and target.is_file(), f"{block.where}: {file_part!r} does not exist"
        text = target.read_text(encoding="utf-8")
        if test_name:
            assert re.search(rf"^def {re.escape(test_name)}\(", text, re.M), (
                f"{block.where}: {file_part} defines no {test_name}"
            )
        if target.suffix != ".py":
            for command in command_lines(block):
                assert command in text, f"{block.where}: {file_part} does not run {command!r}"


def test_markers_are_known():
    known = COMMAND_MARKERS | {"config-example", "warehouse", "output", "not-output"}
    unknown = [f"{b.where}: {b.marker}" for b in ALL_BLOCKS if b.marker and b.marker not in known]
    assert not unknown, f"unknown markers: {unknown}"


def _run(command: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(command, shell=True, cwd=cwd, capture_output=True, text=True, timeout=600)


def run_block(block: Block, cwd: Path) -> None:
    """Run a docs-test block in ``cwd``; compare console output with the lines shown."""
    if block.lang == "console":
        for command, expected in console_steps(block):
            proc = _run(command, cwd)
            assert proc.returncode == 0, f"{block.where}: {command!r} failed:\n{proc.stderr}"
            got = [line.rstrip() for line in proc.stdout.rstrip("\n").splitlines()]
            want = expected
            while want and not want[-1]:
                want = want[:-1]
            assert got == want, (
                f"{block.where}: {command!r} printed\n"
                + "\n".join(got)
                + "\nnot\n"
                + "\n".join(want)
            )
    else:
        for command in command_lines(block):
            proc = _run(command, cwd)
            assert proc.returncode == 0, f"{block.where}: {command!r} failed:\n{proc.stderr}"


@pytest.mark.parametrize("block", blocks_marked("docs-test", ""), ids=_block_id)
def test_doc_command_runs(block):
    run_block(block, REPO)


# --- config examples: the README's analyses, dry-run --------------------------------


def _fill(folder: Path, fixture: str) -> Path:
    """Put ``fixture`` inputs into ``folder`` (a raw_dir), return it."""
    folder.mkdir(parents=True, exist_ok=True)
    if fixture == "lm_eval":
        shutil.copytree(FIXTURES / "lm_eval" / "out", folder / "lm_eval", dirs_exist_ok=True)
    elif fixture == "lm_eval_family":
        for run in ("leaderboard_json", "ifeval", "lmms_eval"):
            shutil.copytree(
                FIXTURES / "lm_eval_family" / run,
                folder / "lm_eval" / run,
                ignore=shutil.ignore_patterns("VERSION"),
                dirs_exist_ok=True,
            )
    elif fixture == "inspect":
        (folder / "inspect").mkdir(exist_ok=True)
        shutil.copy(
            FIXTURES / "inspect" / "0.3.285" / "mean.eval", folder / "inspect" / "alpha.eval"
        )
        shutil.copy(
            FIXTURES / "inspect" / "0.3.205" / "at_least_1.eval", folder / "inspect" / "beta.eval"
        )
    elif fixture == "matrix":
        (folder / "matrix").mkdir(exist_ok=True)
        rows = ["item,model_a,model_b"] + [f"q{i},{i % 2},{(i // 2) % 2}" for i in range(30)]
        (folder / "matrix" / "tiny.csv").write_text("\n".join(rows) + "\n")
    elif fixture == "long":
        (folder / "long").mkdir(exist_ok=True)
        rows = ["model,item_id,correct,task"] + [
            f"{m},q{i},{(i + k) % 2},tiny" for k, m in enumerate(["a", "b"]) for i in range(30)
        ]
        (folder / "long" / "tiny.csv").write_text("\n".join(rows) + "\n")
    elif fixture == "swebench":
        (folder / "swebench").mkdir(exist_ok=True)
        for name in (
            "nebius__moonshotai__Kimi-K2.6.test.json",
            "baseline_no_enhancement.iteration3.json",
        ):
            shutil.copy(FIXTURES / "swebench" / "public" / name, folder / "swebench")
    elif fixture == "every_eval_ever":
        shutil.copytree(
            FIXTURES / "every_eval_ever" / "data", folder / "every_eval_ever", dirs_exist_ok=True
        )
    elif fixture == "eval_arena":
        (folder / "eval_arena").mkdir(exist_ok=True)
        shutil.copy(FIXTURES / "eval_arena" / "cruxeval_input.jsonl", folder / "eval_arena")
    elif fixture == "helm":
        shutil.copytree(FIXTURES / "helm" / "benchmark_output", folder / "helm", dirs_exist_ok=True)
    elif fixture == "evalplus":
        # The tiny-coder run, as docs/input-formats.md shows it (base-coder's
        # --base-only run has no humaneval+ items: with both, require_equal refuses).
        (folder / "evalplus").mkdir(exist_ok=True)
        for path in (FIXTURES / "evalplus" / "0.4.0.dev44").glob("tiny-coder_*"):
            shutil.copy(path, folder / "evalplus")
    elif fixture == "lighteval":
        shutil.copytree(FIXTURES / "lighteval" / "out", folder / "lighteval", dirs_exist_ok=True)
    elif fixture == "opencompass":
        shutil.copytree(
            FIXTURES / "opencompass" / "outputs", folder / "opencompass", dirs_exist_ok=True
        )
    elif fixture == "auto":
        shutil.copytree(
            FIXTURES / "lm_eval" / "out", folder / "auto" / "lm_eval", dirs_exist_ok=True
        )
        _fill(folder / "auto", "long")
    elif fixture in PREFERENCE_FIXTURES:
        _fill_preference(folder, fixture)
    else:
        raise AssertionError(f"no fixture {fixture!r}")
    return folder


#: Fixture data of kind preference (tests/preference/preference_inputs.py): one per
#: format of its config examples (docs/kinds/preference-inputs.md).
PREFERENCE_FIXTURES = ("alpaca_eval", "arena_hard", "mt_bench", "battles", "preference_long")


def _fill_preference(folder: Path, fixture: str) -> None:
    sys.path.insert(0, str(REPO / "tests" / "preference"))
    import preference_inputs

    if fixture == "alpaca_eval":
        preference_inputs.alpaca_eval_folder(folder)
    elif fixture == "arena_hard":
        preference_inputs.arena_hard_folder(folder)
    elif fixture == "preference_long":
        (folder / "long").mkdir(exist_ok=True)
        rows = ["model_a,model_b,outcome,item_id,strength"] + [
            f"{a},{b},{(i + k) % 3 / 2},q{i},{1 + (i % 5 == 0)}"
            for k, (a, b) in enumerate([("x", "y"), ("y", "z"), ("z", "x")])
            for i in range(30)
        ]
        (folder / "long" / "games.csv").write_text("\n".join(rows) + "\n")
    else:
        preference_inputs.reader_fixture_folder(folder, fixture)


def materialise(block: Block, root: Path) -> dict:
    """The config of a config-example block, with its folders pointing at fixture data."""
    fixture = block.arg.split()[0]
    config = yaml.safe_load(block.text)
    assert isinstance(config, dict) and config.get("analyses"), f"{block.where}: no analyses"
    if fixture == "bundled":
        return config
    for name, entry in config["analyses"].items():
        raw_dir = str(entry.get("raw_dir", ""))
        if fixture in PAPER_KINDS:
            entry["raw_dir"] = str(REPO / "raw" / fixture)
        elif raw_dir.startswith("/"):
            entry["raw_dir"] = str(_fill(root / "data" / name, fixture))
        for fmt, folder in (entry.get("inputs") or {}).items():
            if isinstance(folder, str) and folder.startswith("/"):
                entry["inputs"][fmt] = str(_fill(root / "data" / f"{name}-{fmt}", fmt) / fmt)
    return config


def _workdir(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "raw").symlink_to(REPO / "raw")
    venv = Path(sys.executable).parents[1]
    if not (root / ".venv").exists():
        (root / ".venv").symlink_to(venv)
    return root


CONFIG_EXAMPLES = blocks_marked("config-example")


def test_config_examples_are_marked():
    """The README and the input-formats page have an example for the common input
    formats of kind benchmark, and the README one for a paper kind."""
    readme = {b.arg.split()[0] for b in CONFIG_EXAMPLES if b.path == README}
    formats_page = {b.arg.split()[0] for b in CONFIG_EXAMPLES if b.path.name == "input-formats.md"}
    assert {"lm_eval", "inspect", "matrix", "long"} <= readme | formats_page
    assert readme & set(PAPER_KINDS)
    for block in ALL_BLOCKS:
        if block.lang == "yaml" and "analyses:" in block.text:
            assert block.marker == "config-example", f"{block.where}: yaml without config-example"


@pytest.mark.slow
@pytest.mark.parametrize("block", CONFIG_EXAMPLES, ids=_block_id)
def test_config_examples_dry_run(block, tmp_path):
    """Each config example is accepted and plans jobs for every analysis it builds."""
    workdir = _workdir(tmp_path / "work")
    config = materialise(block, tmp_path)
    proc = run_workflow(workdir, config, extra_args=["-n"], check=False)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"{block.where}: dry run failed:\n{output[-6000:]}"
    for name in config.get("build") or config["analyses"]:
        assert f"results/{name}/" in output, f"{block.where}: no job planned for {name}"


def _example_file(page: Path, name: str) -> Block:
    for block in CONFIG_EXAMPLES:
        if block.path == page and f"file={name}" in block.arg.split():
            return block
    raise AssertionError(f"{page.relative_to(REPO)}: no config example marked file={name}")


@pytest.mark.slow
@pytest.mark.parametrize("block", blocks_marked("docs-test", "dry-run"), ids=_block_id)
def test_dry_run_commands(block, tmp_path):
    workdir = _workdir(tmp_path / "work")
    prepare_workdir(workdir, {})
    for command in command_lines(block):
        argv = shlex.split(command)
        assert argv[0] == ".venv/bin/snakemake", f"{block.where}: {command!r}"
        args = argv[1:]
        if "--configfile" in args:
            i = args.index("--configfile") + 1
            example = _example_file(block.path, args[i])
            config = materialise(example, tmp_path / args[i])
            (workdir / args[i]).write_text(yaml.safe_dump(config, sort_keys=False))
            args[i] = str(workdir / args[i])
        cmd = [str(SNAKEMAKE), "-s", str(REPO / "Snakefile"), "--directory", str(workdir)]
        proc = subprocess.run(
            [*cmd, *args, "-n"], cwd=workdir, capture_output=True, text=True, timeout=600
        )
        output = proc.stdout + proc.stderr
        assert proc.returncode == 0, f"{block.where}: {command!r} -n failed:\n{output[-6000:]}"


# --- (e): every example query of docs/warehouse.md runs on a real warehouse ----------


def query_blocks() -> list[tuple[Block, str | None]]:
    """(sql block, expected output or None) of docs/warehouse.md."""
    blocks = parse_blocks(DOCS / "warehouse.md")
    pairs = []
    for i, block in enumerate(blocks):
        if block.lang != "sql":
            continue
        assert block.marker == "warehouse" and block.arg, f"{block.where}: needs warehouse: NAME"
        following = blocks[i + 1] if i + 1 < len(blocks) else None
        expected = following.text if following is not None and following.lang == "text" else None
        pairs.append((block, expected))
    return pairs


def test_warehouse_doc_covers_every_kind():
    names = {block.arg for block, _ in query_blocks()}
    assert {*PAPER_KINDS, "benchmark"} <= names


def built_targets(names: set[str], blocks: list[Block]) -> list[str]:
    targets = {f"results/{name}/{name}.duckdb" for name in names}
    for block in blocks:
        for name in re.findall(r"rederive\.power --results results/([\w.-]+)", block.text):
            targets.add(f"results/{name}/tables/power.csv")
        for name in re.findall(r"results/([\w.-]+)/[\w.-]+\.duckdb", block.text):
            targets.add(f"results/{name}/{name}.duckdb")
    return sorted(targets)


def bundled_analyses() -> dict:
    return yaml.safe_load((REPO / "config" / "config.yaml").read_text())["analyses"]


def defining_example(name: str) -> Block:
    """The config example (of any page) that defines analysis ``name``."""
    for block in CONFIG_EXAMPLES:
        if name in (yaml.safe_load(block.text).get("analyses") or {}):
            return block
    raise AssertionError(f"no bundled analysis and no config example defines {name}")


def warehouse_analyses(root: Path) -> dict:
    """The analyses docs/warehouse.md queries that are not bundled (a kind without a
    bundled analysis), each from the config example defining it, on its fixture data."""
    bundled = bundled_analyses()
    extra = {}
    for name in sorted({block.arg for block, _ in query_blocks()} - set(bundled)):
        config = materialise(defining_example(name), root / name)
        extra[name] = config["analyses"][name]
    return extra


@pytest.fixture(scope="module")
def built_warehouses(bundled_build, tmp_path_factory) -> Path:
    """The warehouses docs/warehouse.md queries and the tables the ``built``
    commands read: the bundled build every test shares (conftest.bundled_build),
    used read-only; when a kind has no bundled analysis, a copy of it to which the
    analysis of that kind's config example is added, built from the example's
    fixture data."""
    names = sorted({block.arg for block, _ in query_blocks()})
    built = blocks_marked("docs-test", "built")
    root = tmp_path_factory.mktemp("warehouses")
    extra = warehouse_analyses(root / "data")
    if not extra:
        missing = [t for t in built_targets(set(names), built) if not (bundled_build / t).exists()]
        assert not missing, f"the bundled build lacks {missing}"
        return bundled_build
    workdir = copy_build(bundled_build, root / "work")
    run_workflow(
        workdir,
        {"build": names, "analyses": extra},
        targets=built_targets(set(names), built),
    )
    return workdir


@pytest.mark.slow
def test_warehouse_queries_run(built_warehouses):
    """Every query of docs/warehouse.md runs and prints the output shown.

    Run it alone with ``pytest tests/test_docs.py -k test_warehouse_queries_run``.
    """
    import duckdb

    failures = []
    for block, expected in query_blocks():
        db = built_warehouses / "results" / block.arg / f"{block.arg}.duckdb"
        con = duckdb.connect(str(db), read_only=True)
        try:
            got = con.execute(block.text).df().to_string(index=False)
        except duckdb.Error as error:
            failures.append(f"{block.where}: {error}")
            continue
        finally:
            con.close()
        if expected is not None and got.rstrip() != expected.rstrip():
            failures.append(f"{block.where}: printed\n{got}\nnot\n{expected}")
    assert not failures, "\n\n".join(failures)


@pytest.mark.slow
@pytest.mark.parametrize("block", blocks_marked("docs-test", "built"), ids=_block_id)
def test_built_doc_commands(block, built_warehouses):
    run_block(block, built_warehouses)


WAREHOUSE_ROW = re.compile(r"^\| `(\w+)`((?:, `\w+`)*) \| (?:`([^`]+)`|as above)")


def documented_warehouse_tables() -> dict[str, dict[str, list[str]]]:
    """Kind -> table -> the columns docs/warehouse.md lists, from its ``| table | columns |``
    rows: a ``## `<kind>` `` section's own, ``as above`` taking the rows before the first
    kind's section (the tables the paper kinds share)."""
    shared: dict[str, list[str]] = {}
    kinds: dict[str, dict[str, list[str]]] = {}
    current = None
    for line in prose(DOCS / "warehouse.md").splitlines():
        heading = re.match(r"^## `(\w+)`", line)
        if heading:
            current = kinds.setdefault(heading.group(1), {})
            continue
        row = WAREHOUSE_ROW.match(line)
        if not row:
            continue
        tables = [row.group(1), *re.findall(r"`(\w+)`", row.group(2))]
        for table in tables:
            columns = row.group(3).split(", ") if row.group(3) else shared[table]
            (shared if current is None else current)[table] = columns
    return kinds


def warehouse_of_kind(kind: str) -> str:
    """The analysis whose warehouse shows ``kind``'s tables: the bundled one named after
    it, else the one docs/warehouse.md queries whose config example is of that kind."""
    bundled = bundled_analyses()
    if bundled.get(kind, {}).get("kind") == kind:
        return kind
    for name in sorted({block.arg for block, _ in query_blocks()} - set(bundled)):
        entry = yaml.safe_load(defining_example(name).text)["analyses"][name]
        if entry["kind"] == kind:
            return name
    raise AssertionError(f"docs/warehouse.md queries no analysis of kind {kind}")


def test_warehouse_doc_lists_the_columns_of_every_kind():
    from rederive.analyses import kind_names

    documented = documented_warehouse_tables()
    assert set(kind_names(REPO / "config" / "schemas")) <= set(documented)
    assert all(documented[kind] for kind in documented), documented
    for kind in documented:
        warehouse_of_kind(kind)


@pytest.mark.slow
def test_warehouse_columns_are_the_documented_ones(built_warehouses):
    """The ``| table | columns |`` rows of docs/warehouse.md name every table of each bundled
    warehouse and its columns in order (``DESCRIBE``)."""
    import duckdb

    failures = []
    for kind, tables in documented_warehouse_tables().items():
        name = warehouse_of_kind(kind)
        db = built_warehouses / "results" / name / f"{name}.duckdb"
        con = duckdb.connect(str(db), read_only=True)
        try:
            actual = {
                table: [row[0] for row in con.execute(f'DESCRIBE "{table}"').fetchall()]
                for (table,) in con.execute("SHOW TABLES").fetchall()
            }
        finally:
            con.close()
        if sorted(actual) != sorted(tables):
            failures.append(
                f"docs/warehouse.md, `{kind}`: tables {sorted(tables)}, the warehouse has "
                f"{sorted(actual)}"
            )
        for table, columns in tables.items():
            if table in actual and actual[table] != columns:
                failures.append(
                    f"docs/warehouse.md, `{kind}`, table `{table}`: documented "
                    f"`{', '.join(columns)}`, the warehouse has `{', '.join(actual[table])}`"
                )
    assert not failures, "\n".join(failures)


# --- every block that shows output is checked ----------------------------------------

OUTPUT_LANGS = {"text", "console", "csv"}
OUTPUT_MARKERS = COMMAND_MARKERS | {"output", "not-output"}
OUTPUT_BLOCKS = blocks_marked("output")
EXAMPLE_COMMANDS = blocks_marked("docs-test", "examples")


def answers_a_query(block: Block) -> bool:
    """A ``text`` block right after a ``warehouse`` query: its expected result."""
    page = [b for b in ALL_BLOCKS if b.path == block.path]
    i = next(i for i, b in enumerate(page) if b.line == block.line)
    return block.lang == "text" and i > 0 and page[i - 1].marker == "warehouse"


def example_for(page: Path, name: str) -> Block:
    """The config example of ``page`` that defines analysis ``name``."""
    for block in CONFIG_EXAMPLES:
        if block.path == page and name in (yaml.safe_load(block.text).get("analyses") or {}):
            return block
    raise AssertionError(f"{page.relative_to(REPO)}: no config example defines analysis {name}")


@pytest.mark.parametrize("block", [b for b in ALL_BLOCKS if b.lang in OUTPUT_LANGS], ids=_block_id)
def test_output_block_is_checked(block):
    """A block showing output is run, built, or compared by a test that reads the page;
    a verbatim one says why no test can."""
    if answers_a_query(block):
        return
    assert block.marker in OUTPUT_MARKERS, (
        f"{block.where}: a {block.lang} block showing output needs <!-- docs-test -->, "
        "<!-- output: results/NAME/PATH -->, <!-- verified-by: tests/... --> (a test that "
        "reads this page), <!-- not-output --> or <!-- verbatim-run: REASON --> just above it"
    )
    if block.marker == "verbatim-run":
        assert block.arg, f"{block.where}: say why no test checks it: <!-- verbatim-run: REASON -->"
    elif block.marker == "verified-by":
        target = REPO / block.arg.partition("::")[0]
        assert target.suffix == ".py" and block.path.name in target.read_text(encoding="utf-8"), (
            f"{block.where}: {target.relative_to(REPO)} does not read "
            f"{block.path.relative_to(REPO)}, so it cannot check this block"
        )
    elif block.marker == "output":
        assert block.lang in {"text", "csv"}, f"{block.where}: output: on a {block.lang} block"
        assert re.fullmatch(r"results/[\w.-]+/\S+", block.arg), f"{block.where}: {block.arg}?"
        example_for(block.path, block.arg.split("/")[1])


def example_analyses() -> dict[tuple[Path, str], set[str]]:
    """(page, analysis) -> the files its ``output`` and ``docs-test: examples`` blocks read."""
    needed: dict[tuple[Path, str], set[str]] = {}
    for block in OUTPUT_BLOCKS:
        needed.setdefault((block.path, block.arg.split("/")[1]), set()).add(block.arg)
    for block in EXAMPLE_COMMANDS:
        for command, _ in console_steps(block):
            for name, rest in re.findall(r"results/([\w.-]+)/(\S+)", command):
                needed.setdefault((block.path, name), set()).add(f"results/{name}/{rest}")
    return needed


@pytest.mark.slow
def test_example_outputs(tmp_path):
    """Build, in one run, every analysis whose files a page shows, from that page's config
    example and its fixture data; each ``output`` block must equal its file, each
    ``docs-test: examples`` block print what it shows.

    When a table gains a column, paste the file this test prints into the block.
    """
    needed = example_analyses()
    analyses = {}
    for page, name in needed:
        config = materialise(example_for(page, name), tmp_path / "data" / name)
        analyses[name] = config["analyses"][name]
    workdir = _workdir(tmp_path / "work")
    targets = sorted(set().union(*needed.values()))
    run_workflow(workdir, {"analyses": analyses, "build": sorted(analyses)}, targets=targets)
    failures = []
    for block in OUTPUT_BLOCKS:
        got = (workdir / block.arg).read_text(encoding="utf-8").rstrip("\n").splitlines()
        want = [line.rstrip() for line in block.text.rstrip("\n").splitlines()]
        if got != want:
            failures.append(
                f"{block.where}: {block.arg} reads\n" + "\n".join(got) + "\nnot\n" + block.text
            )
    assert not failures, "\n\n".join(failures)
    for block in EXAMPLE_COMMANDS:
        run_block(block, workdir)
