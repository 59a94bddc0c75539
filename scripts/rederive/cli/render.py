"""The config file ``rederive init`` writes: YAML with comments saying what was found.

Values are written by PyYAML (so any path or label round-trips) and comments
are escaped (a line break in a file name cannot end a comment); the caller
checks that the text loads back to :func:`config_of` the plan.
"""

from __future__ import annotations

import re
import textwrap
from collections import Counter
from pathlib import Path

import yaml

from rederive.cli.plan import Plan
from rederive.cli.scan import Scan
from rederive.io import formats as benchmark_formats
from rederive.io import preference as preference_formats

__all__ = ["config_of", "render"]

#: Files listed one per line in the closing comments; the rest are counted by reason.
MAX_LISTED = 200
#: Comment prose is wrapped at this width.
WIDTH = 88
_BREAKS = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]")


def _safe(text: str) -> str:
    return _BREAKS.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def _comment(lines: list[str], indent: str = "") -> list[str]:
    """Comment lines; prose is wrapped at :data:`WIDTH`, listing lines (indented) are not."""
    out = []
    for line in lines:
        line = _safe(line)
        if line.startswith(" ") or len(indent) + 2 + len(line) <= WIDTH:
            out.append(f"{indent}# {line}".rstrip())
        else:
            out += [f"{indent}# {part}" for part in textwrap.wrap(line, WIDTH - len(indent) - 2)]
    return out


def _value(value) -> str:
    text = yaml.safe_dump(
        value, default_flow_style=True, allow_unicode=True, width=2**31, sort_keys=False
    )
    return text.removesuffix("\n").removesuffix("\n...").strip()


def config_of(plan: Plan) -> dict:
    """The config the plan's text means."""
    return {
        "build": [a.name for a in plan.analyses],
        "analyses": {a.name: a.entry for a in plan.analyses},
    }


def _descriptions(scan: Scan) -> list[str]:
    modules = {("benchmark", m.NAME): m.DESCRIPTION for m in benchmark_formats.FORMATS} | {
        ("preference", m.NAME): m.DESCRIPTION for m in preference_formats.FORMATS
    }
    counts = Counter((run.registry, run.format) for run in scan.runs)
    lines = []
    for (registry, name), n in sorted(counts.items()):
        kind = "" if registry == "benchmark" else "preference "
        lines.append(f"  {kind}{name}: {n} run(s) ({modules[registry, name]})")
    for study in scan.studies:
        rel = scan.rel(study.path)
        what = f"kind {study.kind}" if study.kind else f"layout of {' or '.join(study.layouts)}"
        lines.append(f"  study folder {rel}/: {what}, {len(study.runs)} run file(s)")
    return lines


def render(plan: Plan, scan: Scan, *, command: str) -> str:
    """The text of the config file; ``command`` is the line that builds it."""
    out = _comment(
        [
            "Analyses written by `rederive init` for the results in",
            f"  {scan.folder}",
            "Build them (from any folder; results/ is written in the current one) with:",
            f"  {command}",
            "",
            "Found there (each file's format detected from its first few KB, then each",
            "benchmark run read once by its reader, with the kind's default options):",
            *_descriptions(scan),
            *_extras(plan, scan),
            "",
            "Each analysis builds into results/<name>/. Options not written take their",
            "kind's defaults: config/kinds/<kind>.yaml lists them, docs/configuration.md",
            "explains them. `build:` names the analyses of this file, so the five bundled",
            "ones are not built with them.",
        ]
    )
    out += ["", f"build: {_value([a.name for a in plan.analyses])}", "", "analyses:"]
    for analysis in plan.analyses:
        out += _comment(analysis.notes, "  ")
        out.append(f"  {_value(analysis.name)}:")
        for key, value in analysis.entry.items():
            out += _comment(analysis.option_notes.get(key, []), "    ")
            out.append(f"    {key}: {_value(value)}")
        out.append("")
    out += _closing(plan, scan)
    return "\n".join(out).rstrip("\n") + "\n"


def _read_extras(plan: Plan, scan: Scan) -> list[Path]:
    """The extras of the folders that a benchmark analysis has as raw_dir."""
    raw_dirs = {a.entry["raw_dir"] for a in plan.analyses if a.entry["kind"] == "benchmark"}
    return [p for folder, paths in scan.extras.items() if str(folder) in raw_dirs for p in paths]


def _extras(plan: Plan, scan: Scan) -> list[str]:
    what = {
        "items.csv": "item metadata (item_id, task, category, group) of the benchmark analysis",
        "published": "published per-model scores, checked by the benchmark analysis",
    }
    return [
        f"  {scan.rel(p)}{'/' if p.is_dir() else ''}: {what[p.name]}"
        for p in _read_extras(plan, scan)
    ]


def _closing(plan: Plan, scan: Scan) -> list[str]:
    out: list[str] = []
    if plan.problems:
        out += _comment(["PROBLEMS (rederive init said these too):"])
        out += _comment([f"  - {p}" for p in plan.problems])
        out.append("")
    if plan.preference_waiting:
        lines = [
            "Preference data (pairwise judgments), read by the preference kind, which",
            "this workflow's config/schemas do not have, so no analysis:",
        ]
        lines += [f"  {r.format:<12} {scan.rel(r.path)}" for r in plan.preference_waiting]
        out += _comment(lines) + [""]
    if plan.left_out:
        lines = ["Runs found but in no analysis above:"]
        lines += [f"  {scan.rel(run.path)} ({run.format}): {why}" for run, why in plan.left_out]
        out += _comment(lines) + [""]
    unread = [(scan.rel(u.path), u.reason) for u in scan.unread]
    read = set(_read_extras(plan, scan))
    why = "a benchmark raw_dir's extra, and no benchmark analysis has this raw_dir"
    unread += [(scan.rel(p), why) for ps in scan.extras.values() for p in ps if p not in read]
    if unread:
        lines = [f"Files nobody reads ({len(unread)}):"]
        lines += [f"  {path}: {why}" for path, why in sorted(unread)[:MAX_LISTED]]
        rest = Counter(why for _, why in sorted(unread)[MAX_LISTED:])
        lines += [f"  … and {n} more: {why}" for why, n in sorted(rest.items())]
        out += _comment(lines) + [""]
    if scan.hidden:
        out += _comment(
            [f"Hidden entries (.name) skipped, as the workflow skips them: {scan.hidden}"]
        )
    return out
