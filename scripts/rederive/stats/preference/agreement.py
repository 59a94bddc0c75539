"""Agreement between judges, and with human labels: Cohen's κ, Fleiss' κ, Krippendorff's α.

A *unit* is one item, one model pair, and the order of the pair (the ``game``
when a source judges both orders, so that Arena-Hard's two games are two units);
each judge's verdict on it is read as a category oriented to the pair's models
in name order: ``x`` (the model that sorts first won), ``tie``, ``y``. Graded
preferences count for the side they lean to, a tie at exactly ½.

- Cohen's κ for every two judges on the units both judged (statsmodels
  ``cohens_kappa`` on their contingency table), with its asymptotic SE and a
  95 % interval;
- Fleiss' κ over the units every judge judged (statsmodels ``fleiss_kappa``);
- Krippendorff's α (nominal) over all units with at least two verdicts — the one
  coefficient that uses units some judges skipped. Computed from the coincidence
  matrix (Krippendorff 2011, §"nominal α"); statsmodels has no α, and the formula
  is checked against the ``krippendorff`` package in the tests' fixture.

Human labels enter as one more judge (the reader names it, e.g. ``human``); κ of
each model judge with it is that judge's agreement with people.

References
----------
Cohen, J. (1960). A coefficient of agreement for nominal scales. *Educational and
    Psychological Measurement*, 20(1), 37–46.
Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters.
    *Psychological Bulletin*, 76(5), 378–382.
Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. Annenberg
    School for Communication, University of Pennsylvania.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
from scipy import stats
from statsmodels.stats.inter_rater import cohens_kappa, fleiss_kappa

from rederive.stats.preference.games import check_games

__all__ = [
    "CATEGORIES",
    "agreement_table",
    "krippendorff_alpha_nominal",
    "verdict_matrix",
]

CATEGORIES = ("x", "tie", "y")


def verdict_matrix(games: pd.DataFrame) -> pd.DataFrame:
    """Units × judges table of categorical verdicts (NaN where a judge did not judge).

    Raises ``ValueError`` when one judge has two verdicts on one unit (the units
    would be ambiguous: give them a ``game`` number).
    """
    check_games(games)
    if "judge" not in games.columns:
        raise ValueError("agreement needs a judge column")
    a, b = games["model_a"].astype(str).to_numpy(), games["model_b"].astype(str).to_numpy()
    x_first = a < b
    outcome = games["outcome"].to_numpy(dtype=float)
    pref_x = np.where(x_first, outcome, 1.0 - outcome)
    verdict = np.where(pref_x > 0.5, "x", np.where(pref_x < 0.5, "y", "tie"))
    n = len(games)
    item = games["item_id"].astype(str).to_numpy() if "item_id" in games else np.full(n, "")
    game = games["game"].astype(str).to_numpy() if "game" in games else np.full(n, "")
    unit = pd.Series(item).str.cat(
        [pd.Series(np.minimum(a, b)), pd.Series(np.maximum(a, b)), pd.Series(game)], sep="\x1f"
    )
    long = pd.DataFrame(
        {"unit": unit.to_numpy(), "judge": games["judge"].astype(str).to_numpy(), "v": verdict}
    )
    if long.duplicated(["unit", "judge"]).any():
        dup = long[long.duplicated(["unit", "judge"])].iloc[0]
        raise ValueError(
            f"judge {dup['judge']!r} has two verdicts on one item and pair "
            f"({dup['unit'].replace(chr(31), ' / ')}); give the games a 'game' number"
        )
    return long.pivot(index="unit", columns="judge", values="v").sort_index()


def _codes(column: pd.Series) -> np.ndarray:
    return pd.Categorical(column, categories=CATEGORIES).codes


def krippendorff_alpha_nominal(matrix) -> tuple[float, int]:
    """Krippendorff's α for nominal data.

    Parameters
    ----------
    matrix : array_like, shape (units, raters)
        Category codes ``0 … K−1``, negative or NaN for a missing verdict.

    Returns
    -------
    alpha : float
    pairable : int
        Verdicts in units with at least two verdicts (Krippendorff's ``n``).

    Notes
    -----
    Coincidence matrix ``o_ck = Σ_u (#pairs (c, k) in u) / (m_u − 1)`` over units
    with ``m_u ≥ 2`` verdicts; ``α = 1 − (n − 1) Σ_c≠k o_ck / Σ_c≠k n_c n_k``.
    """
    values = np.asarray(matrix, dtype=float)
    values = np.where(np.isnan(values), -1, values).astype(int)
    k = int(values.max()) + 1 if (values >= 0).any() else 0
    counts = np.zeros((values.shape[0], max(k, 1)))
    for c in range(k):
        counts[:, c] = (values == c).sum(axis=1)
    m = counts.sum(axis=1)
    use = m >= 2
    counts, m = counts[use], m[use]
    coincidence = (counts[:, :, None] * counts[:, None, :]) / (m - 1)[:, None, None]
    coincidence = coincidence.sum(axis=0)
    coincidence -= np.diag((counts / (m - 1)[:, None]).sum(axis=0))
    n_c = coincidence.sum(axis=1)
    n = n_c.sum()
    observed = coincidence.sum() - np.trace(coincidence)
    expected = n_c.sum() ** 2 - (n_c**2).sum()
    if expected == 0:
        return np.nan, int(n)
    return float(1 - (n - 1) * observed / expected), int(n)


def agreement_table(games: pd.DataFrame, *, level: float = 0.95) -> pd.DataFrame:
    """Agreement between every two judges, and over all judges.

    Returns
    -------
    DataFrame
        ``coefficient, judge_1, judge_2, units, value, se, ci_low, ci_high,
        observed_agreement``: one ``cohen_kappa`` row per judge pair (units both
        judged), then ``fleiss_kappa`` (units all judged; ``judge_1`` = "all")
        and ``krippendorff_alpha`` (units with ≥ 2 verdicts). ``se`` and the
        interval are Cohen's asymptotic ones (Fleiss, Cohen & Everitt 1969, as
        statsmodels gives them); NaN for the other two.
    """
    matrix = verdict_matrix(games)
    judges = list(matrix.columns)
    z = stats.norm.ppf(0.5 + level / 2)
    rows = []
    for j1, j2 in itertools.combinations(judges, 2):
        both = matrix[[j1, j2]].dropna()
        if both.empty:
            continue
        table = pd.crosstab(
            pd.Categorical(both[j1], categories=CATEGORIES),
            pd.Categorical(both[j2], categories=CATEGORIES),
            dropna=False,
        ).to_numpy()
        res = cohens_kappa(table)
        se = float(res["std_kappa"])
        rows.append(
            {
                "coefficient": "cohen_kappa",
                "judge_1": j1,
                "judge_2": j2,
                "units": len(both),
                "value": float(res["kappa"]),
                "se": se,
                "ci_low": float(res["kappa"]) - z * se,
                "ci_high": float(res["kappa"]) + z * se,
                "observed_agreement": float(np.trace(table) / table.sum()),
            }
        )
    complete = matrix.dropna()
    if len(judges) >= 2 and len(complete):
        per_unit = np.stack([(complete.to_numpy() == c).sum(axis=1) for c in CATEGORIES], axis=1)
        agree = ((per_unit * (per_unit - 1)).sum(axis=1) / (len(judges) * (len(judges) - 1))).mean()
        rows.append(
            {
                "coefficient": "fleiss_kappa",
                "judge_1": "all",
                "judge_2": "",
                "units": len(complete),
                "value": float(fleiss_kappa(per_unit, method="fleiss")),
                "se": np.nan,
                "ci_low": np.nan,
                "ci_high": np.nan,
                "observed_agreement": float(agree),
            }
        )
    codes = np.stack([_codes(matrix[j]) for j in judges], axis=1).astype(float)
    codes[codes < 0] = np.nan
    alpha, n = krippendorff_alpha_nominal(codes)
    rows.append(
        {
            "coefficient": "krippendorff_alpha",
            "judge_1": "all",
            "judge_2": "",
            "units": int((np.isfinite(codes).sum(axis=1) >= 2).sum()),
            "value": alpha,
            "se": np.nan,
            "ci_low": np.nan,
            "ci_high": np.nan,
            "observed_agreement": np.nan,
        }
    )
    return pd.DataFrame(rows)
