"""pass@k, pass^k and maj@k through the whole workflow: τ-bench's published airline
trajectories against its README, a real Inspect log against Inspect's own pass@k,
and several models with answers, short items and fractional grades; an analysis
without `sampling:` builds none of it."""

import itertools
import json
import math
import shutil
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from workflow_utils import run_workflow

from rederive.io.inspect_log import sampling_reducer
from rederive.io.zipread import ZipReader

FIXTURES = Path(__file__).parents[1] / "stats" / "fixtures" / "sampling"
TAU = FIXTURES / "tau_bench"
INSPECT_LOG = FIXTURES / "inspect_code" / "0.3.285" / "tiny_code.eval"
MODEL = "gpt-4o (tool-calling)"
FAST = {"bootstrap": {"n_boot": 200}, "irt": {"epochs": 100}}


def build(tmp_path, name, raw, **settings):
    entry = {"kind": "benchmark", "label": name, "raw_dir": str(raw), **FAST, **settings}
    run_workflow(tmp_path, {"build": [name], "analyses": {name: entry}})
    return tmp_path / "results" / name


@pytest.mark.slow
def test_tau_bench_airline_pass_hat_k_equals_the_readme_and_the_check_passes(tmp_path):
    raw = tmp_path / "raw"
    (raw / "long").mkdir(parents=True)
    (raw / "published").mkdir()
    shutil.copy(TAU / "gpt-4o-airline.csv", raw / "long")
    shutil.copy(TAU / "published.csv", raw / "published" / "tau_bench_readme.csv")
    out = build(tmp_path, "tau_airline", raw, sampling={"k": [1, 2, 3, 4]})
    table = pd.read_csv(out / "tables" / "sampling.csv")
    hat = table[table["metric"] == "pass^k"].set_index("k")
    published = pd.read_csv(TAU / "published.csv", dtype={"value": str}).set_index("k")
    for k, printed in published["value"].items():
        decimals = len(printed.split(".")[1])
        assert round(hat.loc[k, "estimate"], decimals) == pytest.approx(float(printed), abs=1e-12)
        # τ-bench's own formula: the mean over tasks of C(c, k) / C(4, k).
        long = pd.read_csv(TAU / "gpt-4o-airline.csv")
        c = long.groupby("item_id")["correct"].sum()
        theirs = sum(math.comb(int(x), k) / math.comb(4, k) for x in c) / 50
        assert hat.loc[k, "estimate"] == pytest.approx(theirs, abs=1e-12)
        # With an interval around it.
        assert hat.loc[k, "ci_low"] < hat.loc[k, "estimate"] < hat.loc[k, "ci_high"]
    assert (table["n_items"].where(table["metric"] != "maj@k", 50) == 50).all()
    assert (table["n_items_excluded"] == 0).all()
    # No answer column in the long file: maj@k is n/a with the reason, never 0.
    maj = table[table["metric"] == "maj@k"]
    assert maj["estimate"].isna().all() and maj["note"].str.startswith("no extracted").all()
    check = pd.read_csv(out / "check" / "published_check.csv")
    readme = check[check["table"] == "tau_bench_readme"]
    assert readme["quantity"].tolist() == ["pass^1", "pass^2", "pass^3", "pass^4"]
    assert (readme["status"] == "pass").all() and (readme["printed_decimals"] == 3).all()
    assert (check["status"] == "pass").all()
    assert (out / "figures" / "sampling.png").stat().st_size > 10_000
    assert (out / "figures" / "sampling.pdf").exists()
    assert not (out / "tables" / "sampling_ranking.csv").exists()  # no rank_at


def epoch_grades() -> dict[str, list[int]]:
    """Each problem's grades over the epochs, straight from the log's sample files."""
    grades: dict[str, list[int]] = {}
    reader = ZipReader(INSPECT_LOG)
    try:
        for member in sorted(m for m in reader.namelist() if m.startswith("samples/")):
            sample = json.loads(reader.read(member))
            value = sample["scores"]["run_asserts"]["value"]
            grades.setdefault(str(sample["id"]), []).append({"C": 1, "I": 0}[value])
        header = json.loads(reader.read("header.json"))
    finally:
        reader.close()
    return grades, header


def brute(grades: list[int], k: int, every: bool) -> Fraction:
    subsets = list(itertools.combinations(grades, k))
    hits = sum((all if every else any)(s) for s in subsets)
    return Fraction(hits, len(subsets))


@pytest.mark.slow
def test_inspect_pass_at_k_equals_inspects_own_and_a_brute_force_through_the_workflow(tmp_path):
    raw = tmp_path / "raw"
    (raw / "inspect").mkdir(parents=True)
    shutil.copy(INSPECT_LOG, raw / "inspect")
    ks = [1, 2, 3, 4, 6]
    out = build(
        tmp_path,
        "tiny_code",
        raw,
        inspect={"scorer": "run_asserts", "reducer": "mean"},
        sampling={"k": ks, "metrics": ["pass@k", "pass^k", "maj@k"]},
    )
    table = pd.read_csv(out / "tables" / "sampling.csv").set_index(["metric", "k"])
    grades, header = epoch_grades()
    reported = {
        sampling_reducer(s["reducer"]): s["metrics"]["accuracy"]["value"]
        for s in header["results"]["scores"]
        if sampling_reducer(s["reducer"])
    }
    assert len(reported) == 10
    for (metric, k), theirs in reported.items():
        ours = table.loc[(metric, k), "estimate"]
        assert ours == pytest.approx(theirs, abs=1e-12)
        independent = sum(brute(g, k, metric == "pass^k") for g in grades.values()) / len(grades)
        assert ours == pytest.approx(float(independent), abs=1e-12)
        assert table.loc[(metric, k), "n_samples"] == 30
    # maj@k votes with the scorer's answers (the code it ran): available, in [0, 1].
    assert table.xs("maj@k")["estimate"].between(0, 1).all()
    check = pd.read_csv(out / "check" / "published_check.csv")
    harness = check[check["table"] == "harness-reported"]
    sampling_rows = harness[harness["quantity"].str.match(r"pass[@^][2-9]")]
    assert len(sampling_rows) == 8  # pass@ and pass^ at k = 2, 3, 4, 6
    assert (sampling_rows["status"] == "pass").all()
    assert (check["status"] == "pass").all()


