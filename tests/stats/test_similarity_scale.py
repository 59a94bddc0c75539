"""Failure similarity at leaderboard scale: the BLAS products give the counts of
the integer product they replace, the extreme pairs equal a sort of every pair,
and the benchmark step's top-k tables and leaf table."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rederive.stats import similarity
from rederive.studies.benchmark.similarity import analyse, top_models


def random_failures(n_models, n_items, seed, rate=0.4):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        rng.random((n_models, n_items)) < rate,
        index=[f"m{k:03d}" for k in range(n_models)],
        columns=[f"i{j}" for j in range(n_items)],
    )


def reference_matrices(fail):
    """The implementation before issue 24: one int64 product, counts divided."""
    f = fail.to_numpy().astype(np.int64)
    inter = f @ f.T
    size = np.diag(inter)
    union = size[:, None] + size[None, :] - inter
    with np.errstate(invalid="ignore", divide="ignore"):
        jac = np.where(union > 0, inter / np.where(union > 0, union, 1), 1.0)
    return inter / f.shape[1], jac


def reference_extreme_pairs(jaccard, co_failure, k):
    """The implementation before issue 24: every pair as a row, sorted."""
    n = jaccard.shape[0]
    ia, ib = np.triu_indices(n, k=1)
    names = jaccard.index
    pairs = pd.DataFrame(
        {
            "model_a": names[ia],
            "model_b": names[ib],
            "co_failure_rate": co_failure.to_numpy()[ia, ib],
            "jaccard": jaccard.to_numpy()[ia, ib],
        }
    )
    a, b = pairs["model_a"].astype(str), pairs["model_b"].astype(str)
    pairs = pairs.assign(_ka=np.minimum(a, b), _kb=np.maximum(a, b))
    keys = ["jaccard", "_ka", "_kb"]
    most = pairs.sort_values(keys, ascending=[False, True, True], kind="mergesort").head(k)
    least = pairs.sort_values(keys, ascending=[True, True, True], kind="mergesort").head(k)
    out = pd.concat(
        [most.assign(group="most_similar"), least.assign(group="least_similar")],
        ignore_index=True,
    )
    return out[["group", "model_a", "model_b", "co_failure_rate", "jaccard"]]


@pytest.mark.parametrize(
    ("n_models", "n_items", "rate"),
    # 5,000 items crosses a block of the product (4,096); rate 0 and 1 give
    # empty unions and full sets.
    [(7, 5000, 0.4), (30, 50, 0.5), (5, 3, 0.0), (4, 9, 1.0)],
)
def test_products_equal_the_integer_implementation(n_models, n_items, rate):
    fail = random_failures(n_models, n_items, seed=n_models, rate=rate)
    co_ref, jac_ref = reference_matrices(fail)
    co, jac = similarity.similarity_matrices(fail)
    # Same floats to the last bit: the counts are exact, the divisions identical.
    assert np.array_equal(co.to_numpy(), co_ref) and np.array_equal(jac.to_numpy(), jac_ref)
    assert np.array_equal(similarity.jaccard_matrix(fail).to_numpy(), jac_ref)
    assert np.array_equal(similarity.co_failure_matrix(fail).to_numpy(), co_ref)


def test_float64_fallback_gives_the_same_counts(monkeypatch):
    fail = random_failures(6, 40, seed=3).to_numpy()
    exact = fail.astype(np.int64) @ fail.T.astype(np.int64)
    monkeypatch.setattr(similarity, "_FLOAT32_EXACT_ITEMS", 10)  # force float64
    monkeypatch.setattr(similarity, "_ITEM_BLOCK", 7)  # and many blocks
    assert np.array_equal(similarity.intersection_counts(fail), exact)


@pytest.mark.parametrize("k", [1, 3, 10, 45])
def test_extreme_pairs_equal_a_sort_of_every_pair(k):
    # 8 items over 10 models: many tied Jaccard values, so the tie-break decides.
    fail = random_failures(10, 8, seed=k)
    co, jac = similarity.similarity_matrices(fail)
    got = similarity.extreme_pairs(jac, co, k=k)
    pd.testing.assert_frame_equal(got, reference_extreme_pairs(jac, co, k))


def test_extreme_pairs_with_every_pair_tied():
    fail = pd.DataFrame(False, index=list("dcba"), columns=["x", "y"])  # all J = 1
    co, jac = similarity.similarity_matrices(fail)
    got = similarity.extreme_pairs(jac, co, k=2)
    pd.testing.assert_frame_equal(got, reference_extreme_pairs(jac, co, 2))
    assert list(zip(got["model_a"], got["model_b"], strict=True))[:2] == [("b", "a"), ("c", "a")]


def test_top_models_break_ties_by_name_whatever_the_column_order():
    scores = pd.DataFrame({"z": [1.0, 1.0], "b": [1.0, 0.0], "a": [1.0, 0.0], "c": [0.0, 0.0]})
    assert top_models(scores, 2) == ["a", "z"]
    assert top_models(scores[["c", "a", "b", "z"]], 2) == ["a", "z"]
    assert top_models(scores, 3) == ["a", "b", "z"]


def test_analyse_keeps_top_k_tables_and_clusters_every_model():
    rng = np.random.default_rng(5)
    n_models, n_items = 40, 200
    theta = np.linspace(1.5, -1.5, n_models)
    matrix = pd.DataFrame(
        (rng.random((n_items, n_models)) < 1 / (1 + np.exp(-theta))).astype(float),
        index=[f"t{j}" for j in range(n_items)],
        columns=[f"m{k:02d}" for k in range(n_models)],
    )
    items = pd.DataFrame({"item_key": matrix.index})
    whole = analyse(matrix, items, linkage="average", n_extreme_pairs=5)
    same = analyse(matrix, items, linkage="average", n_extreme_pairs=5, top_k=n_models)
    for name in ("jaccard", "co_failure", "linkage", "extreme_pairs", "leaves"):
        pd.testing.assert_frame_equal(whole[name], same[name])
    part = analyse(
        matrix, items, linkage="average", n_extreme_pairs=5, top_k=10, optimal_ordering_up_to=20
    )
    top = top_models(matrix, 10)
    assert list(part["jaccard"]["model"]) == top and list(part["jaccard"].columns[1:]) == top
    pd.testing.assert_frame_equal(
        part["jaccard"].set_index("model"), whole["jaccard"].set_index("model").loc[top, top]
    )
    # Clustering and pairs over all 40; without optimal ordering the same tree.
    assert len(part["linkage"]) == n_models - 1 and len(part["leaves"]) == n_models
    assert np.allclose(
        np.sort(part["linkage"]["distance"].to_numpy()),
        np.sort(whole["linkage"]["distance"].to_numpy()),
    )
    pd.testing.assert_frame_equal(part["extreme_pairs"], whole["extreme_pairs"])
    leaves = part["leaves"]
    assert sorted(leaves["leaf_position"]) == list(range(n_models))
    assert list(leaves.loc[leaves["in_top_k"], "model"]) == top
