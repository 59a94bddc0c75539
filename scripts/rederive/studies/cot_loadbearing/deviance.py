"""Sequential deviance decomposition of an ordinal (proportional-odds) logit.

Terms enter one at a time; each term's deviance drop Δ = 2(ℓ_with − ℓ_without)
is tested against χ² with the term's degrees of freedom (the rank it adds to the
design), and its share of the explained deviance is Δ / Σ Δ. Shares depend on the
entry order, which is why callers also run the reversed main-effect order.

The LR treats every row as independent, but rows come in clusters (several
continuations of one problem). Beside it, each term gets a Wald test of its
coefficients in the model it enters, once with the model-based covariance
(inverse Hessian) and once with the problem-clustered sandwich
``H⁻¹ (G/(G−1) Σ_g s_g s_gᵀ) H⁻¹`` (``s_g`` the problem's summed score;
statsmodels' ``cov_type="cluster"`` covariance of the same fit), the clustered p
from F(df, G − 1). ``design_effect`` = model-based / clustered Wald: how much the
independence assumption inflates the term's evidence. The shares stay those of
the LR deviance drops: they describe the fit, which clustering does not change;
clustering changes how sure one may be of each drop.

References
----------
McCullagh, P. (1980). Regression models for ordinal data. *JRSS B*, 42(2), 109–142.
Cameron, A. C. & Miller, D. L. (2015). A practitioner's guide to cluster-robust
    inference. *Journal of Human Resources*, 50(2), 317–372 (§II.C, MLE sandwich).
Paper 003 (CoT load-bearing), Table 5: outcome A < B < C on the 28,584 pooled
    rows; difficulty (4 levels), perturbation family, their interaction.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from scipy import stats
from statsmodels.miscmodels.ordinal_model import OrderedModel

COLUMNS = [
    "order",
    "step",
    "term",
    "df",
    "loglik",
    "deviance",
    "delta_deviance",
    "p_value",
    "share_pct",
    "wald_model",
    "wald_cluster",
    "design_effect",
    "p_cluster",
    "n_clusters",
    "fit_seconds",
]


def factor_dummies(values: pd.Series, name: str) -> pd.DataFrame:
    """Treatment-coded dummies (first sorted level is the reference)."""
    levels = sorted(pd.unique(values.dropna()))
    return pd.DataFrame(
        {f"{name}[{lvl}]": (values == lvl).astype(float).to_numpy() for lvl in levels[1:]},
        index=values.index,
    )


def interaction(a: pd.DataFrame, b: pd.DataFrame) -> pd.DataFrame:
    """All pairwise products of the dummy columns of two factors."""
    cols = {f"{ca}:{cb}": a[ca].to_numpy() * b[cb].to_numpy() for ca in a for cb in b}
    return pd.DataFrame(cols, index=a.index)


def null_loglik(y: np.ndarray) -> float:
    """Thresholds-only log-likelihood: the MLE reproduces the marginal shares."""
    _, counts = np.unique(y, return_counts=True)
    return float(np.sum(counts * np.log(counts / counts.sum())))


def independent_columns(design: pd.DataFrame, tol: float = 1e-9) -> list[str]:
    """Columns that each add rank beyond an intercept, in order.

    The thresholds of the ordinal model play the intercept, so a column set that
    spans a constant is not identified (statsmodels refuses it); empty cells make
    interaction columns redundant in exactly this way.
    """
    kept: list[str] = []
    ones = np.ones((len(design), 1))
    rank = 1
    for column in design.columns:
        trial = np.hstack([ones, design[[*kept, column]].to_numpy()])
        new_rank = np.linalg.matrix_rank(trial, tol=tol * max(1.0, np.abs(trial).max()))
        if new_rank > rank:
            kept.append(column)
            rank = new_rank
    return kept


@dataclass(frozen=True)
class Fit:
    loglik: float
    n_params: int
    seconds: float
    params: pd.Series | None = None  # slopes by column name, then thresholds
    cov: np.ndarray | None = None  # model-based (inverse Hessian), params order
    cov_cluster: np.ndarray | None = None  # cluster-robust sandwich, params order
    n_clusters: int = 0


def cluster_sandwich(model, params, groups) -> tuple[np.ndarray, np.ndarray, int]:
    """Model-based and cluster-robust covariance of an MLE, and the cluster count.

    ``H`` is the Hessian of the log-likelihood at ``params`` and ``s_g`` the sum
    of the per-row scores of cluster ``g``; the sandwich carries the small-sample
    factor ``G / (G − 1)`` (Stata's and statsmodels' default for MLE clusters).
    """
    params = np.asarray(params, dtype=float)
    bread = np.linalg.inv(-model.hessian(params))
    scores = np.asarray(model.score_obs(params), dtype=float)
    _, inverse = np.unique(np.asarray(groups), return_inverse=True)
    by_cluster = np.zeros((inverse.max() + 1, scores.shape[1]))
    np.add.at(by_cluster, inverse, scores)
    g = by_cluster.shape[0]
    meat = g / (g - 1.0) * by_cluster.T @ by_cluster
    return bread, bread @ meat @ bread, g


def wald_statistics(fit: Fit, columns: list[str]) -> dict[str, float]:
    """Model-based and clustered Wald χ² of ``columns`` (all zero), their ratio, p.

    The clustered p refers W / df to F(df, G − 1), the few-cluster analogue of
    the t with C − 1 df used for rates (:mod:`rederive.stats.clustered`).
    """
    nan = {"wald_model": np.nan, "wald_cluster": np.nan, "design_effect": np.nan}
    if not columns or fit.params is None or fit.cov_cluster is None:
        return {**nan, "p_cluster": np.nan, "n_clusters": fit.n_clusters}
    idx = [fit.params.index.get_loc(c) for c in columns]
    b = fit.params.to_numpy()[idx]
    w_model = float(b @ np.linalg.solve(fit.cov[np.ix_(idx, idx)], b))
    w_cluster = float(b @ np.linalg.solve(fit.cov_cluster[np.ix_(idx, idx)], b))
    df = len(idx)
    return {
        "wald_model": w_model,
        "wald_cluster": w_cluster,
        "design_effect": w_model / w_cluster,
        "p_cluster": float(stats.f.sf(w_cluster / df, df, fit.n_clusters - 1)),
        "n_clusters": fit.n_clusters,
    }


def _thresholds_start(y: np.ndarray) -> np.ndarray:
    """Null-model thresholds in statsmodels' parametrisation (first cut, log gaps)."""
    _, counts = np.unique(y, return_counts=True)
    cuts = np.log(np.cumsum(counts)[:-1] / (counts.sum() - np.cumsum(counts)[:-1]))
    return np.concatenate([cuts[:1], np.log(np.diff(cuts))])


