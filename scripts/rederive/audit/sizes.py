"""Benchmark sizes (the shipped registry) and the N behind each cell.

The registry, ``benchmarks.csv`` beside this module, names each benchmark, its
split, its size and where the size is stated. The N of a cell comes, first match
wins, from: a size given for the cell's row label (``--sizes part=N``, e.g. a
dimension of the benchmark), a size given for its column (a per-subject column),
the row's N column, ``--n``, or ``--benchmark``; otherwise it is unknown and the
checks that need it say so.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from rederive.audit.columns import Column, Layout, Options

REGISTRY = Path(__file__).with_name("benchmarks.csv")


@dataclass(frozen=True)
class Benchmark:
    name: str
    aliases: tuple[str, ...]
    split: str
    size: int
    source: str


def load_registry(path=REGISTRY) -> list[Benchmark]:
    """Every benchmark of the registry, in file order."""
    with open(path, encoding="utf-8", newline="") as handle:
        return [
            Benchmark(
                r["name"],
                tuple(a for a in r["aliases"].split(";") if a),
                r["split"],
                int(r["size"]),
                r["source"],
            )
            for r in csv.DictReader(handle)
        ]


def _key(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum())


def find_benchmark(name: str, registry=None) -> Benchmark:
    """The registry entry called ``name`` (case, spaces and punctuation ignored).

    Raises
    ------
    KeyError
        With the known names, when none matches.
    """
    registry = load_registry() if registry is None else registry
    key = _key(name)
    for b in registry:
        if key in {_key(b.name), *(_key(a) for a in b.aliases)}:
            return b
    raise KeyError(
        f"unknown benchmark {name!r}; known: "
        + ", ".join(b.name for b in registry)
        + " (or give --n)"
    )


def cell_n(layout: Layout, options: Options, row: int, column: Column) -> tuple[int | None, str]:
    """N of ``column``'s cell in ``row`` and where it came from (None, why: unknown)."""
    labels = [layout.table.rows[row][c.index] for c in layout.of("label")]
    sizes = {_key(k): (k, v) for k, v in options.sizes.items()}
    for label in reversed(labels):
        if _key(label) in sizes:
            k, v = sizes[_key(label)]
            return v, f"size of {k}"
    if _key(column.name) in sizes:
        k, v = sizes[_key(column.name)]
        return v, f"size of {k}"
    ns = layout.of("n")
    if len(ns) == 1:
        c = layout.cells[row][ns[0].index]
        if c.numeric and c.value.value >= 1:
            return int(c.value.value), f"column {ns[0].name}"
    if options.n:
        return options.n, options.n_source or "--n"
    return None, "unknown"


def column_n_text(layout: Layout, options: Options, column: Column) -> str:
    """How a score column's N is found, for the printed inference."""
    found = {cell_n(layout, options, i, column) for i in range(len(layout.table.rows))}
    known = sorted({(n, src) for n, src in found if n is not None})
    if not known:
        return (
            "unknown (give --n, --benchmark or --sizes; GRIM, error bars, claims and ranks skipped)"
        )
    if len(known) == 1:
        return f"{known[0][0]} ({known[0][1]})"
    text = ", ".join(f"{n} ({src})" for n, src in known[:4]) + (", …" if len(known) > 4 else "")
    missing = " and unknown for some rows" if any(n is None for n, _ in found) else ""
    return f"per row: {text}{missing}"
