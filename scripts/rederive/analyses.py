"""Named analyses: resolve the ``analyses:`` map of the workflow config.

An *analysis* is one dataset analysed by one *kind* of pipeline (the rules of
``rules/<kind>.smk``). The config names any number of them::

    analyses:
      my_mmlu:
        kind: benchmark
        label: MMLU, three checkpoints
        raw_dir: /data/mmlu
    build: [my_mmlu]

Each entry's kind options are validated against ``config/schemas/<kind>.schema.yaml``
and every option left out takes that schema's default, so a user's entry can be
three lines long and still mean exactly what the bundled entry of that kind means.
Settings every kind shares (``bootstrap``, ``fdr_q``, ``power``, ``min_n``,
``check``) are defined once in ``config/schemas/shared.schema.yaml``; kind schemas
refer to them with ``$ref: shared.schema.yaml#/$defs/<name>`` and may add
``default`` beside the reference.

Everything here is plain Python so that it is tested without Snakemake; the
workflow calls :func:`resolve` once while parsing (``rules/common.smk``).
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from rederive.config_types import coerce_to_schema

#: Keys of an analysis entry that are not kind options.
IDENTITY_KEYS = ("kind", "label", "source")
#: Folders under ``results/`` that belong to the workflow, not to an analysis.
RESERVED_NAMES = frozenset({"summary", "logs", "benchmarks", "site", "report"})
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,79}$")
SHARED_SCHEMA = "shared.schema.yaml"


#: Most values a configuration may hold (mapping keys and values, list items),
#: counting a YAML alias (``*name``) as every value it repeats. The bundled
#: config.yaml holds about 50; a YAML "alias bomb" of a few hundred bytes holds
#: billions, and walking it (coercing, validating) would take hours and all the
#: memory, so it is refused before anything walks it.
MAX_CONFIG_VALUES = 100_000


class ConfigError(ValueError):
    """A configuration the user must fix; the message says where and how."""


def check_size(config: Any, limit: int = MAX_CONFIG_VALUES) -> None:
    """Refuse a configuration holding more than ``limit`` values once its YAML
    aliases are expanded.

    PyYAML (which Snakemake's config loader uses) keeps an alias as one shared
    object, so the loaded config is small; any code that walks it as a tree
    (type coercion, schema validation, a deep copy by value) expands it. This
    walk stops at ``limit`` values, so its cost is bounded whatever the file.

    Raises
    ------
    ConfigError
        Naming the key under which the limit was passed.
    """
    seen = 0
    stack: list[tuple[Any, tuple]] = [(config, ())]
    while stack:
        node, path = stack.pop()
        seen += 1
        if seen > limit:
            where = ".".join(map(str, path[:3])) or "config"
            raise ConfigError(
                f"{where}: the configuration holds more than {limit:,} values once its YAML "
                "aliases (*name) are expanded (an alias bomb?); it is refused before it is "
                "read. Write the values out, or remove that key"
            )
        if isinstance(node, dict):
            for key, value in node.items():
                seen += 1
                stack.append((value, (*path, key)))
        elif isinstance(node, list | tuple):
            stack.extend((item, path) for item in node)


#: Schemas in config/schemas/ that are not a kind's.
NOT_KINDS = ("config", "shared")


def kind_names(schema_dir: str | Path) -> list[str]:
    """The kinds the workflow has: one per ``config/schemas/<kind>.schema.yaml``
    (besides the global and shared schemas), sorted. Adding a kind adds its
    schema and its ``rules/<kind>.smk``; no list of kinds is written anywhere."""
    names = []
    for path in sorted(Path(schema_dir).glob("*.schema.yaml")):
        name = path.name[: -len(".schema.yaml")]
        if name not in NOT_KINDS:
            names.append(name)
    return names


def load_schema(path: str | Path) -> dict:
    """Load a YAML JSON Schema with references into the shared schema inlined.

    ``{$ref: "shared.schema.yaml#/$defs/bootstrap", default: {...}}`` becomes the
    shared definition with the sibling keys laid over it, so the result is one
    self-contained schema that :func:`fill_defaults`, :func:`coerce_to_schema` and
    ``jsonschema`` read alike.
    """
    path = Path(path)
    schema = yaml.safe_load(path.read_text())
    shared_path = path.with_name(SHARED_SCHEMA)
    shared = yaml.safe_load(shared_path.read_text()) if shared_path.exists() else {}
    return _with_formats(_inline(schema, shared))


def _with_formats(schema: dict) -> dict:
    """Lay in the options of the input formats a kind reads: ``x-formats`` names
    a format registry (:mod:`rederive.io.plugins`), whose ``inputs`` block and
    per-format ``OPTIONS`` go in right after ``raw_dir``."""
    registry = schema.get("x-formats") if isinstance(schema, dict) else None
    if not registry:
        return schema
    import importlib

    pieces = importlib.import_module(registry).schema_properties()
    properties = {}
    for key, value in schema.get("properties", {}).items():
        properties[key] = value
        if key == "raw_dir":
            properties.update({k: v for k, v in pieces.items() if k not in schema["properties"]})
    properties.update({k: v for k, v in pieces.items() if k not in properties})
    return {**schema, "properties": properties}


def kind_schema(schema_dir: str | Path, kind: str) -> dict:
    """The schema of one kind, self-contained (:func:`load_schema`): what validates
    and fills an analysis entry of that kind, and what ``config/kinds/<kind>.yaml``
    is generated from (``rederive.config_yaml``)."""
    return load_schema(Path(schema_dir) / f"{kind}.schema.yaml")


def _inline(node: Any, shared: dict) -> Any:
    if isinstance(node, list):
        return [_inline(item, shared) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith(SHARED_SCHEMA + "#/"):
        target: Any = shared
        for part in ref.split("#/", 1)[1].split("/"):
            if not isinstance(target, dict) or part not in target:
                raise ConfigError(f"schema reference {ref!r} names nothing in {SHARED_SCHEMA}")
            target = target[part]
        merged = _inline(copy.deepcopy(target), shared)
        merged.update({k: _inline(v, shared) for k, v in node.items() if k != "$ref"})
        return merged
    return {key: _inline(value, shared) for key, value in node.items()}


def fill_defaults(value: Any, schema: dict) -> Any:
    """Copy of ``value`` with every property the schema gives a default filled in.

    Missing object properties take ``default`` (deep-copied), then the properties
    of that object are filled in turn, so a partial override such as
    ``bootstrap: {n_boot: 200}`` keeps the kind's seed and level. A block that
    may also be null (``type: [object, "null"]``, e.g. ``gate``) is filled when
    it is given as an object and left as it is when null.
    """
    if not isinstance(value, dict) or not _may_be_object(schema):
        return value
    out = dict(value)
    for key, sub in (schema.get("properties") or {}).items():
        default = sub.get("default")
        if key not in out and "default" in sub:
            out[key] = copy.deepcopy(default)
        elif isinstance(out.get(key), dict) and isinstance(default, dict):
            # A partial record keeps the kind's other defaults (its seed, say);
            # a free-form map (dimensions, label maps) is replaced whole.
            out[key] = _merge_record(default, out[key], sub)
        if key in out:
            out[key] = fill_defaults(out[key], sub)
    return out


def _may_be_object(schema: dict) -> bool:
    """Whether the schema's ``type`` allows an object (no ``type``: anything)."""
    declared = schema.get("type")
    if declared is None:
        return True
    return "object" in (declared if isinstance(declared, list) else [declared])


def _merge_record(default: dict, value: dict, schema: dict) -> dict:
    properties = schema.get("properties")
    if not properties:
        return value
    merged = dict(value)
    for key, item in default.items():
        if key not in merged:
            merged[key] = copy.deepcopy(item)
        elif isinstance(item, dict) and isinstance(merged[key], dict) and key in properties:
            merged[key] = _merge_record(item, merged[key], properties[key])
    return merged


def _validate(value: Any, schema: dict, where: str) -> None:
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(value), key=lambda e: list(e.absolute_path))
    if errors:
        first = errors[0]
        key = ".".join(str(p) for p in first.absolute_path)
        at = f"{where}.{key}" if key else where
        more = f" (and {len(errors) - 1} more problem(s))" if len(errors) > 1 else ""
        raise ConfigError(f"{at}: {first.message}{more}")


