"""Pairwise, ranking, power and noise over the neighbour family (300 models, threshold 50)."""

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.multitest import multipletests

from rederive.stats.family import comparison_family
from rederive.stats.noise import noise_table
from rederive.studies.benchmark.noise import family_pairs
from rederive.studies.benchmark.pairwise import pairwise, ranking
from rederive.studies.benchmark.power import power_table

N_MODELS, N_ITEMS = 300, 400


def rasch_matrix(n_items: int, n_models: int, seed: int = 7) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    ability = rng.normal(0, 1.5, n_models)
    difficulty = rng.normal(0, 1, n_items)
    p = 1 / (1 + np.exp(-(ability[None, :] - difficulty[:, None])))
    scores = (rng.random((n_items, n_models)) < p).astype(float)
    names = [f"m{j:03d}" for j in range(n_models)]
    return pd.DataFrame(scores, index=[f"i{i}" for i in range(n_items)], columns=names)


def accuracy_of(matrix: pd.DataFrame) -> pd.DataFrame:
    acc = matrix.mean()
    frame = pd.DataFrame(
        {
            "model": acc.index,
            "accuracy": acc.to_numpy(),
            "accuracy_pct": (100 * acc).round(1).to_numpy(),
            "ci_low_pct": 0.0,
            "ci_high_pct": 100.0,
        }
    )
    return frame.sort_values(["accuracy", "model"], ascending=[False, True]).reset_index(drop=True)


@pytest.fixture(scope="module")
def big():
    matrix = rasch_matrix(N_ITEMS, N_MODELS)
    pairs = pairwise(matrix, None, n_boot=200, seed=3, fdr_q=0.05, all_pairs_up_to=50)
    return matrix, pairs


def test_pairwise_table_is_the_neighbour_family(big):
    matrix, pairs = big
    family = comparison_family(N_MODELS, all_pairs_up_to=50, neighbours=2)
    assert len(pairs) == family.n_pairs == 894
    assert list(pairs["family"].unique()) == ["neighbour+top", "top", "neighbour"]
    order = list(accuracy_of(matrix)["model"])
    position = {m: i for i, m in enumerate(order)}
    got = {(position[a], position[b]) for a, b in zip(pairs["a"], pairs["b"], strict=True)}
    assert got == set(zip(family.ia.tolist(), family.ib.tolist(), strict=True))
    assert (pairs["a"].iloc[0], pairs["b"].iloc[0]) == (order[0], order[1])
    assert (pairs["diff"] >= 0).all()


def test_bh_runs_over_exactly_the_tested_family(big):
    _, pairs = big
    reject, q, _, _ = multipletests(pairs["p_value"].to_numpy(), alpha=0.05, method="fdr_bh")
    assert np.array_equal(pairs["q_value"].to_numpy(), q)
    assert np.array_equal(pairs["significant"].to_numpy(), reject)
    assert pairs["significant"].any() and not pairs["significant"].all()


def test_family_pairs_match_all_pairs_statistics(big):
    """A pair's p, CI and counts do not depend on which family it was tested in."""
    matrix, pairs = big
    sub = matrix[sorted(set(pairs["a"].iloc[:6]) | set(pairs["b"].iloc[:6]))]
    full = pairwise(sub, None, n_boot=200, seed=3, fdr_q=0.05)
    merged = pairs.merge(full, on=["a", "b"], suffixes=("", "_all"))
    assert len(merged) >= 6  # the first six, and any other tested pair of those models
    for column in ("n_items", "a_only", "b_only", "p_value", "diff"):
        assert np.allclose(merged[column], merged[f"{column}_all"], rtol=1e-12, atol=0)


def test_ranking_on_the_neighbour_family(big):
    matrix, pairs = big
    rank = ranking(accuracy_of(matrix), pairs)
    assert len(rank) == N_MODELS
    assert (rank["rank_best"] <= rank["order"]).all()
    assert (rank["rank_worst"] >= rank["order"]).all()
    assert rank["rank_best"].iloc[0] == 1
    # Tied-with lists only tested pairs: at most 2k + 1 for k = 2 (and all for the top).
    assert (rank["n_tied"].iloc[1:] <= 5).all()


def rank_frame(names):
    return pd.DataFrame(
        {"model": names, "accuracy_pct": 0.0, "ci_low_pct": 0.0, "ci_high_pct": 0.0}
    )


def test_neighbour_tie_groups_by_hand():
    names = ["m0", "m1", "m2", "m3", "m4"]
    tested = {(0, 1): False, (1, 2): True, (2, 3): False, (3, 4): False}
    tested |= {(0, 2): True, (0, 3): True, (0, 4): True}
    pairs = pd.DataFrame(
        [
            {"a": names[i], "b": names[j], "diff": 0.1, "significant": s, "family": "x"}
            for (i, j), s in sorted(tested.items())
        ]
    )
    rank = ranking(rank_frame(names), pairs)
    assert list(rank["rank"]) == ["1-2", "1-2", "3-5", "2-5", "2-5"]
    assert list(rank["tied_with"]) == ["m1", "m0", "m3", "m2; m4", "m3"]


def test_neighbour_ranks_equal_all_pair_ranks_when_significance_is_monotone():
    names = [f"m{i}" for i in range(7)]
    rows = [
        {"a": names[i], "b": names[j], "diff": 0.1, "significant": j - i >= 3}
        for i in range(7)
        for j in range(i + 1, 7)
    ]
    pairs = pd.DataFrame(rows)
    counted = ranking(rank_frame(names), pairs)
    ordered = ranking(rank_frame(names), pairs.assign(family="all"))
    for column in ("rank_best", "rank_worst", "rank", "tied_with"):
        assert list(counted[column]) == list(ordered[column])


def test_power_and_noise_cover_the_family_only(big):
    matrix, pairs = big
    items = pd.DataFrame({"item_key": matrix.index})
    table = power_table(
        matrix, items, pairs, cluster_by="none", alpha=0.05, power=0.8, fdr_q=0.05, relevant_pp=2.0
    )
    assert len(table) == len(pairs)
    assert list(table["a"]) == list(pairs["a"]) and list(table["b"]) == list(pairs["b"])
    assert (table["n_units"] == N_ITEMS).all()
    long = (
        matrix.rename_axis("item")
        .reset_index()
        .melt(id_vars="item", var_name="model", value_name="correct")
    )
    noise = noise_table(long, family_pairs(pairs))
    assert (noise["level"] == "model").sum() == N_MODELS
    pair_rows = noise[noise["level"] == "pair"]
    assert len(pair_rows) == len(pairs)
    assert list(pair_rows["model"]) == list(pairs["a"])
    assert np.allclose(pair_rows["estimate"].to_numpy(), pairs["diff"].to_numpy(), atol=1e-12)


def test_all_pairs_tables_have_no_family_column():
    matrix = rasch_matrix(200, 12)
    pairs = pairwise(matrix, None, n_boot=100, seed=3, fdr_q=0.05, all_pairs_up_to=50)
    assert len(pairs) == 66 and "family" not in pairs
    assert family_pairs(pairs) is None
