"""Named analyses: config resolution, shared vocabulary, the kind registry."""

import re
from pathlib import Path

import pytest
import yaml

from rederive.analyses import ConfigError, fill_defaults, kind_names, load_schema, resolve

REPO = Path(__file__).resolve().parents[1]
SCHEMAS = REPO / "config" / "schemas"
#: The bundled analyses, in config order (each named after its kind). Not every kind
#: has one: the kinds are the schemas (kind_enum).
BUNDLED = ["salitrap", "tag_sycophancy", "bias_awareness", "cot_loadbearing", "benchmark"]
SHARED = ["bootstrap", "fdr_q", "power", "min_n", "check"]


def bundled_config() -> dict:
    return yaml.safe_load((REPO / "config" / "config.yaml").read_text())


def kind_enum() -> list[str]:
    return kind_names(SCHEMAS)


def test_bundled_config_resolves_to_the_five_analyses_in_order():
    analyses, build = resolve(bundled_config(), SCHEMAS, kind_enum())
    assert build == BUNDLED
    assert [analyses[n]["kind"] for n in build] == BUNDLED
    assert analyses["benchmark"]["label"] == "ChemBench (real data)"


@pytest.mark.parametrize("kind", kind_names(SCHEMAS))
def test_every_kind_speaks_the_shared_vocabulary(kind):
    schema = yaml.safe_load((SCHEMAS / f"{kind}.schema.yaml").read_text())
    for key in SHARED:
        if key == "check" and kind == "cot_loadbearing":
            continue  # its check has per-number tolerances, not one setting
        if (
            key == "power"
            and "tables/power.csv" not in (REPO / "rules" / f"{kind}.smk").read_text()
        ):
            continue  # a kind without power tables has no power settings
        ref = schema["properties"][key].get("$ref", "")
        assert ref == f"shared.schema.yaml#/$defs/{key}", (kind, key)
    inlined = load_schema(SCHEMAS / f"{kind}.schema.yaml")
    assert set(inlined["properties"]["bootstrap"]["properties"]) == {"n_boot", "level", "seed"}


def test_a_user_analysis_of_three_lines_gets_the_kind_defaults(tmp_path):
    config = bundled_config()
    config["analyses"]["mine"] = {"kind": "benchmark", "raw_dir": str(tmp_path)}
    analyses, build = resolve(config, SCHEMAS, kind_enum())
    assert build[-1] == "mine"
    mine, bundled = dict(analyses["mine"]), dict(analyses["benchmark"])
    assert mine.pop("label") == "mine" and mine.pop("source") is None
    for entry in (mine, bundled):
        entry.pop("raw_dir")
    bundled.pop("label"), bundled.pop("source")
    # The bundled analysis gates two candidates against GPT-4o; a new one has no gate.
    assert mine.pop("gate") is None and bundled.pop("gate")["baseline"] == "GPT-4o"
    assert mine == bundled


def test_a_partial_record_keeps_the_other_defaults_and_a_map_is_replaced(tmp_path):
    config = {
        "analyses": {
            "s": {
                "kind": "salitrap",
                "raw_dir": str(tmp_path),
                "bootstrap": {"n_boot": 200},
                "dimensions": {"Dimension 1": "only_one"},
            }
        }
    }
    analyses, _ = resolve(config, SCHEMAS, kind_enum())
    assert analyses["s"]["bootstrap"] == {"n_boot": 200, "level": 0.95, "seed": 20261130}
    assert analyses["s"]["dimensions"] == {"Dimension 1": "only_one"}


