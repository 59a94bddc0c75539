"""After a build, swap one run of every bundled analysis (bytes changed, mtime
older than the results) and rebuild: each analysis's change report names the
run, lists exactly the tables that differ and every cell that moved (checked
against a brute-force comparison of the two results folders), and the
published check that flipped; a touch or a no-op says "no changes".

They start from a copy of the bundled build every test shares
(conftest.bundled_build, README's first command's results) with its own raw/,
and run in file order.
"""

import csv
import json
import os
import re

import pandas as pd
import pytest
from workflow_utils import copy_build, run_workflow

from rederive.changes.snapshots import KEPT_FOLDERS

pytestmark = pytest.mark.slow

ANALYSES = ["salitrap", "tag_sycophancy", "bias_awareness", "cot_loadbearing", "benchmark"]
OLD = (1577836800, 1577836800)  # 2020-01-01: older than every result


def build(root):
    # The bundled config as it is: raw/ is the copy's own, at the same relative path.
    return run_workflow(root, {})


def summary(root, name):
    return json.loads((root / "results" / name / "changes" / "changes.json").read_text())


def kept(root, name):
    base = root / "results" / name
    return {
        p.relative_to(base).as_posix(): p.read_bytes()
        for sub in KEPT_FOLDERS
        for p in sorted((base / sub).rglob("*"))
        if p.is_file()
    }


def rewrite_jsonl(path, change, n):
    """Change ``n`` records of a JSONL run file; keep an mtime older than the results."""
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    done = 0
    for row in rows:
        if done < n and change(row):
            done += 1
    assert done == n, f"{path}: only {done} records could be changed"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    os.utime(path, OLD)


def flip(row, field, frm, to, **where):
    if row.get(field) == frm and all(row.get(k) == v for k, v in where.items()):
        row[field] = to
        return True
    return False


def tag_reply(row):
    if row["arm"] == "tag" and row["response"].lstrip("*").lower().startswith("no"):
        row["response"] = "Yes."
        return True
    return False


def swap_runs(raw):
    """One run changed per analysis: what each swap's report must name."""
    rewrite_jsonl(raw / "tag_sycophancy/runs/GPT-4o.jsonl", tag_reply, 41)
    rewrite_jsonl(
        raw / "salitrap/runs/Claude-Opus-4.6.jsonl",
        lambda r: flip(
            r, "judge_label", "Strict Pass", "Sycophantic Compliance", condition="control"
        ),
        30,
    )
    rewrite_jsonl(
        raw / "bias_awareness/runs/GPT-4o.jsonl", lambda r: flip(r, "judge_aware", 0, 1), 25
    )
    rewrite_jsonl(
        raw / "cot_loadbearing/runs/gemma-2-9b-it.jsonl",
        lambda r: flip(r, "judge_label", "B", "C"),
        40,
    )
    matrix = raw / "benchmark/matrix/chembench.csv"
    lines = matrix.read_text().splitlines()
    header = lines[0].split(",")
    column = header.index("GPT-4o")
    for i in range(1, 61):
        cells = lines[i].split(",")
        cells[column] = "0.0" if float(cells[column]) == 1 else "1.0"
        lines[i] = ",".join(cells)
    matrix.write_text("\n".join(lines) + "\n")
    os.utime(matrix, OLD)
    return {
        "tag_sycophancy": "GPT-4o",
        "salitrap": "Claude-Opus-4.6",
        "bias_awareness": "GPT-4o",
        "cot_loadbearing": "gemma-2-9b-it",
        "benchmark": "matrix-chembench",
    }


@pytest.fixture(scope="module")
def root(tmp_path_factory, bundled_build):
    root = copy_build(bundled_build, tmp_path_factory.mktemp("changes") / "work", own_raw=True)
    first = {name: kept(root, name) for name in ANALYSES}
    return root, first, (root / "build.stderr").read_text()


def test_first_build_says_so(root):
    root, _, stderr = root
    for name in ANALYSES:
        record = summary(root, name)
        assert record["first_build"] and record["changed"], name
        assert f"rederive: {name}: first build" in stderr


