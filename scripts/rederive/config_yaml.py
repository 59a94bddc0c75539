"""``python -m rederive.config_yaml``: write ``config/kinds/<kind>.yaml`` from the schemas.

The schema of a kind (``config/schemas/<kind>.schema.yaml``, as
:func:`rederive.analyses.kind_schema` assembles it) is the one source of its
options: defaults, bounds and descriptions. ``config/kinds/<kind>.yaml`` is its
readable form, generated here: a header (what the kind is, an example entry),
then every option in schema order at its default, each preceded by its
description as ``#`` comments. Nothing in it is written by hand, so it cannot
drift from the defaults an analysis gets.

Schema keywords the generator reads besides ``description`` and ``default``:

``x-note``
    Printed after the description. A kind writes it beside a ``$ref`` to a
    shared setting to say why its default is what it is, keeping the shared
    description.
``x-example``
    Top level only: the options of the example analysis entry in the header
    (besides ``kind`` and ``raw_dir``).

A description line indented by at least one space is printed as it is (a
YAML example inside the text); other lines are wrapped. A block that is off
unless set (``type: [object, "null"]``, ``default: null``, e.g. the benchmark
kind's ``gate``) is written as ``key: null`` followed by its options, with
their descriptions and defaults, as comments to uncomment.

Usage::

    python -m rederive.config_yaml            # rewrite every kind's YAML
    python -m rederive.config_yaml --check    # exit 1 naming the files that differ
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import sys
import textwrap
from pathlib import Path
from typing import Any

import yaml

from rederive.analyses import fill_defaults, kind_names, kind_schema

__all__ = ["WIDTH", "check", "drift", "main", "render_kind", "write"]

#: Column the comments are wrapped at and flow collections are broken at.
WIDTH = 88
REGENERATE = "python -m rederive.config_yaml"


# ------------------------------------------------------------------ YAML values
def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _float(value)
    text = str(value)
    if _plain_reads_back(text):
        return text
    return json.dumps(text, ensure_ascii=False)


def _float(value: float) -> str:
    if not math.isfinite(value):
        return {math.inf: ".inf", -math.inf: "-.inf"}.get(value, ".nan")
    text = repr(value)
    if "e" not in text:
        return text
    # PyYAML (YAML 1.1) reads 1e-09 as text: it needs a dot and a signed exponent.
    mantissa, exponent = text.split("e")
    if "." not in mantissa:
        mantissa += ".0"
    power = int(exponent)
    return f"{mantissa}e{'-' if power < 0 else '+'}{abs(power)}"


def _plain_reads_back(text: str) -> bool:
    """Whether ``text`` unquoted reads back as itself, in a flow list and as a value."""
    if not text or text != text.strip() or any(c in text for c in ",[]{}#\n\"'`"):
        return False
    try:
        in_list = yaml.safe_load(f"[{text}]") == [text]
        as_value = yaml.safe_load(f"k: {text}") == {"k": text}
    except yaml.YAMLError:
        return False
    return in_list and as_value


def _flow(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_scalar(k)}: {_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    return _scalar(value)


def _value_lines(key: str, value: Any, indent: int) -> list[str]:
    """``key: value`` in flow style when it fits, else broken over lines."""
    pad = " " * indent
    head = f"{pad}{_scalar(key)}:"
    one_line = f"{head} {_flow(value)}"
    if len(one_line) <= WIDTH or not isinstance(value, dict | list) or not value:
        return [one_line]
    if isinstance(value, list) and not any(isinstance(v, dict | list) for v in value):
        return _wrapped_list(head, value)
    lines = [head]
    if isinstance(value, list):
        for item in value:
            lines.append(f"{pad}  - {_flow(item)}")
        return lines
    for sub_key, sub_value in value.items():
        lines += _value_lines(sub_key, sub_value, indent + 2)
    return lines


def _wrapped_list(head: str, items: list) -> list[str]:
    """A flow list of scalars over several lines, continuations under its first item."""
    lines: list[str] = []
    line = f"{head} ["
    align = " " * len(line)
    for i, item in enumerate(items):
        piece = _scalar(item) + ("]" if i == len(items) - 1 else ",")
        if i and len(line) + 1 + len(piece) > WIDTH:
            lines.append(line)
            line = align + piece
        else:
            line += f" {piece}" if i else piece
    lines.append(line)
    return lines


# ------------------------------------------------------------------ comments
def _comment(text: str, indent: int) -> list[str]:
    pad = " " * indent
    width = max(WIDTH - indent - 2, 40)
    lines: list[str] = []
    if not text.strip():
        return lines
    for paragraph in text.rstrip().split("\n"):
        if not paragraph.strip():
            lines.append(f"{pad}#")
        elif paragraph[0].isspace():
            lines.append(f"{pad}# {paragraph.rstrip()}")
        else:
            wrapped = textwrap.wrap(
                " ".join(paragraph.split()),
                width=width,
                break_long_words=False,
                break_on_hyphens=False,
            )
            lines += [f"{pad}# {line}" for line in wrapped]
    return lines


def _explanation(schema: dict) -> str:
    parts = [schema.get(key, "").strip() for key in ("description", "x-note")]
    return "\n".join(part for part in parts if part)


# ------------------------------------------------------------------ options
def _resolve_local(node: dict, root: dict) -> dict:
    """A ``{$ref: "#/$defs/x", ...}`` node with its target laid under the sibling keys."""
    ref = node.get("$ref")
    if not (isinstance(ref, str) and ref.startswith("#/")):
        return node
    target: Any = root
    for part in ref[2:].split("/"):
        target = target[part]
    merged = copy.deepcopy(_resolve_local(target, root))
    merged.update({k: v for k, v in node.items() if k != "$ref"})
    return merged


def _is_record(schema: dict) -> bool:
    """An object whose keys are options (``properties``), not a free-form map."""
    return bool(schema.get("properties"))


class _Writer:
    def __init__(self, root: dict):
        self.root = root
        self.described_refs: set[str] = set()

    def option(self, key: str, schema: dict, value: Any, present: bool, indent: int) -> list[str]:
        ref = schema.get("$ref")
        schema = _resolve_local(schema, self.root)
        lines = _comment(_explanation(schema), indent)
        pad = " " * indent
        if not present:
            return [*lines, f"{pad}# {_scalar(key)}: (no default)"]
        if _is_record(schema) and isinstance(value, dict) and value:
            # Options of a structure repeated under several keys (one $defs entry)
            # are described at its first use only.
            quiet = isinstance(ref, str) and ref in self.described_refs
            if isinstance(ref, str):
                self.described_refs.add(ref)
            lines.append(f"{pad}{_scalar(key)}:")
            lines += self.options(schema, value, indent + 2, quiet=quiet)
            return lines
        if _is_record(schema) and value is None:
            # A block that is off by default (null) still shows its options, as
            # comments a user can uncomment: their descriptions and defaults.
            inner = self.options(schema, fill_defaults({}, schema), indent + 4)
            return [
                *lines,
                *_value_lines(key, value, indent),
                f"{pad}# When set, {_scalar(key)} takes:",
                *(f"{pad}#{line[indent + 1 :]}" for line in inner),
            ]
        return [*lines, *_value_lines(key, value, indent)]

    def options(self, schema: dict, values: dict, indent: int, quiet: bool = False) -> list[str]:
        properties = schema.get("properties") or {}
        lines: list[str] = []
        for key, sub in properties.items():
            if quiet:
                sub = {k: v for k, v in sub.items() if k not in ("description", "x-note")}
            lines += self.option(key, sub, values.get(key), key in values, indent)
        for key, value in values.items():
            if key not in properties:
                lines += _value_lines(key, value, indent)
        return lines


def _header(kind: str, schema: dict) -> list[str]:
    lines = _comment(f"Kind `{kind}`: {schema.get('description', '').strip()}", 0)
    example = {"kind": kind, "raw_dir": f"/data/my_{kind}", **(schema.get("x-example") or {})}
    entry = []
    for key, value in example.items():
        entry += _value_lines(key, value, 0)
    lines += [
        "#",
        *_comment(
            f"Every option of kind `{kind}` at its default, after its description. An "
            "analysis entry sets only what it changes, e.g.",
            0,
        ),
        "#   analyses:",
        f"#     my_{kind}:",
        *(f"#       {line}" for line in entry),
        "#",
        *_comment(
            f"Generated from config/schemas/{kind}.schema.yaml (defaults, descriptions, "
            f"bounds) by `{REGENERATE}`: edit the schema, not this file.",
            0,
        ),
    ]
    return lines


def render_kind(kind: str, schema: dict) -> str:
    """The text of ``config/kinds/<kind>.yaml`` for a loaded kind schema.

    Parameters
    ----------
    kind : str
        The kind's name (header and example entry).
    schema : dict
        Its schema with the shared references inlined
        (:func:`rederive.analyses.kind_schema`).

    Returns
    -------
    str
        YAML whose values are exactly ``fill_defaults({}, schema)``.
    """
    defaults = fill_defaults({}, schema)
    writer = _Writer(schema)
    lines = _header(kind, schema)
    for key, sub in (schema.get("properties") or {}).items():
        lines.append("")
        lines += writer.option(key, sub, defaults.get(key), key in defaults, 0)
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ files
def _expected(root: Path) -> dict[Path, str]:
    schema_dir = root / "config" / "schemas"
    return {
        root / "config" / "kinds" / f"{kind}.yaml": render_kind(kind, kind_schema(schema_dir, kind))
        for kind in kind_names(schema_dir)
    }


def drift(root: str | Path) -> list[tuple[str, str]]:
    """``(file, why)`` for every file under ``config/kinds/`` that differs from the
    generator's output or belongs to no kind, relative to ``root``, sorted."""
    root = Path(root)
    expected = _expected(root)
    found = []
    for path, text in expected.items():
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            found.append((path, f"differs from its schema; run `{REGENERATE}`"))
    for path in (root / "config" / "kinds").glob("*.yaml"):
        if path not in expected:
            found.append((path, "is the YAML of no kind (not in the kind enum); remove it"))
    return sorted((str(path.relative_to(root)), why) for path, why in found)


def check(root: str | Path) -> list[str]:
    """The files :func:`drift` names."""
    return [name for name, _ in drift(root)]


def write(root: str | Path) -> list[str]:
    """Write every kind's YAML under ``root``; return the files that changed."""
    root = Path(root)
    changed = []
    for path, text in _expected(root).items():
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            changed.append(str(path.relative_to(root)))
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=REGENERATE,
        description="Write config/kinds/<kind>.yaml (every option at its default, with its "
        "description) from config/schemas/<kind>.schema.yaml.",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 naming the files that differ from the schemas",
    )
    parser.add_argument(
        "--root",
        default=str(Path(__file__).resolve().parents[2]),
        help="the repository (default: the one holding this module)",
    )
    args = parser.parse_args(argv)
    if args.check:
        found = drift(args.root)
        for name, why in found:
            print(f"rederive: {name} {why}", file=sys.stderr)
        return 1 if found else 0
    for name in write(args.root):
        print(f"wrote {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
