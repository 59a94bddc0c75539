"""The bundled data is exactly what the seeded generator writes, and it carries the
published shape (the counts the paper reports)."""

import filecmp
import json
from pathlib import Path

import pandas as pd
import pytest

from rederive.simulate.cot_loadbearing import apportion, generate, subject_spread

REPO = Path(__file__).resolve().parents[2]
RAW = REPO / "raw" / "cot_loadbearing"


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    out = tmp_path_factory.mktemp("cot_sim")
    generate(out, RAW / "published")
    return out


def test_bundled_files_equal_a_fresh_generation(fresh):
    bundled = sorted(p.name for p in (RAW / "runs").glob("*.jsonl"))
    assert bundled == sorted(p.name for p in (fresh / "runs").glob("*.jsonl"))
    for name in bundled:
        assert filecmp.cmp(RAW / "runs" / name, fresh / "runs" / name, shallow=False), name
    assert filecmp.cmp(RAW / "baselines.csv", fresh / "baselines.csv", shallow=False)


def test_published_shape(fresh):
    rows = [json.loads(line) for line in open(fresh / "runs" / "gemma-2-9b-it.jsonl")]
    frame = pd.DataFrame(rows)
    production = frame[frame.get("judge_variant").isna()]
    labelled = production[production["judge_label"].notna()]
    assert len(labelled[labelled["experiment"] == "main"]) == 21238
    assert len(labelled) == 28584  # the paper's ordinal-regression pool
    variants = frame[frame["judge_variant"].notna()]
    assert variants.groupby("judge_variant").size().eq(15336).all()
    assert variants["judge_variant"].nunique() == 3  # plus production: four prompts
    baselines = pd.read_csv(fresh / "baselines.csv").set_index(["model", "dataset"])
    assert baselines.loc[("gemma-2-9b-it", "bbh"), "n_baselines"] == 3191
    llama = [json.loads(line) for line in open(fresh / "runs" / "llama-3.1-8b-instruct.jsonl")]
    assert sum(r["judge_label"] is not None for r in llama) == 7791
    deepseek = [
        json.loads(line) for line in open(fresh / "runs" / "deepseek-r1-distill-qwen-7b.jsonl")
    ]
    assert len(deepseek) == 1603


def test_apportion_and_subject_spread():
    assert apportion(10, [1, 1, 1]).tolist() == [4, 3, 3]
    assert apportion(7, [0.5, 0.25, 0.25]).sum() == 7
    sizes = [100] * 29
    rates = subject_spread(sizes, 0.075, 0.537, 0.223)
    assert rates.min() == pytest.approx(0.075) and rates.max() == pytest.approx(0.537)
    assert sum(r * s for r, s in zip(rates, sizes, strict=True)) / sum(sizes) == pytest.approx(
        0.223
    )
