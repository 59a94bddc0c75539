"""pair_counts (bounded memory) against the dense items × pairs computation it replaced."""

import numpy as np
import pytest

from rederive.studies.benchmark.pairwise import pair_counts


def dense_counts(values, ia, ib):
    a, b = values[:, ia], values[:, ib]
    both = ~np.isnan(a) & ~np.isnan(b)
    return both.sum(axis=0), ((a > b) & both).sum(axis=0), ((b > a) & both).sum(axis=0)


@pytest.mark.parametrize("kind", ["binary", "fraction"])
@pytest.mark.parametrize("max_cells", [1, 50, 10_000_000])
def test_pair_counts_equal_dense(kind, max_cells):
    rng = np.random.default_rng(7)
    n_items, n_models = 37, 9
    if kind == "binary":
        values = (rng.random((n_items, n_models)) < 0.6).astype(float)
    else:
        values = rng.integers(0, 5, (n_items, n_models)) / 4  # epoch means: ties happen
    values[rng.random(values.shape) < 0.15] = np.nan
    ia, ib = np.triu_indices(n_models, k=1)
    order = rng.permutation(len(ia))  # pairs in any order, either orientation
    ia, ib = ia[order], ib[order]
    ia[::2], ib[::2] = ib[::2].copy(), ia[::2].copy()
    got = pair_counts(values, ia, ib, max_cells=max_cells)
    for mine, expected in zip(got, dense_counts(values, ia, ib), strict=True):
        assert mine.dtype == np.int64
        np.testing.assert_array_equal(mine, expected)
