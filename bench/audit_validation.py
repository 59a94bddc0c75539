"""Validate ``rederive.audit``: findings on correct tables, recall of planted errors.

``python bench/audit_validation.py [--seed 20261203]`` audits every bundled
analysis's published tables (N from its ``audit`` settings) and the MMLU-Pro
mini-leaderboard (tests/audit/fixtures), then plants errors in copies — one digit
changed, an impossible percentage, a wrong ± (beside correctly computed ones), a
bold winner inside the MDE (beside one outside it) — and prints found / planted.
"""

from __future__ import annotations

import argparse
import csv
import math
import random
import tempfile
from pathlib import Path

import yaml

from rederive.audit.columns import Options, infer
from rederive.audit.grim import grim
from rederive.audit.published import audit_tables, options_from
from rederive.audit.report import audit_layout
from rederive.audit.separability import separation
from rederive.audit.sizes import cell_n, find_benchmark
from rederive.audit.tables import Table, read_table

REPO = Path(__file__).resolve().parents[1]
MMLU_PRO = REPO / "tests" / "audit" / "fixtures" / "mmlu_pro_mini_leaderboard.md"


def bundled_settings() -> dict[str, tuple[Path, dict]]:
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    out = {}
    for name, entry in config["analyses"].items():
        kind = yaml.safe_load((REPO / "config" / "kinds" / f"{entry['kind']}.yaml").read_text())
        settings = {**kind.get("audit", {}), **entry.get("audit", {})}
        out[name] = (REPO / entry["raw_dir"] / "published", settings)
    return out


def write_csv(table: Table, rows, header=None) -> Path:
    handle = tempfile.NamedTemporaryFile(
        "w", suffix=".csv", delete=False, newline="", encoding="utf-8"
    )
    writer = csv.writer(handle, lineterminator="\n")
    writer.writerow(header or table.header)
    writer.writerows(rows)
    handle.close()
    return Path(handle.name)


def audit(path, options):
    return audit_layout(infer(read_table(path), options), options)


def hits(result, row_label, column, severity):
    return any(
        f.row == row_label and f.column == column and f.severity == severity
        for f in result.findings
    )


def targets(table: Table, options: Options):
    """(row, column, N, layout) of score cells with a known N."""
    layout = infer(table, options)
    out = []
    for col in layout.of("score"):
        for i, row in enumerate(layout.cells):
            n, _ = cell_n(layout, options, i, col)
            if n and row[col.index].numeric:
                out.append((i, col, n, layout))
    return out


