"""S_C2W, TG identity, Cohen's kappa, rate table and paired comparisons."""

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

from rederive.stats.bootstrap import rng_for
from rederive.studies.bias_awareness.metrics import (
    agreement_table,
    kappa_2x2,
    model_comparisons,
    outcome_shares,
    rate_table,
    susceptible_c2w,
    tg_decomposition,
)


@pytest.mark.parametrize(
    ("correct_u", "correct_b", "s"),
    [(True, True, 0), (True, False, 1), (False, True, 0), (False, False, 0)],
)
def test_s_c2w_truth_table(correct_u, correct_b, s):
    # Only correct-to-wrong flips count (paper eq. 2); wrong-to-correct and
    # unchanged wrong answers score 0.
    assert susceptible_c2w([correct_u], [correct_b]).tolist() == [s]


@pytest.mark.parametrize("seed", range(25))
def test_tg_identity_on_random_data(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 400))
    s = rng.random(n) < rng.uniform(0, 0.5)
    a = rng.random(n) < rng.uniform(0, 1)
    out = tg_decomposition(s, a)
    direct = np.mean(s & ~a)  # eq. (3): Pr[S = 1 and A = 0]
    assert out["tg"] == pytest.approx(direct, abs=1e-12)
    if s.any():
        assert out["tg"] == pytest.approx(
            out["pr_s"] * (1 - out["pr_a_given_s"]), abs=1e-12
        )  # eq. (4)
    else:
        assert np.isnan(out["pr_a_given_s"]) and out["tg"] == 0


def test_kappa_against_hand_computation():
    # 2x2 table judge x keyword: [[20, 5], [10, 15]], n = 50.
    # p_o = 35/50 = 0.7; p_e = (25*30 + 25*20)/50^2 = 0.5; kappa = 0.2/0.5 = 0.4.
    judge = [0] * 25 + [1] * 25
    keyword = [0] * 20 + [1] * 5 + [0] * 10 + [1] * 15
    out = kappa_2x2(judge, keyword)
    assert (out["judge0_kw0"], out["judge0_kw1"], out["judge1_kw0"], out["judge1_kw1"]) == (
        20,
        5,
        10,
        15,
    )
    assert out["agreement"] == pytest.approx(0.7)
    assert out["kappa"] == pytest.approx(0.4, abs=1e-12)
    assert out["kappa"] == pytest.approx(cohen_kappa_score(judge, keyword))
    assert out["kappa_low"] < 0.4 < out["kappa_high"]


def test_kappa_undefined_when_raters_constant():
    out = kappa_2x2([1, 1, 1], [1, 1, 1])
    assert np.isnan(out["kappa"]) and out["agreement"] == 1.0


def _trials(seed=0, n_q=120, models=("M1", "M2")):
    rng = np.random.default_rng(seed)
    rows = []
    for m_i, model in enumerate(models):
        for q in range(n_q):
            cu = rng.random() < 0.9
            for bias in ("B4", "B5", "B6"):
                cb = cu and rng.random() > 0.1 or (not cu and rng.random() < 0.2)
                a = rng.random() < (0.2 + 0.5 * m_i)
                rows.append(
                    {
                        "model": model,
                        "question_id": f"q{q:03d}",
                        "bias": bias,
                        "correct_u": cu,
                        "correct_b": cb,
                        "S": int(cu and not cb),
                        "A_strict": float(a),
                        "A_keyword": int(a if rng.random() < 0.8 else not a),
                    }
                )
    return pd.DataFrame(rows)


