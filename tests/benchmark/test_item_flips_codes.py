"""The item analysis counts epoch flips from integer codes (``flips_of``): the same
counts as ``epoch_flips`` of the long frame, including missing scores, rows
without a model and items nobody repeated."""

import numpy as np
import pandas as pd

from rederive.stats.items import epoch_flips
from rederive.studies.benchmark.common import Epochs
from rederive.studies.benchmark.items import flips_of


def random_epochs(seed=3, n_rows=4_000):
    rng = np.random.default_rng(seed)
    models = np.array(["1000", "NA", "gpt-4o", "model b"])
    items = np.array([f"task/{j}" for j in range(60)])
    model = rng.integers(-1, len(models), n_rows).astype("int32")  # -1: no model
    item = rng.integers(0, len(items) - 5, n_rows).astype("int32")  # last 5 never run
    correct = rng.choice([0.0, 1.0, 0.5, 0.25, np.nan], n_rows)
    epoch = rng.integers(0, 3, n_rows).astype("int64")
    return Epochs(models=models, items=items, model=model, item=item, epoch=epoch, correct=correct)


def test_flips_from_codes_equal_the_long_frame_counts():
    epochs = random_epochs()
    long = epochs.frame().rename(columns={"item_key": "item"})
    expected = epoch_flips(long)
    got = flips_of(epochs)
    assert got["n_models_flipped"].sum() > 0
    pd.testing.assert_frame_equal(
        got.reindex(expected.index), expected, check_names=False, check_index_type=False
    )
    # Items without a row count nothing (the long frame has no row for them).
    assert (got.drop(index=expected.index) == 0).all().all()
