import math

import pytest

from rederive.stats.rates import percent, round_half_up, rounding_compatible, wilson_interval


def test_percent_rounds_half_up_on_the_exact_fraction():
    assert percent(1, 8) == 12.5
    assert percent(1, 16) == 6.3  # 6.25 -> 6.3 (half up), not banker's 6.2
    assert percent(59, 195) == 30.3
    assert math.isnan(percent(0, 0))


def test_round_half_up():
    assert round_half_up(0.25) == 0.3
    assert round_half_up(2.675, 2) == 2.68
    assert math.isnan(round_half_up(float("nan")))


def test_wilson_matches_the_textbook_value():
    # Newcombe (1998), Stat Med 17:857, Table I: 81/263 -> 0.2553 to 0.3662 (95%).
    lo, hi = wilson_interval(81, 263)
    assert lo[0] == pytest.approx(0.2553, abs=5e-5)
    assert hi[0] == pytest.approx(0.3662, abs=5e-5)
    lo, hi = wilson_interval(0, 0)
    assert math.isnan(lo[0])


def test_rounding_compatible():
    assert rounding_compatible(30.3, 195)  # 59/195 = 30.26
    assert not rounding_compatible(30.35, 3)
    assert rounding_compatible(0.0, 10)


def test_round_half_up_is_exact_on_a_fraction():
    from fractions import Fraction

    # 100 * (23 / 80) is 28.749999999999996 as a float: only the exact value gives 28.8.
    assert round_half_up(100 * (23 / 80), 1) == 28.7
    assert round_half_up(Fraction(100 * 23, 80), 1) == 28.8 == percent(23, 80)
    assert round_half_up(Fraction(-1, 8), 2) == -0.13
    assert round_half_up(Fraction(2, 3), 1) == 0.7


def test_benchmark_accuracy_percent_rounds_once():
    from rederive.studies.benchmark.common import accuracy_percent

    assert accuracy_percent(23, 80) == 28.8
    assert accuracy_percent(23 / 80, 1) == 28.8  # the fraction column, by its shortest decimal
    assert accuracy_percent(11.5, 40) == 28.8  # partial credit 11.5/40 = 0.2875
    assert math.isnan(accuracy_percent(0, 0))
