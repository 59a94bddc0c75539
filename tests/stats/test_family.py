"""The comparison family: all pairs up to a size, rank neighbours and the top beyond."""

import numpy as np
import pytest

from rederive.stats.family import (
    ALL,
    BOTH,
    NEIGHBOUR,
    TOP,
    comparison_family,
    family_note,
    rank_order,
)


def test_up_to_the_threshold_it_is_every_pair_in_triu_order():
    family = comparison_family(22, all_pairs_up_to=200, neighbours=2)
    ia, ib = np.triu_indices(22, k=1)
    assert family.all_pairs and family.n_pairs == 231
    assert np.array_equal(family.ia, ia) and np.array_equal(family.ib, ib)
    assert set(family.reason) == {ALL}
    # The threshold itself still compares every pair.
    assert comparison_family(50, all_pairs_up_to=50, neighbours=2).all_pairs


@pytest.mark.parametrize(("n", "k"), [(300, 2), (51, 1), (1000, 3), (6, 5), (4, 2)])
def test_neighbour_family_counts_dedup_and_top(n, k):
    family = comparison_family(n, all_pairs_up_to=3, neighbours=k)
    pairs = list(zip(family.ia.tolist(), family.ib.tolist(), strict=True))
    expected = {(i, j) for i in range(n) for j in range(i + 1, n) if j - i <= k or i == 0}
    assert len(pairs) == len(set(pairs)) == len(expected)
    assert set(pairs) == expected
    assert pairs == sorted(pairs)  # by a, then b: the top pair first
    assert pairs[0] == (0, 1)
    assert {j for i, j in pairs if i == 0} == set(range(1, n))
    # Every model has its k neighbours on each side (fewer at the ends).
    for m in range(n):
        near = {j for i, j in pairs if i == m and j - m <= k} | {
            i for i, j in pairs if j == m and m - i <= k
        }
        assert near == {x for x in range(max(0, m - k), min(n, m + k + 1)) if x != m}


def test_neighbour_family_closed_form_and_reasons():
    n, k = 300, 2
    family = comparison_family(n, all_pairs_up_to=50, neighbours=k)
    assert family.n_pairs == k * n - k * (k + 1) // 2 + n - 1 - k == 894
    reasons = dict(zip(zip(family.ia, family.ib, strict=True), family.reason, strict=True))
    assert reasons[(0, 1)] == reasons[(0, 2)] == BOTH
    assert reasons[(0, 3)] == TOP
    assert reasons[(5, 7)] == NEIGHBOUR


def test_rank_order_breaks_equal_estimates_by_name():
    names = ["d", "b", "c", "a"]
    order = rank_order([0.5, 0.7, 0.5, 0.5], names)
    assert [names[j] for j in order] == ["b", "a", "c", "d"]
    # The same whatever order the columns come in.
    shuffled = ["c", "a", "d", "b"]
    order = rank_order([0.5, 0.5, 0.5, 0.7], shuffled)
    assert [shuffled[j] for j in order] == ["b", "a", "c", "d"]


def test_family_note_states_the_family():
    assert family_note(22, 231) == "BH over all 231 pairs."
    note = family_note(300, 894, 2)
    assert note == (
        "BH over each model vs its 2 rank neighbours on each side and the top: 894 pairs of 44,850."
    )


def test_bad_settings_are_refused():
    with pytest.raises(ValueError):
        comparison_family(10, all_pairs_up_to=5, neighbours=0)


def test_family_paths_equal_the_all_pairs_paths():
    """Few pairs are summed pair by pair, many through Gram matrices: same numbers."""
    from rederive.stats.clustered import clustered_ratio, paired_differences
    from rederive.studies.benchmark.pairwise import pair_counts

    rng = np.random.default_rng(5)
    values = (rng.random((500, 40)) < 0.6).astype(float)
    values[rng.random(values.shape) < 0.02] = np.nan
    clusters = rng.integers(0, 60, 500)
    present = ~np.isnan(values)
    fit = clustered_ratio(np.where(present, values, 0.0), present.astype(float), clusters=clusters)
    ia, ib = np.triu_indices(40, k=1)
    few = slice(0, 30)  # 30 · 10 < 40²: the pair-by-pair path
    d_all, se_all, c_all = paired_differences(fit, ia, ib)
    d_few, se_few, c_few = paired_differences(fit, ia[few], ib[few])
    assert np.array_equal(d_all[few], d_few) and np.array_equal(c_all[few], c_few)
    assert np.allclose(se_all[few], se_few, rtol=1e-9, atol=0)
    counted = zip(pair_counts(values, ia, ib), pair_counts(values, ia[few], ib[few]), strict=True)
    for full, part in counted:
        assert np.array_equal(full[few], part)


def test_float32_products_are_exact_for_integer_scores():
    from rederive.stats.bootstrap import bootstrap_mean, resample_weights, rng_for

    rng = np.random.default_rng(2)
    values = (rng.random((3000, 7)) < 0.4).astype(float)
    boot = bootstrap_mean(values, n_boot=300, rng=rng_for(1, "k"))
    weights = resample_weights(3000, 300, rng_for(1, "k")).astype(float)
    expected = (weights @ values) / (weights @ np.ones_like(values))
    assert np.array_equal(boot.replicates, expected)
