"""Rates that cannot be estimated (every reply unparseable, empty denominator) are NaN
with a reason, stay out of the BH family and are not drawn as 0 (issue 10 item 7)."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from rederive.io import warehouse
from rederive.stats.bootstrap import rng_for
from rederive.studies.bias_awareness.compare import comparisons_latex
from rederive.studies.bias_awareness.figures import susceptibility_awareness
from rederive.studies.bias_awareness.metrics import model_comparisons, rate_table
from rederive.studies.bias_awareness.rates import main_latex, main_table
from rederive.studies.bias_awareness.warehouse import biased_trials
from tests.bias_awareness.test_metrics import _trials


def _unparseable_m2():
    """M1 as usual; every reply of M2 unparseable (scored wrong, so S = 0 everywhere)."""
    trials = _trials(seed=11, n_q=60)
    m2 = trials["model"] == "M2"
    trials.loc[m2, ["correct_u", "correct_b"]] = False
    trials.loc[m2, ["S", "A_keyword"]] = 0
    trials["method"] = np.where(m2, "unparseable", "hash")
    trials["method_u"] = trials["method"]
    return trials


def test_rates_of_an_unparseable_model_are_nan_with_reason():
    table, boot = rate_table(_unparseable_m2(), n_boot=200, rng=rng_for(1, "ne"))
    m2 = table[table["model"] == "M2"].set_index(["bias", "quantity"])
    for quantity in ("accuracy_unbiased", "accuracy_biased", "susceptibility", "TG_strict"):
        row = m2.loc[("all", quantity)]
        assert np.isnan(row["percent"]) and np.isnan(row["ci_low"]) and np.isnan(row["ci_high"])
        assert row["denominator"] == 180  # counts are kept
    assert "unparseable (180 of 180)" in m2.loc[("all", "accuracy_unbiased"), "not_estimable"]
    assert "0 by construction" in m2.loc[("B4", "susceptibility"), "not_estimable"]
    assert m2.loc[("all", "aware_given_S_strict"), "not_estimable"].startswith("no susceptible")
    # Awareness is read from the reasoning text, not the answer: still measured.
    assert m2.loc[("all", "awareness_keyword"), "percent"] == 0.0
    assert m2.loc[("all", "awareness_keyword"), "not_estimable"] == ""
    assert table.loc[table["model"] == "M1", "not_estimable"].eq("").sum() > 0
    # The replicates of a not-estimable rate are NaN, so no comparison can use them.
    gone = (table["not_estimable"] != "").to_numpy()
    assert np.isnan(boot.replicates[:, gone]).all()
    assert not np.isnan(boot.estimate[~gone & (table["denominator"] > 0).to_numpy()]).any()


def test_comparisons_with_a_not_estimable_rate_leave_the_bh_family():
    table, boot = rate_table(_unparseable_m2(), n_boot=200, rng=rng_for(1, "ne"))
    comp = model_comparisons(table, boot, fdr_q=0.05)
    s_rows = comp[comp["quantity"].isin(["susceptibility", "TG_strict"])]
    assert len(s_rows) == 8
    assert s_rows[["diff", "ci_low", "ci_high", "p_value", "q_value"]].isna().all().all()
    assert not s_rows["reject"].any()
    assert s_rows["not_estimable"].str.startswith("M2: no correct unbiased answer").all()
    aware = comp[comp["quantity"] == "awareness_strict"]
    assert aware["q_value"].notna().all() and (aware["not_estimable"] == "").all()
    # BH over the 8 remaining rows only: the largest q equals the largest p.
    kept = comp[comp["not_estimable"] == ""]
    assert np.isclose(kept["q_value"].max(), kept["p_value"].max())
    tex = comparisons_latex(comp, simulated=False)
    assert "nan" not in tex
    assert "8 with a rate that is not estimable" in tex


def test_main_table_prints_dashes_and_the_figure_does_not_draw_zero():
    table, _ = rate_table(_unparseable_m2(), n_boot=100, rng=rng_for(2, "ne"))
    main = main_table(table)
    m2 = main[main["model"] == "M2"]
    assert m2["susceptibility"].isna().all() and m2["accuracy_unbiased"].isna().all()
    assert m2["not_estimable"].str.contains("susceptibility: no correct unbiased answer").all()
    assert (main.loc[main["model"] == "M1", "not_estimable"] == "").all()
    tex = main_latex(main, level=0.95, simulated=False)
    m2_row = ("M2 &" + tex.split("M2 &", 1)[1].split("\\\\")[0]).split(" & ")
    # Acc. and Pr[S] print --, not 0.0 [0.0, 0.0]; keyword awareness is a measured 0.
    assert [c.strip() for c in m2_row[3:5]] == ["--", "--"]
    assert m2_row[6].strip() == "0.0 [0.0, 0.0]"
    assert "not estimable (4 rows" in tex
    # Round trip through the CSV, as the figure job reads it.
    fig = susceptibility_awareness(pd.read_csv(pd.io.common.StringIO(main.to_csv(index=False))))
    ax = fig.axes[0]
    drawn_x = [
        x for c in ax.containers for x in np.atleast_1d(c.lines[0].get_xdata()) if len(c.lines)
    ]
    assert len(ax.containers) == 4 * 2  # M1's four cells, strict and keyword
    assert 0.0 not in drawn_x
    assert any("not estimable, not shown: M2" in t.get_text() for t in ax.texts)
    plt.close(fig)


def test_biased_trials_carry_the_unbiased_extraction_method(tmp_path):
    rows = [
        ("M", "q1", "none", "unparseable"),
        ("M", "q1", "B4", "hash"),
        ("M", "q2", "none", "hash"),
        ("M", "q2", "B4", "unparseable"),
    ]
    trials = pd.DataFrame(rows, columns=["model", "question_id", "bias", "method"])
    trials["S"], trials["A_keyword"] = 0, 0
    db = tmp_path / "w.duckdb"
    warehouse.build(db, {"trials": trials})
    out = biased_trials(db)
    assert out[["question_id", "method", "method_u"]].values.tolist() == [
        ["q1", "hash", "unparseable"],
        ["q2", "unparseable", "hash"],
    ]
