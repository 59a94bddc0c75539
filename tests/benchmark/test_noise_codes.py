"""noise.csv from integer-coded epochs (the path above LONG_FRAME_ROWS) equals the
grouped long frame's: per-cell means, within variances, and every model and pair
row, with several epochs, one-epoch cells, partial credit, a model with no
epoch and items in non-sorted code order."""

import numpy as np
import pandas as pd
import pytest

from rederive.stats.noise import item_matrices_from_codes, noise_table, table_from_matrices
from rederive.studies.benchmark import noise as rule
from rederive.studies.benchmark.common import Epochs


def coded_epochs(seed=11):
    rng = np.random.default_rng(seed)
    models = np.array(["1000", "NA", "a-model", "b model", "never-run"])
    items = np.array([f"item-{j:02d}" for j in range(40)])[rng.permutation(40)]
    rows = []
    for m in range(4):  # model 4 has no epoch
        for i in range(40):
            for e in range(int(rng.integers(1, 5))):
                rows.append((m, i, e, rng.choice([0.0, 1.0, 0.5])))
    rows.append((-1, 3, 0, 1.0))  # a row without a model is left out
    model, item, epoch, correct = (np.array(c) for c in zip(*rows, strict=True))
    return Epochs(
        models=models,
        items=items,
        model=model.astype("int32"),
        item=item.astype("int32"),
        epoch=epoch.astype("int64"),
        correct=correct.astype(float),
    )


@pytest.mark.parametrize("block_models", [1, 3, None])
def test_codes_path_equals_the_grouped_frame(block_models):
    epochs = coded_epochs()
    pairs = [("1000", "NA"), ("b model", "a-model")]
    expected = noise_table(epochs.frame(item_column="item"), pairs)
    mats = item_matrices_from_codes(
        epochs.model,
        epochs.item,
        epochs.correct,
        list(epochs.models),
        epochs.items,
        block_models=block_models,
    )
    assert mats.models == ["1000", "NA", "a-model", "b model"]
    got = table_from_matrices(mats, pairs)
    assert len(got) == 4 + 2
    pd.testing.assert_frame_equal(got, expected, rtol=1e-12, atol=1e-15)


def test_rule_switches_to_codes_above_the_threshold(monkeypatch):
    epochs = coded_epochs()
    small = rule.noise_from_epochs(epochs, None)
    monkeypatch.setattr(rule, "LONG_FRAME_ROWS", 10)
    large = rule.noise_from_epochs(epochs, None)
    pd.testing.assert_frame_equal(large, small, rtol=1e-12, atol=1e-15)
