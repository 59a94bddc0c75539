"""The t form of rederive.stats.power (paired and clustered t tests, n − 1 df) against
R's pwr::pwr.t.test(type = "paired") and power.t.test(type = "paired", strict = TRUE).

Reference values: tests/stats/fixtures/power_t/ (R 4.2.2, pwr 1.3.0; make_power_t.R).
Tolerances: the power is a closed form in both (noncentral t), equal to 1e-10.
The MDE and n are roots: power.t.test was run with tol = 1e-10 (so 1e-9 on d here;
ours solves to MDE_XTOL = 1e-12), pwr.t.test with its fixed uniroot tolerance
.Machine$double.eps^0.25 = 1.22e-4 (so 1.22e-4 on d, and its n rounds up to ours).
"""

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import nct
from scipy.stats import t as student_t

from rederive.stats.bootstrap import rng_for
from rederive.stats.power import (
    MDE_XTOL,
    T_TEST,
    Z_TEST,
    bh_threshold,
    comparison_power,
    detectable_effect,
    mde,
    n_needed,
    power_test_of,
    power_two_sided,
    resampled_power,
)

FIXTURES = Path(__file__).parent / "fixtures" / "power_t"
#: uniroot's default tolerance in pwr.t.test: .Machine$double.eps^0.25.
PWR_TOL = np.finfo(float).eps ** 0.25


def test_power_equals_both_r_implementations():
    ref = pd.read_csv(FIXTURES / "power_t.csv")
    got = power_two_sided(ref["d"], 1.0, ref["n"], ref["alpha"], test=T_TEST)
    np.testing.assert_allclose(got, ref["pwr"], rtol=0, atol=1e-10)
    np.testing.assert_allclose(got, ref["power_t_test"], rtol=0, atol=1e-10)
    # The same with the effect in points: delta 3 pp, sd 3 / d pp.
    scaled = power_two_sided(3.0, 3.0 / ref["d"], ref["n"], ref["alpha"], test=T_TEST)
    np.testing.assert_allclose(scaled, got, rtol=0, atol=1e-12)


def test_mde_equals_r_within_its_solver_tolerance():
    ref = pd.read_csv(FIXTURES / "mde_t.csv")
    for row in ref.itertuples(index=False):
        ours = mde(1.0, row.n, row.alpha, row.power, test=T_TEST)
        assert ours == pytest.approx(row.power_t_test, abs=1e-9)
        assert ours == pytest.approx(row.pwr, abs=PWR_TOL)
        # Our root to MDE_XTOL: the power there is the target.
        k = ours * math.sqrt(row.n)
        assert power_two_sided(k, 1.0, 1.0, row.alpha, test=Z_TEST) < 1  # sanity of scale
        at = power_two_sided(ours, 1.0, row.n, row.alpha, test=T_TEST)
        assert at == pytest.approx(row.power, abs=1e-10)
        assert detectable_effect(row.alpha, row.power, row.n - 1) == pytest.approx(k, abs=MDE_XTOL)


def test_units_needed_equal_r_rounded_up():
    ref = pd.read_csv(FIXTURES / "n_t.csv")
    for row in ref.itertuples(index=False):
        ours = n_needed(row.d, 1.0, row.alpha, row.power, test=T_TEST)
        assert ours == max(math.ceil(row.power_t_test - 1e-9), 2)
        assert ours == max(math.ceil(row.pwr - 1e-6), 2)
        # Smallest: one unit fewer misses the power.
        assert power_two_sided(row.d, 1.0, ours, row.alpha, test=T_TEST) >= row.power
        if ours > 2:
            assert power_two_sided(row.d, 1.0, ours - 1, row.alpha, test=T_TEST) < row.power


def test_t_form_against_z_form_with_few_units():
    # The numbers: with 10 units the z MDE is 11% too small, 3.4% at 30.
    ratio = [mde(1.0, n, test=T_TEST) / mde(1.0, n, test=Z_TEST) for n in (10, 30, 100)]
    assert ratio == pytest.approx([1.1242, 1.0347, 1.0098], abs=1e-4)
    # And the units needed: 2 more at d = 0.8 (13 -> 15), as many more at d = 1.2.
    assert (n_needed(0.8, 1.0), n_needed(0.8, 1.0, test=T_TEST)) == (13.0, 15.0)
    assert (n_needed(1.2, 1.0), n_needed(1.2, 1.0, test=T_TEST)) == (6.0, 8.0)
    # Large n: the forms meet.
    assert mde(1.0, 100_000, test=T_TEST) == pytest.approx(mde(1.0, 100_000), rel=1e-5)