def synthetic_long(path: Path) -> pd.DataFrame:
    """Three models with answers over 30 items, 6 samples each; model `short` has 2
    samples on five items; model `partial` has partial credit."""
    rng = np.random.default_rng(35)
    rows = []
    for model, p in (("strong", 0.85), ("weak", 0.3), ("short", 0.6), ("partial", 0.5)):
        for i in range(30):
            n = 2 if model == "short" and i < 5 else 6
            for e in range(1, n + 1):
                ok = rng.random() < p
                answer = "right" if ok else f"w{rng.integers(2)}"
                grade = 0.5 if model == "partial" and e == 1 else float(ok)
                rows.append(
                    {
                        "model": model,
                        "item_id": f"q{i}",
                        "epoch": e,
                        "correct": grade,
                        "answer": answer,
                    }
                )
    frame = pd.DataFrame(rows)
    frame.to_json(path, orient="records", lines=True)
    return frame


def brute_maj(answers: list[str], correct: set[str], k: int) -> Fraction:
    total, count = Fraction(0), 0
    for subset in itertools.combinations(answers, k):
        count += 1
        votes = pd.Series(subset).value_counts()
        winners = votes[votes == votes.max()].index
        total += Fraction(sum(w in correct for w in winners), len(winners))
    return total / count


@pytest.mark.slow
def test_answers_short_items_fractional_grades_and_the_ranking(tmp_path):
    raw = tmp_path / "raw"
    (raw / "long").mkdir(parents=True)
    frame = synthetic_long(raw / "long" / "runs.jsonl")
    out = build(
        tmp_path,
        "many",
        raw,
        sampling={"k": [1, 4], "rank_at": 4, "rank_metric": "maj@k"},
    )
    tables = out / "tables"
    table = pd.read_csv(tables / "sampling.csv")
    partial = table[table["model"] == "partial"]
    assert partial["estimate"].isna().all()
    assert partial["note"].str.contains("have a grade that is not 0 or 1").all()
    short = table[(table["model"] == "short") & (table["k"] == 4)]
    assert (short["n_items_excluded"] == 5).all() and (short["n_items"] == 25).all()
    # maj@4 of `weak` equals the brute force over every 4-subset of each item's answers.
    weak = frame[frame["model"] == "weak"]
    expected = np.mean(
        [
            float(brute_maj(list(g["answer"]), {"right"}, 4))
            for _, g in weak.groupby("item_id", sort=False)
        ]
    )
    got = table.query("model == 'weak' and metric == 'maj@k' and k == 4")["estimate"].iloc[0]
    assert got == pytest.approx(expected, abs=1e-12)
    quality = pd.read_csv(tables / "data_quality.csv")
    rows = quality[quality["reason"].str.startswith("left out of sampling.csv only")]
    assert rows["reason"].tolist() == [
        "left out of sampling.csv only (sampling.k): 5 of 30 items have fewer than 4 samples, "
        "no estimate at k = 4 (pass@k, pass^k, maj@k) [short]"
    ]
    assert (rows["rows"] == 0).all()
    # "n/a" is a rank, not a missing value.
    ranking = pd.read_csv(tables / "sampling_ranking.csv", keep_default_na=False, na_values=[""])
    assert ranking["model"].tolist()[0] == "strong"
    assert ranking.set_index("model").loc["partial", "rank"] == "n/a"
    assert (ranking["metric"] == "maj@k").all() and (ranking["k"] == 4).all()
    pairs = pd.read_csv(tables / "sampling_pairwise.csv")
    assert len(pairs) == 3 and (pairs["n_items_dropped"] == 5).all()
    assert pairs["q_value"].between(0, 1).all()
    site = (tmp_path / "results" / "site" / "many" / "index.html").read_text()
    assert "<h2>Sampling</h2>" in site


@pytest.mark.slow
def test_an_analysis_without_sampling_plans_no_sampling_job(tmp_path):
    raw = tmp_path / "raw"
    (raw / "long").mkdir(parents=True)
    shutil.copy(TAU / "gpt-4o-airline.csv", raw / "long")
    entry = {"kind": "benchmark", "raw_dir": str(raw)}
    proc = run_workflow(
        tmp_path, {"build": ["plain"], "analyses": {"plain": entry}}, extra_args=["-n"]
    )
    assert "analyse_benchmark_accuracy" in proc.stdout
    assert "benchmark_sampling" not in proc.stdout
    entry["sampling"] = {"k": [1, 2]}
    proc = run_workflow(
        tmp_path, {"build": ["plain"], "analyses": {"plain": entry}}, extra_args=["-n"]
    )
    assert "analyse_benchmark_sampling" in proc.stdout
    assert "plot_benchmark_sampling" in proc.stdout
    assert "compare_benchmark_sampling" not in proc.stdout
