"""A kind and an input format are plug-ins: the promise of CONTRIBUTING.md, tested.

In a copy of the tree, a throwaway kind (``toy``: its schema, rules, rule
script, caption, docs page) and a throwaway benchmark input format (``toyfmt``:
one module) are added, the project's generator writes the kind's defaults
file, and the workflow builds an analysis of each. The test counts the
existing files that had to change by hand: CONTRIBUTING.md states the numbers
(:data:`KIND_EDITS`, :data:`FORMAT_EDITS`), and a test below holds the two equal.
"""

import hashlib
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml
from workflow_utils import REPO

pytestmark = pytest.mark.slow

#: Existing files a new kind changes: its row in the docs' table of kinds.
KIND_EDITS = {"docs/index.md"}
#: Existing files a new input format changes: its row in the table of formats, and
#: a base file for the bad-input corpus (so that the corpus walks its reader).
FORMAT_EDITS = {"docs/input-formats.md", "tests/corpus/make_corpus.py"}
COPIED = ("Snakefile", "pyproject.toml", "rules", "scripts", "config", "envs", "profiles", "docs")
SNAKEMAKE = Path(sys.executable).with_name("snakemake")


def digest_tree(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def changed_files(before: dict, root: Path) -> set[str]:
    after = digest_tree(root)
    return {path for path, sha in before.items() if after.get(path) != sha}


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "tree"
    root.mkdir()
    for name in COPIED:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(
                source, root / name, ignore=shutil.ignore_patterns("__pycache__", ".snakemake")
            )
        else:
            shutil.copy2(source, root / name)
    (root / "tests" / "corpus").mkdir(parents=True)
    shutil.copy2(REPO / "tests" / "corpus" / "make_corpus.py", root / "tests" / "corpus")
    return root, digest_tree(root)


def write(root: Path, relative: str, text: str) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip())


def run(root: Path, *args, env_extra=None, check=True) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(root / "scripts"), **(env_extra or {})}
    proc = subprocess.run(args, cwd=root, env=env, capture_output=True, text=True)
    if check:
        assert proc.returncode == 0, f"{args} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


def build(root: Path, config: dict, *targets) -> subprocess.CompletedProcess:
    (root / "my.yaml").write_text(yaml.safe_dump(config))
    return run(root, str(SNAKEMAKE), *targets, "--cores", "2", "--configfile", "my.yaml")


def add_toy_kind(root: Path) -> None:
    write(
        root,
        "config/schemas/toy.schema.yaml",
        """
        $schema: "https://json-schema.org/draft/2020-12/schema"
        description: A throwaway kind that counts passes per model (tests/test_plugins.py).
        type: object
        properties:
          raw_dir:
            $ref: "shared.schema.yaml#/$defs/raw_dir"
            description: Folder with runs/<model>.jsonl, one {"item", "score"} record per line.
          audit: {$ref: "shared.schema.yaml#/$defs/audit"}
          threshold:
            description: A score at or above it is a pass.
            type: number
            minimum: 0
            maximum: 1
            default: 0.5
        additionalProperties: false
        """,
    )
    write(
        root,
        "rules/toy.smk",
        """
        # Kind `toy` (tests/test_plugins.py): passes per model.


        rule count_toy_passes:
            input:
                runs=lambda w: [str(p) for p in run_files(w.analysis).values()],
            output:
                counts=report(
                    "results/{analysis}/tables/counts.csv",
                    caption="report/toy/counts.rst",
                    category="{analysis}",
                    subcategory="Tables",
                ),
            params:
                threshold=setting("threshold"),
            script:
                "../scripts/rederive/studies/toy/counts.py"


        register_kind(
            "toy",
            runs=run_ids,
            targets=lambda name: [f"results/{name}/tables/counts.csv"],
            layout=paper_layout([], "runs/<model>.jsonl"),
        )
        """,
    )
    write(
        root,
        "scripts/rederive/studies/toy/counts.py",
        """
        import json
        from pathlib import Path


        def main(snakemake):
            rows = ["model,passes,items"]
            for path in sorted(snakemake.input.runs):
                scores = [json.loads(line)["score"] for line in Path(path).read_text().splitlines()]
                passes = sum(s >= snakemake.params.threshold for s in scores)
                rows.append(f"{Path(path).stem},{passes},{len(scores)}")
            Path(snakemake.output.counts).write_text("\\n".join(rows) + "\\n")


        if __name__ == "__main__" and "snakemake" in globals():
            from rederive.runner import run

            run(main, snakemake)
        """,
    )
    write(root, "scripts/rederive/studies/toy/__init__.py", '"""Kind toy."""\n')
    write(root, "rules/report/toy/counts.rst", "{{ snakemake.params.label }}: passes per model.\n")
    write(root, "docs/kinds/toy.md", "# Kind `toy`\n\nPasses per model.\n")
    index = root / "docs" / "index.md"
    text = index.read_text()
    row = next(line for line in text.splitlines() if "[kinds/benchmark.md]" in line)
    index.write_text(text.replace(row, row + "\n| `toy` | [kinds/toy.md](kinds/toy.md) | none |"))