def test_edge_cases_of_the_t_form():
    assert power_two_sided(0.0, 1.0, 20, 0.05, test=T_TEST) == pytest.approx(0.05, abs=1e-12)
    assert power_two_sided(0.1, 0.0, 20, 0.05, test=T_TEST) == 1.0
    assert math.isnan(power_two_sided(0.1, 1.0, 1, 0.05, test=T_TEST))
    assert math.isnan(mde(1.0, 1, test=T_TEST))
    # scipy's nct.cdf is NaN far in the left tail (df 9, ncp 10); the power is not: it is
    # the upper tail, the lower one being below Phi(-10).
    upper = nct.sf(student_t.isf(0.0005, 9), 9, 10.0)
    got = power_two_sided(10 / math.sqrt(10), 1.0, 10, 0.001, test=T_TEST)
    assert got == pytest.approx(upper, abs=1e-15)
    assert n_needed(0.0, 1.0, test=T_TEST) == math.inf
    with pytest.raises(ValueError, match="test must be"):
        mde(1.0, 10, test="wald")
    # Mixed tests in one call.
    got = mde([1.0, 1.0], [10, 10], test=[Z_TEST, T_TEST])
    assert got[0] == mde(1.0, 10) and got[1] == mde(1.0, 10, test=T_TEST)


def test_which_form_each_p_method_gets():
    assert power_test_of("exact McNemar (binomial on discordant items)") == Z_TEST
    assert power_test_of("paired t on item differences") == T_TEST
    assert power_test_of("clustered Wald, clustered SE (C/(C-1)), t with C-1 df") == T_TEST


def test_resampled_t_test_rejects_as_the_noncentral_t_says():
    # Normal units make the t test exact: its rejection rate over resampled studies
    # of n units is the noncentral-t power, and the z form overstates it.
    rng = np.random.default_rng(35)
    n_units, delta, sd = 200_000, 0.7, 1.0
    diff = rng.normal(delta, sd, n_units)
    totals = np.column_stack([diff, np.zeros(n_units), np.ones(n_units), np.ones(n_units)])
    for n in (6, 10):
        n_sim = 20_000
        sim = resampled_power(totals, n, n_sim=n_sim, rng=rng_for(35, "t", n), test=T_TEST)
        mc = math.sqrt(0.25 / n_sim)
        t_form = power_two_sided(delta, sd, n, test=T_TEST)
        z_form = power_two_sided(delta, sd, n, test=Z_TEST)
        assert sim == pytest.approx(t_form, abs=4 * mc + 0.004)
        assert z_form - sim > 10 * mc


def test_comparison_power_uses_each_comparisons_form():
    common = dict(alpha=0.05, power=0.8, fdr_q=0.05, relevant_pp=5.0)
    diff, sd, n = [4.0, 4.0], [20.0, 20.0], [12, 12]
    mixed = comparison_power(diff, sd, n, [False, False], test=[Z_TEST, T_TEST], **common)
    alpha_bh = bh_threshold(np.array(diff), np.array(sd), np.array(n), 0.05, test=[Z_TEST, T_TEST])
    assert mixed["alpha_bh"] == pytest.approx(alpha_bh, abs=1e-15)
    assert mixed["mde_pp"][0] == pytest.approx(mde(20.0, 12, 0.05, 0.8), abs=1e-12)
    assert mixed["mde_pp"][1] == pytest.approx(mde(20.0, 12, 0.05, 0.8, test=T_TEST), abs=1e-12)
    assert mixed["n_needed"][1] >= mixed["n_needed"][0]


def test_power_frame_names_the_form_and_its_df():
    from rederive.report.power import curve_frame, design_of, power_frame, table_test

    table = power_frame(
        pd.DataFrame({"a": ["x", "y"], "b": ["z", "z"]}),
        unit="item",
        n_units=[20, 20],
        diff_pp=[5.0, 3.0],
        ci_low_pp=[1.0, -1.0],
        ci_high_pp=[9.0, 7.0],
        ci_source="test",
        significant=[True, False],
        sd_pp=[10.0, 12.0],
        sd_source="test",
        alpha=0.05,
        power=0.8,
        fdr_q=0.05,
        relevant_pp=2.0,
        test=[Z_TEST, T_TEST],
    )
    assert table["df"].tolist()[1] == 19 and pd.isna(table["df"].iloc[0])
    assert table["power_method"].tolist() == [
        "normal (z): z test or exact McNemar",
        "noncentral t, n-1 df: paired or clustered t test",
    ]
    assert design_of(table.iloc[1])["test"] == T_TEST
    assert design_of(table.iloc[0])["test"] == Z_TEST
    assert table_test(table) == T_TEST
    curve = curve_frame(table)
    assert (curve["power_method"] == "noncentral t, n-1 df: paired or clustered t test").all()
    assert curve["mde_pp"].iloc[0] == pytest.approx(
        mde(float(np.median([10.0, 12.0])), curve["n"].iloc[0], 0.05, 0.8, test=T_TEST)
    )
