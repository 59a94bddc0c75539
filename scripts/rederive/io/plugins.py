"""Format registries built from their package's modules: a format is one module.

A registry package (:mod:`rederive.io.formats`, :mod:`rederive.io.preference`)
holds one module per input format, and files starting with ``_`` for what the
formats share. :func:`discover` imports every format module of the package and
orders them by their ``ORDER`` (the order their folders are searched, and the
order docs and messages list them), so adding a format is adding its module:
no list of formats is written anywhere.

A format module's ``OPTIONS``, when it has options, is the JSON Schema of its
block under an analysis (``lm_eval: {filter: …}``); :func:`schema_properties`
gathers them, with the ``inputs`` block that may point each format at another
folder, for the kind's schema (``x-formats`` in ``config/schemas/<kind>.schema.yaml``,
read by :func:`rederive.analyses.load_schema`).
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

__all__ = ["REQUIRED", "discover", "module_named", "names_of", "schema_properties"]

#: What every format module defines.
REQUIRED = (
    "NAME",
    "DESCRIPTION",
    "ORDER",
    "LAYOUT",
    "find_runs",
    "detect",
    "files",
    "read",
    "reported",
)


def discover(package: str) -> tuple[ModuleType, ...]:
    """The format modules of ``package`` (a dotted name), in their ``ORDER``.

    Raises
    ------
    TypeError
        A module that lacks part of the interface (:data:`REQUIRED`), or two
        modules with one ``NAME`` or one ``ORDER``.
    """
    root = importlib.import_module(package)
    modules = [
        importlib.import_module(f"{package}.{info.name}")
        for info in pkgutil.iter_modules(root.__path__)
        if not info.name.startswith("_")
    ]
    for module in modules:
        missing = [name for name in REQUIRED if not hasattr(module, name)]
        if missing:
            raise TypeError(f"format module {module.__name__} lacks {', '.join(missing)}")
    for attribute in ("NAME", "ORDER"):
        values = [getattr(m, attribute) for m in modules]
        twice = sorted({v for v in values if values.count(v) > 1})
        if twice:
            raise TypeError(f"two format modules of {package} share a {attribute}: {twice}")
    return tuple(sorted(modules, key=lambda m: m.ORDER))


def schema_properties(formats: tuple[ModuleType, ...], auto: str = "auto") -> dict:
    """The schema properties the formats give a kind: ``inputs`` (one folder
    per format, described by its ``LAYOUT``, and ``auto``) and each format's
    ``OPTIONS`` block."""
    folders = {
        m.NAME: {"description": m.LAYOUT, "type": ["string", "null"], "default": None}
        for m in formats
    }
    folders[auto] = {
        "description": (
            "A folder of mixed outputs, each run's format detected; the "
            "<raw_dir>/<format> folders are then not searched."
        ),
        "type": ["string", "null"],
        "default": None,
    }
    # The example names the first formats with options: the ones users configure.
    shown = [m.NAME for m in formats if hasattr(m, "OPTIONS")][:2] or [formats[0].NAME]
    example = ", ".join(f"{name}: /data/{name}_out" for name in shown)
    properties = {
        "inputs": {
            "description": (
                "Read an input format from another folder instead of <raw_dir>/<format> "
                "(null = <raw_dir>/<format>), e.g.\n"
                f"  inputs: {{{example}}}\n"
                "or read a folder of mixed outputs, each run's format detected (auto): then "
                "the <raw_dir>/<format> folders are not searched, only the formats set here.\n"
                "  inputs: {auto: /data/all_results}"
            ),
            "type": "object",
            "default": {},
            "properties": folders,
            "additionalProperties": False,
        }
    }
    for module in formats:
        options = getattr(module, "OPTIONS", None)
        if options is not None:
            properties[module.NAME] = options
    return properties


def names_of(formats: tuple[ModuleType, ...]) -> tuple[str, ...]:
    """The ``NAME`` of every format of a registry, in its order."""
    return tuple(module.NAME for module in formats)


def module_named(formats: tuple[ModuleType, ...], name: str, what: str) -> ModuleType:
    """The format module called ``name``.

    Raises
    ------
    ValueError
        For an unregistered name, listing the registered ones (``what``: "input
        format", "preference input format").
    """
    for module in formats:
        if module.NAME == name:
            return module
    raise ValueError(f"unknown {what} {name!r}; known: {', '.join(names_of(formats))}")
