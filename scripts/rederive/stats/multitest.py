"""Multiple-testing correction (thin, NaN-aware wrapper over statsmodels).

References
----------
Benjamini, Y. & Hochberg, Y. (1995). Controlling the false discovery rate: a
    practical and powerful approach to multiple testing. *JRSS B*, 57(1), 289–300.
"""

from __future__ import annotations

import numpy as np
from statsmodels.stats.multitest import multipletests


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
        rej, adj, _, _ = multipletests(p[ok], alpha=q, method="fdr_bh")
        reject[ok] = rej
        qvalues[ok] = adj
    return reject, qvalues
