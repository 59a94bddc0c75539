"""Sequential ordinal deviance decomposition against a published reference.

Reference: UCLA OARC Statistical Consulting, "Ordinal Logistic Regression | Stata
Data Analysis Examples" (data https://stats.idre.ucla.edu/stat/data/ologit.dta,
bundled here as data/ologit_ucla.csv). Stata's ``ologit apply pared public gpa``
prints: iteration 0 (thresholds only) log likelihood = -370.60264, final log
likelihood = -358.51244, LR chi2(3) = 24.18. R's ``MASS::polr`` on the same data
(UCLA's R page) prints residual deviance 717.0249.
"""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from rederive.studies.cot_loadbearing.deviance import (
    factor_dummies,
    fit_ordinal,
    interaction,
    null_loglik,
    sequential_deviance,
)

DATA = Path(__file__).parent / "data" / "ologit_ucla.csv"
LL_NULL = -370.60264
LL_FULL = -358.51244
LR_CHI2 = 24.18
RESID_DEVIANCE = 717.0249


@pytest.fixture(scope="module")
def ucla():
    frame = pd.read_csv(DATA)
    y = frame["apply"].map({"unlikely": 0, "somewhat likely": 1, "very likely": 2}).to_numpy()
    terms = {
        "pared": frame[["pared"]].astype(float),
        "public": frame[["public"]].astype(float),
        "gpa": frame[["gpa"]].astype(float),
    }
    return y, terms


def test_null_and_full_loglik_match_published(ucla):
    y, terms = ucla
    table = sequential_deviance(y, terms)
    total = table[table["term"] == "total"].iloc[0]
    assert null_loglik(y) == pytest.approx(LL_NULL, abs=5e-6)
    assert total["loglik"] == pytest.approx(LL_FULL, abs=5e-5)
    assert total["deviance"] == pytest.approx(RESID_DEVIANCE, abs=5e-4)
    assert total["delta_deviance"] == pytest.approx(LR_CHI2, abs=5e-3)
    assert total["df"] == 3
    assert total["p_value"] == pytest.approx(stats.chi2.sf(total["delta_deviance"], 3))


def test_sequential_drops_add_up_and_are_order_dependent(ucla):
    y, terms = ucla
    forward = sequential_deviance(y, terms)
    backward = sequential_deviance(y, dict(reversed(list(terms.items()))), order_name="reversed")
    f_terms = forward[forward["term"] != "total"].set_index("term")
    b_terms = backward[backward["term"] != "total"].set_index("term")
    assert f_terms["delta_deviance"].sum() == pytest.approx(LR_CHI2, abs=5e-3)
    assert b_terms["delta_deviance"].sum() == pytest.approx(LR_CHI2, abs=5e-3)
    assert f_terms["share_pct"].sum() == pytest.approx(100.0)
    # pared enters first in one order and last in the other: its share must differ.
    assert abs(f_terms.loc["pared", "share_pct"] - b_terms.loc["pared", "share_pct"]) > 1.0


def test_null_loglik_equals_statsmodels_llnull(ucla):
    y, terms = ucla
    from statsmodels.miscmodels.ordinal_model import OrderedModel

    endog = pd.Series(pd.Categorical(y, ordered=True))
    res = OrderedModel(endog, terms["gpa"], distr="logit").fit(method="bfgs", disp=False)
    assert null_loglik(y) == pytest.approx(res.llnull, abs=1e-6)


def test_empty_interaction_cells_add_no_df():
    """A 4 x 2 design has 3 interaction df; each empty cell removes one."""
    rng = np.random.default_rng(1)
    n = 800
    d = pd.Series(rng.integers(1, 5, n))
    fam = pd.Series(rng.choice(["math", "conceptual"], n))
    y = np.digitize(0.6 * d.to_numpy() + rng.logistic(size=n), [1.5, 2.5])

    def interaction_df(keep):
        dk, fk = d[keep].reset_index(drop=True), fam[keep].reset_index(drop=True)
        D, F = factor_dummies(dk, "d"), factor_dummies(fk, "f")
        table = sequential_deviance(y[keep.to_numpy()], {"d": D, "f": F, "dxf": interaction(D, F)})
        return table.set_index("term").loc["dxf", "df"]

    everything = pd.Series(True, index=d.index)
    no_easy_conceptual = ~((d == 1) & (fam == "conceptual"))
    assert interaction_df(everything) == 3
    assert interaction_df(no_easy_conceptual) == 2
    assert interaction_df(no_easy_conceptual & ~((d == 4) & (fam == "conceptual"))) == 1


def test_cache_reuses_fits_across_orders(ucla):
    y, terms = ucla
    cache = {}
    sequential_deviance(y, terms, cache=cache)
    n_fits = len(cache)
    reverse = sequential_deviance(y, dict(reversed(list(terms.items()))), cache=cache)
    # the full model is shared, so the reversed order adds only its two new subsets
    assert len(cache) == n_fits + 2
    assert reverse.iloc[-1]["loglik"] == pytest.approx(LL_FULL, abs=5e-5)


def test_fit_reports_parameters():
    y = np.array([0, 1, 2, 0, 1, 2, 2, 1, 0, 0, 2, 1])
    x = pd.DataFrame({"x": np.arange(12, dtype=float) % 5})
    fit = fit_ordinal(y, x)
    assert fit.n_params == 1
    assert fit.loglik <= 0
