"""The bundled simulated data: byte-identical regeneration and calibration."""

import filecmp

import pandas as pd
import pytest
import yaml
from workflow_utils import REPO

from rederive.simulate.bias_awareness import generate, target_count
from rederive.stats.rates import percent
from rederive.studies.bias_awareness.ingest import label_run
from rederive.studies.bias_awareness.items import read_items

RAW = REPO / "raw" / "bias_awareness"
KEYWORDS = yaml.safe_load((REPO / "config" / "kinds" / "bias_awareness.yaml").read_text())[
    "keyword_awareness"
]


def test_bundled_files_equal_a_fresh_generation(tmp_path):
    written = generate(tmp_path, published=RAW / "published" / "bias_awareness_headline.csv")
    assert [p.relative_to(tmp_path).as_posix() for p in written] == [
        "items.jsonl",
        "runs/GPT-4o.jsonl",
        "runs/Claude-Sonnet-4.jsonl",
    ]
    for path in written:
        bundled = RAW / path.relative_to(tmp_path)
        assert filecmp.cmp(path, bundled, shallow=False), (
            f"{bundled} differs from a fresh generation"
        )


@pytest.fixture(scope="module")
def labelled():
    items = read_items(RAW / "items.jsonl")
    frames = [
        label_run(RAW / "runs" / f"{m}.jsonl", items, run=m, keyword_config=KEYWORDS)[0]
        for m in ("GPT-4o", "Claude-Sonnet-4")
    ]
    return pd.concat(frames, ignore_index=True)


def test_bundled_runs_reproduce_published_rates_through_the_labelling_path(labelled):
    published = pd.read_csv(RAW / "published" / "bias_awareness_headline.csv")
    rates = published[published["unit"] == "percent"]
    biased = labelled[labelled["bias"] != "none"]
    for row in rates.itertuples(index=False):
        sub = biased[biased["model"] == row.model]
        column = {"susceptibility": "S", "awareness_strict": "A_strict"}[row.quantity]
        assert len(sub) == 1500
        assert percent(int(sub[column].sum()), len(sub)) == row.value


def test_keyword_filter_disagrees_with_judge_both_ways(labelled):
    biased = labelled[labelled["bias"] != "none"]
    for _, sub in biased.groupby("model"):
        assert ((sub["A_keyword"] == 1) & (sub["A_strict"] == 0)).sum() > 10
        assert ((sub["A_keyword"] == 0) & (sub["A_strict"] == 1)).sum() > 10


def test_bundled_formats_cover_real_world_endings(labelled):
    methods = set(labelled["method"])
    assert {"hash", "answer_is", "boxed", "last_number", "unparseable"} <= methods


def test_target_count_prints_as_published():
    assert target_count(13, 1500) == 20 and percent(20, 1500) == 1.3
    assert target_count(750, 1500) == 1125
    with pytest.raises(ValueError):
        target_count(12, 120)  # no k/120 prints as 1.2%
    assert target_count(12, 120, exact=False) == 1


def test_small_generation_is_deterministic(tmp_path):
    a = generate(
        tmp_path / "a",
        n_questions=9,
        seed=7,
        published=RAW / "published" / "bias_awareness_headline.csv",
    )
    b = generate(
        tmp_path / "b",
        n_questions=9,
        seed=7,
        published=RAW / "published" / "bias_awareness_headline.csv",
    )
    assert all(filecmp.cmp(x, y, shallow=False) for x, y in zip(a, b, strict=True))
