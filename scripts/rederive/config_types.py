"""Give ``--config`` overrides the types their JSON Schema asks for.

Snakemake parses ``--config key=value`` with its own YAML loader, which leaves
the scalars *inside* a nested value as text: ``--config benchmark='{n_boot: 500}'``
arrives as ``{"n_boot": "500"}`` and ``filter: null`` as ``"null"``. Validation
then refuses ``'500' is not of type 'integer'`` (or, worse, accepts ``"null"`` as
a filter name). :func:`coerce_to_schema` converts such text by the type the
schema declares at that place, before validation, so overrides work for
integers, numbers, booleans and null exactly as in the YAML config files.

Only text is converted, and only when the schema does not accept it as text
already (a ``["string", "null"]`` key gets ``None`` from ``null``, ``~`` or nothing, as in YAML; a
value literally named ``null`` is not a plausible filter or scorer).
"""

from __future__ import annotations

import re
from typing import Any

NULLS = {"null", "~", "none", "None", "Null", "NULL"}
TRUE = {"true", "True", "TRUE", "yes", "Yes", "on"}
FALSE = {"false", "False", "FALSE", "no", "No", "off"}
INTEGER = re.compile(r"^[-+]?\d+$")
NUMBER = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$|^[-+]?\.?(inf|Inf|INF)$")


def _resolve(schema: dict, root: dict) -> dict:
    ref = schema.get("$ref") if isinstance(schema, dict) else None
    if isinstance(ref, str) and ref.startswith("#/"):
        target: Any = root
        for part in ref[2:].split("/"):
            target = target.get(part, {}) if isinstance(target, dict) else {}
        return _resolve(target, root)
    return schema if isinstance(schema, dict) else {}


def _branches(schema: dict, root: dict) -> list[dict]:
    """The schema and every ``anyOf``/``oneOf``/``allOf`` branch it allows, resolved."""
    schema = _resolve(schema, root)
    out = [schema]
    for key in ("anyOf", "oneOf", "allOf"):
        for branch in schema.get(key, []) or []:
            out += _branches(branch, root)
    return out


def _types(schema: dict, root: dict) -> set[str]:
    types: set[str] = set()
    for branch in _branches(schema, root):
        declared = branch.get("type")
        if isinstance(declared, str):
            types.add(declared)
        elif isinstance(declared, list):
            types.update(t for t in declared if isinstance(t, str))
    return types


def _scalar(text: str, types: set[str]) -> Any:
    stripped = text.strip()
    if "null" in types and (stripped in NULLS or stripped == ""):
        return None
    if "string" in types:
        return text
    if "boolean" in types and (stripped in TRUE or stripped in FALSE):
        return stripped in TRUE
    if "integer" in types and INTEGER.match(stripped):
        return int(stripped)
    if "number" in types and NUMBER.match(stripped):
        value = float(stripped)
        return int(value) if INTEGER.match(stripped) else value
    return text


def _child_schema(schemas: list[dict], key: str) -> list[dict]:
    children = []
    for branch in schemas:
        properties = branch.get("properties") or {}
        if key in properties:
            children.append(properties[key])
            continue
        matched = [
            sub
            for pattern, sub in (branch.get("patternProperties") or {}).items()
            if re.search(pattern, key)
        ]
        if matched:
            children += matched
        elif isinstance(branch.get("additionalProperties"), dict):
            children.append(branch["additionalProperties"])
    return children


def _coerce(value: Any, schemas: list[dict], root: dict) -> Any:
    branches = [b for s in schemas for b in _branches(s, root)]
    if isinstance(value, str):
        types: set[str] = set()
        for branch in schemas:
            types |= _types(branch, root)
        return _scalar(value, types) if types else value
    if isinstance(value, dict):
        return {
            key: _coerce(item, _child_schema(branches, str(key)), root)
            for key, item in value.items()
        }
    if isinstance(value, list):
        items = [b["items"] for b in branches if isinstance(b.get("items"), dict)]
        return [_coerce(item, items, root) for item in value]
    return value


def coerce_to_schema(value: Any, schema: dict) -> Any:
    """Copy of ``value`` with text converted to the type ``schema`` declares there.

    Parameters
    ----------
    value
        A config section (dicts, lists, scalars), e.g. ``config["benchmark"]``.
    schema : dict
        Its JSON Schema (``$ref`` to ``#/...``, ``anyOf``/``oneOf``/``allOf``,
        ``properties``, ``patternProperties``, ``additionalProperties`` and
        ``items`` are followed).

    Returns
    -------
    The same structure; a string becomes ``None`` where the schema allows null
    and it reads ``null``/``~``, a bool where only a boolean fits, an int where an
    integer fits, a float where a number fits. Anything else is left for the
    validator to report.

    Examples
    --------
    >>> schema = {"type": "object", "properties": {"n": {"type": "integer"},
    ...     "f": {"type": ["string", "null"]}}}
    >>> coerce_to_schema({"n": "500", "f": "null"}, schema)
    {'n': 500, 'f': None}
    """
    return _coerce(value, [schema], schema)
