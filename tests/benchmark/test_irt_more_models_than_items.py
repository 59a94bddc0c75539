"""A leaderboard with more models than items (tinyBenchmarks: 395 models x 100
items) fits the same 1PL as a tall one: items integrated, abilities ranked with
bootstrap intervals. It used to switch to integrating the models and stop with
"bootstrap_mml_ability needs a fit with the items integrated"."""

import numpy as np
import pandas as pd

from rederive.studies.benchmark.irt import fit


def wide_matrix(n_models=40, n_items=12, seed=5):
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=n_models)
    b = rng.normal(size=n_items)
    p = 1 / (1 + np.exp(-(theta[None, :] - b[:, None])))
    y = (rng.random((n_items, n_models)) < p).astype(float)
    index = [f"item-{j}" for j in range(n_items)]
    matrix = pd.DataFrame(y, index=index, columns=[f"model-{k:02d}" for k in range(n_models)])
    items = pd.DataFrame(
        {"item_key": index, "item_id": index, "task": "t", "category": pd.NA, "group": pd.NA}
    )
    return matrix, items


def test_more_models_than_items_gets_ranked_abilities_with_intervals():
    matrix, items = wide_matrix()
    ability, difficulty, summary = fit(
        matrix,
        items,
        epochs=50,
        lr=0.1,
        priors="hierarchical",
        seed=0,
        n_boot=50,
        level=0.95,
        cluster_by="none",
        pyirt_max_cells=0,
    )
    fitted = ability[ability["ability_note"].fillna("") == ""]
    assert len(fitted) >= 30
    assert fitted["rank"].notna().all()
    assert np.isfinite(fitted[["ability_ml", "ci_low", "ci_high"]].to_numpy()).all()
    assert (fitted["ci_low"] <= fitted["ability_ml"]).all()
    assert (fitted["ability_ml"] <= fitted["ci_high"]).all()
    assert len(difficulty) == matrix.shape[0]
    assert "py-irt refinement skipped" in summary["note"].iloc[0]