def test_a_nullable_block_is_filled_when_given_and_left_null_otherwise():
    """``type: [object, "null"]`` (the benchmark kind's gate): an object gets its
    defaults, nested ones too; null and absence stay null (its default)."""
    schema = {
        "type": "object",
        "properties": {
            "block": {
                "type": ["object", "null"],
                "default": None,
                "properties": {
                    "name": {"type": "string"},
                    "size": {"type": "number", "default": 1.0},
                    "inner": {
                        "type": "object",
                        "default": {},
                        "properties": {"seed": {"type": "integer", "default": 7}},
                    },
                },
            }
        },
    }
    assert fill_defaults({}, schema) == {"block": None}
    assert fill_defaults({"block": None}, schema) == {"block": None}
    assert fill_defaults({"block": {"name": "a"}}, schema) == {
        "block": {"name": "a", "size": 1.0, "inner": {"seed": 7}}
    }
    # A type that excludes objects is left alone, as before.
    assert fill_defaults({"x": 1}, {"type": ["string", "null"], "properties": {}}) == {"x": 1}
    # The benchmark kind's gate, through the resolver.
    config = {
        "analyses": {
            "g": {
                "kind": "benchmark",
                "raw_dir": ".",
                "gate": {"baseline": "A", "candidate": ["B"], "level": 0.9},
            }
        }
    }
    analyses, _ = resolve(config, SCHEMAS, kind_enum())
    assert analyses["g"]["gate"] == {
        "baseline": "A",
        "candidate": ["B"],
        "level": 0.9,
        "margin_pp": 1.0,
        "by": "none",
        "fail_on": "inconclusive",
    }


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"studies": ["benchmark"]}, "'build: \\[name, ...\\]' selects"),
        ({"benchmark": {"n_boot": 5}}, "old per-study form.*analyses: \\{benchmark"),
        ({"analyses": {"x": {"kind": "nope", "raw_dir": "."}}}, "analyses.x.kind: 'nope'"),
        ({"analyses": {"x": {"kind": "benchmark"}}}, "analyses.x.raw_dir: missing"),
        ({"analyses": {"a/b": {"kind": "benchmark", "raw_dir": "."}}}, "folder results/<name>/"),
        ({"analyses": {"summary": {"kind": "benchmark", "raw_dir": "."}}}, "taken by the workflow"),
        (
            {"analyses": {"x": {"kind": "benchmark", "raw_dir": ".", "fdr_q": 2}}},
            "analyses.x.fdr_q",
        ),
        ({"analyses": {"x": {"kind": "benchmark", "raw_dir": ".", "n_bot": 2}}}, "n_bot"),
        ({"analyses": {"x": {"kind": "benchmark", "raw_dir": "."}}, "build": ["y"]}, "'y' is not"),
    ],
)
def test_config_mistakes_are_named(config, message):
    with pytest.raises(ConfigError, match=message):
        resolve(config, SCHEMAS, kind_enum())


def test_every_kind_with_a_schema_registers_its_rules_and_owns_its_files():
    # A kind is its files: the schema (which makes it a kind), its rules, which
    # register it, its defaults, library, captions, docs page and tests. No list
    # of kinds is written elsewhere; docs/index.md has one row per kind.
    kinds = kind_enum()
    assert set(BUNDLED) <= set(kinds)
    registered = sorted(
        re.search(r'register_kind\(\s*"(\w+)"', path.read_text()).group(1)
        for path in (REPO / "rules").glob("*.smk")
        if "register_kind(" in path.read_text() and path.name != "common.smk"
    )
    assert registered == kinds
    index = (REPO / "docs" / "index.md").read_text()
    for kind in kinds:
        assert (REPO / "rules" / f"{kind}.smk").is_file()
        assert (REPO / "config" / "kinds" / f"{kind}.yaml").is_file()
        assert (REPO / "scripts" / "rederive" / "studies" / kind).is_dir()
        assert (REPO / "rules" / "report" / kind).is_dir()
        assert (REPO / "docs" / "kinds" / f"{kind}.md").is_file()
        assert f"[kinds/{kind}.md](kinds/{kind}.md)" in index, kind


def test_a_kind_the_workflow_does_not_have_is_named_with_the_kinds_it_has():
    config = {"analyses": {"x": {"kind": "benchmarks", "raw_dir": "."}}}
    with pytest.raises(ConfigError, match="'benchmarks' is not a kind; the kinds are bench"):
        resolve(config, SCHEMAS, kind_enum())
