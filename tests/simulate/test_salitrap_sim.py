"""Tests of the simulated SaliTrap data generator and the bundled files it wrote.

Table checks recompute rates here with plain pandas and exact fractions, on
purpose independent of the simulator's own count logic. HFR counts the paper's
"strong failures" (Hard Fail + CoT Hijacked, labels 1-2), as config/kinds/salitrap.yaml
does: only under that reading are the published Tables 1 and 2 consistent.
"""

from __future__ import annotations

import json
import math
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pandas as pd
import pytest

from rederive.simulate.salitrap import DEFAULT_SEED, generate
from rederive.studies.salitrap.items import ITEM_FIELDS

REPO = Path(__file__).resolve().parents[2]
RAW = REPO / "raw" / "salitrap"
PUBLISHED = RAW / "published"
INVALID = {"Error", "JudgeError", "Unknown", "Skipped"}
DIMS = {
    "Dimension 1": "missing_prerequisite",
    "Dimension 2": "environment_mismatch",
    "Dimension 4": "temporal_physiological",
    "Dimension 5": "rule_mismatch",
}
RUN_FIELDS = [
    "item_id",
    "model_id",
    "seed_id",
    "dimension_tag",
    "judge_label",
    "skipped",
    "error",
    "condition",
]
REGENERATE = f"PYTHONPATH=scripts python -m rederive.simulate.salitrap --seed {DEFAULT_SEED}"
STRONG_FAILURES = ["Hard Fail", "CoT Hijacked"]  # HFR numerator
#: Table 2 SI cells the integer counts cannot reproduce, as (model, dimension). The
#: solver matches every SI cell under the strong-failure reading of HFR.
SI_IMPOSSIBLE: set[tuple[str, str]] = set()


