"""Degenerate benchmarks, in process: a model scored on one item, a perfect score,
one model, one item (each once a silent winner or a traceback)."""

import numpy as np
import pandas as pd
import pytest

from rederive.stats.clustered import MCNEMAR, PAIRED_T
from rederive.stats.small_n import SMALL_N, small_n_flags
from rederive.studies.benchmark import accuracy, irt, pairwise


def scores(n_items=60, seed=0):
    rng = np.random.default_rng(seed)
    matrix = pd.DataFrame(
        {
            "Strong": (rng.random(n_items) < 0.8).astype(float),
            "Weak": (rng.random(n_items) < 0.3).astype(float),
        }
    )
    tiny = np.full(n_items, np.nan)
    tiny[0] = 1.0  # one item, correct: accuracy 100%
    matrix["Tiny"] = tiny
    items = pd.DataFrame({"item_key": [f"t:{i}" for i in range(n_items)], "category": "c"})
    matrix.index = items["item_key"]
    return matrix, items


def test_one_item_model_is_flagged_unranked_and_out_of_bh():
    """Before: Tiny (1/1) ranked first, its pairs in the BH family."""
    matrix, items = scores()
    acc = accuracy.overall(matrix, items, n_boot=300, seed=2, level=0.95, cluster_by="none")
    acc[SMALL_N] = small_n_flags(acc["n_items"], 20)
    small = dict(zip(acc["model"], acc[SMALL_N], strict=True))
    pairs = pairwise.pairwise(matrix, None, n_boot=300, seed=2, fdr_q=0.05, small=small)
    with_tiny = (pairs["a"] == "Tiny") | (pairs["b"] == "Tiny")
    assert pairs.loc[with_tiny, SMALL_N].all() and pairs.loc[with_tiny, "q_value"].isna().all()
    assert not pairs.loc[with_tiny, "significant"].any()
    rest = pairs[~with_tiny].iloc[0]
    assert rest["q_value"] == pytest.approx(rest["p_value"])
    # Tiny misses items: its pairs cannot use McNemar (the difference is over each
    # model's own items), so they take the paired t; the complete pair is exact.
    assert set(pairs.loc[with_tiny, "p_method"]) == {PAIRED_T}
    assert rest["p_method"] == MCNEMAR
    rank = pairwise.ranking(acc, pairs).set_index("model")
    assert rank.loc["Tiny", "rank"] == "small n" and rank.loc["Tiny", SMALL_N]
    assert rank.loc["Strong", "rank"] == "1" and rank.loc["Weak", "rank"] == "2"
    assert rank.loc["Tiny", "accuracy_pct"] == 100.0
    assert "small n" in pairwise.latex(rank.reset_index(), fdr_q=0.05, caption_note="")


def test_perfect_score_has_no_ml_ability_and_no_rank():
    """Before: ability_ml = inf in irt_ability.csv, ranked by it."""
    matrix, items = scores()
    matrix = matrix.drop(columns="Tiny")
    matrix["Perfect"] = 1.0
    ability, _, _ = irt.fit(
        matrix,
        items,
        epochs=30,
        lr=0.1,
        priors="vague",
        seed=1,
        n_boot=20,
        level=0.95,
        cluster_by="none",
        min_n=20,
    )
    t = ability.set_index("model")
    assert np.isnan(t.loc["Perfect", "ability_ml"]) and np.isnan(t.loc["Perfect", "ci_low"])
    assert t.loc["Perfect", "ability_note"] == "perfect score (60/60): ML ability is +inf"
    assert pd.isna(t.loc["Perfect", "rank"])
    assert sorted(t["rank"].dropna().tolist()) == [1, 2]
    assert not np.isinf(ability.select_dtypes("number").to_numpy(dtype=float)).any()


@pytest.mark.parametrize("shape", [(1, 40), (3, 1)])
def test_one_model_or_one_item_gives_nan_tables_with_the_reason(shape):
    """Before: ValueError traceback from the IRT step."""
    n_models, n_items = shape
    matrix = pd.DataFrame(
        np.tile([1.0, 0.0], (n_items, n_models))[:, :n_models],
        columns=[f"m{j}" for j in range(n_models)],
    )
    items = pd.DataFrame({"item_key": [f"t:{i}" for i in range(n_items)]})
    matrix.index = items["item_key"]
    ability, difficulty, summary = irt.fit(
        matrix,
        items,
        epochs=30,
        lr=0.1,
        priors="vague",
        seed=1,
        n_boot=20,
        level=0.95,
        cluster_by="none",
    )
    reason = f"1PL not fitted: needs at least 2 models and 2 items, got {n_models} x {n_items}"
    assert (ability["ability_note"] == reason).all() and ability["ability_ml"].isna().all()
    assert ability["ability_pyirt"].isna().all()
    assert difficulty["difficulty"].isna().all() and summary.loc[0, "note"] == reason


def test_one_model_failure_clustering_and_dendrogram(tmp_path):
    """Before: ValueError "need at least 2 models to cluster" (traceback)."""
    import matplotlib

    matplotlib.use("Agg")
    from rederive.studies.benchmark.figures import plot_dendrogram
    from rederive.studies.benchmark.similarity import analyse

    matrix = pd.DataFrame({"m1": [1.0, 0.0, 1.0, 0.0]}, index=[f"t:{i}" for i in range(4)])
    items = pd.DataFrame({"item_key": matrix.index})
    result = analyse(matrix, items, linkage="average", n_extreme_pairs=5)
    assert result["linkage"].empty and result["extreme_pairs"].empty
    assert list(result["failed_by_all"]["item_key"]) == ["t:1", "t:3"]
    result["linkage"].to_csv(tmp_path / "linkage.csv", index=False)
    png, pdf = tmp_path / "d.png", tmp_path / "d.pdf"
    plot_dendrogram(result["jaccard"], pd.read_csv(tmp_path / "linkage.csv"), "", png, pdf)
    assert png.stat().st_size > 0
