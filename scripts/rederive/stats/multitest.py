"""Multiple-testing correction: Benjamini–Hochberg, NaN-aware.

The arithmetic is statsmodels' ``multipletests(method="fdr_bh")`` step for
step (sort, ``p · n / rank``, running minimum from the top, capped at 1), so
the q-values are the same floats; ``tests/stats/test_multitest.py`` holds them
equal to statsmodels and to R's ``p.adjust(method = "BH")``. It is written out
rather than imported because importing ``statsmodels.stats.multitest`` costs
about 1.1 s of CPU (it loads scipy.stats and statsmodels' tools), paid by every
workflow job that corrects a family (bench/README.md, "Start-up per job").

References
----------
Benjamini, Y. & Hochberg, Y. (1995). Controlling the false discovery rate: a
    practical and powerful approach to multiple testing. *JRSS B*, 57(1), 289–300.
"""

from __future__ import annotations

import numpy as np

__all__ = ["bh_adjust"]


def _bh(p: np.ndarray, q: float) -> tuple[np.ndarray, np.ndarray]:
    order = np.argsort(p)
    ranked = np.take(p, order)
    share = np.arange(1, len(ranked) + 1) / float(len(ranked))
    reject = ranked <= share * q
    if reject.any():
        reject[: max(np.nonzero(reject)[0])] = True
    adjusted = np.minimum.accumulate((ranked / share)[::-1])[::-1]
    adjusted[adjusted > 1] = 1
    out_reject, out_q = np.empty_like(reject), np.empty_like(adjusted)
    out_reject[order] = reject
    out_q[order] = adjusted
    return out_reject, out_q


def bh_adjust(pvalues, q: float) -> tuple[np.ndarray, np.ndarray]:
    """Benjamini–Hochberg step-up adjustment.

    Parameters
    ----------
    pvalues : array_like
        Raw p-values; NaN entries (tests that could not be run) are left out of the
        family and get NaN q-values and ``reject = False``.
    q : float
        False discovery rate level.

    Returns
    -------
    reject : ndarray of bool
        Whether each hypothesis is rejected at FDR ``q``.
    qvalues : ndarray of float
        BH-adjusted p-values.
    """
    p = np.asarray(pvalues, dtype=float)
    reject = np.zeros(p.shape, dtype=bool)
    qvalues = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    if ok.any():
        reject[ok], qvalues[ok] = _bh(p[ok], q)
    return reject, qvalues