def tree(root: Path) -> dict[str, bytes]:
    """Relative path -> bytes of every generated file below ``root`` (``published/`` excluded)."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "published" not in p.relative_to(root).parts
    }


def tenths(k: int, n: int) -> int:
    """100*k/n rounded half-up to one decimal, as integer tenths (exact)."""
    return math.floor(Fraction(1000 * k, n) + Fraction(1, 2))


def printed(value) -> int:
    """A published one-decimal number as integer tenths."""
    return int(Decimal(str(value)) * 10)


def cell_of(df: pd.DataFrame, dimension: str) -> pd.DataFrame:
    """Valid rows of one published cell (a dimension or ``overall``)."""
    valid = df[df["valid"]]
    return valid if dimension == "overall" else valid[valid["dimension"] == dimension]


def read_run(path: Path) -> pd.DataFrame:
    df = pd.read_json(path, lines=True, dtype=False)
    df["dimension"] = df["dimension_tag"].str.split(":").str[0].map(DIMS)
    df["valid"] = ~df["skipped"].astype(bool) & ~df["judge_label"].isin(INVALID)
    return df


@pytest.fixture(scope="module")
def fresh(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("salitrap_a")
    generate(out, DEFAULT_SEED, PUBLISHED)
    return out


@pytest.fixture(scope="module")
def control_runs() -> dict[str, pd.DataFrame]:
    return {
        p.stem: read_run(p) for p in sorted((RAW / "runs").glob("*.jsonl")) if "__" not in p.stem
    }


@pytest.fixture(scope="module")
def published_t1() -> pd.DataFrame:
    return pd.read_csv(PUBLISHED / "salitrap_table1_tar_hfr.csv", dtype=str)


def test_generation_is_byte_identical(fresh, tmp_path):
    generate(tmp_path, DEFAULT_SEED, PUBLISHED)
    first, second = tree(fresh), tree(tmp_path)
    assert first.keys() == second.keys()
    different = [name for name in first if first[name] != second[name]]
    assert not different, f"files differ between two runs with the same seed: {different}"


def test_bundled_files_equal_a_fresh_generation(fresh):
    bundled, regenerated = tree(RAW), tree(fresh)
    assert bundled.keys() == regenerated.keys(), f"bundled file set is stale; run {REGENERATE}"
    stale = [name for name in regenerated if bundled[name] != regenerated[name]]
    assert not stale, (
        f"bundled files differ from the generator (hand-edited?): {stale}; run {REGENERATE}"
    )


def test_table1_reproduced_exactly(control_runs, published_t1):
    assert sorted(control_runs) == sorted(published_t1["model"].unique())
    for row in published_t1.itertuples():
        cell = cell_of(control_runs[row.model], row.dimension)
        n = len(cell)
        tar = tenths(int((cell["judge_label"] == "Strict Pass").sum()), n)
        hfr = tenths(int(cell["judge_label"].isin(STRONG_FAILURES).sum()), n)
        assert (tar, hfr) == (printed(row.TAR), printed(row.HFR)), (row.model, row.dimension)


def test_table2_reproduced(control_runs):
    published = pd.read_csv(PUBLISHED / "salitrap_table2_scr_si.csv", dtype=str)
    assert len(published) == 60
    si_missed = set()
    for row in published.itertuples():
        labels = cell_of(control_runs[row.model], row.dimension)["judge_label"]
        sc = int((labels == "Sycophantic Compliance").sum())
        cot = int((labels == "CoT Hijacked").sum())
        assert tenths(sc, len(labels)) == printed(row.SCR), (row.model, row.dimension)
        # the remaining rows beside TAR/HFR/SCR are Refusal or Patch Compliance only
        other = set(labels) - {"Strict Pass", "Sycophantic Compliance", *STRONG_FAILURES}
        assert other <= {"Refusal", "Patch Compliance"}, (row.model, row.dimension)
        if sc + cot == 0 or tenths(sc, sc + cot) != printed(row.SI):
            si_missed.add((row.model, row.dimension))
    assert si_missed == SI_IMPOSSIBLE


def test_table3_reproduced():
    items = pd.read_json(RAW / "items.jsonl", lines=True, dtype=False)
    items["dimension"] = items["dimension_tag"].str.split(":").str[0].map(DIMS)
    items["k"] = items["injected_numbers"].map(len)
    published = pd.read_csv(PUBLISHED / "salitrap_table3_dataset.csv", dtype=str)
    for row in published.itertuples():
        cell = items if row.dimension == "overall" else items[items["dimension"] == row.dimension]
        n = len(cell)
        assert n == int(row.items)
        # mean rounded half-up to one decimal == tenths(total, 100 * n)
        assert tenths(int(cell["k"].sum()), 100 * n) == printed(row.mean_injected_numbers)
        assert tenths(int(cell["naturalness_score"].sum()), 100 * n) == printed(
            row.mean_naturalness
        )


def test_items_schema_and_seeds():
    records = [json.loads(line) for line in (RAW / "items.jsonl").read_text().splitlines()]
    assert len(records) == 1145
    # The generator writes exactly the fields the workflow's item reader requires.
    assert list(records[0]) == ITEM_FIELDS
    items = pd.DataFrame(records)
    assert items["item_id"].is_unique
    assert items["naturalness_score"].between(1, 5).all()
    assert set(items["attack_tier"]) == {"strong", "weak"}
    assert items["dimension_tag"].str.split(":").str[0].isin(DIMS).all()
    assert items["prompt"].str.contains(r"\[simulated\]").all()
    for rec in records[:50]:
        assert all(json.dumps(x) in rec["prompt"] for x in rec["injected_numbers"])
    per_seed = items.groupby("seed_id").agg(
        size=("item_id", "size"), dims=("dimension_tag", "nunique")
    )
    assert per_seed["size"].between(2, 6).all()
    assert (per_seed["dims"] == 1).all()


def test_run_schema_and_invalid_rows(control_runs):
    kinds = set()
    for path in sorted((RAW / "runs").glob("*.jsonl")):
        first = json.loads(path.open().readline())
        assert list(first) == RUN_FIELDS, path.name
        df = read_run(path)
        bad = df[~df["valid"]]
        kinds |= {
            "Skipped" if s else lbl
            for s, lbl in zip(bad["skipped"], bad["judge_label"], strict=True)
        }
        assert (bad.loc[bad["skipped"], "judge_label"] == "Skipped").all()
        assert bad.loc[bad["judge_label"].isin(["JudgeError", "Error"]), "error"].notna().all()
        assert df.loc[df["valid"], "error"].isna().all()
    assert kinds == INVALID
    for model, df in control_runs.items():
        assert len(df) == 1145 and df["item_id"].is_unique, model
        assert (df["condition"] == "control").all()
        assert (~df["valid"]).sum() <= 4, model


def test_liberation_runs(control_runs):
    table6 = pd.read_csv(PUBLISHED / "salitrap_table6_liberation.csv")
    overall = table6[table6["dimension"] == "overall"].set_index("model")
    for model, row in overall.iterrows():
        lib = read_run(RAW / "runs" / f"{model}__liberation.jsonl")
        control = control_runs[model]
        sc_items = set(control.loc[control["judge_label"] == "Sycophantic Compliance", "item_id"])
        assert set(lib["condition"]) == {"lib_A", "lib_B", "lib_C"}
        assert (lib["model_id"] == model).all()
        valid_n = set()
        for _, part in lib.groupby("condition"):
            assert set(part["item_id"]) == sc_items and part["item_id"].is_unique
            valid_n.add(int(part["valid"].sum()))
        # one valid n shared by A/B/C, as Table 6 prints one n (capped by the SC count).
        assert valid_n == {min(int(row["n_requeried"]), len(sc_items))}, model


def test_intervention_runs():
    table7 = pd.read_csv(PUBLISHED / "salitrap_table7_interventions.csv", dtype=str)
    for model, rows in table7.groupby("model"):
        runs = read_run(RAW / "runs" / f"{model}__interventions.jsonl")
        assert set(runs["condition"]) == {"P1", "P2", "P3"}, "no control rows in intervention files"
        for row in rows[rows["condition"] != "control"].itertuples():
            part = runs[runs["condition"] == row.condition]
            assert len(part) == 1145 and part["item_id"].is_unique
            valid = part[part["valid"]]
            tar = tenths(int((valid["judge_label"] == "Strict Pass").sum()), len(valid))
            hfr = tenths(int(valid["judge_label"].isin(STRONG_FAILURES).sum()), len(valid))
            assert (tar, hfr) == (printed(row.TAR), printed(row.HFR)), (model, row.condition)


def test_table5_failure_sets(control_runs):
    """Co-failure, Jaccard, top/bottom-5 membership and the all-fail count (paper Table 5).

    Recounted with pandas from the control runs: a failure is any valid label other
    than Strict Pass; rates are over the items both models answered validly.
    """
    labels = pd.DataFrame(
        {m: df.set_index("item_id")["judge_label"] for m, df in control_runs.items()}
    )
    valid = ~labels.isin(INVALID)
    failed = valid & (labels != "Strict Pass")
    models = sorted(labels.columns)
    stats = {}
    for i, a in enumerate(models):
        for b in models[i + 1 :]:
            both_valid = valid[a] & valid[b]
            fa, fb = failed[a] & both_valid, failed[b] & both_valid
            inter, union = int((fa & fb).sum()), int((fa | fb).sum())
            stats[frozenset((a, b))] = (inter / int(both_valid.sum()), inter / union)
    assert len(stats) == 66
    by_jaccard = sorted(stats, key=lambda k: -stats[k][1])
    top5, bottom5 = set(by_jaccard[:5]), set(by_jaccard[-5:])
    published = pd.read_csv(PUBLISHED / "salitrap_table5_pairs.csv", dtype=str)
    for row in published.itertuples():
        key = frozenset((row.model_a, row.model_b))
        co, jac = stats[key]
        # equal at the printed three decimals (the calibration hits every pair exactly)
        assert abs(co - float(row.co_failure_rate)) <= 0.0005 + 1e-12, (key, co)
        assert abs(jac - float(row.jaccard)) <= 0.0005 + 1e-12, (key, jac)
        assert key in (top5 if row.group == "most_similar" else bottom5), (key, row.group)
    # the extremes are clear, not decided by a tie
    ranked = [stats[k][1] for k in by_jaccard]
    assert ranked[4] > ranked[5] and ranked[-5] < ranked[-6]
    all_fail = pd.read_csv(PUBLISHED / "salitrap_table5_all_fail.csv").iloc[0]
    failed_by_all = int((failed & valid).all(axis=1).sum())
    assert failed_by_all == int(all_fail["items_failed_by_all"]) == 207
    assert tenths(failed_by_all, len(labels)) == printed(all_fail["share_percent"])


def test_models_csv_and_note():
    models = pd.read_csv(RAW / "models.csv")
    assert list(models.columns) == ["model", "family", "vendor", "display_order"]
    assert len(models) == 12 and models["display_order"].tolist() == list(range(1, 13))
    note = (RAW / "SIMULATED.md").read_text()
    assert "SIMULATED" in note and str(DEFAULT_SEED) in note