def refuse_old_form(config: dict, kinds: list[str]) -> None:
    """Stop on the per-study config of earlier versions, naming the new form."""
    if "studies" in config:
        raise ConfigError(
            "'studies' is no longer a setting: analyses are named under 'analyses:' and "
            "'build: [name, ...]' selects which to build (e.g. --config 'build=[benchmark]'); "
            "see docs/configuration.md"
        )
    old = [key for key in kinds if key in config]
    if old:
        key = old[0]
        raise ConfigError(
            f"a top-level '{key}:' section is the old per-study form; write the options "
            f"under 'analyses: {{{key}: {{...}}}}' in a --configfile instead (the bundled "
            f"analysis of kind {key} is named '{key}'), or add your own analysis with "
            f"'analyses: {{my_name: {{kind: {key}, raw_dir: ..., label: ...}}}}'; "
            "see docs/configuration.md"
        )


def resolve_analysis(name: str, entry: Any, schema_dir: Path, kinds: list[str]) -> dict:
    """One ``analyses:`` entry, validated, with the kind's defaults filled in.

    Returns
    -------
    dict
        The kind options plus ``kind``, ``label`` (the name when not given) and
        ``source`` (``None`` when not given).
    """
    where = f"analyses.{name}"
    if not NAME_PATTERN.match(str(name)):
        raise ConfigError(
            f"{where}: an analysis name becomes the folder results/<name>/: use letters, "
            "digits, '_', '-' and '.', starting with a letter or digit (at most 80)"
        )
    if name in RESERVED_NAMES:
        raise ConfigError(
            f"{where}: '{name}' is taken by the workflow's own results/{name}/ folder; "
            "choose another name"
        )
    if not isinstance(entry, dict):
        raise ConfigError(f"{where}: expected a mapping with kind, raw_dir and label")
    kind = entry.get("kind")
    if kind not in kinds:
        raise ConfigError(f"{where}.kind: {kind!r} is not a kind; the kinds are {', '.join(kinds)}")
    label = entry.get("label", name)
    source = entry.get("source")
    for key, value in (("label", label), ("source", source)):
        if value is not None and (not isinstance(value, str) or not value.strip()):
            raise ConfigError(f"{where}.{key}: expected non-empty text")
    schema = kind_schema(schema_dir, kind)
    options = {k: v for k, v in entry.items() if k not in IDENTITY_KEYS}
    options = fill_defaults(coerce_to_schema(options, schema), schema)
    if "raw_dir" not in entry:
        raise ConfigError(f"{where}.raw_dir: missing (the folder holding this analysis's inputs)")
    _validate(options, schema, where)
    return {"kind": kind, "label": label.strip(), "source": source, **options}


