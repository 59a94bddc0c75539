"""Student t and normal tail functions without importing ``scipy.stats``.

``scipy.stats`` loads every distribution it has (about 0.8 s of CPU at import);
the workflow's table jobs need four functions of two of them. These call the
same ``scipy.special`` routines ``scipy.stats.t`` and ``scipy.stats.norm`` call
(``stdtr``, ``stdtrit``, ``ndtr``, ``ndtri``), with the same answer, NaN, for
degrees of freedom that are NaN or not positive, so the floats are the same:
``tests/stats/test_distributions.py`` holds them equal to scipy.stats bit for
bit.
"""

from __future__ import annotations

import numpy as np
from scipy import special

__all__ = ["norm_cdf", "norm_isf", "norm_ppf", "norm_sf", "t_isf", "t_ppf", "t_sf"]


def _valid_df(df) -> np.ndarray:
    df = np.asarray(df, dtype=float)
    with np.errstate(invalid="ignore"):
        return np.where(df > 0, df, np.nan)


def _scalar(out):
    return out[()] if isinstance(out, np.ndarray) and out.ndim == 0 else out


def t_ppf(q, df):
    """Quantile of Student's t (``scipy.stats.t.ppf``) for q in (0, 1)."""
    return _scalar(np.asarray(special.stdtrit(_valid_df(df), q), dtype=float))


def t_isf(q, df):
    """Upper quantile of Student's t (``scipy.stats.t.isf``) for q in (0, 1)."""
    return _scalar(-np.asarray(special.stdtrit(_valid_df(df), q), dtype=float))


def t_sf(x, df):
    """Upper tail of Student's t (``scipy.stats.t.sf``)."""
    return _scalar(np.asarray(special.stdtr(_valid_df(df), -np.asarray(x, dtype=float))))


def norm_cdf(x):
    """Standard normal distribution function (``scipy.stats.norm.cdf``)."""
    return _scalar(np.asarray(special.ndtr(np.asarray(x, dtype=float))))


def norm_sf(x):
    """Standard normal upper tail (``scipy.stats.norm.sf``)."""
    return _scalar(np.asarray(special.ndtr(-np.asarray(x, dtype=float))))


def norm_ppf(q):
    """Standard normal quantile (``scipy.stats.norm.ppf``) for q in (0, 1)."""
    return _scalar(np.asarray(special.ndtri(np.asarray(q, dtype=float))))


def norm_isf(q):
    """Standard normal upper quantile (``scipy.stats.norm.isf``) for q in (0, 1)."""
    return _scalar(-np.asarray(special.ndtri(np.asarray(q, dtype=float))))
