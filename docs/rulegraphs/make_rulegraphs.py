"""Write the rule graphs shown in docs/architecture.md: one per kind, and the whole bundled build.

Usage, from the repository root::

    .venv/bin/python docs/rulegraphs/make_rulegraphs.py          # write DOT and SVG
    .venv/bin/python docs/rulegraphs/make_rulegraphs.py --no-svg # DOT only (no Graphviz)

Each graph is ``snakemake --rulegraph`` on the bundled analysis of one kind
(``--config 'build=[<analysis>]'``; the first analysis of that kind in
``config/config.yaml``), or on every bundled analysis (``build.dot``), run in a
scratch folder so that nothing is written into the checkout. A kind without a
bundled analysis is drawn on its tests' fixture folder, ``tests/<kind>/fixtures``,
taken as the raw_dir of an analysis named after the kind (no job runs: the graph
needs its runs found, not read); a kind with neither has no graph, and the script
says so. Snakemake's own DOT
numbers its nodes and orders its edges in set order, which changes from run to
run; this script keeps only the rule names and the edges between them and writes
them sorted, coloured by the stage of the flow each rule belongs to (its verb, as
the ``verb_noun`` rule names say), with the rules written once for every analysis
dashed; the rules a kind builds only when an analysis asks for them are switched on
(:data:`OPTIONAL_RULES`). The ``all`` rule is left out: it depends on every rule and would hide the
flow. The SVG is ``dot -Tsvg`` of the DOT (Graphviz).

``tests/test_rulegraphs.py`` regenerates the DOT and fails when it differs from the
committed files; this is a developer tool, not part of any job.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
OUT = Path(__file__).resolve().parent
SNAKEMAKE = Path(sys.executable).with_name("snakemake")
COMMAND = ".venv/bin/python docs/rulegraphs/make_rulegraphs.py"

#: Stage of the flow -> (fill colour, the rule-name verbs in it), in flow order.
STAGES = {
    "ingest": ("#cfe2f3", ("ingest",)),
    "warehouse": ("#b6d7a8", ("build_warehouse",)),
    "analysis": (
        "#fff2cc",
        ("analyse", "compare", "cluster", "decompose", "estimate", "fit", "tabulate"),
    ),
    "figures": ("#f9cb9c", ("plot",)),
    "check": ("#ea9999", ("check", "audit", "gate")),
    "changes": ("#d9d2e9", ("report",)),
    "summary and site": ("#d9d9d9", ("summarize", "write", "build")),
}
OTHER = "#ffffff"

#: Settings under which a bundled analysis of a kind builds the rules it builds only
#: when asked (register_kind's only_when), so that its graph shows every rule.
OPTIONAL_RULES = {"benchmark": {"sampling": {"k": [1, 2], "rank_at": 2}}}

NODE = re.compile(r'^\s*(\d+)\[label = "([^"]+)"')
EDGE = re.compile(r"^\s*(\d+) -> (\d+)\s*$")


def bundled_analyses(config: Path = REPO / "config" / "config.yaml") -> dict[str, str]:
    """kind -> the first bundled analysis of that kind, in config order."""
    analyses = yaml.safe_load(config.read_text(encoding="utf-8"))["analyses"]
    first: dict[str, str] = {}
    for name, entry in analyses.items():
        first.setdefault(entry["kind"], name)
    return first


def kinds() -> list[str]:
    """Every kind of the workflow (one per config/schemas/<kind>.schema.yaml)."""
    schemas = REPO / "config" / "schemas"
    return sorted(
        p.name.removesuffix(".schema.yaml")
        for p in schemas.glob("*.schema.yaml")
        if p.name not in ("config.schema.yaml", "shared.schema.yaml")
    )


def fixture_analyses() -> dict[str, dict]:
    """kind -> an analysis entry on ``tests/<kind>/fixtures``, for each kind without a
    bundled analysis whose tests hold such a folder."""
    bundled = bundled_analyses()
    out = {}
    for kind in kinds():
        folder = REPO / "tests" / kind / "fixtures"
        if kind not in bundled and folder.is_dir():
            out[kind] = {"kind": kind, "raw_dir": str(folder)}
    return out


def rulegraph(build: list[str] | None, analyses: dict | None = None) -> str:
    """Snakemake's ``--rulegraph`` DOT for the analyses in ``build`` (None: every bundled
    one); ``analyses`` adds entries to the config (a kind's fixture analysis)."""
    env = dict(os.environ)
    # This checkout's library, whatever the virtual environment's install points at.
    env["PYTHONPATH"] = os.pathsep.join(
        [str(REPO / "scripts"), *filter(None, [env.get("PYTHONPATH")])]
    )
    with tempfile.TemporaryDirectory(prefix="rulegraph-") as scratch:
        (Path(scratch) / "raw").symlink_to(REPO / "raw")
        switched = Path(scratch) / "optional-rules.yaml"
        optional = {
            name: OPTIONAL_RULES[kind]
            for kind, name in bundled_analyses().items()
            if kind in OPTIONAL_RULES
        }
        switched.write_text(yaml.safe_dump({"analyses": optional}), encoding="utf-8")
        cmd = [
            str(SNAKEMAKE),
            "-s",
            str(REPO / "Snakefile"),
            "--directory",
            scratch,
            "--configfile",
            str(switched),
            "--rulegraph",
        ]
        if analyses:
            extra = Path(scratch) / "fixture-analyses.yaml"
            extra.write_text(yaml.safe_dump({"analyses": analyses}), encoding="utf-8")
            cmd += ["--configfile", str(extra)]
        if build is not None:
            cmd += ["--config", f"build=[{','.join(build)}]"]
        proc = subprocess.run(cmd, cwd=scratch, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stderr[-4000:]}")
    return proc.stdout


def parse(dot: str) -> tuple[set[str], set[tuple[str, str]]]:
    """Rule names and (upstream, downstream) edges of Snakemake's rule-graph DOT."""
    names: dict[str, str] = {}
    edges = []
    for line in dot.splitlines():
        if node := NODE.match(line):
            names[node.group(1)] = node.group(2)
        elif edge := EDGE.match(line):
            edges.append((edge.group(1), edge.group(2)))
    if not names:
        raise ValueError("no rule in the rule graph")
    return set(names.values()), {(names[a], names[b]) for a, b in edges}


def stage(rule: str) -> str:
    """The stage of the flow a rule belongs to, from its verb (``verb_noun`` names)."""
    verb = rule.split("_", 1)[0]
    if verb == "build" and rule.endswith("_warehouse"):
        return "warehouse"
    for name, (_, verbs) in STAGES.items():
        if verb in verbs:
            return name
    return "other"


def canonical(rules: set[str], edges: set[tuple[str, str]], kinds: list[str], title: str) -> str:
    """A DOT text that depends on the graph alone: rules and edges sorted, no ``all``."""
    rules = rules - {"all"}
    edges = {(a, b) for a, b in edges if "all" not in (a, b)}
    order = list(STAGES) + ["other"]
    lines = [
        f"// {title}",
        f"// Generated by {COMMAND}; do not edit.",
        "digraph rules {",
        "    graph [bgcolor=white, margin=0, rankdir=TB, nodesep=0.25, ranksep=0.35];",
        '    node [shape=box, style="rounded,filled", fontname="DejaVu Sans", fontsize=10,'
        " penwidth=1];",
        "    edge [color=grey40, arrowsize=0.6];",
    ]
    for rule in sorted(rules, key=lambda r: (order.index(stage(r)), r)):
        colour = STAGES[stage(rule)][0] if stage(rule) in STAGES else OTHER
        # A rule written once for every analysis names no kind.
        shared = not any(f"_{kind}_" in f"_{rule}_" for kind in kinds)
        style = ', style="rounded,filled,dashed"' if shared else ""
        lines.append(f'    "{rule}" [fillcolor="{colour}"{style}];')
    for a, b in sorted(edges):
        lines.append(f'    "{a}" -> "{b}";')
    lines.append("}")
    return "\n".join(lines) + "\n"


def graphs() -> dict[str, str]:
    """File stem -> canonical DOT: one per kind with a bundled analysis or a fixture
    folder (:func:`fixture_analyses`), and ``build``."""
    bundled = bundled_analyses()
    fixtures = fixture_analyses()
    names = kinds()
    for kind in sorted(set(names) - set(bundled) - set(fixtures)):
        print(f"kind {kind}: no bundled analysis and no tests/{kind}/fixtures: no graph")
    titles = {
        kind: (f"Rules of kind {kind}: snakemake --rulegraph, build=[{name}]", [name], None)
        for kind, name in sorted(bundled.items())
    }
    for kind, entry in sorted(fixtures.items()):
        where = Path(entry["raw_dir"]).relative_to(REPO).as_posix()
        titles[kind] = (
            f"Rules of kind {kind}: snakemake --rulegraph, build=[{kind}], raw_dir {where}",
            [kind],
            {kind: entry},
        )
    titles["build"] = ("Rules of the whole bundled build: snakemake --rulegraph", None, None)
    # Two at a time: each is a Snakemake start-up (~2 s of one core).
    with ThreadPoolExecutor(max_workers=2) as pool:
        runs = pool.map(lambda t: rulegraph(t[1], t[2]), titles.values())
        dots = dict(zip(titles, runs, strict=True))
    return {
        stem: canonical(*parse(dots[stem]), names, title) for stem, (title, _, _) in titles.items()
    }


def render_svg(dot_text: str) -> str:
    """``dot -Tsvg`` of a DOT text."""
    dot = shutil.which("dot")
    if dot is None:
        raise FileNotFoundError("Graphviz's dot is not installed (apt-get install graphviz)")
    proc = subprocess.run([dot, "-Tsvg"], input=dot_text, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"dot -Tsvg failed: {proc.stderr}")
    return proc.stdout


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help="folder (default: %(default)s)")
    parser.add_argument("--no-svg", action="store_true", help="write the DOT files only")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for stem, dot_text in graphs().items():
        (args.out / f"{stem}.dot").write_text(dot_text, encoding="utf-8")
        if not args.no_svg:
            (args.out / f"{stem}.svg").write_text(render_svg(dot_text), encoding="utf-8")
        print(f"{args.out / stem}.dot" + ("" if args.no_svg else " and .svg"))


if __name__ == "__main__":
    main()
