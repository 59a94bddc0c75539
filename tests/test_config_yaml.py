"""One source for defaults: config/kinds/<kind>.yaml is generated from the schemas.

The schema of a kind holds every option's default, bounds and description;
``python -m rederive.config_yaml`` writes the commented YAML from it. These tests
keep the committed files equal to the generator's output, check that the output
means exactly the schema's defaults, that every option says what it is, that the
kinds' pages state the schema's defaults, and that no default changed unnoticed
(the resolved bundled config against a committed snapshot).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from rederive import config_yaml
from rederive.analyses import (
    fill_defaults,
    kind_names,
    kind_schema,
    load_schema,
    resolve,
    resolve_analysis,
)

REPO = Path(__file__).resolve().parents[1]
SCHEMAS = REPO / "config" / "schemas"
KINDS = kind_names(SCHEMAS)
SNAPSHOT = REPO / "tests" / "config" / "resolved_bundled.json"
SNAPSHOT_COMMAND = "PYTHONPATH=scripts python tests/test_config_yaml.py --snapshot"


def _schema(kind: str) -> dict:
    return kind_schema(SCHEMAS, kind)


# ------------------------------------------------------------------ the files
def test_committed_yaml_equals_the_generator_output():
    differ = config_yaml.check(REPO)
    assert not differ, (
        f"{', '.join(differ)} differ from config/schemas/: the schema is the source of "
        f"every default and description; run `{config_yaml.REGENERATE}` and commit the result"
    )


@pytest.mark.parametrize("kind", KINDS)
def test_generated_yaml_is_exactly_the_schema_defaults(kind):
    schema = _schema(kind)
    generated = yaml.safe_load(config_yaml.render_kind(kind, schema))
    committed = yaml.safe_load((REPO / "config" / "kinds" / f"{kind}.yaml").read_text())
    assert generated == fill_defaults({}, schema)
    assert committed == generated
    # And as a user's entry: setting every option to its listed value changes nothing.
    kinds = list(KINDS)
    bare = resolve_analysis("x", {"kind": kind, "raw_dir": "."}, SCHEMAS, kinds)
    spelled_out = resolve_analysis("x", {"kind": kind, "raw_dir": ".", **generated}, SCHEMAS, kinds)
    assert spelled_out == bare


@pytest.mark.parametrize("kind", KINDS)
def test_the_header_example_is_a_valid_entry(kind):
    schema = _schema(kind)
    example = {"kind": kind, "raw_dir": f"/data/my_{kind}", **(schema.get("x-example") or {})}
    resolved = resolve_analysis(f"my_{kind}", example, SCHEMAS, list(KINDS))
    for key, value in (schema.get("x-example") or {}).items():
        assert resolved[key] == fill_defaults({key: value}, schema)[key]
    text = config_yaml.render_kind(kind, schema)
    assert f"#       kind: {kind}\n" in text


def test_the_generator_is_deterministic(tmp_path):
    first = {kind: config_yaml.render_kind(kind, _schema(kind)) for kind in KINDS}
    assert first == {kind: config_yaml.render_kind(kind, _schema(kind)) for kind in KINDS}
    # A fresh interpreter with another hash seed writes the same bytes.
    copy = tmp_path / "repo"
    shutil.copytree(REPO / "config", copy / "config")
    for path in (copy / "config" / "kinds").glob("*.yaml"):
        path.unlink()
    env = {**os.environ, "PYTHONHASHSEED": "12345", "PYTHONPATH": str(REPO / "scripts")}
    proc = subprocess.run(
        [sys.executable, "-m", "rederive.config_yaml", "--root", str(copy)],
        env=env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    written = {
        path.stem: path.read_text(encoding="utf-8")
        for path in (copy / "config" / "kinds").glob("*.yaml")
    }
    assert written == first


def test_check_names_the_files_that_drifted(tmp_path, capsys):
    root = tmp_path / "repo"
    shutil.copytree(REPO / "config", root / "config")
    assert config_yaml.main(["--check", "--root", str(root)]) == 0
    kind = KINDS[0]
    hand_edit = root / "config" / "kinds" / f"{kind}.yaml"
    hand_edit.write_text(hand_edit.read_text() + "# a comment written by hand\n")
    (root / "config" / "kinds" / "gone.yaml").write_text("x: 1\n")
    assert config_yaml.main(["--check", "--root", str(root)]) == 1
    err = capsys.readouterr().err
    assert f"config/kinds/{kind}.yaml differs from its schema" in err
    assert "config/kinds/gone.yaml is the YAML of no kind" in err
    assert config_yaml.REGENERATE in err
    # Regenerating fixes the drifted file and leaves the stray one to the developer.
    assert config_yaml.main(["--root", str(root)]) == 0
    assert config_yaml.check(root) == ["config/kinds/gone.yaml"]


def test_a_schema_default_change_reaches_the_yaml(tmp_path):
    root = tmp_path / "repo"
    shutil.copytree(REPO / "config", root / "config")
    schema_path = root / "config" / "schemas" / "benchmark.schema.yaml"
    text = schema_path.read_text()
    assert "default: 20250107}" in text
    schema_path.write_text(text.replace("default: 20250107}", "default: 7}", 1))
    assert config_yaml.check(root) == ["config/kinds/benchmark.yaml"]
    config_yaml.write(root)
    written = yaml.safe_load((root / "config" / "kinds" / "benchmark.yaml").read_text())
    assert written["irt"]["seed"] == 7


AWKWARD = {
    "description": "a kind made up for the test.",
    "x-example": {"words": ["no"]},
    "$defs": {
        "rule": {
            "type": "object",
            "description": "One rule.",
            "properties": {"size": {"description": "Its size.", "type": "integer", "default": 1}},
        }
    },
    "properties": {
        "raw_dir": {"description": "Where the inputs are.", "type": "string"},
        "words": {
            "description": "Words YAML 1.1 reads as something else.",
            "x-note": "A note beside the description.\n  an: example, kept as it is",
            "type": "array",
            "default": ["yes", "no", "on", "off", "null", "1.5", "0x1F", "a: b", "#x", "ok"]
            + [f"word{i}" for i in range(30)],
        },
        "tiny": {"description": "Small and large floats.", "default": [1e-9, 1.5e20, 0.1, -2.0]},
        "nested": {
            "description": "A free-form map too long for one line.",
            "type": "object",
            "default": {f"key {i}": {"list": list(range(8)), "none": None} for i in range(4)},
        },
        "rules": {
            "description": "Two rules of one $defs entry.",
            "type": "object",
            "properties": {
                "a": {"$ref": "#/$defs/rule", "description": "Rule a."},
                "b": {"$ref": "#/$defs/rule", "description": "Rule b."},
            },
            "default": {"a": {"size": 2}, "b": {"size": 3}},
        },
        "switch": {
            "description": "A block that is off (null) unless set.",
            "type": ["object", "null"],
            "default": None,
            "properties": {
                "name": {"description": "Its name.", "type": "string"},
                "level": {"description": "Its level.", "type": "number", "default": 0.5},
            },
        },
    },
}


def test_render_round_trips_awkward_values():
    text = config_yaml.render_kind("awkward", AWKWARD)
    assert yaml.safe_load(text) == fill_defaults({}, AWKWARD)
    assert all(len(line) <= config_yaml.WIDTH for line in text.splitlines() if "#" in line)
    assert "# raw_dir: (no default)\n" in text
    assert "# A note beside the description.\n#   an: example, kept as it is\n" in text
    assert '#       words: ["no"]\n' in text
    # The $defs entry's options are described at its first use only.
    assert text.count("# Its size.") == 1 and "# Rule b." in text
    # A block off by default shows its options as comments, ready to uncomment.
    assert (
        "switch: null\n# When set, switch takes:\n#   # Its name.\n#   # name: (no default)\n"
        "#   # Its level.\n#   level: 0.5\n"
    ) in text


def test_editing_the_generator_reruns_no_job(tmp_path):
    from rederive.code_version import library_version

    library = tmp_path / "rederive"
    shutil.copytree(REPO / "scripts" / "rederive", library)
    before = library_version(library)
    generator = library / "config_yaml.py"
    generator.write_text(generator.read_text() + "\n# an edit\n")
    assert library_version(library) == before
    resolver = library / "analyses.py"
    resolver.write_text(resolver.read_text() + "\n# an edit\n")
    assert library_version(library) != before


# ------------------------------------------------------------------ descriptions
def _options(schema: dict, root: dict, prefix: str = ""):
    """(dotted name, schema) of every option: the keys reachable through
    ``properties`` (local ``$ref``s resolved), i.e. every key the YAML shows."""
    for key, sub in (schema.get("properties") or {}).items():
        ref = sub.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/"):
            target = root
            for part in ref[2:].split("/"):
                target = target[part]
            sub = {**target, **{k: v for k, v in sub.items() if k != "$ref"}}
        yield prefix + key, sub
        yield from _options(sub, root, f"{prefix}{key}.")


@pytest.mark.parametrize("kind", KINDS)
def test_every_option_says_what_it_is(kind):
    schema = _schema(kind)
    assert schema.get("description", "").strip(), f"{kind}: the schema has no description"
    silent = [
        name
        for name, sub in _options(schema, schema)
        if not str(sub.get("description", "")).strip()
    ]
    assert not silent, (
        f"config/schemas/{kind}.schema.yaml: options without a description: {silent}; "
        "every option says what it is (the description becomes its comment in "
        f"config/kinds/{kind}.yaml)"
    )


def test_a_missing_description_is_caught():
    schema = load_schema(SCHEMAS / "benchmark.schema.yaml")
    del schema["properties"]["irt"]["properties"]["lr"]["description"]
    names = [n for n, sub in _options(schema, schema) if not sub.get("description")]
    assert names == ["irt.lr"]


# ------------------------------------------------------------------ no value changed
def _resolved_bundled() -> dict:
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    analyses, build = resolve(config, SCHEMAS, list(KINDS))
    return {"build": build, "analyses": analyses}


def _canonical(value) -> str:
    return json.dumps(value, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def test_the_bundled_config_resolves_as_the_snapshot_says():
    # The YAML follows the schema by construction, so this snapshot is what notices
    # a default changed by a schema edit (a description rewrapped, a block moved
    # into a format module). A deliberate change rewrites it.
    assert json.loads(_canonical(_resolved_bundled())) == json.loads(SNAPSHOT.read_text()), (
        "the resolved bundled config differs from tests/config/resolved_bundled.json: a "
        "default changed. If that is deliberate, say so in CHANGELOG.md and run "
        f"`{SNAPSHOT_COMMAND}`"
    )


# ------------------------------------------------------------------ the kinds' pages
CELL = re.compile(r"(?<!\\)\|")
CODE = re.compile(r"`([^`]+)`")


def _option_rows(kind: str) -> list[tuple[int, list[str], str]]:
    """(line, option names, default cell) of the Options table of docs/kinds/<kind>.md."""
    lines = (REPO / "docs" / "kinds" / f"{kind}.md").read_text(encoding="utf-8").splitlines()
    start = lines.index("## Options")
    rows = []
    for number, line in enumerate(lines[start + 1 :], start + 2):
        if line.startswith("## "):
            break
        if line.startswith("| `"):
            cells = [c.strip() for c in CELL.split(line)[1:-1]]
            rows.append((number, [n.replace("\\|", "|") for n in CODE.findall(cells[0])], cells[1]))
    return rows


def _name_pattern(name: str) -> re.Pattern:
    parts = [r"[^.]+" if p.startswith("<") else re.escape(p) for p in name.split(".")]
    return re.compile(r"\.".join(parts))


def _stated(cell: str) -> list | None:
    """The values a default cell states, when it is nothing but code spans."""
    spans = CODE.findall(cell)
    if not spans or CODE.sub("", cell).replace(",", "").strip():
        return None  # prose: checked by a reader, not here
    values = []
    for span in spans:
        value = yaml.safe_load(span)
        if isinstance(value, str) and re.fullmatch(r"[-+]?\d+(\.\d*)?[eE][-+]?\d+", value):
            value = float(value)  # 1e-9: a number to a reader, text to YAML 1.1
        values.append(value)
    return values


def _default_at(defaults: dict, name: str, schema: dict):
    """The default of a dotted option; under a block that is null by default
    (the benchmark kind's gate), the default it takes when the block is set."""
    value, node = defaults, schema
    for part in name.split("."):
        if value is None:
            value = fill_defaults({}, node)
        node = (node.get("properties") or {}).get(part, {})
        value = value[part]
    return value


@pytest.mark.parametrize("kind", KINDS)
def test_the_kind_page_states_the_schema_defaults(kind):
    schema = _schema(kind)
    defaults = fill_defaults({}, schema)
    options = [name for name, _ in _options(schema, schema)]
    page = f"docs/kinds/{kind}.md"
    rows = _option_rows(kind)
    unknown, wrong, checked = [], [], 0
    for line, names, cell in rows:
        for name in names:
            if not any(_name_pattern(name).fullmatch(o) for o in options):
                unknown.append(f"{page}:{line}: `{name}`")
        values = _stated(cell)
        if values is None or any("<" in n for n in names):
            continue
        if len(values) == 1:
            values = values * len(names)
        assert len(values) == len(names), f"{page}:{line}: {len(names)} options, {cell}"
        for name, value in zip(names, values, strict=True):
            checked += 1
            schema_default = _default_at(defaults, name, schema)
            if value != schema_default:
                wrong.append(
                    f"{page}:{line}: `{name}` says {value!r}, the schema {schema_default!r}"
                )
    assert not unknown, f"options the schema does not have: {unknown}"
    assert not wrong, f"defaults that drifted from config/schemas/{kind}.schema.yaml: {wrong}"
    assert checked >= len(rows) // 2, f"{page}: most default cells should be code, not prose"
    # Every option is in the table (raw_dir has its own section, Inputs).
    named = [n for _, names, _ in rows for n in names]
    leaves = [o for o in options if not any(p.startswith(o + ".") for p in options)]
    missing = [
        o
        for o in leaves
        if o != "raw_dir"
        and not any(_name_pattern(n).fullmatch(o) or o.startswith(n + ".") for n in named)
    ]
    assert not missing, f"{page}: options missing from the Options table: {missing}"


def _write_snapshot() -> None:
    SNAPSHOT.parent.mkdir(parents=True, exist_ok=True)
    SNAPSHOT.write_text(_canonical(_resolved_bundled()), encoding="utf-8")
    print(f"wrote {SNAPSHOT.relative_to(REPO)}")


if __name__ == "__main__":
    if sys.argv[1:] != ["--snapshot"]:
        sys.exit(f"usage: {SNAPSHOT_COMMAND}")
    _write_snapshot()