def fit_ordinal(
    y: np.ndarray,
    design: pd.DataFrame,
    *,
    start: Fit | None = None,
    maxiter: int = 2000,
    groups=None,
) -> Fit:
    """Proportional-odds logit via statsmodels ``OrderedModel`` (BFGS, no constant).

    ``y`` holds integer codes 0..K-1 in the outcome order. An empty design gives the
    closed-form null model. ``start`` (a nested fit) warm-starts the optimiser: its
    slopes and thresholds, zero for the new columns. The optimum does not depend on
    the start; the number of iterations does. ``groups`` (a cluster label per row)
    adds the model-based and cluster-robust covariances (:func:`cluster_sandwich`).
    """
    if design.shape[1] == 0:
        return Fit(null_loglik(y), 0, 0.0)
    endog = pd.Series(pd.Categorical(y, categories=sorted(np.unique(y)), ordered=True))
    model = OrderedModel(endog, design.reset_index(drop=True), distr="logit")
    n_cuts = len(np.unique(y)) - 1
    slopes = pd.Series(0.0, index=design.columns)
    cuts = _thresholds_start(y)
    if start is not None and start.params is not None:
        known = start.params.index[: start.n_params]
        slopes[slopes.index.intersection(known)] = start.params[slopes.index.intersection(known)]
        cuts = start.params.to_numpy()[start.n_params :]
    begin = time.perf_counter()
    result = model.fit(
        start_params=np.concatenate([slopes.to_numpy(), cuts]),
        method="bfgs",
        maxiter=maxiter,
        disp=False,
        gtol=1e-7,
    )
    seconds = time.perf_counter() - begin
    if not result.mle_retvals.get("converged", False):
        raise RuntimeError("ordinal logit did not converge; check for separated cells")
    params = pd.Series(
        np.asarray(result.params), index=[*design.columns, *[f"cut{i}" for i in range(n_cuts)]]
    )
    if groups is None:
        return Fit(float(result.llf), design.shape[1], seconds, params)
    cov, cov_cluster, g = cluster_sandwich(model, result.params, groups)
    return Fit(float(result.llf), design.shape[1], seconds, params, cov, cov_cluster, g)


