"""The bootstrap weights are drawn in bounded blocks (issue 26: one model with a
million items ran past 8 GB building one (n_boot, n_items) matrix): the same
replicates as one unblocked draw, and no block larger than the bound, whatever
the number of items. Structure, not timing."""

import numpy as np

from rederive.stats import bootstrap
from rederive.stats.bootstrap import bootstrap_mean, resample_weights, rng_for, weight_chunks


def test_blocks_are_the_rows_of_one_unblocked_draw():
    whole = resample_weights(1001, 50, rng_for(3, "k"))
    blocks = list(weight_chunks(1001, 50, rng_for(3, "k"), max_cells=7 * 1001))
    assert [len(b) for b in blocks] == [7] * 7 + [1]
    assert np.array_equal(np.concatenate(blocks), whole)


def test_a_large_run_never_builds_a_block_over_the_bound(monkeypatch):
    n_items, n_boot = 100_000, 400
    shapes = []
    real = bootstrap.resample_weights

    def spy(n_units, rows, rng):
        shapes.append((rows, n_units))
        return real(n_units, rows, rng)

    monkeypatch.setattr(bootstrap, "resample_weights", spy)
    monkeypatch.setattr(bootstrap, "MAX_WEIGHT_CELLS", 2**22)
    values = (np.random.default_rng(0).random((n_items, 1)) < 0.6).astype(float)
    boot = bootstrap_mean(values, n_boot=n_boot, rng=rng_for(1, "acc"))
    assert boot.replicates.shape == (n_boot, 1)
    assert sum(rows for rows, _ in shapes) == n_boot
    assert max(rows * n for rows, n in shapes) <= 2**22  # memory is bounded per block
    # The same replicates as the unblocked computation.
    weights = real(n_items, n_boot, rng_for(1, "acc"))
    assert np.allclose(boot.replicates[:, 0], weights @ values[:, 0] / n_items, rtol=0, atol=1e-12)
