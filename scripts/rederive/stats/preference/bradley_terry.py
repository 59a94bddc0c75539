"""Bradley–Terry by maximum likelihood on aggregated pair counts.

Model ``i`` has a strength ``β_i`` (natural log-odds scale, identified by
``Σ β = 0``); for a pair with ``d = β_i − β_j`` the three tie models are

``"half"`` — a tie is half a win and half a loss (what Chatbot Arena's
    ``compute_mle_elo``/``compute_bt`` and Arena-Hard's ``show_result.py`` do:
    they duplicate the battles and count a tie as one win for each side). The
    log-likelihood is ``Σ a·log σ(d) + (n − a)·log σ(−d)`` with ``a`` the summed
    preference for ``i`` (wins + ½ ties + graded values) and ``n`` the games.
    Graded preferences (AlpacaEval's weighted annotator) enter the same way.
``"rao_kupper"`` — Rao & Kupper (1967): ``P(i ≻ j) = σ(d − η)``,
    ``P(tie) = 1 − σ(d − η) − σ(−d − η)``, ``η = log θ ≥ 0``; the ``rk`` loss of
    Arena-Hard's ``utils/math_utils.py`` (v2), which v2's leaderboard does not use.
``"davidson"`` — Davidson (1970): ``P(i ≻ j) ∝ e^{d/2}``, ``P(j ≻ i) ∝ e^{−d/2}``,
    ``P(tie) ∝ ν``, normalised by ``2 cosh(d/2) + ν``, ``ν ≥ 0``.

No source leaderboard uses Rao–Kupper or Davidson for its published numbers:
Chatbot Arena and Arena-Hard v0.1 count ties as half, AlpacaEval scores a win
rate against one baseline (:mod:`.winrate`), Arena-Hard v2 a mean score against
its baseline. The two tie models are there for analyses that want ties modelled.

The half model is fitted by Newton's method on the graph Laplacian (batched,
:func:`fit_half`), its bootstrap replicates by the chord method from the point
estimate (:func:`fit_half_chord`); the tie models by L-BFGS polished with
Newton steps on a finite-difference Hessian of the analytic gradient
(:func:`fit_tie_model`). The MLE exists and is finite only when the comparison
graph is strongly connected (every model both beat, or drew with, and lost to,
or drew with, some chain of others: Zermelo 1929, Ford 1957);
:func:`comparison_components` finds the models that break it.

References
----------
Bradley, R. A. & Terry, M. E. (1952). Rank analysis of incomplete block designs:
    I. The method of paired comparisons. *Biometrika*, 39(3/4), 324–345.
Rao, P. V. & Kupper, L. L. (1967). Ties in paired-comparison experiments: a
    generalization of the Bradley-Terry model. *JASA*, 62(317), 194–204.
Davidson, R. R. (1970). On extending the Bradley-Terry model to accommodate ties in
    paired comparison experiments. *JASA*, 65(329), 317–328.
Ford, L. R. (1957). Solution of a ranking problem from binary comparisons.
    *American Mathematical Monthly*, 64(8), 28–33.
Hunter, D. R. (2004). MM algorithms for generalized Bradley-Terry models. *Annals
    of Statistics*, 32(1), 384–406.
Chiang, W.-L. et al. (2024). Chatbot Arena: an open platform for evaluating LLMs by
    human preference. ICML 2024 (arXiv:2403.04132), §5.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import optimize, sparse
from scipy.sparse import csgraph
from scipy.special import expit, log_expit

from rederive.stats.preference.games import LOSSES, TIE_COUNTS, WINS, PairCounts

__all__ = [
    "DAVIDSON",
    "HALF",
    "RAO_KUPPER",
    "TIE_MODELS",
    "BradleyTerryFit",
    "comparison_components",
    "fit_bradley_terry",
    "fit_half",
    "fit_half_chord",
    "fit_tie_model",
    "half_information",
    "half_scores",
    "model_covariance",
]

HALF = "half"
RAO_KUPPER = "rao_kupper"
DAVIDSON = "davidson"
TIE_MODELS = (HALF, RAO_KUPPER, DAVIDSON)


@dataclass(frozen=True)
class BradleyTerryFit:
    """A Bradley–Terry fit.

    Attributes
    ----------
    models : list of str
    beta : ndarray, shape (M,)
        Strengths on the natural (log-odds) scale, ``Σ β = 0``.
    ties : str
        ``"half"``, ``"rao_kupper"`` or ``"davidson"``.
    tie_parameter : float
        Rao–Kupper ``θ = e^η`` (≥ 1) or Davidson ``ν`` (≥ 0); NaN for ``"half"``.
    loglik : float
        Log-likelihood at the estimate (aggregated counts; a tie counted half in
        ``"half"``).
    n_games : int
    iterations : int
    """

    models: list
    beta: np.ndarray
    ties: str
    tie_parameter: float
    loglik: float
    n_games: int
    iterations: int


def half_scores(totals: np.ndarray, graded: bool) -> tuple[np.ndarray, np.ndarray]:
    """Preference sums ``a`` and game weights ``n`` per pair from :meth:`PairCounts.totals`.

    Works on (K, P) or (B, K, P) totals; returns arrays of shape (P,) or (B, P).
    """
    wins, losses, ties = totals[..., WINS, :], totals[..., LOSSES, :], totals[..., TIE_COUNTS, :]
    score = wins + 0.5 * ties
    total = wins + losses + ties
    if graded:
        score = score + totals[..., 3, :]
        total = total + totals[..., 4, :]
    return score, total


def comparison_components(ia, ib, forward, backward, n_models: int) -> np.ndarray:
    """Strongly connected component of each model in the comparison digraph.

    An edge ``i → j`` exists when ``i`` took something from ``j`` (``forward > 0``:
    a win, a tie or a graded preference above 0) and ``j → i`` when ``backward > 0``.
    The MLE is finite exactly when there is one component.
    """
    fwd = np.asarray(forward) > 0
    bwd = np.asarray(backward) > 0
    rows = np.concatenate([ia[fwd], ib[bwd]])
    cols = np.concatenate([ib[fwd], ia[bwd]])
    graph = sparse.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n_models, n_models))
    _, labels = csgraph.connected_components(graph, directed=True, connection="strong")
    return labels


def _laplacian(ia, ib, weight, n_models):
    """Graph Laplacians ``Σ w_p (e_i − e_j)(e_i − e_j)ᵀ``, shape (B, M, M)."""
    b = weight.shape[0]
    lap = np.zeros((b, n_models * n_models))
    lap[:, ia * n_models + ib] = -weight
    lap[:, ib * n_models + ia] = -weight
    lap = lap.reshape(b, n_models, n_models)
    diag = np.zeros((b, n_models))
    np.add.at(diag.T, ia, weight.T)
    np.add.at(diag.T, ib, weight.T)
    idx = np.arange(n_models)
    lap[:, idx, idx] = diag
    return lap


def _half_loglik(beta, ia, ib, score, total):
    d = beta[:, ia] - beta[:, ib]
    return (score * log_expit(d) + (total - score) * log_expit(-d)).sum(axis=1)


def fit_half(
    ia,
    ib,
    score,
    total,
    n_models: int,
    *,
    start=None,
    tol: float = 1e-10,
    max_iter: int = 100,
):
    """Bradley–Terry with ties as half a win, by Newton's method, batched.

    Parameters
    ----------
    ia, ib : ndarray of int, shape (P,)
        Model indices of each pair.
    score, total : ndarray, shape (P,) or (B, P)
        Preference sum for ``ia`` and game weight of each pair (one row per
        replicate); see :func:`half_scores`.
    n_models : int
    start : ndarray, shape (M,) or (B, M), optional
        Warm start (the point estimate, for bootstrap replicates).
    tol : float
        Stop when every gradient component is below ``tol`` times the largest
        pair weight of the replicate.
    max_iter : int

    Returns
    -------
    beta : ndarray, shape (M,) or (B, M)
        ``Σ β = 0`` per row; NaN rows where Newton did not converge.
    iterations : int
        Newton steps taken by the slowest replicate.

    Notes
    -----
    The Hessian of the log-likelihood is minus the Laplacian of the comparison
    graph with edge weights ``n p (1 − p)``; Newton's step solves
    ``(L + 11ᵀ) δ = g``, which for a gradient summing to zero gives the
    sum-zero solution of ``L δ = g``. A step that lowers the log-likelihood is
    halved (at most 30 times), so every iterate improves on the last.
    """
    score = np.asarray(score, dtype=float)
    total = np.asarray(total, dtype=float)
    single = score.ndim == 1
    score, total = np.atleast_2d(score), np.atleast_2d(total)
    b = score.shape[0]
    if start is None:
        beta = np.zeros((b, n_models))
    else:
        beta = np.array(np.broadcast_to(np.asarray(start, dtype=float), (b, n_models)))
    beta -= beta.mean(axis=1, keepdims=True)
    scale = np.maximum(total.max(axis=1), 1.0)
    incidence = sparse.csr_matrix(
        (
            np.concatenate([np.ones(ia.size), -np.ones(ib.size)]),
            (np.concatenate([np.arange(ia.size)] * 2), np.concatenate([ia, ib])),
        ),
        shape=(ia.size, n_models),
    )
    ones = np.ones((n_models, n_models))
    active = np.arange(b)
    current = _half_loglik(beta, ia, ib, score, total)
    iterations = 0
    for iterations in range(1, max_iter + 1):  # noqa: B007 - reported to the caller
        d = beta[active][:, ia] - beta[active][:, ib]
        p = expit(d)
        grad = np.asarray((incidence.T @ (score[active] - total[active] * p).T).T)
        done = np.abs(grad).max(axis=1) <= tol * scale[active]
        if done.all():
            active = active[:0]
            break
        active, grad, p = active[~done], grad[~done], p[~done]
        lap = _laplacian(ia, ib, total[active] * p * (1 - p), n_models)
        step = np.linalg.solve(lap + ones, grad[..., None])[..., 0]
        old = current[active]
        halvings = np.zeros(active.size)
        trial = beta[active] + step
        new = _half_loglik(trial, ia, ib, score[active], total[active])
        worse = new < old - 1e-12 * np.abs(old)
        while worse.any() and halvings.max() < 30:
            step[worse] *= 0.5
            halvings[worse] += 1
            trial[worse] = beta[active][worse] + step[worse]
            new[worse] = _half_loglik(
                trial[worse], ia, ib, score[active][worse], total[active][worse]
            )
            worse = new < old - 1e-12 * np.abs(old)
        beta[active] = trial - trial.mean(axis=1, keepdims=True)
        current[active] = new
    else:
        beta[active] = np.nan
    return (beta[0] if single else beta), iterations


def half_information(beta, ia, ib, total) -> np.ndarray:
    """Fisher information of the half model at ``beta``: the weighted Laplacian (M, M)."""
    p = expit(beta[ia] - beta[ib])
    return _laplacian(ia, ib, (total * p * (1 - p))[None], beta.size)[0]


def fit_half_chord(
    ia,
    ib,
    score,
    total,
    start,
    information,
    *,
    tol: float = 1e-10,
    max_iter: int = 40,
):
    """Warm-started refits of the half model with one fixed Hessian (the chord method).

    Bootstrap replicates lie close to the point estimate and their Hessians
    differ from its by sampling noise only, so each replicate iterates
    ``β ← β + (L₀ + 11ᵀ)⁻¹ g(β)`` with the point estimate's information ``L₀``:
    one matrix product per step instead of one factorisation per replicate and
    step, with linear convergence at a rate set by how far the replicate's
    Hessian is from ``L₀``. Rows that have not reached ``tol`` after
    ``max_iter`` steps are finished by :func:`fit_half` (full Newton).

    Parameters
    ----------
    ia, ib : ndarray of int, shape (P,)
    score, total : ndarray, shape (B, P)
    start : ndarray, shape (M,)
        The point estimate.
    information : ndarray, shape (M, M)
        :func:`half_information` at ``start`` with the point totals.
    tol, max_iter : float, int

    Returns
    -------
    beta : ndarray, shape (B, M)
    steps : int
        Chord steps of the slowest row (before any Newton finish).
    """
    n_models = start.size
    score, total = np.atleast_2d(score), np.atleast_2d(total)
    b = score.shape[0]
    inverse = np.linalg.inv(information + np.ones((n_models, n_models)))
    incidence = sparse.csr_matrix(
        (
            np.concatenate([np.ones(ia.size), -np.ones(ib.size)]),
            (np.concatenate([np.arange(ia.size)] * 2), np.concatenate([ia, ib])),
        ),
        shape=(ia.size, n_models),
    )
    beta = np.tile(start - start.mean(), (b, 1))
    scale = np.maximum(total.max(axis=1), 1.0)
    active = np.arange(b)
    steps = 0
    for steps in range(1, max_iter + 1):  # noqa: B007 - reported to the caller
        d = beta[active][:, ia] - beta[active][:, ib]
        grad = np.asarray((incidence.T @ (score[active] - total[active] * expit(d)).T).T)
        done = np.abs(grad).max(axis=1) <= tol * scale[active]
        active, grad = active[~done], grad[~done]
        if not active.size:
            break
        beta[active] += grad @ inverse
    else:
        d = beta[active][:, ia] - beta[active][:, ib]
        grad = np.asarray((incidence.T @ (score[active] - total[active] * expit(d)).T).T)
        active = active[np.abs(grad).max(axis=1) > tol * scale[active]]
    if active.size:
        beta[active], _ = fit_half(
            ia, ib, score[active], total[active], n_models, start=beta[active], tol=tol
        )
    beta -= beta.mean(axis=1, keepdims=True)
    return beta, steps


def _tie_nll(params, ia, ib, wins, losses, ties, ties_model, n_models):
    """Negative log-likelihood and gradient of a tie model, plus ½(Σβ)² to identify β."""
    beta, tau = params[:n_models], params[n_models]
    d = beta[ia] - beta[ib]
    if ties_model == RAO_KUPPER:
        eta = np.exp(tau)
        log_w, log_l = log_expit(d - eta), log_expit(-d - eta)
        s_w, s_l = np.exp(log_w), np.exp(log_l)
        p_t = np.clip(-np.expm1(np.logaddexp(log_w, log_l)), 1e-300, None)
        loglik = wins * log_w + losses * log_l + ties * np.log(p_t)
        dw, dl = s_w * (1 - s_w), s_l * (1 - s_l)
        g_d = wins * (1 - s_w) - losses * (1 - s_l) + ties * (dl - dw) / p_t
        g_eta = -wins * (1 - s_w) - losses * (1 - s_l) + ties * (dw + dl) / p_t
        g_tau = g_eta.sum() * eta
    else:
        nu = np.exp(tau)
        log_c = np.logaddexp(np.logaddexp(d / 2, -d / 2), tau)
        n = wins + losses + ties
        loglik = (wins - losses) * d / 2 + ties * tau - n * log_c
        g_d = (wins - losses) / 2 - n * np.sinh(d / 2) * np.exp(-log_c)
        g_tau = (ties.sum() / nu - (n * np.exp(-log_c)).sum()) * nu
    grad_beta = np.bincount(ia, g_d, n_models) - np.bincount(ib, g_d, n_models)
    total = beta.sum()
    nll = -loglik.sum() + 0.5 * total**2
    grad = np.concatenate([-grad_beta + total, [-g_tau]])
    return nll, grad


def fit_tie_model(
    ia,
    ib,
    wins,
    losses,
    ties,
    n_models: int,
    ties_model: str,
    *,
    start=None,
    tol: float = 1e-9,
):
    """Rao–Kupper or Davidson Bradley–Terry on one set of pair counts.

    Parameters
    ----------
    ia, ib : ndarray of int, shape (P,)
    wins, losses, ties : ndarray, shape (P,)
        Weighted games ``ia`` won, lost and tied against ``ib``.
    n_models : int
    ties_model : {"rao_kupper", "davidson"}
    start : ndarray, shape (M + 1,), optional
        Warm start ``(β, log η)`` or ``(β, log ν)``.
    tol : float
        Gradient tolerance of the final Newton polish.

    Returns
    -------
    beta : ndarray, shape (M,)
    tie_parameter : float
        Rao–Kupper ``θ = e^η`` or Davidson ``ν``; 1 or 0 (the boundary: plain
        Bradley–Terry) when no game is a tie.
    loglik : float
    iterations : int
    """
    if ties_model not in (RAO_KUPPER, DAVIDSON):
        raise ValueError(f"ties_model must be {RAO_KUPPER!r} or {DAVIDSON!r}")
    wins, losses, ties = (np.asarray(x, dtype=float) for x in (wins, losses, ties))
    if ties.sum() == 0:
        beta, it = fit_half(ia, ib, wins, wins + losses, n_models, tol=tol)
        d = beta[ia] - beta[ib]
        loglik = float((wins * log_expit(d) + losses * log_expit(-d)).sum())
        return beta, (1.0 if ties_model == RAO_KUPPER else 0.0), loglik, it
    if wins.sum() + losses.sum() == 0:
        raise ValueError("every game is a tie: the tie model has no finite MLE")
    args = (ia, ib, wins, losses, ties, ties_model, n_models)
    if start is None:
        share = ties.sum() / (wins + losses + ties).sum()
        tau0 = (
            np.log(share / (1 - share) + 1e-3) if ties_model == DAVIDSON else np.log(share + 1e-3)
        )
        x = np.concatenate([np.zeros(n_models), [tau0]])
    else:
        x = np.asarray(start, dtype=float).copy()
    res = optimize.minimize(
        _tie_nll,
        x,
        args=args,
        jac=True,
        method="L-BFGS-B",
        options={"maxiter": 20_000, "gtol": 1e-10, "ftol": 1e-15},
    )
    x = res.x
    iterations = int(res.nit)
    # Newton polish: L-BFGS stops on a relative decrease; a few exact steps reach
    # the gradient tolerance the cross-checks need.
    for _ in range(50):
        _, grad = _tie_nll(x, *args)
        if np.abs(grad).max() <= tol * max(1.0, (wins + losses + ties).max()):
            break
        hess = _fd_hessian(x, args)
        x = x - np.linalg.solve(hess, grad)
        iterations += 1
    nll, _ = _tie_nll(x, *args)
    beta = x[:n_models] - x[:n_models].mean()
    tie_parameter = (
        float(np.exp(np.exp(x[-1]))) if ties_model == RAO_KUPPER else float(np.exp(x[-1]))
    )
    return beta, tie_parameter, float(-nll), iterations


def _fd_hessian(x, args, h=1e-6):
    """Central finite differences of the analytic gradient (symmetrised)."""
    k = x.size
    hess = np.empty((k, k))
    for j in range(k):
        up, down = x.copy(), x.copy()
        up[j] += h
        down[j] -= h
        hess[:, j] = (_tie_nll(up, *args)[1] - _tie_nll(down, *args)[1]) / (2 * h)
    return (hess + hess.T) / 2


def fit_bradley_terry(counts: PairCounts, *, ties: str = HALF, tol=None) -> BradleyTerryFit:
    """Bradley–Terry point estimate from pair counts.

    Parameters
    ----------
    counts : PairCounts
    ties : {"half", "rao_kupper", "davidson"}
        Tie model (module docstring says which source uses which).
    tol : float, optional
        Convergence tolerance (default 1e-10 for half, 1e-9 for the tie models).

    Returns
    -------
    BradleyTerryFit

    Raises
    ------
    ValueError
        When the comparison graph is not strongly connected (the MLE is
        infinite; the message names the models apart from the largest group),
        or graded preferences meet a tie model that cannot hold them.
    """
    if ties not in TIE_MODELS:
        raise ValueError(f"ties must be one of {TIE_MODELS}, got {ties!r}")
    totals = counts.totals()
    m = len(counts.models)
    score, total = half_scores(totals, counts.graded)
    labels = comparison_components(counts.ia, counts.ib, score, total - score, m)
    if np.unique(labels).size > 1:
        main = np.bincount(labels).argmax()
        apart = [counts.models[k] for k in np.flatnonzero(labels != main)]
        raise ValueError(
            "the comparison graph is not strongly connected, so Bradley–Terry has no finite "
            f"estimate: {len(apart)} model(s) always win or always lose against the rest "
            f"({', '.join(apart[:5])}{' …' if len(apart) > 5 else ''})"
        )
    if ties == HALF:
        beta, it = fit_half(counts.ia, counts.ib, score, total, m, tol=tol or 1e-10)
        if np.isnan(beta).any():
            raise ValueError("Bradley–Terry Newton iterations did not converge")
        loglik = float(_half_loglik(beta[None], counts.ia, counts.ib, score[None], total[None])[0])
        return BradleyTerryFit(counts.models, beta, ties, np.nan, loglik, counts.n_games, it)
    if counts.graded:
        raise ValueError(
            f"graded preferences have no place in the {ties} tie model; use ties='half'"
        )
    beta, tie_parameter, loglik, it = fit_tie_model(
        counts.ia,
        counts.ib,
        totals[WINS],
        totals[LOSSES],
        totals[TIE_COUNTS],
        m,
        ties,
        tol=tol or 1e-9,
    )
    return BradleyTerryFit(counts.models, beta, ties, tie_parameter, loglik, counts.n_games, it)


def model_covariance(fit: BradleyTerryFit, counts: PairCounts) -> np.ndarray:
    """Model-based covariance of ``β`` (half model): the pseudo-inverse of the Fisher information.

    The information is the Laplacian with edge weights ``n p (1 − p)``; its
    Moore–Penrose inverse is the covariance of the sum-zero estimate. It treats
    games as independent Bernoulli trials (a tie as two half trials), so it
    ignores games sharing a prompt — the reason :mod:`.ranking` uses the prompt
    bootstrap instead (bench/preference_calibration.py measures the difference).
    """
    if fit.ties != HALF:
        raise ValueError("model_covariance is defined here for the half model only")
    _, total = half_scores(counts.totals(), counts.graded)
    p = expit(fit.beta[counts.ia] - fit.beta[counts.ib])
    lap = _laplacian(counts.ia, counts.ib, (total * p * (1 - p))[None], len(fit.models))[0]
    return np.linalg.pinv(lap)
