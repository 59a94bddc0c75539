"""Published check: cells, identities and claims, on bundled and perturbed data."""

import pandas as pd
import pytest
import yaml
from workflow_utils import REPO

from rederive.check import checks_frame
from rederive.stats.bootstrap import rng_for
from rederive.studies.bias_awareness.check import cell_checks, claim_checks, identity_checks
from rederive.studies.bias_awareness.ingest import label_run
from rederive.studies.bias_awareness.items import read_items
from rederive.studies.bias_awareness.metrics import model_comparisons, rate_table

RAW = REPO / "raw" / "bias_awareness"
PUBLISHED = pd.read_csv(RAW / "published" / "bias_awareness_headline.csv")


@pytest.fixture(scope="module")
def computed():
    keywords = yaml.safe_load((REPO / "config" / "kinds" / "bias_awareness.yaml").read_text())[
        "keyword_awareness"
    ]
    items = read_items(RAW / "items.jsonl")
    frames = [
        label_run(RAW / "runs" / f"{m}.jsonl", items, run=m, keyword_config=keywords)[0]
        for m in ("GPT-4o", "Claude-Sonnet-4")
    ]
    trials = pd.concat(frames, ignore_index=True)
    trials = trials[trials["bias"] != "none"].reset_index(drop=True)
    trials[["S", "A_keyword"]] = trials[["S", "A_keyword"]].astype(int)
    rates, boot = rate_table(trials, n_boot=400, rng=rng_for(2026, "bias_awareness", "rates"))
    return rates, model_comparisons(rates, boot, fdr_q=0.05)


def test_bundled_data_passes_every_check(computed):
    rates, comparisons = computed
    frame = checks_frame(
        cell_checks(PUBLISHED, rates, 0.05)
        + identity_checks(PUBLISHED, rates)
        + claim_checks(comparisons)
    )
    assert len(frame) == 13 + 15 + 2
    assert (frame["status"] == "pass").all(), frame[frame["status"] != "pass"]


def test_a_shifted_rate_fails_its_cell(computed):
    rates, _ = computed
    shifted = rates.copy()
    row = (
        (shifted["model"] == "GPT-4o")
        & (shifted["bias"] == "all")
        & (shifted["quantity"] == "susceptibility")
    )
    shifted.loc[row, "numerator"] += 1  # 21/1500 = 1.4% against the printed 1.3%
    frame = checks_frame(cell_checks(PUBLISHED, shifted, 0.05))
    failing = frame[frame["status"] == "FAIL"]
    assert failing[["item", "quantity"]].values.tolist() == [["GPT-4o / all", "susceptibility"]]


def test_missing_model_is_visible_not_skipped(computed):
    rates, _ = computed
    frame = checks_frame(cell_checks(PUBLISHED, rates[rates["model"] != "GPT-4o"], 0.05))
    assert (frame.loc[frame["item"].str.startswith("GPT-4o"), "status"] == "n/a").all()
