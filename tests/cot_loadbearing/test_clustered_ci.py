"""Clustered bootstrap CIs are wider than row-level ones when problems repeat."""

import numpy as np
import pandas as pd

from rederive.studies.cot_loadbearing.common import clustered_shares


def test_clustered_interval_is_wider_when_problems_repeat():
    rng = np.random.default_rng(7)
    n_problems, per_problem = 200, 6
    # A strong problem effect: continuations of one problem mostly share a label.
    p_c = rng.beta(0.5, 1.0, n_problems)
    problem = np.repeat(np.arange(n_problems), per_problem)
    label = np.where(rng.random(problem.size) < p_c[problem], "C", "A")
    frame = pd.DataFrame(
        {"g": "x", "problem_id": problem, "row_id": np.arange(problem.size), "judge_label": label}
    )
    clustered = clustered_shares(frame, ["g"], n_boot=2000, seed=1, key="t")
    naive = clustered_shares(frame, ["g"], cluster="row_id", n_boot=2000, seed=1, key="t")
    c = clustered[clustered["label"] == "C"].iloc[0]
    r = naive[naive["label"] == "C"].iloc[0]
    assert c["pct"] == r["pct"]
    assert (c["ci_high"] - c["ci_low"]) > 1.5 * (r["ci_high"] - r["ci_low"])
    assert c["n_clusters"] == n_problems and r["n_clusters"] == problem.size


def test_independent_rows_give_similar_widths():
    rng = np.random.default_rng(3)
    problem = np.repeat(np.arange(300), 4)
    label = np.where(rng.random(problem.size) < 0.3, "C", "A")
    frame = pd.DataFrame(
        {"g": "x", "problem_id": problem, "row_id": np.arange(problem.size), "judge_label": label}
    )
    c = clustered_shares(frame, ["g"], n_boot=2000, seed=2, key="t").query("label == 'C'").iloc[0]
    r = (
        clustered_shares(frame, ["g"], cluster="row_id", n_boot=2000, seed=2, key="t")
        .query("label == 'C'")
        .iloc[0]
    )
    ratio = (c["ci_high"] - c["ci_low"]) / (r["ci_high"] - r["ci_low"])
    assert 0.8 < ratio < 1.25


def test_shares_are_deterministic_for_a_seed():
    frame = pd.DataFrame({"g": "x", "problem_id": [1, 1, 2, 2, 3], "judge_label": list("ABCCA")})
    a = clustered_shares(frame, ["g"], n_boot=500, seed=9, key="k")
    b = clustered_shares(frame, ["g"], n_boot=500, seed=9, key="k")
    pd.testing.assert_frame_equal(a, b)