def add_toy_format(root: Path) -> None:
    write(
        root,
        "scripts/rederive/io/formats/toyfmt.py",
        '''
        """Throwaway format (tests/test_plugins.py): lines ``model|item|score``."""

        from pathlib import Path

        from rederive.errors import InputError, relpath
        from rederive.io.source import iter_text_lines
        from rederive.io.tabular import count_score, frame_from_records, graded_row, parse_correct

        NAME = "toyfmt"
        ORDER = 1000
        LAYOUT = "toyfmt/<name>.toy: lines model|item|score."
        DESCRIPTION = "toy lines model|item|score"
        REPORTS = False
        OPTIONS = {
            "type": "object",
            "default": {},
            "properties": {
                "task": {"description": "Task of every item.", "type": "string", "default": "toy"}
            },
            "additionalProperties": False,
        }


        def find_runs(folder):
            return [(p.stem, p) for p in sorted(Path(folder).glob("*.toy"))]


        def detect(path):
            return Path(path).suffix == ".toy"


        def files(path):
            return [Path(path)]


        def read(path, *, params, accounting):
            rows = []
            for number, line in enumerate(iter_text_lines(path), start=1):
                parts = line.strip().split("|")
                if len(parts) != 3:
                    raise InputError("expected model|item|score", file=relpath(path), line=number)
                accounting.rows_read += 1
                score = parse_correct(parts[2], file=relpath(path), line=number, field="score")
                if count_score(accounting, score, "missing score", number):
                    task = params.get(NAME, {}).get("task", "toy")
                    rows.append(graded_row(parts[0], task, parts[1], score, relpath(path), line=number))
            return frame_from_records(rows)


        def reported(path, *, params):
            raise AssertionError("REPORTS is False")
        ''',
    )
    inputs = root / "docs" / "input-formats.md"
    text = inputs.read_text()
    row = next(line for line in text.splitlines() if line.startswith("| `opencompass/`"))
    inputs.write_text(
        text.replace(row, row + "\n| `toyfmt/<name>.toy` | lines model\\|item\\|score | the file |")
    )
    corpus = root / "tests" / "corpus" / "make_corpus.py"
    corpus.write_text(
        corpus.read_text()
        + '\nNOT_WALKED["toyfmt"] = "a throwaway format of tests/test_plugins.py"\n'
    )


def test_a_new_kind_changes_only_its_row_of_the_docs(tree, tmp_path):
    root, before = tree
    add_toy_kind(root)
    run(root, sys.executable, "-m", "rederive.config_yaml")
    assert (root / "config" / "kinds" / "toy.yaml").is_file()
    assert changed_files(before, root) == KIND_EDITS
    raw = tmp_path / "toyraw" / "runs"
    raw.mkdir(parents=True)
    for model, scores in {"m1": [0.2, 0.9, 0.5], "m2": [1.0, 1.0, 0.0]}.items():
        (raw / f"{model}.jsonl").write_text(
            "".join(f'{{"item": "q{i}", "score": {s}}}\n' for i, s in enumerate(scores))
        )
    config = {"analyses": {"mine": {"kind": "toy", "raw_dir": str(raw.parent)}}, "build": ["mine"]}
    proc = build(root, config)
    assert (
        root / "results/mine/tables/counts.csv"
    ).read_text() == "model,passes,items\nm1,2,3\nm2,2,3\n"
    assert "rederive: mine: first build" in proc.stderr
    assert (root / "results/site/mine/index.html").is_file()
    assert not (root / "results/mine/figures").exists()  # no power tables, no power figure
    run(root, str(SNAKEMAKE), "--lint", "--configfile", "my.yaml")


def test_a_new_format_is_its_module(tree, tmp_path):
    root, before = tree
    add_toy_format(root)
    run(root, sys.executable, "-m", "rederive.config_yaml")
    assert changed_files(before, root) == FORMAT_EDITS | {"config/kinds/benchmark.yaml"}
    out = run(
        root,
        sys.executable,
        "-c",
        "from rederive.io import formats; from rederive.analyses import load_schema;"
        "s = load_schema('config/schemas/benchmark.schema.yaml');"
        "print(formats.names()[-1], 'toyfmt' in s['properties']['inputs']['properties'],"
        " s['properties']['toyfmt']['default'])",
    )
    assert out.stdout.split() == ["toyfmt", "True", "{}"]
    raw = tmp_path / "bench" / "toyfmt"
    raw.mkdir(parents=True)
    (raw / "run1.toy").write_text(
        "".join(f"m{m}|q{i}|{(i + m) % 2}\n" for m in range(2) for i in range(30))
    )
    config = {
        "analyses": {
            "mine": {"kind": "benchmark", "raw_dir": str(raw.parent), "toyfmt": {"task": "t"}}
        },
        "build": ["mine"],
    }
    build(root, config, "results/mine/tables/accuracy.csv")
    accuracy = (root / "results/mine/tables/accuracy.csv").read_text()
    assert accuracy.startswith("model,n_items,n_correct") and "\nm0,30,15," in accuracy


def test_contributing_states_the_tested_numbers():
    text = (REPO / "CONTRIBUTING.md").read_text()
    kind = re.search(r"A new kind changes (\d+) existing file", text)
    fmt = re.search(r"A new input format changes (\d+) existing files", text)
    assert kind and int(kind.group(1)) == len(KIND_EDITS)
    assert fmt and int(fmt.group(1)) == len(FORMAT_EDITS)