def sequential_deviance(
    y: np.ndarray,
    terms: dict[str, pd.DataFrame],
    *,
    order_name: str = "paper",
    cache: dict | None = None,
    groups=None,
) -> pd.DataFrame:
    """Enter ``terms`` in dict order and report each one's deviance drop.

    Parameters
    ----------
    y : array of int
        Outcome codes 0..K-1 (A=0 < B=1 < C=2 in the paper).
    terms : dict
        Term name → its design columns (already coded), in entry order.
    order_name : str
        Label of this entry order in the output.
    cache : dict, optional
        Fits keyed by their set of design columns, shared between calls on the same
        ``y`` so that another entry order refits only the models it has not seen.
    groups : array_like, optional
        Cluster (problem) of each row: adds the Wald columns (:func:`wald_statistics`).

    Returns
    -------
    DataFrame
        One row per term (``step`` 1..k) plus a ``total`` row: ``df`` (rank the term
        adds), ``loglik`` and ``deviance`` (−2ℓ) after the term enters,
        ``delta_deviance``, χ² ``p_value`` and ``share_pct`` of the total explained
        deviance, the model-based and clustered Wald statistics of the term with
        their ratio ``design_effect`` and the clustered ``p_cluster`` (NaN without
        ``groups``), and the fit's wall time.
    """
    y = np.asarray(y)
    current = pd.DataFrame(index=range(len(y)))
    previous = fit_ordinal(y, current)
    null_ll = previous.loglik
    rows = []
    for step, (name, columns) in enumerate(terms.items(), start=1):
        columns = columns.reset_index(drop=True)
        candidate = pd.concat([current, columns], axis=1)
        keep = independent_columns(candidate)
        added = len(keep) - current.shape[1]
        current = candidate[keep]
        key = frozenset(current.columns)
        if not added:
            fit = previous
        elif cache is not None and key in cache:
            fit = replace(cache[key], seconds=0.0)
        else:
            fit = fit_ordinal(y, current, start=previous, groups=groups)
            if cache is not None:
                cache[key] = fit
        delta = 2.0 * (fit.loglik - previous.loglik)
        p = float(stats.chi2.sf(delta, added)) if added else np.nan
        rows.append(
            {
                "order": order_name,
                "step": step,
                "term": name,
                "df": added,
                "loglik": fit.loglik,
                "deviance": -2.0 * fit.loglik,
                "delta_deviance": delta,
                "p_value": p,
                **wald_statistics(fit, keep[len(keep) - added :] if added else []),
                "fit_seconds": fit.seconds if added else 0.0,
            }
        )
        previous = fit
    frame = pd.DataFrame(rows)
    explained = 2.0 * (previous.loglik - null_ll)
    frame["share_pct"] = 100.0 * frame["delta_deviance"] / explained
    total = {
        "order": order_name,
        "step": len(rows) + 1,
        "term": "total",
        "df": int(frame["df"].sum()),
        "loglik": previous.loglik,
        "deviance": -2.0 * previous.loglik,
        "delta_deviance": explained,
        "p_value": float(stats.chi2.sf(explained, int(frame["df"].sum()))),
        "share_pct": 100.0,
        **wald_statistics(previous, list(current.columns)),
        "fit_seconds": float(frame["fit_seconds"].sum()),  # term rows only
    }
    return pd.concat([frame, pd.DataFrame([total])], ignore_index=True)[COLUMNS]
