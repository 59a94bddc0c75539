"""Statistics of the benchmark study against references, on the real ChemBench matrix.

References and tolerances:
* accuracy = the published per-model scores (irt-on-bench model_score_allcorrect.csv,
  column means of the matrix): |diff| ≤ 1e-12;
* the item-bootstrap SE of a proportion ≈ the binomial SE sqrt(p(1−p)/n): within 8%
  relative with B = 2000 (the Monte-Carlo error of an SD from 2000 draws is ~1.6%);
* the pair p-value = the exact McNemar test, scipy ``binomtest`` on the discordant
  items: relative 1e-10;
* BH q-values = statsmodels ``multipletests(method="fdr_bh")`` exactly.
"""

import numpy as np
import pandas as pd
import pytest
from benchmark_formats import CHEMBENCH, REPO
from scipy import stats
from scipy.stats import binomtest
from statsmodels.stats.multitest import multipletests

from rederive.io.tabular import read_matrix_csv
from rederive.stats.clustered import MCNEMAR, T_METHOD, WILSON_METHOD
from rederive.studies.benchmark import accuracy, pairwise
from rederive.studies.benchmark.common import clusters_for
from rederive.studies.benchmark.warehouse import build_tables

PUBLISHED = REPO / "raw" / "benchmark" / "published" / "chembench_model_score_allcorrect.csv"


@pytest.fixture(scope="module")
def chembench():
    frame = read_matrix_csv(CHEMBENCH).assign(run="matrix-chembench", format="matrix")
    tables = build_tables(frame, None, "require_equal")
    matrix = tables["scores"].pivot(index="item_key", columns="model", values="score")
    return matrix.reindex(index=tables["items"]["item_key"]), tables["items"]


@pytest.fixture(scope="module")
def acc_table(chembench):
    matrix, items = chembench
    return accuracy.overall(matrix, items, n_boot=2000, seed=7, level=0.95, cluster_by="none")


def test_shape_is_22_models_by_2854_items(chembench):
    matrix, _ = chembench
    assert matrix.shape == (2854, 22) and not matrix.isna().any().any()


def test_accuracy_equals_published_scores(acc_table):
    published = pd.read_csv(PUBLISHED, index_col=0)["score"]
    ours = acc_table.set_index("model")["accuracy"]
    assert set(ours.index) == set(published.index)
    np.testing.assert_allclose(
        ours[published.index].to_numpy(), published.to_numpy(), rtol=0, atol=1e-12
    )
    assert acc_table.loc[acc_table["model"] == "o1", "accuracy_pct"].item() == 62.9


def test_bootstrap_se_matches_binomial_se(acc_table):
    p = acc_table["accuracy"].to_numpy()
    binomial = 100 * np.sqrt(p * (1 - p) / 2854)
    np.testing.assert_allclose(acc_table["se_pct"].to_numpy(), binomial, rtol=0.08)
    assert (acc_table["ci_low_pct"] < acc_table["accuracy_pct"]).all()
    assert (acc_table["ci_high_pct"] > acc_table["accuracy_pct"]).all()


def test_clustered_interval_is_wider_for_correlated_items():
    rng = np.random.default_rng(3)
    # 40 clusters of 10 identical items: the effective sample is 40, not 400.
    base = rng.integers(0, 2, size=(40, 3)).astype(float)
    matrix = pd.DataFrame(np.repeat(base, 10, axis=0), columns=["a", "b", "c"])
    items = pd.DataFrame(
        {
            "item_key": [f"t:{i}" for i in range(400)],
            "group": np.repeat(np.arange(40), 10).astype(str),
        }
    )
    flat = accuracy.overall(matrix, items, n_boot=2000, seed=1, level=0.95, cluster_by="none")
    grouped = accuracy.overall(matrix, items, n_boot=2000, seed=1, level=0.95, cluster_by="group")
    ratio = grouped.set_index("model")["se_pct"] / flat.set_index("model")["se_pct"]
    np.testing.assert_allclose(ratio.to_numpy(), np.sqrt(10), rtol=0.12)
    assert (grouped["n_clusters"] == 40).all()
    assert clusters_for(items, "none") is None
    # With clusters the printed interval is the clustered Wilson; identical items in
    # a cluster make it the Wilson interval on the 40 cluster values: clustered
    # SE² = p(1 - p)/39 (the C/(C - 1) factor), so effective n 39, t with 39 df.
    assert set(grouped["method"]) == {WILSON_METHOD} and set(flat["method"]) == {accuracy.METHOD}
    p = base.sum(axis=0) / 40
    t, n = stats.t.ppf(0.975, 39), 39
    centre = (p + t**2 / (2 * n)) / (1 + t**2 / n)
    half = t * np.sqrt(p * (1 - p) / n + t**2 / (4 * n**2)) / (1 + t**2 / n)
    got = grouped.set_index("model").loc[["a", "b", "c"]]
    np.testing.assert_allclose(got["ci_low_pct"], np.round(100 * (centre - half), 1), atol=0.051)
    np.testing.assert_allclose(got["ci_high_pct"], np.round(100 * (centre + half), 1), atol=0.051)


