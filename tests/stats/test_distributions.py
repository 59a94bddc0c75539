"""The t and normal functions of rederive.stats.distributions are scipy.stats'
to the bit, on the inputs the workflow gives them (degrees of freedom that are
NaN, 0 or fractional; infinite statistics; arrays and scalars)."""

import numpy as np
from scipy import stats

from rederive.stats import distributions as d


def same(a, b):
    assert np.shape(a) == np.shape(b)
    assert np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True)


def test_t_functions_equal_scipy_stats():
    rng = np.random.default_rng(7)
    df = np.concatenate([[np.nan, 0.0, -1.0, 0.5, 1, 2, 3, 29, 1e6], rng.uniform(1, 400, 200)])
    x = np.concatenate([[np.inf, -np.inf, 0.0, np.nan], rng.normal(0, 5, 205)])
    for q in (0.5 + 0.95 / 2, 0.975, 0.9, 0.025, 1e-8):
        same(d.t_ppf(q, df), stats.t.ppf(q, df))
        same(d.t_isf(q, df), stats.t.isf(q, df))
    same(d.t_sf(x, df), stats.t.sf(x, df))
    same(d.t_ppf(0.975, 12), stats.t.ppf(0.975, 12))
    assert isinstance(d.t_ppf(0.975, 12), float) == isinstance(stats.t.ppf(0.975, 12), float)


def test_normal_functions_equal_scipy_stats():
    rng = np.random.default_rng(8)
    x = np.concatenate([[np.inf, -np.inf, 0.0, np.nan, 40.0], rng.normal(0, 3, 300)])
    q = np.concatenate([[0.5, 0.975, 1e-12, 1 - 1e-12], rng.uniform(0, 1, 300)])
    same(d.norm_cdf(x), stats.norm.cdf(x))
    same(d.norm_sf(x), stats.norm.sf(x))
    same(d.norm_ppf(q), stats.norm.ppf(q))
    same(d.norm_isf(q), stats.norm.isf(q))
    same(d.norm_ppf(0.975), stats.norm.ppf(0.975))
