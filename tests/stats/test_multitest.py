import numpy as np
import pytest
from references import BH_1995_P

from rederive.stats.multitest import bh_adjust


def test_bh_reproduces_the_published_example():
    reject, q = bh_adjust(BH_1995_P, 0.05)
    assert reject.tolist() == [True] * 4 + [False] * 11
    # adjusted p of the 4th: min over j >= 4 of m p_(j) / j = 15 * 0.0095 / 4
    assert q[3] == pytest.approx(15 * 0.0095 / 4, abs=1e-12)
    assert q[4] == pytest.approx(15 * 0.0201 / 5, abs=1e-12)
    # step-up: the 6th takes the smaller value of the 7th (15 * 0.0298 / 7 < 15 * 0.0278 / 6)
    assert q[5] == pytest.approx(15 * 0.0298 / 7, abs=1e-12)


def test_bh_leaves_nan_out_of_the_family():
    p = [0.01, np.nan, 0.04]
    reject, q = bh_adjust(p, 0.05)
    assert reject.tolist() == [True, False, True]
    assert np.isnan(q[1])
    assert q[0] == pytest.approx(0.02) and q[2] == pytest.approx(0.04)


def test_bh_all_nan():
    reject, q = bh_adjust([np.nan, np.nan], 0.1)
    assert not reject.any() and np.isnan(q).all()


def test_bh_is_statsmodels_fdr_bh_to_the_bit():
    # Written out (statsmodels' import costs ~1 s per job): the same floats and
    # decisions, on families with ties, p = 0 and 1, and sizes 1 to 500.
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(33)
    for size in (1, 2, 3, 7, 50, 500):
        for _ in range(20):
            p = rng.beta(0.3, 1.0, size)
            p[rng.random(size) < 0.2] = rng.choice(p, 1)  # ties
            p[rng.random(size) < 0.05] = rng.choice([0.0, 1.0])
            for q in (0.01, 0.05, 0.1, 0.5):
                reject, qvalues = bh_adjust(p, q)
                want_reject, want_q, _, _ = multipletests(p, alpha=q, method="fdr_bh")
                assert np.array_equal(reject, want_reject)
                assert np.array_equal(qvalues, want_q)


def test_bh_equals_r_p_adjust():
    # R 4.2.2: p.adjust(c(0.01, 0.02, 0.03, 0.04, 0.05, 0.2, 0.5, 0.0001), "BH")
    p = [0.01, 0.02, 0.03, 0.04, 0.05, 0.2, 0.5, 0.0001]
    r = [0.04, 0.05333333333333333, 0.06, 0.064, 0.06666666666666667, 0.22857142857142856]
    r += [0.5, 0.0008]
    _, q = bh_adjust(p, 0.05)
    assert q == pytest.approx(r, abs=1e-15)
