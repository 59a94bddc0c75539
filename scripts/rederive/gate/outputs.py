"""gate.csv, gate.md and gate.json from a gate report (:func:`rederive.gate.compare.run_gate`).

``gate.json`` is the stable interface (docs/gate.md lists every field; its
``schema_version`` changes when a field is removed, renamed or changes meaning).
``gate.csv`` has one row per candidate and scope (``overall``, then each task),
``gate.md`` says the same for a reader. All three are deterministic: fixed
column order, rows in the order of the candidates and of the sorted tasks,
fixed decimals, ``\\n`` line ends, JSON keys in a fixed order.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd

#: gate.csv's columns, in order.
CSV_COLUMNS = [
    "baseline",
    "candidate",
    "scope",
    "task",
    "verdict",
    "n_items",
    "n_units",
    "n_baseline_only",
    "n_candidate_only",
    "baseline_pct",
    "candidate_pct",
    "diff_pp",
    "ci_low_pp",
    "ci_high_pp",
    "margin_pp",
    "level",
    "ci_method",
    "p_method",
    "p_better",
    "p_not_worse",
    "p_worse",
    "q_better",
    "q_not_worse",
    "q_worse",
    "mde_pp",
    "items_needed",
    "epochs_needed",
    "small_n",
    "reason",
]
PP_COLUMNS = ["baseline_pct", "candidate_pct", "diff_pp", "ci_low_pp", "ci_high_pp", "mde_pp"]
P_COLUMNS = ["p_better", "p_not_worse", "p_worse", "q_better", "q_not_worse", "q_worse"]


def csv_frame(report: dict) -> pd.DataFrame:
    """One row per candidate and scope, :data:`CSV_COLUMNS`, numbers as fixed text."""
    settings = report["settings"]
    rows = []
    for comparison in report["comparisons"]:
        common = {
            "baseline": report["baseline"]["model"],
            "candidate": comparison["candidate"]["model"],
            "margin_pp": settings["margin_pp"],
            "level": settings["level"],
        }
        overall = comparison["overall"]
        rows.append(
            {
                **common,
                **overall,
                "scope": "overall",
                "task": "",
                "n_baseline_only": comparison["n_baseline_only"],
                "n_candidate_only": comparison["n_candidate_only"],
            }
        )
        for task in comparison["tasks"]:
            rows.append({**common, **task, "scope": "task"})
    frame = pd.DataFrame(rows).reindex(columns=CSV_COLUMNS)
    for column in PP_COLUMNS:
        frame[column] = [_fixed(v, 2) for v in frame[column]]
    for column in P_COLUMNS:
        frame[column] = [_sig(v) for v in frame[column]]
    for column in ("n_units", "n_baseline_only", "n_candidate_only", "items_needed"):
        frame[column] = [_int(v) for v in frame[column]]
    frame["epochs_needed"] = [_int(v) for v in frame["epochs_needed"]]
    frame["margin_pp"] = [_fixed(v, 2) for v in frame["margin_pp"]]
    frame["small_n"] = [bool(v) if v == v and v is not None else "" for v in frame["small_n"]]
    return frame


def _missing(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def _fixed(v, places: int) -> str:
    return "" if _missing(v) else f"{float(v):.{places}f}"


def _sig(v) -> str:
    return "" if _missing(v) else f"{float(v):.4g}"


def _int(v) -> str:
    return "" if _missing(v) else str(int(v))


def write_csv(report: dict, path: str | Path) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    csv_frame(report).to_csv(path, index=False, lineterminator="\n")


def write_json(report: dict, path: str | Path) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(to_json(report))


def to_json(report: dict) -> str:
    """The report as JSON text (keys in the report's order, NaN and inf as null)."""
    return json.dumps(_clean(report), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def _clean(value):
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _num(v, places: int = 2, sign: bool = False) -> str:
    if _missing(v):
        return "–"
    text = f"{float(v):+.{places}f}" if sign else f"{float(v):.{places}f}"
    return text.replace("-", "−")


def _count(v) -> str:
    return "–" if _missing(v) else f"{int(v):,}"


def markdown(report: dict) -> str:
    """gate.md: the verdicts first, then the numbers, what would decide, tasks, notes."""
    s = report["settings"]
    base = report["baseline"]
    lines = [
        f"# Gate: candidates against {base['model']}",
        "",
        f"Baseline **{base['model']}** ({base['source']}). Margin {s['margin_pp']:g} pp; "
        f"two-sided {100 * s['level']:g}% intervals, each one-sided test at "
        f"{s['alpha_one_sided']:.3g}; clusters: {s['cluster_by']}; fail on: {s['fail_on']}.",
        "",
        "| candidate | verdict | items | baseline % | candidate % | difference (pp) | CI (pp) |"
        " status |",
        "|---|---|---:|---:|---:|---:|---|---:|",
    ]
    for c in report["comparisons"]:
        o = c["overall"]
        lines.append(
            f"| {c['candidate']['model']} | **{o['verdict']}** | {c['n_items']:,} | "
            f"{_num(o['baseline_pct'])} | {_num(o['candidate_pct'])} | "
            f"{_num(o['diff_pp'], sign=True)} | [{_num(o['ci_low_pp'], sign=True)}, "
            f"{_num(o['ci_high_pp'], sign=True)}] | {c['exit_code']} |"
        )
    lines += [
        "",
        f"Exit status {report['exit_code']} ({'pass' if report['passed'] else 'fail'}).",
        "",
    ]
    for c in report["comparisons"]:
        o = c["overall"]
        lines += [
            f"## {c['candidate']['model']}: {o['verdict']}",
            "",
            f"Candidate source: {c['candidate']['source']}. {_sentence(o['reason'])}",
            "",
            f"- Items both answered: {c['n_items']:,} ({o['n_units']:,} independent units); "
            f"only the baseline: {c['n_baseline_only']:,}; only the candidate: "
            f"{c['n_candidate_only']:,}.",
            f"- Items where the candidate scored higher: {o['n_candidate_higher']:,}; the "
            f"baseline: {o['n_baseline_higher']:,}.",
            f"- Interval: {o['ci_method']}; superiority test: {o['p_method']}.",
            f"- One-sided p: better {_sig(o['p_better'])}, not worse {_sig(o['p_not_worse'])}, "
            f"worse {_sig(o['p_worse'])}.",
            f"- MDE at this n ({100 * s['power']:g}% power, {o['power_method']}): "
            f"{_num(o['mde_pp'])} points from the margin; the estimate is "
            f"{_num(o['distance_pp'])} points from it.",
        ]
        if o["verdict"] == "inconclusive":
            need = (
                f"about {_count(o['items_needed'])} items"
                if o["items_needed"] is not None
                else "no finite number of items (the estimate is on the margin)"
            )
            epochs = (
                f"or {_count(o['epochs_needed'])} epochs per item on these items"
                if o.get("epochs_needed") is not None
                else f"(epochs: {o.get('epochs_note') or 'not computed'})"
            )
            lines.append(
                f"- To decide it: {need} {epochs}, if the true difference is the estimate."
            )
        if o["small_n"]:
            lines.append(f"- Small n: fewer than min_n = {s['min_n']} shared items.")
        lines.append("")
        if c["tasks"]:
            lines += [
                f"### Per task (BH across {sum(t['in_family'] for t in c['tasks'])} tasks)",
                "",
                "| task | verdict | items | difference (pp) | CI (pp) | q worse | q not worse |",
                "|---|---|---:|---:|---|---:|---:|",
            ]
            for t in c["tasks"]:
                lines.append(
                    f"| {t['task']} | {t['verdict']} | {t['n_items']:,} | "
                    f"{_num(t.get('diff_pp'), sign=True)} | [{_num(t.get('ci_low_pp'), sign=True)}, "
                    f"{_num(t.get('ci_high_pp'), sign=True)}] | {_sig(t.get('q_worse')) or '–'} | "
                    f"{_sig(t.get('q_not_worse')) or '–'} |"
                )
            regressed = ", ".join(c["regressed_tasks"]) or "none"
            lines += ["", f"Tasks that regressed (worse after BH): {regressed}.", ""]
        if c["notes"]:
            lines += ["Notes:", "", *[f"- {n}" for n in c["notes"]], ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def write_markdown(report: dict, path: str | Path) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(markdown(report))


def write_all(report: dict, folder: str | Path) -> dict[str, Path]:
    """gate.csv, gate.md and gate.json in ``folder``; returns their paths."""
    folder = Path(folder)
    paths = {ext: folder / f"gate.{ext}" for ext in ("csv", "md", "json")}
    write_csv(report, paths["csv"])
    write_markdown(report, paths["md"])
    write_json(report, paths["json"])
    return paths


def summary_lines(report: dict) -> list[str]:
    """The terminal's account: one line per candidate, then the tasks that regressed."""
    out = []
    for c in report["comparisons"]:
        o = c["overall"]
        out.append(
            f"{c['candidate']['model']} vs {report['baseline']['model']}: {o['verdict']} "
            f"(diff {_num(o['diff_pp'], sign=True)} pp, CI [{_num(o['ci_low_pp'], sign=True)}, "
            f"{_num(o['ci_high_pp'], sign=True)}], margin {report['settings']['margin_pp']:g} pp, "
            f"{c['n_items']:,} items)"
        )
        if o["verdict"] == "inconclusive" and o["items_needed"] is not None:
            out.append(
                f"  to decide: about {_count(o['items_needed'])} items "
                f"(MDE now {_num(o['mde_pp'])} pp, estimate {_num(o['distance_pp'])} pp "
                "from the margin)"
            )
        if c["regressed_tasks"]:
            out.append(f"  tasks that regressed: {', '.join(c['regressed_tasks'])}")
        for note in c["notes"]:
            out.append(f"  note: {note}")
    out.append(f"exit status {report['exit_code']}")
    return out


def _sentence(text: str) -> str:
    """``text`` as a sentence: capitalised, ending with a full stop."""
    text = text[:1].upper() + text[1:]
    return text if text.endswith(".") else text + "."


def describe(block: dict | None) -> str:
    """One sentence on an analysis's ``gate:`` block, for the report captions.

    Light on purpose (no statistics imported): the workflow calls it while it
    builds the job graph.
    """
    if not block:
        return "No gate is set for this analysis."
    candidates = block["candidate"]
    candidates = [candidates] if isinstance(candidates, str) else list(candidates)
    names = ", ".join(candidates)
    level = float(block.get("level", 0.95))
    one_sided = round((1.0 - level) / 2.0, 12)
    by = " and per task (BH across tasks)" if block.get("by") == "task" else ""
    return (
        f"Baseline {block['baseline']}; candidate{'s' * (len(candidates) != 1)} {names}; "
        f"margin {float(block.get('margin_pp', 1.0)):g} pp; two-sided {100 * level:g}% "
        f"intervals, each one-sided test at {one_sided:g}{by}; fail on: "
        f"{block.get('fail_on', 'inconclusive')}."
    )
