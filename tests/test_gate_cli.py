"""``python -m rederive.gate`` on run files, raw folders, two folders and a built warehouse.

The data are the real SWE-bench Verified resolved lists of
``tests/stats/fixtures/swebench_verified`` written as SWE-bench harness run
reports (``<model>.<run_id>.json``, schema_version 2, the files
``rederive.io.formats.swebench`` reads); the verdicts must be those of
:mod:`rederive.stats.gate` on the same columns, which tests/stats/test_gate.py
checks against exact McNemar, an independent Tango interval and Newcombe's.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, stats
from workflow_utils import REPO

from rederive.errors import InputError
from rederive.gate.__main__ import main
from rederive.gate.compare import SCHEMA_VERSION
from rederive.gate.outputs import CSV_COLUMNS
from rederive.io import warehouse
from rederive.stats import gate as stats_gate
from rederive.studies.benchmark.ingest import ingest
from rederive.studies.benchmark.warehouse import build_in, responses_sql

MATRIX = REPO / "tests" / "stats" / "fixtures" / "swebench_verified" / "swebench_verified.csv"
HIGH = "20241029_OpenHands-CodeAct-2.1-sonnet-20241022"  # 53.0%
LOW = "20240824_gru"  # 45.2%: 7.8 points below
NEAR_BASE = "20241022_tools_claude-3-5-sonnet-updated"  # 49.0%
NEAR_CAND = "20241028_solver"  # 50.0%: 1 point above


@pytest.fixture(scope="module")
def matrix() -> pd.DataFrame:
    return pd.read_csv(MATRIX, index_col="instance_id")


def write_report(path: Path, resolved: pd.Series, keep=None) -> Path:
    """A SWE-bench harness report of ``resolved`` (instance → 0/1), as make_run_report writes it."""
    ids = sorted(resolved.index if keep is None else keep)
    yes = sorted(i for i in ids if resolved[i] == 1)
    no = sorted(i for i in ids if resolved[i] == 0)
    report = {
        "total_instances": len(ids),
        "submitted_instances": len(ids),
        "completed_instances": len(ids),
        "resolved_instances": len(yes),
        "unresolved_instances": len(no),
        "empty_patch_instances": 0,
        "error_instances": 0,
        "completed_ids": ids,
        "incomplete_ids": [],
        "empty_patch_ids": [],
        "submitted_ids": ids,
        "resolved_ids": yes,
        "unresolved_ids": no,
        "error_ids": [],
        "schema_version": 2,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report))
    return path


def reports(tmp: Path, matrix: pd.DataFrame, *names: str, folder: str = "runs") -> list[Path]:
    return [write_report(tmp / folder / f"{n}.verified.json", matrix[n]) for n in names]


def gate(*argv, capsys) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def library(matrix, base, cand, **kw) -> stats_gate.GateDecision:
    return stats_gate.gate(
        matrix[base].to_numpy(float), matrix[cand].to_numpy(float), margin=0.01, **kw
    )


def test_two_run_files_give_the_library_verdicts_and_exit_status(tmp_path, matrix, capsys):
    files = reports(tmp_path, matrix, HIGH, LOW)
    code, out, _ = gate(*files, "--baseline", LOW, "--candidate", HIGH, capsys=capsys)
    assert library(matrix, LOW, HIGH).verdict == stats_gate.BETTER
    assert code == 0 and out.startswith(f"{HIGH} vs {LOW}: better")
    code, out, _ = gate(*files, "--baseline", HIGH, "--candidate", LOW, capsys=capsys)
    assert library(matrix, HIGH, LOW).verdict == stats_gate.WORSE
    assert code == 1 and ": worse (diff −7.80 pp" in out


def test_one_point_apart_is_inconclusive_with_the_items_needed(tmp_path, matrix, capsys):
    files = reports(tmp_path, matrix, NEAR_BASE, NEAR_CAND)
    expected = library(matrix, NEAR_BASE, NEAR_CAND)
    argv = [*files, "--baseline", NEAR_BASE, "--candidate", NEAR_CAND, "--json"]
    code, out, _ = gate(*argv, capsys=capsys)
    report = json.loads(out)
    overall = report["comparisons"][0]["overall"]
    assert code == 2 and report["exit_code"] == 2 and not report["passed"]
    assert overall["verdict"] == "inconclusive" == expected.verdict
    assert overall["items_needed"] == expected.items_needed > 500
    assert overall["ci_low_pp"] == pytest.approx(100 * expected.difference.ci_low, abs=1e-6)
    assert overall["epochs_needed"] is None and "one epoch" in overall["epochs_note"]
    assert gate(*argv[:-1], "--fail-on", "worse", capsys=capsys)[0] == 0


def test_fail_on_not_better(tmp_path, matrix, capsys):
    files = reports(tmp_path, matrix, NEAR_BASE, NEAR_CAND)
    argv = [*files, "--baseline", NEAR_BASE, "--candidate", NEAR_CAND, "--margin-pp", "5"]
    code, out, _ = gate(*argv, capsys=capsys)
    assert code == 0 and ": not worse" in out
    assert gate(*argv, "--fail-on", "not-better", capsys=capsys)[0] == 4


def test_several_candidates_worst_status_wins(tmp_path, matrix, capsys):
    files = reports(tmp_path, matrix, HIGH, LOW, NEAR_CAND)
    argv = [*files, "--baseline", HIGH, "--candidate", NEAR_CAND, "--candidate", LOW, "--json"]
    code, out, _ = gate(*argv, capsys=capsys)
    report = json.loads(out)
    assert [c["overall"]["verdict"] for c in report["comparisons"]] == [
        library(matrix, HIGH, NEAR_CAND).verdict,
        library(matrix, HIGH, LOW).verdict,
    ]
    assert [c["exit_code"] for c in report["comparisons"]] == [2, 1] and code == 1


def test_baseline_from_another_folder_counts_unshared_items(tmp_path, matrix, capsys):
    # Last release's run of the model, and today's: same model name, two folders,
    # today's run evaluated on 480 of the 500 instances.
    old = write_report(tmp_path / "release" / "agent.verified.json", matrix[HIGH])
    keep = sorted(matrix.index)[20:]
    write_report(tmp_path / "today" / "agent.verified.json", matrix[LOW], keep=keep)
    argv = [tmp_path / "today", "--baseline-from", old.parent, "--baseline", "agent"]
    code, out, _ = gate(*argv, "--candidate", "agent", "--json", capsys=capsys)
    report = json.loads(out)
    comparison = report["comparisons"][0]
    assert comparison["n_items"] == 480 and comparison["n_baseline_only"] == 20
    assert comparison["n_candidate_only"] == 0
    assert any("20 item(s) answered only by the baseline 'agent'" in n for n in comparison["notes"])
    sub = matrix.loc[keep]
    assert comparison["overall"]["verdict"] == library(sub, HIGH, LOW).verdict == "worse"
    assert code == 1
    assert report["baseline"]["source"].endswith("release")


def test_no_shared_item_is_refused_with_counts(tmp_path, matrix, capsys):
    old = write_report(tmp_path / "a" / "m.x.json", matrix[HIGH], keep=sorted(matrix.index)[:10])
    new = write_report(tmp_path / "b" / "m.x.json", matrix[LOW], keep=sorted(matrix.index)[10:])
    argv = [new, "--baseline-from", old, "--baseline", "m", "--candidate", "m"]
    code, _, err = gate(*argv, capsys=capsys)
    assert code == 3 and err.startswith("rederive: ")
    assert "share no item id" in err and "10 items" in err and "490" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--baseline", HIGH, "--candidate", "nobody"], "no model 'nobody'"),
        (["--baseline", HIGH, "--candidate", HIGH], "both the baseline and a candidate"),
        (["--baseline", HIGH, "--candidate", LOW, "--level", "1.5"], "level must be"),
        (["--baseline", HIGH, "--candidate", LOW, "--format", "nope"], "unknown input format"),
        (["--baseline", HIGH, "--candidate", LOW, "--margin-pp", "x"], "invalid float"),
        (["--baseline", HIGH], "required: --candidate"),
    ],
)
def test_unusable_input_exits_3(tmp_path, matrix, capsys, argv, message):
    files = reports(tmp_path, matrix, HIGH, LOW)
    code, _, err = gate(*files, *argv, capsys=capsys)
    assert code == 3 and "rederive: " in err and message in err


def test_missing_path_and_unreadable_file_exit_3(tmp_path, capsys):
    code, _, err = gate(tmp_path / "nope", "--baseline", "a", "--candidate", "b", capsys=capsys)
    assert code == 3 and "no such file or folder" in err
    (tmp_path / "notes.txt").write_text("hello\n")
    code, _, err = gate(
        tmp_path / "notes.txt", "--baseline", "a", "--candidate", "b", capsys=capsys
    )
    assert code == 3 and "no input format recognises this file" in err


def long_csv(path: Path, matrix: pd.DataFrame, names: list[str]) -> Path:
    """The resolved lists as a long CSV, one task per repository (django, sympy, …)."""
    rows = []
    for name in names:
        for instance, value in matrix[name].items():
            rows.append((name, instance.split("__")[0], instance, int(value)))
    frame = pd.DataFrame(rows, columns=["model", "task", "item_id", "correct"])
    frame.to_csv(path, index=False, lineterminator="\n")
    return path


def test_by_task_with_bh_matches_the_library(tmp_path, matrix, capsys):
    path = long_csv(tmp_path / "swe.csv", matrix, [HIGH, LOW])
    argv = [path, "--baseline", HIGH, "--candidate", LOW, "--by", "task", "--json"]
    code, out, _ = gate(*argv, "--min-n", "20", capsys=capsys)
    report = json.loads(out)
    tasks = report["comparisons"][0]["tasks"]
    repo = np.array([i.split("__")[0] for i in matrix.index])
    rows = stats_gate.gate_by_group(
        matrix[HIGH].to_numpy(float),
        matrix[LOW].to_numpy(float),
        repo,
        margin=0.01,
        min_n=20,
    )
    assert [t["task"] for t in tasks] == [r["group"] for r in rows]
    assert [t["verdict"] for t in tasks] == [r["verdict"] for r in rows]
    regressed = [r["group"] for r in rows if r["verdict"] == "worse"]
    assert report["comparisons"][0]["regressed_tasks"] == regressed
    assert code == (1 if regressed else report["exit_code"])
    small = [t for t in tasks if t["n_items"] < 20]
    assert small and all(not t["in_family"] and t["verdict"] == "inconclusive" for t in small)
    # Every task row has every field (the numbers of a small task are null).
    assert all(t.keys() == tasks[0].keys() for t in tasks)
    assert all(t["diff_pp"] is None and t["q_worse"] is None for t in small)


def test_cluster_by_category_is_the_clustered_library_gate(tmp_path, matrix, capsys):
    files = reports(tmp_path, matrix, NEAR_BASE, NEAR_CAND)
    argv = [*files, "--baseline", NEAR_BASE, "--candidate", NEAR_CAND, "--cluster-by", "category"]
    _, out, _ = gate(*argv, "--json", capsys=capsys)
    overall = json.loads(out)["comparisons"][0]["overall"]
    # The SWE-bench reader's category is the repository (django__django of django__django-11099).
    repo = np.array([i.rsplit("-", 1)[0] for i in matrix.index])
    expected = library(matrix, NEAR_BASE, NEAR_CAND, clusters=repo)
    assert overall["n_units"] == len(set(repo)) == expected.difference.n_units
    assert overall["ci_high_pp"] == pytest.approx(100 * expected.difference.ci_high, abs=1e-6)
    assert overall["ci_method"].startswith("clustered SE")
    assert overall["epochs_note"].startswith("not computed with cluster_by")


def build_warehouse(folder: Path, runs: list[Path]) -> Path:
    """A built analysis ``folder`` (``<name>/<name>.duckdb``) as the workflow builds it."""
    labelled = []
    for i, path in enumerate(runs):
        frame, _ = ingest(f"swebench-{path.stem}", "swebench", path, [path], {})
        out = folder / "labelled" / f"{i}.parquet"
        out.parent.mkdir(parents=True, exist_ok=True)
        frame.to_parquet(out)
        labelled.append(str(out))
    db = folder / f"{folder.name}.duckdb"
    with warehouse.building(db) as con:
        warehouse.create_stacked(con, "responses", responses_sql(labelled))
        warehouse.write_frames(con, build_in(con, None, "require_equal"))
    return folder


def test_built_analysis_gives_the_raw_verdict_and_the_rule_script_writes_it(
    tmp_path, matrix, capsys
):
    files = reports(tmp_path, matrix, HIGH, LOW, NEAR_BASE)
    built = build_warehouse(tmp_path / "results" / "swe", files)
    argv = ["--baseline", NEAR_BASE, "--candidate", HIGH, "--candidate", LOW, "--json"]
    raw = json.loads(gate(*files, *argv, capsys=capsys)[1])
    code, out, _ = gate(built, *argv, capsys=capsys)
    from_db = json.loads(out)
    assert from_db["baseline"]["source"].endswith("swe")
    for a, b in zip(raw["comparisons"], from_db["comparisons"], strict=True):
        assert a["overall"] == b["overall"]
    assert code == raw["exit_code"]
    # The workflow's rule script on the same warehouse.
    from rederive.studies.benchmark import gate as rule

    outputs = {ext: tmp_path / "gate" / f"gate.{ext}" for ext in ("csv", "md", "json")}
    snakemake = SimpleNamespace(
        input=SimpleNamespace(db=str(built / "swe.duckdb")),
        output=SimpleNamespace(**{k: str(v) for k, v in outputs.items()}),
        params=SimpleNamespace(
            gate={
                "baseline": NEAR_BASE,
                "candidate": [HIGH, LOW],
                "margin_pp": 1.0,
                "level": 0.95,
                "by": "none",
                "fail_on": "inconclusive",
            },
            cluster_by="none",
            min_n=20,
            power={"target": 0.8, "alpha": 0.05, "relevant_pp": 2.0},
        ),
        wildcards=SimpleNamespace(analysis="swe"),
    )
    rule.main(snakemake)
    written = json.loads(outputs["json"].read_text())
    assert written["schema_version"] == SCHEMA_VERSION
    assert [c["overall"] for c in written["comparisons"]] == [
        c["overall"] for c in from_db["comparisons"]
    ]
    csv = pd.read_csv(outputs["csv"], keep_default_na=False)
    assert list(csv.columns) == CSV_COLUMNS and list(csv["candidate"]) == [HIGH, LOW]
    assert "# Gate: candidates against" in outputs["md"].read_text()
    # A name the analysis does not have: the message says where the names come from.
    snakemake.params.gate = {**snakemake.params.gate, "baseline": "GPT-4o"}
    with pytest.raises(InputError) as caught:
        rule.main(snakemake)
    text = str(caught.value)
    assert "field 'gate'" in text and "no model 'GPT-4o' here; the models are:" in text
    assert "analyses.swe.gate names the baseline and candidates; gate: null builds no gate" in text


def test_outputs_are_byte_identical_across_runs(tmp_path, matrix, capsys):
    files = reports(tmp_path, matrix, HIGH, LOW)
    argv = ["--baseline", LOW, "--candidate", HIGH, "--by", "task"]
    gate(*files, *argv, "--out", tmp_path / "one", capsys=capsys)
    gate(*files, *argv, "--out", tmp_path / "two", capsys=capsys)
    for name in ("gate.csv", "gate.md", "gate.json"):
        one, two = (tmp_path / d / name for d in ("one", "two"))
        assert one.read_bytes() == two.read_bytes() and one.read_bytes().endswith(b"\n")


def test_module_runs_as_a_program_and_help_is_complete(tmp_path, matrix):
    proc = subprocess.run(
        [sys.executable, "-m", "rederive.gate", "--help"], capture_output=True, text=True
    )
    assert proc.returncode == 0
    for flag in (
        "--baseline",
        "--candidate",
        "--baseline-from",
        "--margin-pp",
        "--level",
        "--by",
        "--cluster-by",
        "--fail-on",
        "--out",
        "--json",
        "exit status",
    ):
        assert flag in proc.stdout
    files = reports(tmp_path, matrix, HIGH, LOW)
    proc = subprocess.run(
        [sys.executable, "-m", "rederive.gate", *map(str, files), "--baseline", HIGH]
        + ["--candidate", LOW],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 1 and ": worse" in proc.stdout


def test_epochs_are_averaged_and_the_epochs_needed_follow_the_noise_split(tmp_path, capsys):
    # Seeded epochs: 150 items, 4 epochs each, item accuracies uniform, the candidate
    # the baseline's plus three points on average with item-level disagreement.
    rng = np.random.default_rng(21)
    n, k = 150, 4
    p_base = rng.uniform(0.2, 0.8, n)
    p_cand = np.clip(p_base + rng.normal(0.03, 0.05, n), 0, 1)
    rows = []
    for model, p in (("base", p_base), ("cand", p_cand)):
        for i in range(n):
            for epoch in range(1, k + 1):
                rows.append((model, "t", f"q{i}", int(rng.random() < p[i]), epoch))
    path = tmp_path / "long.csv"
    frame = pd.DataFrame(rows, columns=["model", "task", "item_id", "correct", "epoch"])
    frame.to_csv(path, index=False, lineterminator="\n")
    argv = [path, "--baseline", "base", "--candidate", "cand", "--margin-pp", "1", "--json"]
    overall = json.loads(gate(*argv, capsys=capsys)[1])["comparisons"][0]["overall"]
    # Per-item epoch means, paired t on their differences.
    means = frame.groupby(["model", "item_id"])["correct"].mean().unstack(0)
    d = means["cand"] - means["base"]
    assert overall["ci_method"] == "paired t on item differences" and overall["n_items"] == n
    assert overall["diff_pp"] == pytest.approx(100 * d.mean(), abs=1e-6)
    # Epochs that reach an MDE equal to the estimate's distance from the margin, from
    # the between/within split written out: within = mean over items of both models'
    # epoch variances; between = Var(d) - within / K (Miller 2024, sec. 3). Epoch
    # means are decided by the paired t interval, so the power is the noncentral t's
    # with n - 1 df (both tails, as pwr.t.test counts them); the z form says 27 here.
    var = frame.groupby(["model", "item_id"])["correct"].var(ddof=1).unstack(0)
    within = float((var["cand"] + var["base"]).mean())
    between = float(d.var(ddof=1)) - within / k
    crit = stats.t.isf(0.025, n - 1)

    def t_power(x):
        return stats.nct.sf(crit, n - 1, x) + stats.nct.sf(crit, n - 1, -x)

    def z_power(x):
        z = stats.norm.isf(0.025)
        return stats.norm.cdf(x - z) + stats.norm.cdf(-x - z)

    distance = abs(d.mean() + 0.01)

    def epochs(power_of):
        effect = optimize.brentq(lambda x: power_of(x) - 0.8, 0.5, 8)
        budget = n * (distance / effect) ** 2 - max(between, 0)
        assert budget > 0 and within > 0
        return max(int(np.ceil(within / budget - 1e-9)), 2)

    assert overall["epochs_needed"] == epochs(t_power) == 28 > k
    assert epochs(z_power) == 27
    assert overall["verdict"] == "inconclusive" and overall["epochs_note"] == ""
    # The MDE at these 150 items is the paired t test's too.
    sd = float(d.std(ddof=1))
    effect = optimize.brentq(lambda x: t_power(x) - 0.8, 0.5, 8)
    assert overall["mde_pp"] == pytest.approx(100 * effect * sd / np.sqrt(n), abs=1e-5)
    assert overall["power_method"].startswith("noncentral t")


def test_worked_example_is_run_by_the_docs_check():
    """docs/gate.md's worked example is a docs-test console block: tests/test_docs.py
    runs each command and compares its output line by line."""
    from test_docs import console_steps, parse_blocks

    blocks = [
        b
        for b in parse_blocks(REPO / "docs" / "gate.md")
        if b.marker == "docs-test" and b.lang == "console"
    ]
    commands = [command for block in blocks for command, _ in console_steps(block)]
    assert any("raw/benchmark --baseline GPT-4o --candidate o1" in c for c in commands)
    assert any("--candidate Llama-3.1-70B-Instruct" in c for c in commands)


def test_the_csv_columns_docs_gate_md_lists_are_the_written_ones():
    """gate.csv is written with CSV_COLUMNS (test above); docs/gate.md lists them in order."""
    text = " ".join((REPO / "docs" / "gate.md").read_text(encoding="utf-8").split())
    listed = re.search(r"columns `(baseline, [^`]*)`", text)
    assert listed is not None and listed.group(1).split(", ") == CSV_COLUMNS


def test_the_benchmark_schema_fills_the_gate_block_and_refuses_bad_ones():
    """The ``gate:`` block of config/schemas/benchmark.schema.yaml, as an analysis entry."""
    from rederive.analyses import ConfigError, kind_names, resolve_analysis
    from rederive.studies.benchmark.gate import candidates_of, settings_of

    schemas = REPO / "config" / "schemas"
    kinds = kind_names(schemas)

    def entry(gate):
        return resolve_analysis(
            "x", {"kind": "benchmark", "raw_dir": ".", "gate": gate}, schemas, kinds
        )

    filled = entry({"baseline": "a", "candidate": "b"})["gate"]
    assert filled == {
        "baseline": "a",
        "candidate": "b",
        "margin_pp": 1.0,
        "level": 0.95,
        "by": "none",
        "fail_on": "inconclusive",
    }
    # No block, or null: no gate.
    assert entry(None)["gate"] is None
    assert (
        resolve_analysis("x", {"kind": "benchmark", "raw_dir": "."}, schemas, kinds)["gate"] is None
    )
    settings = settings_of(filled, cluster_by="group", min_n=20, power={"target": 0.9})
    assert (settings.margin_pp, settings.cluster_by, settings.power) == (1.0, "group", 0.9)
    assert candidates_of(filled) == ["b"]
    assert candidates_of({"candidate": ["b", "c"]}) == ["b", "c"]
    for bad in (
        {"baseline": "a"},
        {"baseline": "a", "candidate": []},
        {"baseline": "a", "candidate": ["b", "b"]},
        {"baseline": "a", "candidate": "b", "level": 1},
        {"baseline": "a", "candidate": "b", "margin_pp": -1},
        {"baseline": "a", "candidate": "b", "by": "category"},
        {"baseline": "a", "candidate": "b", "fail_on": "never"},
        {"baseline": "a", "candidate": "b", "seed": 1},
        "GPT-4o",
    ):
        with pytest.raises(ConfigError, match="analyses.x.gate"):
            entry(bad)
