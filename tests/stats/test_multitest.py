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
