"""Small-n guard shared by every study: flag, keep out of rankings and BH, say so.

A unit (a model, an arm) measured on very few items gets an extreme rate by
chance: one row answered correctly is 100%, ranks first, and its bootstrap
distribution (a point mass) makes every comparison with it "significant". Each
study sets a minimum n (config ``min_n``, schema default and bounds); units below
it keep their own numbers, carry ``small_n = True`` in every table, and are left
out of rankings and of the Benjamini–Hochberg family by default (the excluded
units are counted and named in the table notes).

Abilities of the 1PL model are a separate case with the same presentation: a
perfect or zero score has no finite maximum-likelihood ability, so a table shows
NaN with the reason (:func:`ability_not_finite`) rather than ``inf`` in a ranking.

References
----------
Agresti, A. & Coull, B. A. (1998). Approximate is better than "exact" for
    interval estimation of binomial proportions. *The American Statistician*
    52(2), 119–126 (why rates on a handful of items carry intervals wider than
    any difference between models).
Fischer, G. H. & Molenaar, I. W. (eds.) (1995). *Rasch Models*, ch. 3 (ML
    ability estimates do not exist for perfect and zero scores).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

#: Column name of the flag in every table.
SMALL_N = "small_n"


def small_n_flags(n, min_n: int) -> np.ndarray:
    """Boolean per unit: fewer than ``min_n`` observations (``n < min_n``).

    Parameters
    ----------
    n : array_like of int
        Observations per unit (items, rows, problems; whatever the study's
        statistic is averaged over).
    min_n : int
        The configured minimum; 1 flags only units without any observation.

    Examples
    --------
    >>> small_n_flags([1, 20, 1145], 20).tolist()
    [True, False, False]
    """
    return np.asarray(n, dtype=float) < float(min_n)


def pair_mask(a, b, small: dict[str, bool]) -> np.ndarray:
    """Boolean per pair: either member is small-n (the pair is left out of BH)."""
    return np.array(
        [bool(small.get(x, False)) or bool(small.get(y, False)) for x, y in zip(a, b, strict=True)],
        dtype=bool,
    )


def excluded_note(names, min_n: int, *, unit: str = "model", what: str = "items") -> str:
    """Sentence naming the units left out for small n ("" when none).

    Examples
    --------
    >>> excluded_note(["Tiny"], 20)
    '1 model below the minimum n (20 items) flagged small_n and left out of the ranking and the BH family: Tiny.'
    """
    names = list(names)
    if not names:
        return ""
    plural = unit if len(names) == 1 else f"{unit}s"
    return (
        f"{len(names)} {plural} below the minimum n ({min_n} {what}) flagged {SMALL_N} "
        f"and left out of the ranking and the BH family: {', '.join(names)}."
    )


def ability_not_finite(passes, answered) -> list[str]:
    """Why a 1PL maximum-likelihood ability is not finite ("" when it is).

    A perfect score (every answered item passed) has ability +inf, a zero score
    −inf; without any answered item there is no ability at all.

    Examples
    --------
    >>> ability_not_finite([3, 0, 2, 0], [3, 4, 5, 0])
    ['perfect score (3/3): ML ability is +inf', 'zero score (0/4): ML ability is -inf', '', 'no answered item']
    """
    out = []
    for k, n in zip(np.asarray(passes, float), np.asarray(answered, float), strict=True):
        if n <= 0:
            out.append("no answered item")
        elif k >= n:
            out.append(f"perfect score ({int(k)}/{int(n)}): ML ability is +inf")
        elif k <= 0:
            out.append(f"zero score (0/{int(n)}): ML ability is -inf")
        else:
            out.append("")
    return out


def finite_or_nan(values) -> np.ndarray:
    """``values`` with ±inf replaced by NaN (tables never print inf)."""
    v = np.asarray(values, dtype=float)
    return np.where(np.isfinite(v), v, np.nan)


def rank_eligible(
    frame: pd.DataFrame,
    *,
    score: str,
    ascending: bool = False,
    exclude: str | None = SMALL_N,
    method: str = "first",
) -> pd.Series:
    """1-based rank by ``score`` among eligible rows (nullable Int64, NA for the rest).

    Rows with a NaN ``score`` or a True ``exclude`` column get no rank. With
    ``method="first"`` ties are ranked in the frame's row order (sort it first);
    ``"min"`` gives tied rows the same rank.

    Examples
    --------
    >>> f = pd.DataFrame({"s": [2.0, float("nan"), 1.0, 3.0], "small_n": [0, 0, 0, 1]})
    >>> rank_eligible(f, score="s").tolist()
    [1, <NA>, 2, <NA>]
    """
    ok = frame[score].notna()
    if exclude is not None and exclude in frame:
        ok &= ~frame[exclude].astype(bool)
    ranks = pd.Series(pd.NA, index=frame.index, dtype="Int64")
    ranks[ok] = frame.loc[ok, score].rank(method=method, ascending=ascending).astype(int)
    return ranks


def small_n_mask(frame) -> np.ndarray:
    """The ``small_n`` flag of each row as booleans (a table without it: none flagged)."""
    if SMALL_N not in frame:
        return np.zeros(len(frame), dtype=bool)
    return frame[SMALL_N].fillna(False).astype(bool).to_numpy()
