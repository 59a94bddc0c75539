"""Classical Rasch estimate by marginal maximum likelihood (Gauss-Hermite quadrature).

The model is ``P(y_ij = 1) = logistic(theta_i - b_j)`` for model (subject) ``i`` and
item ``j``. Marginal ML treats the units of one axis as draws from
``N(0, sigma^2)``, integrates them out by Gauss-Hermite quadrature and maximises the
marginal likelihood over the parameters of the other axis (and ``sigma``)
(Bock & Aitkin 1981). The integrated units then get their posterior mean (EAP) and
posterior standard deviation, which are finite for every response pattern: an item
that every model passes gets a finite, shrunk difficulty with a wide interval
instead of the ``-inf`` of its maximum-likelihood estimate.

Which axis is integrated: in educational testing the examinees (many) are random
and the items (few) fixed, as in ltm's ``rasch``. LLM benchmarks have the opposite
shape (a dozen models, thousands of items), and the Rasch model is symmetric in
its two axes, so there the *items* are random, ``b_j ~ N(mu_b, sigma^2)``, and
the model abilities are the fixed parameters. ``random="auto"`` integrates the
axis with more units.

Why not a library: the only Python package with a Rasch MML (girth 0.8.0,
``rasch_mml``) was last released in November 2021 and fixes the ability SD at 1;
py-irt is variational and joint. This module is checked against ltm on LSAT-6
(``tests/stats/test_irt.py``).

References
----------
Bock, R. D. & Aitkin, M. (1981). Marginal maximum likelihood estimation of item
    parameters: application of an EM algorithm. *Psychometrika* 46, 443-459.
Bock, R. D. & Lieberman, M. (1970). Fitting a response model for n dichotomously
    scored items. *Psychometrika* 35, 179-197.
Rizopoulos, D. (2006). ltm: An R package for latent variable modeling and item
    response theory analyses. *Journal of Statistical Software* 17(5).
Louis, T. A. (1984). Estimating a population of parameter values using Bayes and
    empirical Bayes methods. *JASA* 79, 393-398.
Ghosh, M. (1992). Constrained Bayes estimation with applications. *JASA* 87, 533-540.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.optimize import minimize
from scipy.special import expit, log_expit, logsumexp

__all__ = [
    "MmlAbilityBootstrap",
    "RaschMml",
    "bootstrap_mml_ability",
    "constrained_bayes",
    "rasch_mml",
]

_RANDOM = ("auto", "models", "items")


@dataclass(frozen=True, eq=False)
class RaschMml:
    """Result of :func:`rasch_mml` (all on the logit scale of ``theta - b``).

    Attributes
    ----------
    ability, difficulty : pandas.Series
        Fixed-axis parameters are marginal-ML estimates; the integrated axis gets
        posterior means (EAP). Centred so that the mean difficulty is 0.
    ability_sd, difficulty_sd : pandas.Series
        Posterior SD for the integrated axis; for the fixed axis the asymptotic
        standard error from the observed information (NaN if not computed).
    sigma : float
        Estimated (or fixed) SD of the integrated axis.
    random : {"models", "items"}
        Which axis was integrated.
    log_lik : float
        Maximised marginal log-likelihood.
    n_iter : int
        Optimiser iterations.
    """

    ability: pd.Series
    difficulty: pd.Series
    ability_sd: pd.Series
    difficulty_sd: pd.Series
    sigma: float
    random: str
    log_lik: float
    n_iter: int
    # Location moved by the centring (mean difficulty 0): the fit's own
    # parameters are the reported ones plus this, which the bootstrap needs.
    shift: float = 0.0
    # The quadrature the fit used (standard-normal nodes and log weights), which
    # the bootstrap must reuse; None: Gauss-Hermite with 41 nodes.
    nodes: np.ndarray | None = None
    log_weights: np.ndarray | None = None
    quadrature: str = "Gauss-Hermite, 41 nodes"


def _marginal(params, y1, obs, nodes, logw, fix_sigma):
    """Negative marginal log-likelihood and its gradient (rows integrated).

    Rows have latent ``u ~ N(0, sigma^2)``; columns have location ``c``;
    ``P(y = 1) = logistic(u - c)``.
    """
    n_cols = obs.shape[1]
    c = params[:n_cols]
    sigma = fix_sigma if fix_sigma is not None else np.exp(params[n_cols])
    a = sigma * nodes[:, None] - c[None, :]  # (K, cols)
    # log L_ik = sum_j obs_ij (y_ij a_kj + log(1 - p_kj)); y1 = y * obs.
    log_l = y1 @ a.T + obs @ log_expit(-a).T  # (rows, K)
    joint = log_l + logw[None, :]
    log_marg = logsumexp(joint, axis=1)
    post = np.exp(joint - log_marg[:, None])  # (rows, K) posterior over nodes
    p = expit(a)
    # d(-logL)/dc_j = sum_i y1_ij - sum_k p_kj sum_i post_ik obs_ij
    # sum_k p_kj (post^T obs)_kj: one matrix product instead of a three-way einsum
    # (20x faster at 20,000 x 200 x 41).
    grad_c = y1.sum(axis=0) - ((post.T @ obs) * p).sum(axis=0)
    grad = grad_c
    if fix_sigma is None:
        # d logL / d sigma = sum_ik post_ik z_k (S_i - sum_j obs_ij p_kj)
        expected = obs @ p.T  # (rows, K)
        d_sigma = np.sum(post * nodes[None, :] * (y1.sum(axis=1)[:, None] - expected))
        grad = np.append(grad_c, -d_sigma * sigma)  # gradient in log(sigma)
    return -log_marg.sum(), grad, post


# From this many cells on, the likelihood is evaluated from sufficient statistics
# (rederive.stats.irt_large): the bundled matrices (at most 63 k cells) keep the
# dense path, and with it their tables byte for byte.
_LARGE_FROM_CELLS = 1_000_000
# Gauss-Hermite with 41 fixed nodes while the fixed axis has at most this many
# units; beyond, an equally spaced grid that follows the narrower posteriors
# (irt_large.grid_quadrature). Measured on 5,000 simulated items (centred
# abilities against a 16x finer grid): GH-41 is off by 2e-7 logit at 25 models,
# 1e-5 at 50, 2.4e-4 at 100 and 1.9e-3 at 200 (sigma 0.950 for 0.987), 1,000 x
# 10,000 gave sigma 0.71 for 1.00; the grid by <= 1.1e-7 at every size.
_GH_MAX_FIXED = 50
_GH_NODES = 41


def _quadrature(n_quad, n_fixed: int) -> tuple[np.ndarray, np.ndarray, str]:
    """Standard-normal nodes, log weights and a label of the rule used."""
    from rederive.stats.irt_large import grid_quadrature

    if n_quad is None and n_fixed > _GH_MAX_FIXED:
        nodes, logw = grid_quadrature(n_fixed)
        step = nodes[1] - nodes[0]
        return nodes, logw, f"equally spaced grid, {nodes.size} nodes {step:.3f} SD apart"
    k = _GH_NODES if n_quad is None else int(n_quad)
    nodes, weights = np.polynomial.hermite_e.hermegauss(k)
    return nodes, np.log(weights / weights.sum()), f"Gauss-Hermite, {k} nodes"


# Cell evaluations the fixed axis's standard errors may cost (SaliTrap 12 x 1,145:
# 0.3 M; ChemBench 22 x 2,854: 2.9 M; 50 x 5,000: 25 M); beyond it they are NaN.
_SE_BUDGET_CELLS = 5e7


def _fit_rows_random(y, obs, nodes, logw, fix_sigma, tol, ftol=None):
    y1 = np.where(obs, y, 0.0)
    obs_f = obs.astype(float)
    # Start: logit of the column means, shrunk towards 0 so extreme columns stay finite.
    k = y1.sum(axis=0)
    n = obs_f.sum(axis=0)
    c0 = -np.log((k + 0.5) / (n - k + 0.5))
    x0 = c0 if fix_sigma is not None else np.append(c0, 0.0)

    def fun(x):
        f, g, _ = _marginal(x, y1, obs_f, nodes, logw, fix_sigma)
        return f, g

    options = {"gtol": tol, "maxiter": 2000}
    if ftol is not None:  # tests only: the default keeps the bundled fits unchanged
        options["ftol"] = ftol
    res = minimize(fun, x0, jac=True, method="L-BFGS-B", options=options)
    n_cols = obs.shape[1]
    c = res.x[:n_cols]
    sigma = float(fix_sigma if fix_sigma is not None else np.exp(res.x[n_cols]))
    _, _, post = _marginal(res.x, y1, obs_f, nodes, logw, fix_sigma)
    u = sigma * nodes
    eap = post @ u
    psd = np.sqrt(np.maximum(post @ u**2 - eap**2, 0.0))
    # The numerical Hessian costs 2 (n_cols + 1) likelihood evaluations over every
    # cell: at 200 models x 20,000 items that was 400 evaluations, ~110 s, for SEs
    # used only as the start of py-irt's variational scales.
    cost = 2 * (n_cols + 1) * obs.size
    se = _standard_errors(res.x, fun) if cost <= _SE_BUDGET_CELLS else np.full(n_cols, np.nan)
    return c, sigma, eap, psd, se[:n_cols], -float(res.fun), int(res.nit)


def _fit_rows_random_large(y, nodes, logw, fix_sigma, tol, ftol=0.0):
    """:func:`_fit_rows_random` from sufficient statistics (rederive.stats.irt_large).

    ``ftol``: L-BFGS-B's relative-reduction stop. Its default (2.2e-9) is an
    absolute change of ~0.2 on the 1e8 log-likelihood of 150 M cells, which
    stopped a 1,000 x 10,000 fit after 12 iterations with abilities 1e-3 from the
    optimum; each evaluation costs K x (cols + distinct totals) here, so the fit
    runs to the gradient tolerance (or the line search's floor).
    """
    from rederive.stats.irt_large import MarginalData, marginal, row_posterior

    data = MarginalData.from_matrix(y)
    n_cols = y.shape[1]
    k, n = data.col_total, y.shape[0] - (0 if data.complete else np.isnan(y).sum(axis=0))
    c0 = -np.log((k + 0.5) / (n - k + 0.5))
    x0 = c0 if fix_sigma is not None else np.append(c0, 0.0)

    def fun(x):
        f, g, _ = marginal(x, data, nodes, logw, fix_sigma)
        return f, g

    res = minimize(
        fun,
        x0,
        jac=True,
        method="L-BFGS-B",
        options={"gtol": tol, "ftol": ftol, "maxiter": 2000},
    )
    c = res.x[:n_cols]
    sigma = float(fix_sigma if fix_sigma is not None else np.exp(res.x[n_cols]))
    _, _, post = marginal(res.x, data, nodes, logw, fix_sigma)
    u = sigma * nodes
    eap_g = post @ u
    psd_g = np.sqrt(np.maximum(post @ u**2 - eap_g**2, 0.0))
    eap, psd = row_posterior(data, eap_g[:, None])[:, 0], row_posterior(data, psd_g[:, None])[:, 0]
    cost = 2 * (n_cols + 1) * y.size
    se = _standard_errors(res.x, fun) if cost <= _SE_BUDGET_CELLS else np.full(n_cols, np.nan)
    return c, sigma, eap, psd, se[:n_cols], -float(res.fun), int(res.nit)


def _standard_errors(x, fun, h=1e-5):
    """Asymptotic SEs from a central-difference Hessian of the analytic gradient."""
    k = x.size
    hess = np.empty((k, k))
    for i in range(k):
        e = np.zeros(k)
        e[i] = h
        hess[i] = (fun(x + e)[1] - fun(x - e)[1]) / (2 * h)
    hess = (hess + hess.T) / 2
    try:
        return np.sqrt(np.diag(np.linalg.inv(hess)))
    except np.linalg.LinAlgError:
        return np.full(k, np.nan)


def rasch_mml(
    responses: pd.DataFrame,
    *,
    random: str = "auto",
    sigma: float | None = None,
    n_quad: int | None = None,
    tol: float = 1e-8,
    large: bool | None = None,
    fractional: bool = False,
) -> RaschMml:
    """Rasch model by marginal maximum likelihood with Gauss-Hermite quadrature.

    Parameters
    ----------
    responses : pandas.DataFrame
        Models (rows) x items (columns), 1 / 0 / NaN (missing, left out).
    random : {"auto", "models", "items"}, default "auto"
        Axis integrated out as ``N(mean, sigma^2)``. ``"auto"`` picks the axis with
        more units (items for LLM benchmarks, examinees for a classical test).
    sigma : float, optional
        Fix the SD of the integrated axis (ltm's ``constraint = cbind(p + 1, 1)``
        is ``sigma=1`` with ``random="models"``); estimated by default.
    n_quad : int, optional
        Gauss-Hermite nodes (ltm's default is 21; 41 changes LSAT-6 by < 1e-4).
        Default: 41 while the fixed axis has at most ``_GH_MAX_FIXED`` (50)
        units, else an equally spaced grid of spacing ``2 / sqrt(units)`` SD
        (:func:`rederive.stats.irt_large.grid_quadrature`): the integrated units'
        posteriors narrow as the fixed axis grows, and fixed nodes miss them.
    tol : float, default 1e-8
        Gradient tolerance of the L-BFGS-B optimiser.
    large : bool, optional
        Evaluate the likelihood from sufficient statistics
        (:mod:`rederive.stats.irt_large`, no ``cells x nodes`` arrays). Default:
        from ``_LARGE_FROM_CELLS`` (1 M) cells on.
    fractional : bool, default False
        Accept scores in [0, 1]. The likelihood is written as ``y a + log(1 -
        p)`` per cell, which for a score ``s`` is ``s log p + (1 - s) log(1 -
        p)``: the fractional (quasi-binomial) likelihood
        (:mod:`rederive.stats.fractional`), equal to glmer's binomial fit of a
        response in [0, 1]; the sufficient statistics of the large path are
        score sums all the same.

    Returns
    -------
    RaschMml
        Estimates centred so that the mean item difficulty is 0.

    Notes
    -----
    The location is fixed by the mean of the integrated axis during the fit and
    then moved so that the mean difficulty is 0 (the issue-12 identification:
    difficulties are compared with the average item). Posterior SDs of the
    integrated axis and standard errors of the fixed axis are unaffected.
    """
    from rederive.stats.irt import _binary_matrix

    if random not in _RANDOM:
        raise ValueError(f"random must be one of {_RANDOM}, got {random!r}")
    if sigma is not None and not (np.isfinite(sigma) and sigma > 0):
        raise ValueError(f"sigma must be positive, got {sigma!r}")
    if n_quad is not None and (not isinstance(n_quad, int | np.integer) or n_quad < 5):
        raise ValueError(f"n_quad must be an integer >= 5, got {n_quad!r}")
    y = _binary_matrix(responses, fractional=fractional)
    if random == "auto":
        random = "items" if y.shape[1] > y.shape[0] else "models"
    large = y.size >= _LARGE_FROM_CELLS if large is None else bool(large)
    # Rows of the fitted problem are the integrated units.
    rows = y if random == "models" else y.T
    nodes, logw, rule = _quadrature(n_quad, rows.shape[1])
    if large:
        fitted = _fit_rows_random_large(rows, nodes, logw, sigma, tol)
    else:
        fitted = _fit_rows_random(rows, ~np.isnan(rows), nodes, logw, sigma, tol)
    c, s, eap, psd, se, ll, nit = fitted
    if random == "models":
        ability, ability_sd = eap, psd
        difficulty, difficulty_sd = c, se
    else:
        # Transposed with signs flipped: items are rows with latent -b, models
        # columns with location -theta, so logistic(u - c) = logistic(theta - b).
        ability, ability_sd = -c, se
        difficulty, difficulty_sd = -eap, psd
    shift = difficulty.mean()
    return RaschMml(
        ability=pd.Series(ability - shift, index=responses.index, name="ability"),
        difficulty=pd.Series(difficulty - shift, index=responses.columns, name="difficulty"),
        ability_sd=pd.Series(ability_sd, index=responses.index, name="ability_sd"),
        difficulty_sd=pd.Series(difficulty_sd, index=responses.columns, name="difficulty_sd"),
        sigma=float(s),
        random=random,
        log_lik=ll,
        n_iter=nit,
        shift=float(shift),
        nodes=nodes,
        log_weights=logw,
        quadrature=rule,
    )


def constrained_bayes(estimate: np.ndarray, posterior_sd: np.ndarray) -> np.ndarray:
    """Ghosh's (1992) constrained Bayes adjustment of posterior means.

    Posterior means are shrunk: their spread under-states the spread of the true
    values by the average posterior variance. Stretching them about their mean by
    ``sqrt(1 + mean(posterior_sd^2) / var(estimate))`` gives estimates whose
    histogram matches the posterior expected spread of the true values (Louis
    1984), the right estimate for a distribution plot; the order is unchanged.

    Parameters
    ----------
    estimate : array_like
        Posterior means.
    posterior_sd : array_like
        Their posterior standard deviations.

    Returns
    -------
    numpy.ndarray
    """
    est = np.asarray(estimate, dtype=float)
    sd = np.asarray(posterior_sd, dtype=float)
    var = est.var()
    if var <= 0:
        return est.copy()
    factor = np.sqrt(1.0 + np.mean(sd**2) / var)
    return est.mean() + factor * (est - est.mean())


def _row_scores(x, y1, obs, nodes, logw):
    """Per-row (item) contributions to the gradient of -log L, shape (rows, cols + 1).

    The last column is the log-sigma component; the rows sum to the gradient
    :func:`_marginal` returns.
    """
    n_cols = obs.shape[1]
    c, sigma = x[:n_cols], np.exp(x[n_cols])
    _, _, post = _marginal(x, y1, obs, nodes, logw, None)
    a = sigma * nodes[:, None] - c[None, :]
    p = expit(a)
    expected = post @ p  # (rows, cols): posterior expected P per cell
    g_c = y1 - obs * expected
    d_sigma = (post * nodes[None, :] * (y1.sum(axis=1)[:, None] - obs @ p.T)).sum(axis=1)
    return np.column_stack([g_c, -d_sigma * sigma])


@dataclass(frozen=True, eq=False)
class MmlAbilityBootstrap:
    """Result of :func:`bootstrap_mml_ability`.

    Attributes
    ----------
    table : pandas.DataFrame
        Per model: ``ability`` (the marginal-ML estimate), ``se_boot``,
        ``ci_low``, ``ci_high`` (percentile interval), ``se_model`` (asymptotic
        SE from the observed information) and ``n_items``.
    replicates : numpy.ndarray, shape (n_boot, n_models)
    n_boot : int
    level : float
    n_units : int
        Resampled units (items, or clusters of items).
    hessian : str
        ``"observed"`` (central differences of the analytic gradient) or
        ``"outer product"`` (beyond the cost budget, see Notes).
    note : str
        Why the intervals are NaN ("" when they are not): a singular information
        matrix, whose Newton step does not exist.
    """

    table: pd.DataFrame
    replicates: np.ndarray
    n_boot: int
    level: float
    n_units: int
    hessian: str
    note: str = ""


def bootstrap_mml_ability(
    responses: pd.DataFrame,
    fit: RaschMml,
    *,
    n_boot: int,
    seed: int,
    level: float = 0.95,
    clusters=None,
    n_quad: int = 41,
    large: bool | None = None,
    fractional: bool = False,
) -> MmlAbilityBootstrap:
    """Item (or item-cluster) bootstrap of the marginal-ML abilities.

    Each replicate resamples items (whole clusters with ``clusters``) and moves
    the marginal-ML solution by one Newton step of the resampled marginal
    log-likelihood from the full-data solution: ``x_b = x - H^-1 sum_j (w_bj - 1)
    s_j`` with per-item scores ``s_j`` and the observed information ``H`` (the
    estimating-function bootstrap of Hu & Kalbfleisch 2000). Percentile
    intervals follow; with thousands of items the one-step replicates equal a full
    refit of each replicate to second order (measured on ChemBench: see
    ``tests/stats/test_irt_glmer.py``), at the cost of one matrix product.

    Parameters
    ----------
    responses : pandas.DataFrame
        The models x items matrix ``fit`` was made from.
    fit : RaschMml
        Its :func:`rasch_mml` fit with the items integrated (``random="items"``),
        so the abilities are the fixed, marginal-ML parameters.
    n_boot, seed, level :
        Replicates, seed (``rng_for(seed, "bootstrap_ability")``, the draws of
        :func:`rederive.stats.irt.bootstrap_ability`) and interval level.
    clusters : array_like, optional
        Resampling unit of every item (column).
    fractional : bool, default False
        Accept scores in [0, 1] (the fit's fractional likelihood).

    Notes
    -----
    Abilities stay on the full-data location (mean item difficulty 0 of the
    whole item set), as in :func:`rederive.stats.irt.bootstrap_ability`. ``H``
    costs ``2 (models + 1)`` likelihood evaluations; beyond the budget of the
    standard errors (``_SE_BUDGET_CELLS``) the outer product of the item scores
    stands in for it (equal in expectation under the model).

    References
    ----------
    Hu, F. & Kalbfleisch, J. D. (2000). The estimating function bootstrap.
        *Canadian Journal of Statistics* 28, 449-481.
    """
    from rederive.stats.bootstrap import percentile_ci, resample_weights, rng_for
    from rederive.stats.irt import _binary_matrix

    if fit.random != "items":
        raise ValueError("bootstrap_mml_ability needs a fit with the items integrated")
    if not isinstance(n_boot, int | np.integer) or n_boot < 1:
        raise ValueError(f"n_boot must be a positive integer, got {n_boot!r}")
    y = _binary_matrix(responses, fractional=fractional)
    n_items = y.shape[1]
    if fit.nodes is not None:
        nodes, logw = fit.nodes, fit.log_weights
    else:
        nodes, weights = np.polynomial.hermite_e.hermegauss(n_quad)
        logw = np.log(weights / weights.sum())
    theta = fit.ability.reindex(responses.index).to_numpy(dtype=float) + fit.shift
    # The fit's own (transposed) problem: rows = items, columns = models with
    # location c = -theta, before the centring.
    x = np.append(-theta, np.log(fit.sigma))
    if clusters is None:
        unit_of_item, n_units = np.arange(n_items), n_items
    else:
        clusters = np.asarray(clusters)
        if clusters.shape != (n_items,):
            raise ValueError(f"clusters must have one label per item ({n_items})")
        _, unit_of_item = np.unique(clusters, return_inverse=True)
        n_units = int(unit_of_item.max()) + 1
    rng = rng_for(seed, "bootstrap_ability")
    large = y.size >= _LARGE_FROM_CELLS if large is None else bool(large)
    if large:
        from rederive.stats.irt_large import bootstrap_sums

        moves, hess, kind = bootstrap_sums(
            y.T, x, nodes, logw, unit_of_item, n_units, n_boot, rng, fractional=fractional
        )
    else:
        obs = ~np.isnan(y)
        yt, obst = y.T, obs.T.astype(float)
        y1 = np.where(obst > 0, yt, 0.0)
        scores = _row_scores(x, y1, obst, nodes, logw)
        if 2 * x.size * obs.size <= _SE_BUDGET_CELLS:

            def fun(z):
                f, g, _ = _marginal(z, y1, obst, nodes, logw, None)
                return f, g

            hess, kind = _hessian(x, fun), "observed"
        else:
            hess, kind = scores.T @ scores, "outer product"
        unit_scores = np.zeros((n_units, x.size))
        np.add.at(unit_scores, unit_of_item, scores)
        w = resample_weights(n_units, int(n_boot), rng)
        moves = (w - 1.0) @ unit_scores
    note = ""
    # An item that some models pass and others fail is what separates abilities
    # from the item spread; without one, sigma runs to infinity.
    passed, answered = np.nansum(y, axis=0), (~np.isnan(y)).sum(axis=0)
    mixed = int(((passed > 0) & (passed < answered)).sum())
    try:
        if mixed <= 0 or not np.isfinite(hess).all() or _condition(hess) > 1e12:
            raise np.linalg.LinAlgError("singular information matrix")
        step = np.linalg.solve(hess, moves.T).T  # (n_boot, p)
    except np.linalg.LinAlgError:
        # E.g. every model answers every item alike: the item spread runs to
        # infinity and the information matrix has no inverse.
        note = (
            "ability interval not estimable: the marginal likelihood's information "
            "matrix is singular (the answers do not separate the models, e.g. identical runs)"
        )
        step = np.full((int(n_boot), x.size), np.nan)
    reps = -(x[None, :-1] - step[:, :-1]) - fit.shift
    if note:
        lo = hi = np.full(theta.size, np.nan)
    else:
        lo, hi = percentile_ci(reps, level)
    try:
        se_model = np.sqrt(np.diag(np.linalg.inv(hess)))[:-1]
    except np.linalg.LinAlgError:
        se_model = np.full(theta.size, np.nan)
    table = pd.DataFrame(
        {
            "ability": theta - fit.shift,
            "se_boot": np.full(theta.size, np.nan) if note else reps.std(axis=0, ddof=1),
            "ci_low": lo,
            "ci_high": hi,
            "se_model": se_model,
            "n_items": (~np.isnan(y)).sum(axis=1),
        },
        index=responses.index,
    )
    return MmlAbilityBootstrap(
        table=table,
        replicates=reps,
        n_boot=int(n_boot),
        level=float(level),
        n_units=n_units,
        hessian=kind,
        note=note,
    )


# Up to this many parameters the condition number is the exact 2-norm one
# (an SVD, O(p^3) with a large constant: ~1 min at 5,001); beyond, LAPACK's
# 1-norm estimate from a Cholesky factor (within a factor p of it).
_EXACT_COND_MAX = 1000


def _condition(hess: np.ndarray) -> float:
    """Condition number of the information matrix (inf when not positive definite)."""
    if hess.shape[0] <= _EXACT_COND_MAX:
        return float(np.linalg.cond(hess))
    from scipy.linalg import LinAlgError, cho_factor
    from scipy.linalg.lapack import dpocon

    try:
        factor, _ = cho_factor(hess, lower=False)
    except LinAlgError:
        return np.inf
    rcond, info = dpocon(factor, np.abs(hess).sum(axis=0).max())
    return np.inf if info != 0 or rcond <= 0 else 1.0 / rcond


def _hessian(x, fun, h=1e-5):
    """Central-difference Hessian of the analytic gradient, symmetrised."""
    k = x.size
    hess = np.empty((k, k))
    for i in range(k):
        e = np.zeros(k)
        e[i] = h
        hess[i] = (fun(x + e)[1] - fun(x - e)[1]) / (2 * h)
    return (hess + hess.T) / 2
