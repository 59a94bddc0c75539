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


def _clustered_ordinal(seed=4, n_clusters=400, size=5, sd=1.5):
    """Ordinal outcome with a shared problem effect: rows of one cluster correlate."""
    rng = np.random.default_rng(seed)
    groups = np.repeat(np.arange(n_clusters), size)
    # The covariate varies between clusters only, so clustering matters for it.
    x = rng.normal(size=n_clusters)[groups]
    noise = rng.normal(0, sd, n_clusters)[groups] + rng.logistic(size=groups.size)
    y = np.digitize(0.4 * x + noise, [-0.5, 1.2])
    return y, pd.DataFrame({"x": x}), groups.astype(str)


def test_cluster_sandwich_equals_statsmodels_cluster_covariance():
    from statsmodels.miscmodels.ordinal_model import OrderedModel

    from rederive.studies.cot_loadbearing.deviance import cluster_sandwich

    y, design, groups = _clustered_ordinal()
    fit = fit_ordinal(y, design, groups=groups)
    endog = pd.Series(pd.Categorical(y, categories=[0, 1, 2], ordered=True))
    model = OrderedModel(endog, design, distr="logit")
    robust = model.fit(
        start_params=fit.params.to_numpy(),
        method="bfgs",
        disp=False,
        gtol=1e-7,
        cov_type="cluster",
        cov_kwds={"groups": groups, "use_correction": False},
    )
    g = np.unique(groups).size
    # use_correction=False leaves out G/(G-1); ours carries it.
    np.testing.assert_allclose(
        fit.cov_cluster, robust.cov_params().to_numpy() * g / (g - 1), rtol=1e-8
    )
    plain = model.fit(start_params=fit.params.to_numpy(), method="bfgs", disp=False, gtol=1e-7)
    np.testing.assert_allclose(fit.cov, plain.cov_params().to_numpy(), rtol=1e-8)
    bread, sandwich, n = cluster_sandwich(model, fit.params.to_numpy(), groups)
    assert n == g == fit.n_clusters
    np.testing.assert_allclose(sandwich, fit.cov_cluster, rtol=1e-12)


def test_clustered_wald_shrinks_with_correlated_rows_not_without():
    y, design, groups = _clustered_ordinal()
    clustered = sequential_deviance(y, {"x": design}, groups=groups).iloc[0]
    # Between-cluster covariate, 5 rows per cluster with a strong shared effect:
    # the model-based Wald overstates the evidence severalfold.
    assert clustered["design_effect"] > 1.8
    assert clustered["p_cluster"] > clustered["p_value"]
    assert clustered["n_clusters"] == 400
    # Every row its own cluster: the sandwich is the robust (HC) covariance, about
    # the model-based one for a correctly specified model.
    rng = np.random.default_rng(9)
    x = pd.DataFrame({"x": rng.normal(size=2000)})
    y2 = np.digitize(0.4 * x["x"].to_numpy() + rng.logistic(size=2000), [-0.5, 1.2])
    alone = sequential_deviance(y2, {"x": x}, groups=np.arange(2000)).iloc[0]
    assert alone["design_effect"] == pytest.approx(1.0, abs=0.1)
    # Without groups the Wald columns stay empty, the LR columns unchanged.
    plain = sequential_deviance(y, {"x": design}).iloc[0]
    assert np.isnan(plain["wald_cluster"]) and np.isnan(plain["p_cluster"])
    assert plain["delta_deviance"] == pytest.approx(clustered["delta_deviance"], abs=1e-6)


def test_model_based_wald_equals_statsmodels_wald_test():
    from statsmodels.miscmodels.ordinal_model import OrderedModel

    y, design, groups = _clustered_ordinal()
    row = sequential_deviance(y, {"x": design}, groups=groups).iloc[0]
    endog = pd.Series(pd.Categorical(y, categories=[0, 1, 2], ordered=True))
    res = OrderedModel(endog, design, distr="logit").fit(method="bfgs", disp=False, gtol=1e-7)
    ref = res.wald_test("x = 0", scalar=True)
    assert row["wald_model"] == pytest.approx(float(ref.statistic), rel=1e-5)
