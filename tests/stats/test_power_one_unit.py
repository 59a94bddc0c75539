"""Small n never breaks a variance (issue 26): one unit gives NaN and its reason."""

import math

import numpy as np
import pandas as pd

from rederive.report.power import headline_check, power_frame
from rederive.stats.power import n_grid, no_sd_reason, paired_influence, paired_unit_sds, unit_sd
from rederive.studies.benchmark.power import power_table

SETTINGS = {"alpha": 0.05, "power": 0.8, "fdr_q": 0.05, "relevant_pp": 5.0}


def test_unit_sd_of_one_or_no_unit_is_nan():
    assert math.isnan(unit_sd([0.3]))
    assert math.isnan(unit_sd([]))
    assert unit_sd([0.0, 1.0]) == np.std([0.0, 1.0], ddof=1)


def test_pairs_sharing_no_unit_have_no_influence_values():
    u = paired_influence(np.array([1.0, np.nan]), np.array([np.nan, 0.0]))
    assert u.size == 0 and math.isnan(unit_sd(u))


def test_one_item_matrix_gives_nan_sd_over_one_unit():
    sds, units = paired_unit_sds(np.array([[1.0, 0.0, 1.0]]), [(0, 1), (1, 2)])
    assert np.isnan(sds).all() and units.tolist() == [1, 1]


def test_power_table_names_why_a_comparison_has_no_sd():
    table = power_frame(
        pd.DataFrame({"a": ["A", "A"], "b": ["B", "C"]}),
        unit="item",
        n_units=[1, 30],
        diff_pp=[100.0, 5.0],
        ci_low_pp=[100.0, -3.0],
        ci_high_pp=[100.0, 13.0],
        ci_source="test",
        significant=[False, False],
        sd_pp=[np.nan, 20.0],
        sd_source="per-item paired scores",
        **SETTINGS,
    )
    assert table["sd_source"].tolist() == [no_sd_reason(1), "per-item paired scores"]
    assert table["verdict"][0] == "tie, not assessable"
    assert math.isnan(table["mde_pp"][0]) and np.isfinite(table["mde_pp"][1])


def test_benchmark_power_step_on_a_one_item_matrix():
    matrix = pd.DataFrame({"A": [1.0], "B": [0.0]}, index=pd.Index(["t/i1"], name="item_key"))
    items = pd.DataFrame({"item_key": ["t/i1"], "category": [None], "group": [None]})
    pairs = pd.DataFrame(
        {
            "a": ["A"],
            "b": ["B"],
            "diff": [1.0],
            "ci_low_pct": [100.0],
            "ci_high_pct": [100.0],
            "significant": [False],
            "ci_method": ["percentile, paired bootstrap over 1 item"],
            "p_method": ["exact McNemar (binomial on discordant items)"],
        }
    )
    table = power_table(matrix, items, pairs, cluster_by="none", **SETTINGS)
    row = table.iloc[0]
    assert row["n_units"] == 1 and math.isnan(row["sd_unit_pp"])
    assert row["sd_source"] == no_sd_reason(1)


def test_headline_check_without_an_sd_is_n_a_with_its_reason():
    check = headline_check(
        "s", "A vs B", 3.0, sd_pp=float("nan"), n_units=1, unit="item", alpha=0.05, power=0.8
    )
    assert check.status == "n/a"
    assert "not assessable" in check.note and "1 unit(s)" in check.note


def test_mde_grid_exists_for_a_study_without_units():
    assert n_grid(0).size >= 1 and n_grid(1).min() == 5
