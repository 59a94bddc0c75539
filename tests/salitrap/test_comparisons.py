"""BH on the published example; paired TAR comparisons and the ranking tiers."""

import numpy as np
import pandas as pd

from rederive.studies.salitrap.comparisons import pairwise_tar, ranking
from rederive.studies.salitrap.metrics import METRICS


def make(n_items=400, seed=0):
    rng = np.random.default_rng(seed)
    items = pd.DataFrame(
        {
            "item_id": [f"i{k:03d}" for k in range(n_items)],
            "seed_id": [f"s{k // 4}" for k in range(n_items)],
        }
    )
    p = {"Strong": 0.8, "Mid-a": 0.5, "Mid-b": 0.5, "Weak": 0.2}
    labels = {
        m: np.where(rng.random(n_items) < share, "Strict Pass", "Hard Fail")
        for m, share in p.items()
    }
    return items, pd.DataFrame(labels, index=items["item_id"])


def test_pairs_are_oriented_and_tiers_split_only_where_significant():
    items, matrix = make()
    pairs, estimates = pairwise_tar(
        items, matrix, metric=METRICS["TAR"], n_boot=500, level=0.95, seed=3, q=0.05
    )
    assert len(pairs) == 6
    assert (pairs["diff_pp"] >= 0).all()  # model_a is always the higher-ranked one
    assert list(estimates["model"])[0] == "Strong" and list(estimates["model"])[-1] == "Weak"
    table = ranking(pairs, estimates).set_index("model")
    # Strong and Weak are far from everyone; the two 50% models share a tier.
    assert table.loc["Strong", "tier"] == 1
    mids = table.loc[["Mid-a", "Mid-b"], "tier"]
    assert mids.nunique() == 1 and mids.iloc[0] == 2
    assert table.loc["Weak", "tier"] == 3
    # Same seed, same numbers.
    again, _ = pairwise_tar(
        items, matrix, metric=METRICS["TAR"], n_boot=500, level=0.95, seed=3, q=0.05
    )
    pd.testing.assert_frame_equal(pairs, again)