@pytest.fixture(scope="module")
def pairs(chembench):
    matrix, _ = chembench
    return pairwise.pairwise(matrix, None, n_boot=2000, seed=7, fdr_q=0.05)


def test_pairwise_difference_is_accuracy_difference(pairs, acc_table):
    acc = acc_table.set_index("model")["accuracy"]
    np.testing.assert_allclose(
        pairs["diff"], acc[pairs["a"]].to_numpy() - acc[pairs["b"]].to_numpy(), atol=1e-12
    )
    assert len(pairs) == 22 * 21 // 2 and (pairs["diff"] >= 0).all()
    np.testing.assert_allclose(
        pairs["diff"], (pairs["a_only"] - pairs["b_only"]) / pairs["n_items"], atol=1e-12
    )


def test_pairwise_p_is_exact_mcnemar(pairs):
    # ChemBench: unclustered 0/1 scores, every model on every item: the exact
    # McNemar test, i.e. a binomial test on the discordant items (scipy), not a
    # bootstrap p stuck at its floor 1/(B + 1).
    reference = np.array(
        [
            binomtest(int(a), int(a + b), 0.5).pvalue if a + b else 1.0
            for a, b in zip(pairs["a_only"], pairs["b_only"], strict=True)
        ]
    )
    np.testing.assert_allclose(pairs["p_value"], reference, rtol=1e-10, atol=0)
    assert set(pairs["p_method"]) == {MCNEMAR}
    assert set(pairs["ci_method"]) == {pairwise.BOOT_METHOD}
    assert (pairs["p_value"] < 1 / 2001).sum() > 100
    assert pairs["p_value"].nunique() > 200


def test_clustered_pairs_use_the_clustered_t(chembench):
    matrix, _ = chembench
    groups = np.arange(len(matrix)) // 10
    pairs = pairwise.pairwise(matrix, groups, n_boot=500, seed=7, fdr_q=0.05)
    assert set(pairs["p_method"]) == {T_METHOD} and set(pairs["ci_method"]) == {T_METHOD}
    assert (pairs["n_clusters"] == groups.max() + 1).all()
    # The t interval and the Wald p agree: p < 0.05 exactly when 0 is outside.
    outside = (pairs["ci_low_pct"] > 0.05) | (pairs["ci_high_pct"] < -0.05)
    inside = (pairs["ci_low_pct"] < -0.05) & (pairs["ci_high_pct"] > 0.05)
    assert (pairs.loc[outside, "p_value"] < 0.05).all()
    assert (pairs.loc[inside, "p_value"] > 0.05).all()


def test_bh_q_values_are_statsmodels(pairs):
    reject, q, _, _ = multipletests(pairs["p_value"], alpha=0.05, method="fdr_bh")
    np.testing.assert_allclose(pairs["q_value"], q, atol=1e-15)
    assert (pairs["significant"] == reject).all()


def test_ranking_shows_ties():
    rng = np.random.default_rng(0)
    a = rng.integers(0, 2, 500).astype(float)
    matrix = pd.DataFrame({"A": a, "A2": a, "B": np.zeros(500)})
    matrix.loc[:5, "A2"] = 1 - matrix.loc[:5, "A2"]
    items = pd.DataFrame({"item_key": [f"t:{i}" for i in range(500)]})
    acc = accuracy.overall(matrix, items, n_boot=1000, seed=2, level=0.95, cluster_by="none")
    pairs = pairwise.pairwise(matrix, None, n_boot=1000, seed=2, fdr_q=0.05)
    rank = pairwise.ranking(acc, pairs).set_index("model")
    assert rank.loc["B", "rank"] == "3" and rank.loc["B", "n_tied"] == 0
    assert set(rank.loc[["A", "A2"], "rank"]) == {"1-2"}
    assert rank.loc["A", "tied_with"] == "A2"


def test_same_seed_same_numbers_other_seed_other_numbers(chembench, acc_table):
    matrix, items = chembench
    again = accuracy.overall(matrix, items, n_boot=2000, seed=7, level=0.95, cluster_by="none")
    pd.testing.assert_frame_equal(acc_table, again)
    other = accuracy.overall(matrix, items, n_boot=2000, seed=8, level=0.95, cluster_by="none")
    assert not np.array_equal(other["se_pct"], acc_table["se_pct"])