def plant(table: Table, options: Options, rng: random.Random, tally: dict, name: str):
    cells = targets(table, options)
    if not cells:
        return
    # 1. one digit changed (the last one), and 2. an impossible percentage.
    for kind in ("digit", "impossible"):
        i, col, n, layout = rng.choice(cells)
        rows = [list(r) for r in table.rows]
        v = layout.cells[i][col.index].value
        if kind == "digit":
            last = v.text[-1]
            rows[i][col.index] = v.text[:-1] + rng.choice([d for d in "0123456789" if d != last])
            from rederive.audit.cells import number

            detectable = not grim(number(rows[i][col.index]), n, col.scale).consistent
        else:
            rows[i][col.index] = str(float(v.value) + col.scale * 1.05)[: len(v.text) + 1]
            detectable = True
        result = audit(write_csv(table, rows), options)
        found = hits(result, layout.label(i), col.name, "error")
        key = (kind, detectable)
        tally.setdefault(key, [0, 0])
        tally[key][0] += 1
        tally[key][1] += found
    # 3. ± SE: correct on every cell (control) and one 2.5x too large.
    i, col, n, layout = rng.choice(cells)
    rows = [list(r) for r in table.rows]
    for r, cell in enumerate(layout.cells):
        c = cell[col.index]
        if c.numeric and cell_n(layout, options, r, col)[0]:
            nn = cell_n(layout, options, r, col)[0]
            p = float(c.value.value) / col.scale
            se = math.sqrt(max(p * (1 - p), 0.0) / nn) * col.scale
            factor = 2.5 if r == i else 1.0
            rows[r][col.index] = f"{c.value.text} ± {se * factor:.{c.value.decimals + 1}f}"
    header = [h if j != col.index else h + " (± SE)" for j, h in enumerate(table.header)]
    result = audit(write_csv(table, rows, header), options)
    wrong = [
        f for f in result.findings if f.severity == "error" and f.check.startswith("error bar")
    ]
    tally.setdefault(("wrong ±", True), [0, 0])
    tally[("wrong ±", True)][0] += 1
    tally[("wrong ±", True)][1] += any(f.row == layout.label(i) for f in wrong)
    tally.setdefault("fp_pm", 0)
    tally["fp_pm"] += sum(f.row != layout.label(i) for f in wrong)
    # 4. bold winner inside the MDE (top two not separable) and, as control, outside it.
    from rederive.audit.ranks import groups

    for group_rows in groups(layout).values():
        vals = [
            (float(layout.cells[r][col.index].value.value), r)
            for r in group_rows
            if layout.cells[r][col.index].numeric
        ]
        if len(vals) < 2:
            continue
        vals.sort(reverse=True)
        (va, ra), (vb, rb) = vals[0], vals[1]
        ns = cell_n(layout, options, ra, col)[0]
        if ns is None or ns != cell_n(layout, options, rb, col)[0]:
            continue
        verdict = separation(va / col.scale, vb / col.scale, ns, options.corr).verdict(options.corr)
        rows = [list(r) for r in table.rows]
        rows[ra][col.index] = f"**{rows[ra][col.index]}**"
        result = audit(write_csv(table, rows), options)
        warned = any(f.check == "claim: bold" and f.severity == "warning" for f in result.findings)
        key = ("bold inside MDE", True) if verdict != "significant" else "bold control"
        tally.setdefault(key, [0, 0])
        tally[key][0] += 1
        tally[key][1] += warned
        break
    tally.setdefault("tables", []).append(name)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=20261203)
    parser.add_argument("--copies", type=int, default=20, help="planted copies per table")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    print("## Correct tables (errors = false positives unless the paper is wrong)")
    corpus = []
    for name, (folder, settings) in bundled_settings().items():
        paths = sorted(folder.glob("*.csv"))
        findings, _ = audit_tables(paths, settings, folder)
        errors = [f for f in findings if f.severity == "error"]
        print(
            f"{name}: {len(paths)} tables, {len(errors)} errors, "
            f"{sum(f.severity == 'warning' for f in findings)} warnings, {sum(f.severity == 'note' for f in findings)} notes"
        )
        for f in errors:
            print(
                f"  {f.table}:{f.line} {f.row} / {f.column}: {f.check} {f.printed} -> {f.possible}"
            )
        corpus += [(p, options_from(settings, p.stem)) for p in paths]
    mmlu = Options(n=find_benchmark("MMLU-Pro").size, n_source="MMLU-Pro")
    result = audit(MMLU_PRO, mmlu)
    print(
        f"MMLU-Pro mini-leaderboard: {sum(f.severity == 'error' for f in result.findings)} errors, "
        f"{sum(f.severity == 'note' for f in result.findings)} notes"
    )
    corpus.append((MMLU_PRO, mmlu))
    tally: dict = {}
    for _ in range(args.copies):
        for path, options in corpus:
            try:
                plant(read_table(path), options, rng, tally, Path(path).name)
            except Exception as err:
                tally.setdefault("skipped", set()).add(f"{Path(path).name}: {err}")
    print("\n## Planted errors (found / planted)")
    for key, (planted, found) in sorted((k, v) for k, v in tally.items() if isinstance(k, tuple)):
        print(
            f"{key[0]:18s} {'detectable' if key[1] else 'not k/N-detectable'}: {found} / {planted}"
        )
    if "bold control" in tally:
        print(
            f"bold outside MDE (control): {tally['bold control'][1]} warnings / {tally['bold control'][0]}"
        )
    print(f"false ± findings on correctly computed SEs: {tally.get('fp_pm', 0)}")
    print(
        f"tables planted: {len(set(tally.get('tables', [])))}; skipped: {sorted(tally.get('skipped', []))}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