def brute_force_cells(old: bytes, new: bytes, key: list[str]) -> set:
    """Changed cells by an independent route: pandas, every cell as text."""
    a = pd.read_csv(pd.io.common.BytesIO(old), dtype=str, keep_default_na=False)
    b = pd.read_csv(pd.io.common.BytesIO(new), dtype=str, keep_default_na=False)
    if not key:
        a.index = b.index = None
        a, b = a.reset_index(drop=True), b.reset_index(drop=True)
        a["__row"] = b["__row"] = None
        a["__row"] = (a.index + 1).astype(str)
        b["__row"] = (b.index + 1).astype(str)
        key = ["__row"]
    merged = a.merge(b, on=key, suffixes=("_old", "_new"))
    shared = [c for c in b.columns if c in a.columns and c not in key]
    out = set()
    for _, row in merged.iterrows():
        ident = json.dumps(
            {("row" if k == "__row" else k): row[k] for k in key},
            ensure_ascii=False,
            separators=(", ", ": "),
        )
        for c in shared:
            if row[f"{c}_old"] != row[f"{c}_new"]:
                out.add((ident, c, row[f"{c}_old"], row[f"{c}_new"]))
    return out


def test_a_swapped_run_is_named_and_every_changed_cell_listed(root):
    root, first, _ = root
    swapped = swap_runs(root / "raw")
    proc = build(root)
    for name in ANALYSES:
        record = summary(root, name)
        assert record["runs"]["changed"] == [swapped[name]], name
        assert record["runs"]["added"] == record["runs"]["removed"] == [], name
        assert f"rederive: {name}: 1 run changed ({swapped[name]})" in proc.stderr
        after = kept(root, name)
        before = first[name]
        # Exactly the files whose bytes differ are reported, none other.
        differ = sorted(p for p in before if p in after and before[p] != after[p])
        assert sorted(record["files"]["changed"]) == differ, name
        assert record["files"]["added"] == sorted(set(after) - set(before)), name
        rows = list(
            csv.DictReader(
                (root / "results" / name / "changes" / "changes.csv").open(encoding="utf-8")
            )
        )
        for path in differ:
            if not path.endswith(".csv"):
                continue
            table_row = next(r for r in rows if r["section"] == "table" and r["subject"] == path)
            if "cells listed" in table_row["detail"]:
                continue  # a capped table: its count is checked by the diff tests
            key = table_row["detail"].split("key: ")[1]
            key = [] if key == "row position" else key.split(", ")
            reported = {
                (r["key"], r["column"], r["old"], r["new"])
                for r in rows
                if r["section"] == "cell" and r["subject"] == path
            }
            assert reported == brute_force_cells(before[path], after[path], key), (name, path)


def test_the_tag_swap_names_the_effect_and_the_check_that_flipped(root):
    root, _, _ = root
    rows = list(csv.DictReader((root / "results/tag_sycophancy/changes/changes.csv").open()))
    effect = [
        r
        for r in rows
        if r["section"] == "cell"
        and r["subject"] == "tables/tag_effects.csv"
        and json.loads(r["key"]) == {"model": "GPT-4o"}
        and r["column"] == "effect"
    ]
    assert len(effect) == 1 and float(effect[0]["old"]) < 0 < float(effect[0]["new"])
    flips = [r for r in rows if r["section"] == "decision" and r["subject"] == "check"]
    assert flips and all((r["old"], r["new"]) == ("pass", "FAIL") for r in flips)
    md = (root / "results/tag_sycophancy/changes/changes.md").read_text()
    assert "| run | GPT-4o | changed | runs/GPT-4o.jsonl |" in md
    assert re.search(r"\d+ checks? pass→FAIL", md)


def test_a_touched_file_and_a_no_op_say_no_changes(root):
    root, _, _ = root
    proc = build(root)
    assert "rederive: no changes (5 analyses" in proc.stderr
    os.utime(root / "raw/tag_sycophancy/runs/GPT-4o.jsonl")  # newer mtime, same bytes
    entries = sorted((root / "results/tag_sycophancy/history/entries").iterdir())
    proc = build(root)
    assert "rederive: no changes" in proc.stderr
    assert sorted((root / "results/tag_sycophancy/history/entries").iterdir()) == entries