def resolve(config: dict, schema_dir: str | Path, kinds: list[str]) -> tuple[dict, list[str]]:
    """Every analysis of ``config`` resolved, and the names to build in order.

    Parameters
    ----------
    config : dict
        The workflow config after Snakemake merged the config files and
        ``--config`` overrides into it.
    schema_dir : path
        ``config/schemas`` of the workflow.
    kinds : list of str
        The kinds the workflow has rules for (the registry of ``rules/common.smk``).

    Returns
    -------
    analyses : dict
        name -> resolved entry (:func:`resolve_analysis`), in config order.
    build : list of str
        The analyses to build: ``build:`` when given, else all, in config order.
    """
    schema_dir = Path(schema_dir)
    check_size(config)
    refuse_old_form(config, kinds)
    globals_schema = load_schema(schema_dir / "config.schema.yaml")
    settings = fill_defaults(coerce_to_schema(dict(config), globals_schema), globals_schema)
    _validate(settings, globals_schema, "config")
    entries = settings.get("analyses") or {}
    analyses = {
        str(name): resolve_analysis(str(name), entry, schema_dir, kinds)
        for name, entry in entries.items()
    }
    build = settings.get("build")
    if build is None:
        build = list(analyses)
    unknown = [name for name in build if name not in analyses]
    if unknown:
        raise ConfigError(
            f"build: {', '.join(map(repr, unknown))} is not an analysis; "
            f"the analyses are {', '.join(analyses) or '(none)'}"
        )
    if not build:
        raise ConfigError("build: is empty; name at least one analysis (or null for all)")
    return analyses, list(dict.fromkeys(build))
