"""Benchmark power table: per-item sds agree with the study's own paired bootstrap,
and the verdicts follow the BH decisions in pairwise.csv."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from rederive.studies.benchmark.pairwise import pairwise
from rederive.studies.benchmark.power import headline_checks, power_table

ROOT = Path(__file__).resolve().parents[2]
MODELS = ["o1", "Claude-3.5 (Sonnet)", "GPT-4o", "Claude-3 (Opus)", "Llama-3.1-405B-Instruct"]


@pytest.fixture(scope="module")
def tables():
    matrix = pd.read_csv(ROOT / "raw/benchmark/matrix/chembench.csv", index_col=0)[MODELS]
    matrix = matrix.iloc[:1500].sort_index(axis=1)
    items = pd.DataFrame({"item_key": matrix.index.astype(str)})
    pairs = pairwise(matrix, None, n_boot=2000, seed=1, fdr_q=0.05)
    table = power_table(
        matrix, items, pairs, cluster_by="none", alpha=0.05, power=0.8, fdr_q=0.05, relevant_pp=2.0
    )
    return pairs, table


def test_per_item_sd_matches_the_bootstrap_interval(tables):
    _, table = tables
    half = (table["ci_high_pp"] - table["ci_low_pp"]) / 2
    analytic = 1.959964 * table["sd_unit_pp"] / np.sqrt(table["n_units"])
    # 2,000 bootstrap replicates: percentile bounds move by a few percent.
    assert (half / analytic).between(0.9, 1.1).all()


def test_verdicts_follow_bh_and_the_relevant_difference(tables):
    pairs, table = tables
    assert (table["significant"] == pairs["significant"]).all()
    ties = table[~table["significant"]]
    assert not ties.empty
    assert (ties["underpowered"] == (ties["mde_bh_pp"] > 2.0)).all()
    assert (table["n_units"] == 1500).all()
    assert (table["mde_bonferroni_pp"] >= table["mde_bh_pp"]).all()
    assert (table["mde_bh_pp"] >= table["mde_pp"] - 1e-12).all()


def test_headline_row_is_the_top_pair(tables):
    _, table = tables
    (check,) = headline_checks(table, alpha=0.05, power=0.8)
    first = table.iloc[0]
    assert check.item.startswith(f"{first['a']} vs {first['b']}")
    assert check.published == pytest.approx(abs(first["diff_pp"]))
    assert check.relation == "<=" and check.kind == "power"