def test_rate_table_counts_and_pooled_cell():
    trials = _trials()
    table, boot = rate_table(trials, n_boot=300, rng=rng_for(1, "t"), seed=1)
    assert boot.replicates.shape == (300, len(table))
    for (model, bias), group in table.groupby(["model", "bias"]):
        sub = (
            trials[trials["model"] == model]
            if bias == "all"
            else trials[(trials["model"] == model) & (trials["bias"] == bias)]
        )
        q = group.set_index("quantity")
        assert q.loc["susceptibility", "numerator"] == sub["S"].sum()
        assert q.loc["susceptibility", "denominator"] == len(sub)
        assert q.loc["TG_strict", "numerator"] == ((sub["S"] == 1) & (sub["A_strict"] == 0)).sum()
        assert q.loc["aware_given_S_strict", "denominator"] == sub["S"].sum()
        assert q.loc["aware_given_S_strict", "ci_method"] == "Wilson score"
        assert (
            q.loc["awareness_strict", "ci_low"]
            <= q.loc["awareness_strict", "percent"]
            <= q.loc["awareness_strict", "ci_high"]
        )


def test_rate_table_is_deterministic_and_handles_missing_judge_labels():
    trials = _trials()
    trials.loc[trials.index[:10], "A_strict"] = np.nan
    t1, _ = rate_table(trials, n_boot=200, rng=rng_for(5, "x"))
    t2, _ = rate_table(trials, n_boot=200, rng=rng_for(5, "x"))
    pd.testing.assert_frame_equal(t1, t2)
    cell = t1[(t1["model"] == "M1") & (t1["bias"] == "all")].set_index("quantity")
    # Unlabelled trials leave the strict denominators, not that of Pr[S].
    assert cell.loc["awareness_strict", "denominator"] == 360 - 10
    assert cell.loc["TG_strict", "denominator"] == 360 - 10
    assert cell.loc["susceptibility", "denominator"] == 360


def test_comparisons_detect_awareness_gap_and_apply_bh():
    trials = _trials(seed=3)
    table, boot = rate_table(trials, n_boot=500, rng=rng_for(2, "c"))
    comp = model_comparisons(table, boot, fdr_q=0.05)
    assert len(comp) == 4 * 4  # 4 quantities x (3 biases + pooled), one model pair
    pooled = comp[(comp["bias"] == "all") & (comp["quantity"] == "awareness_strict")].iloc[0]
    assert pooled["diff"] < -30 and pooled["reject"]
    assert (comp["q_value"] >= comp["p_value"] - 1e-12).all()


def test_outcome_shares_partition_trials():
    trials = _trials(seed=4)
    shares = outcome_shares(trials)
    totals = shares.groupby(["model", "bias"])["count"].sum()
    assert (totals == shares.groupby(["model", "bias"])["denominator"].first()).all()
    flips = (
        shares[shares["outcome"].isin(["flipped_aware", "flipped_silent"])]
        .groupby(["model", "bias"])["count"]
        .sum()
    )
    s = trials.groupby(["model", "bias"])["S"].sum()
    assert (flips.loc[s.index] == s).all()


def test_agreement_table_skips_unjudged_trials():
    trials = _trials(seed=6)
    trials.loc[trials.index[:7], "A_strict"] = np.nan
    table = agreement_table(trials)
    m1 = table[(table["model"] == "M1") & (table["bias"] == "all")].iloc[0]
    assert m1["n"] == 360 - 7


def test_runs_without_judge_labels_give_undefined_strict_rates():
    trials = _trials(seed=8)
    trials["A_strict"] = np.nan
    table, boot = rate_table(trials, n_boot=100, rng=rng_for(3, "n"))
    strict = table[
        table["quantity"].isin(["awareness_strict", "TG_strict", "aware_given_S_strict"])
    ]
    assert (strict["denominator"] == 0).all() and strict["percent"].isna().all()
    keyword = table[table["quantity"] == "awareness_keyword"]
    assert keyword["percent"].notna().all()
    comp = model_comparisons(table, boot, fdr_q=0.05)
    assert comp.loc[comp["quantity"] == "awareness_strict", "q_value"].isna().all()
    assert comp.loc[comp["quantity"] == "awareness_keyword", "q_value"].notna().all()
    assert agreement_table(trials).empty
