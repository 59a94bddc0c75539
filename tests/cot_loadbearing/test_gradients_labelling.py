"""Trend test, remaining-step bins, rule/judge agreement, judge sensitivity."""

import numpy as np
import pandas as pd
import pytest

from rederive.studies.cot_loadbearing.gradients import remaining_bin, subject_summary, trend_test
from rederive.studies.cot_loadbearing.labelling import agreement, confusion, judge_sensitivity


def frame_from_counts(counts):
    rows = []
    for pos, (c, not_c) in zip(("early", "mid", "late"), counts, strict=True):
        rows += [(pos, "C")] * c + [(pos, "A")] * not_c
    return pd.DataFrame(rows, columns=["position", "judge_label"])


def test_trend_matches_cochran_armitage_by_hand():
    counts = [(335, 665), (274, 726), (225, 775)]
    frame = frame_from_counts(counts)
    # Cochran–Armitage with scores 0, 1, 2 (Agresti 2013, §3.4.6), written out here.
    c = np.array([x[0] for x in counts], float)
    n = np.array([sum(x) for x in counts], float)
    t = np.array([0.0, 1.0, 2.0])
    p = c.sum() / n.sum()
    stat = np.sum(t * (c - n * p))
    var = p * (1 - p) * (np.sum(n * t**2) - np.sum(n * t) ** 2 / n.sum())
    z_ca = -stat / np.sqrt(var)
    result = trend_test(frame)
    # statsmodels uses the permutation variance (factor N / (N - 1)).
    assert result["z"] == pytest.approx(z_ca, rel=1e-3)
    assert result["z"] > 0  # falling from early to late
    flat = trend_test(frame_from_counts([(100, 100), (100, 100), (100, 100)]))
    assert flat["z"] == pytest.approx(0.0, abs=1e-9)


def test_remaining_bins():
    values = pd.Series([1, 2, 3, 5, 8, 9, 30])
    labels = remaining_bin(values, [[1, 2], [3, 4], [5, 8], [9, None]])
    assert labels.tolist() == ["1-2", "1-2", "3-4", "5-8", "5-8", "9+", "9+"]


def test_subject_summary_respects_min_n():
    subjects = pd.DataFrame(
        {"model": "m", "subject": ["a", "b", "c"], "n": [100, 100, 5], "C_pct": [10.0, 40.0, 90.0]}
    )
    s = subject_summary(subjects, min_n=30).iloc[0]
    assert (s["n_subjects"], s["C_min_pct"], s["C_max_pct"], s["ratio"]) == (2, 10.0, 40.0, 4.0)


def test_agreement_c_vs_non_c_and_confusion():
    rows = pd.DataFrame(
        {
            "model": "m",
            "judge_label": list("AABBCC"),
            "rule_label": list("ABAACC"),
        }
    )
    conf = confusion(rows)
    assert len(conf) == 9 and conf["count"].sum() == 6
    agr = agreement(rows).set_index("scheme")
    assert agr.loc["C vs non-C", "agreement_pct"] == 100.0
    assert agr.loc["C vs non-C", "kappa"] == pytest.approx(1.0)
    assert agr.loc["A/B/C", "agree"] == 3


def test_judge_sensitivity_ranges_and_c_identity():
    base = pd.DataFrame(
        {
            "run": "r",
            "model": "m",
            "problem_id": [f"p{i}" for i in range(6)],
            "experiment": "main",
            "position": "early",
            "strategy": "numeric_value",
            "strength": None,
            "continuation": [f"t{i}" for i in range(6)],
        }
    )
    prod = base.assign(judge_variant="production", judge_label=list("AABBCC"))
    strict = base.assign(judge_variant="strict", judge_label=list("AAAACC"))
    lenient = base.assign(judge_variant="lenient", judge_label=list("BBBBCC"))
    # a production-only row outside the re-labelled sample
    extra = base.iloc[:1].assign(problem_id="q", judge_variant="production", judge_label="C")
    shares, summary = judge_sensitivity(pd.concat([prod, strict, lenient, extra]), "production")
    s = summary.iloc[0]
    assert s["n"] == 6 and s["n_variants"] == 3
    assert (s["A_of_nonC_min_pct"], s["A_of_nonC_max_pct"]) == (0.0, 100.0)
    assert bool(s["C_counts_identical"]) and bool(s["C_rows_identical"])
    broken = lenient.assign(judge_label=list("BBBBCA"))
    _, summary2 = judge_sensitivity(pd.concat([prod, strict, broken]), "production")
    assert not bool(summary2.iloc[0]["C_counts_identical"])
