"""``--config`` overrides get the types their JSON Schema declares.

Snakemake's --config parser (YAML BaseLoader) leaves nested scalars as text; the
values below are exactly what it hands over for ``benchmark='{…}'``.
"""

from pathlib import Path

import jsonschema
import pytest
from snakemake.cli import parse_config

from rederive.analyses import fill_defaults, load_schema
from rederive.config_types import coerce_to_schema

SCHEMAS = Path(__file__).resolve().parents[1] / "config" / "schemas"


def schema(name: str) -> dict:
    # Shared settings inlined, as rederive.analyses resolves them.
    return load_schema(SCHEMAS / f"{name}.schema.yaml")


def override(text: str) -> dict:
    return parse_config([text])


def test_snakemake_hands_nested_scalars_over_as_text():
    # The premise of the helper: if Snakemake ever types them itself, this fails.
    parsed = override("benchmark={n_boot: 500, lm_eval: {filter: null}}")["benchmark"]
    assert parsed == {"n_boot": "500", "lm_eval": {"filter": "null"}}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("benchmark={bootstrap: {n_boot: 500}}", {"bootstrap": {"n_boot": 500}}),
        (
            "benchmark={bootstrap: {level: 0.9}, fdr_q: 1e-2}",
            {"bootstrap": {"level": 0.9}, "fdr_q": 0.01},
        ),
        ("benchmark={check: {tolerance: 0}}", {"check": {"tolerance": 0}}),
        ("benchmark={lm_eval: {filter: null}}", {"lm_eval": {"filter": None}}),
        ("benchmark={lm_eval: {filter: ~}}", {"lm_eval": {"filter": None}}),
        ("benchmark={inspect: {scorer: }}", {"inspect": {"scorer": None}}),
        ("benchmark={lm_eval: {filter: strict-match}}", {"lm_eval": {"filter": "strict-match"}}),
        ("benchmark={lm_eval: {metrics: [acc, exact_match]}}", None),
        ("benchmark={irt: {epochs: 100, seed: 7}}", {"irt": {"epochs": 100, "seed": 7}}),
        ("benchmark={raw_dir: 2024}", {"raw_dir": "2024"}),  # a folder named 2024 stays text
    ],
)
def test_benchmark_overrides_are_typed_and_validate(text, expected):
    parsed = override(text)["benchmark"]
    coerced = coerce_to_schema(parsed, schema("benchmark"))
    assert coerced == (expected if expected is not None else parsed)
    # A partial bootstrap override is completed from the kind's defaults.
    filled = fill_defaults(coerced, schema("benchmark"))
    jsonschema.validate(filled, schema("benchmark"))


def test_booleans_of_a_real_schema():
    ts = schema("tag_sycophancy")
    path = _find(ts, "boolean")
    assert path, "tag_sycophancy schema has a boolean key"
    assert _get(coerce_to_schema(_nest(path, "false"), ts), path) is False
    assert _get(coerce_to_schema(_nest(path, "True"), ts), path) is True


def test_refs_any_of_and_arrays():
    # The shapes used by cot_loadbearing (array of anyOf [integer, null]) and
    # bias_awareness ($ref into $defs).
    toy = {
        "$defs": {"rule": {"type": "object", "properties": {"min": {"type": "number"}}}},
        "type": "object",
        "properties": {
            "caps": {"type": "array", "items": {"anyOf": [{"type": "integer"}, {"type": "null"}]}},
            "b4": {"$ref": "#/$defs/rule"},
        },
    }
    coerced = coerce_to_schema({"caps": ["3", "null", "~"], "b4": {"min": "0.5"}}, toy)
    assert coerced == {"caps": [3, None, None], "b4": {"min": 0.5}}


def test_text_that_fits_no_type_is_left_for_the_validator():
    coerced = coerce_to_schema(
        {"bootstrap": {"n_boot": "five", "seed": "1.5"}}, schema("benchmark")
    )
    assert coerced == {"bootstrap": {"n_boot": "five", "seed": "1.5"}}
    with pytest.raises(jsonschema.ValidationError, match="is not of type 'integer'"):
        jsonschema.validate(fill_defaults(coerced, schema("benchmark")), schema("benchmark"))


def test_top_level_list_of_analyses_to_build():
    parsed = override("build=[benchmark]")
    assert coerce_to_schema(parsed, schema("config")) == {"build": ["benchmark"]}


# Helpers walking a schema to a key of a given type, so the tests follow the
# schemas rather than hard-coding their layout.
def _find(node, wanted, any_of=False, path=()):
    if not isinstance(node, dict):
        return None
    for key, sub in (node.get("properties") or {}).items():
        if not isinstance(sub, dict):
            continue
        items = sub.get("items") if isinstance(sub.get("items"), dict) else None
        if any_of and items and any(b.get("type") == wanted for b in items.get("anyOf", [])):
            return None  # inside an array: not a plain key
        if any_of and any(b.get("type") == wanted for b in sub.get("anyOf", [])):
            return (*path, key)
        if not any_of and sub.get("type") == wanted:
            return (*path, key)
        found = _find(sub, wanted, any_of, (*path, key))
        if found:
            return found
    return None


def _nest(path, value):
    out = value
    for key in reversed(path):
        out = {key: out}
    return out


def _get(tree, path):
    for key in path:
        tree = tree[key]
    return tree
