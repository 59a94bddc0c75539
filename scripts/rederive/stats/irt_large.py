"""The Rasch marginal likelihood of a large matrix from its sufficient statistics.

:func:`rederive.stats.irt_mml.rasch_mml` integrates the rows of a rows x columns
0/1 matrix (the items of an LLM benchmark) as ``u ~ N(0, sigma^2)``, with a
location ``c_j`` per column (minus a model's ability). Its dense form evaluates
``y @ a.T + obs @ log(1 - p).T`` over every cell and every quadrature node,
``rows x cols x K`` operations per likelihood evaluation (1.2e10 at 5,000 models x
30,000 items with 41 nodes), and keeps several ``rows x cols`` float64 arrays.

For the Rasch model the row totals ``S_i`` and column totals ``T_j`` are
sufficient: with ``a_kj = sigma z_k - c_j``,

    log L_ik = sigma z_k S_i - sum_j y_ij c_j + sum_j obs_ij log(1 - p_kj),

the middle term does not depend on the node and sums to ``sum_j c_j T_j`` over
the rows, and with every cell present the last term is one ``L_k`` for every
row. Rows with the same total then share their posterior over the nodes, so an
evaluation costs ``K x (cols + distinct totals)`` operations, whatever the
number of rows. With missing cells the last term needs the present-mask
products ``obs @ log(1 - p).T`` and ``obs.T @ post``: as the full sum minus the
products of a sparse mask of the missing cells when few are missing (exact, in
float64), else over blocks of rows of the dense mask.

The same reduction gives the bootstrap's per-row scores and, with every cell
present, the observed information in closed form (:func:`observed_information`),
a Hessian the dense path can only take by ``2 (cols + 1)`` numerical gradients.

The results equal the dense path's (tests: likelihood and gradient to 1e-10
relative at the same parameters); only the order of the sums differs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.special import expit, log_expit, logsumexp

__all__ = ["MarginalData", "grid_quadrature", "marginal", "observed_information"]

# Rows of the dense mask handled at once (x cols float64 cells ~ 32 MB at 5,000).
_BLOCK_CELLS = 4_000_000
# Up to this share of missing cells the mask is kept as a sparse matrix of the
# missing ones (products cost nnz x K instead of cells x K).
_SPARSE_MISSING_SHARE = 0.25


def grid_quadrature(n_fixed: int, *, half_width: float = 8.0) -> tuple[np.ndarray, np.ndarray]:
    """Equally spaced standard-normal nodes and log weights (trapezoid rule).

    A row's posterior over ``u`` narrows as ``1 / sqrt(n_fixed)``; fixed
    Gauss-Hermite nodes do not follow it (41 nodes lie ~0.35 SD apart at the
    centre, wider than the posterior of an item answered by a few hundred
    models), and NumPy cannot build Gauss-Hermite rules of more than a few
    hundred nodes. The trapezoid rule on a grid whose spacing is at most
    ``2 / sqrt(n_fixed)`` SD (and 0.2) over +/- ``half_width`` SD converges
    geometrically for such smooth integrands.
    """
    step = min(0.2, 2.0 / np.sqrt(max(n_fixed, 1)))
    n = int(np.ceil(2 * half_width / step)) + 1
    n += 1 - n % 2  # odd: a node at 0
    nodes = np.linspace(-half_width, half_width, n)
    logw = -0.5 * nodes**2
    return nodes, logw - logsumexp(logw)


@dataclass(frozen=True, eq=False)
class MarginalData:
    """What the rows-random marginal likelihood needs of a 0/1 matrix.

    Attributes
    ----------
    row_total, col_total : numpy.ndarray
        Number correct per row and per column over present cells.
    group_of_row, group_total, group_count : numpy.ndarray
        With every cell present: the distinct row totals, which row has which,
        and how many rows share each.
    missing : scipy.sparse.csr_matrix or None
        Rows x cols, 1 where a cell is missing (few missing cells).
    present : numpy.ndarray or None
        Rows x cols bool mask (many missing cells).
    """

    row_total: np.ndarray
    col_total: np.ndarray
    group_of_row: np.ndarray | None
    group_total: np.ndarray | None
    group_count: np.ndarray | None
    missing: sparse.csr_matrix | None
    present: np.ndarray | None

    @property
    def complete(self) -> bool:
        return self.group_total is not None

    @property
    def shape(self) -> tuple[int, int]:
        return self.row_total.size, self.col_total.size

    @classmethod
    def from_matrix(cls, y: np.ndarray) -> MarginalData:
        """From a rows x cols float matrix of 0/1 with NaN for missing cells."""
        obs = ~np.isnan(y)
        row_total = np.zeros(y.shape[0])
        col_total = np.zeros(y.shape[1])
        step = max(1, _BLOCK_CELLS // max(y.shape[1], 1))
        for lo in range(0, y.shape[0], step):
            block = np.nan_to_num(y[lo : lo + step])
            row_total[lo : lo + step] = block.sum(axis=1)
            col_total += block.sum(axis=0)
        n_missing = obs.size - int(np.count_nonzero(obs))
        if n_missing == 0:
            totals, inverse, counts = np.unique(row_total, return_inverse=True, return_counts=True)
            return cls(row_total, col_total, inverse, totals, counts.astype(float), None, None)
        if n_missing <= _SPARSE_MISSING_SHARE * obs.size:
            missing = sparse.csr_matrix(~obs, dtype=float)
            return cls(row_total, col_total, None, None, None, missing, None)
        return cls(row_total, col_total, None, None, None, None, obs)


def _blocks(n_rows: int, n_cols: int):
    step = max(1, _BLOCK_CELLS // max(n_cols, 1))
    for lo in range(0, n_rows, step):
        yield slice(lo, min(lo + step, n_rows))


def marginal(x, data: MarginalData, nodes, logw, fix_sigma):
    """Negative marginal log-likelihood, its gradient and the posterior over nodes.

    As :func:`rederive.stats.irt_mml._marginal` (same parameters ``x = (c,
    log sigma)``), from :class:`MarginalData`. The posterior is per distinct row
    total when every cell is present (``data.group_of_row`` maps rows to it),
    else per row.
    """
    n_rows, n_cols = data.shape
    c = x[:n_cols]
    sigma = fix_sigma if fix_sigma is not None else np.exp(x[n_cols])
    a = sigma * nodes[:, None] - c[None, :]  # (K, cols)
    ell = log_expit(-a)
    p = expit(a)
    big_l, e = ell.sum(axis=1), p.sum(axis=1)  # (K,)
    grad_sigma = None
    if data.complete:
        s = data.group_total
        joint = sigma * s[:, None] * nodes[None, :] + big_l[None, :] + logw[None, :]
        lse = logsumexp(joint, axis=1)
        post = np.exp(joint - lse[:, None])
        n = data.group_count
        mass = n @ post  # (K,)
        grad_c = data.col_total - mass @ p
        f = -(n @ lse) + c @ data.col_total
        if fix_sigma is None:
            d_sigma = n @ ((post * nodes[None, :]) * (s[:, None] - e[None, :])).sum(axis=1)
            grad_sigma = -d_sigma * sigma
    else:
        s = data.row_total
        if data.missing is not None:
            m = data.missing
            o = big_l[None, :] - np.asarray(m @ ell.T)
            expected = e[None, :] - np.asarray(m @ p.T)
            joint = sigma * s[:, None] * nodes[None, :] + o + logw[None, :]
            lse = logsumexp(joint, axis=1)
            post = np.exp(joint - lse[:, None])
            # post.T @ obs = post.T @ 1 - (missing.T @ post).T
            post_obs = post.sum(axis=0)[:, None] - np.asarray(m.T @ post).T  # (K, cols)
            d_sigma = ((post * nodes[None, :]) * (s[:, None] - expected)).sum()
        else:
            lse = np.empty(n_rows)
            post = np.empty((n_rows, nodes.size))
            post_obs = np.zeros((nodes.size, n_cols))
            d_sigma = 0.0
            for rows in _blocks(n_rows, n_cols):
                ob = data.present[rows].astype(float)
                joint = sigma * s[rows, None] * nodes[None, :] + ob @ ell.T + logw[None, :]
                lse[rows] = logsumexp(joint, axis=1)
                post[rows] = np.exp(joint - lse[rows, None])
                post_obs += post[rows].T @ ob
                expected = ob @ p.T
                d_sigma += ((post[rows] * nodes[None, :]) * (s[rows, None] - expected)).sum()
        grad_c = data.col_total - (post_obs * p).sum(axis=0)
        f = -lse.sum() + c @ data.col_total
        if fix_sigma is None:
            grad_sigma = -d_sigma * sigma
    grad = grad_c if grad_sigma is None else np.append(grad_c, grad_sigma)
    return float(f), grad, post


def row_posterior(data: MarginalData, post: np.ndarray) -> np.ndarray:
    """Rows x K posterior from :func:`marginal`'s (per distinct total when complete)."""
    return post[data.group_of_row] if data.complete else post


def observed_information(x, data: MarginalData, nodes, logw) -> np.ndarray:
    """Hessian of the negative marginal log-likelihood in ``(c, log sigma)``, closed form.

    Only with every cell present. With ``g_ik`` the log-likelihood of row ``i``
    at node ``k``, the Hessian of ``log sum_k w_k exp(g_ik)`` is the posterior
    mean of ``d2 g`` plus the posterior covariance of ``dg`` (Louis 1982);
    ``dg/dc_j = p_kj - y_ij`` and ``dg/dlog sigma = sigma z_k (S_i - e_k)``
    depend on the row only through its total, so the sum over rows is one over
    distinct totals, and the ``cols x cols`` block is a diagonal plus
    ``p.T (diag(mass) - post.T N post) p``.

    References
    ----------
    Louis, T. A. (1982). Finding the observed information matrix when using the
        EM algorithm. *JRSS B* 44, 226-233.
    """
    if not data.complete:
        raise ValueError("observed_information needs a matrix with every cell present")
    n_cols = data.shape[1]
    c, sigma = x[:n_cols], np.exp(x[n_cols])
    _, _, post = marginal(x, data, nodes, logw, None)
    a = sigma * nodes[:, None] - c[None, :]
    p = expit(a)
    pq = p * (1.0 - p)
    e, v = p.sum(axis=1), pq.sum(axis=1)
    n, s = data.group_count, data.group_total
    mass = n @ post
    # Hessian of log L (then negated): E[d2 g] + Cov[dg].
    inner = np.diag(mass) - post.T @ (n[:, None] * post)  # (K, K)
    h_cc = -np.diag(mass @ pq) + p.T @ inner @ p
    h = sigma * nodes[None, :] * (s[:, None] - e[None, :])  # (groups, K): dg/dlog sigma
    h_bar = (post * h).sum(axis=1)
    p_bar = post @ p  # (groups, cols)
    # d2 g / dc_j dlog sigma = p q sigma z_k; Cov(p_kj - y_ij, h_ik) = sum_k post
    # p_kj h_ik - p_bar_ij h_bar_i, summed over rows with the counts.
    h_cs = (
        (mass * sigma * nodes) @ pq + (n[:, None] * post * h).sum(axis=0) @ p - (n * h_bar) @ p_bar
    )
    e_d2 = (post * (h - (sigma * nodes[None, :]) ** 2 * v[None, :])).sum(axis=1)
    h_ss = n @ e_d2 + n @ ((post * h**2).sum(axis=1) - h_bar**2)
    out = np.empty((n_cols + 1, n_cols + 1))
    out[:n_cols, :n_cols] = h_cc
    out[:n_cols, n_cols] = out[n_cols, :n_cols] = h_cs
    out[n_cols, n_cols] = h_ss
    return -out


def _row_sigma_scores(x, data: MarginalData, nodes, logw, post, p) -> np.ndarray:
    """Per-row log-sigma component of the gradient of -log L (rows,)."""
    n_cols = data.shape[1]
    sigma = np.exp(x[n_cols])
    e = p.sum(axis=1)
    if data.complete:
        per_group = (post * nodes[None, :] * (data.group_total[:, None] - e[None, :])).sum(axis=1)
        return -sigma * per_group[data.group_of_row]
    out = np.empty(data.shape[0])
    s = data.row_total
    if data.missing is not None:
        expected = e[None, :] - np.asarray(data.missing @ p.T)
        return -sigma * (post * nodes[None, :] * (s[:, None] - expected)).sum(axis=1)
    for rows in _blocks(*data.shape):
        expected = data.present[rows].astype(float) @ p.T
        out[rows] = -sigma * (post[rows] * nodes[None, :] * (s[rows, None] - expected)).sum(axis=1)
    return out


def bootstrap_sums(yt, x, nodes, logw, unit_of_row, n_units, n_boot, rng, *, fractional=False):
    """Score sums of the one-step ability bootstrap, and the information matrix.

    For :func:`rederive.stats.irt_mml.bootstrap_mml_ability` on a large matrix:
    replicate ``b`` moves the solution by ``H^-1 sum_i v_bi s_i`` with ``v_bi``
    the draw count of row ``i``'s unit minus 1 and ``s_i`` row ``i``'s score,
    ``s_ij = y_ij - obs_ij p_bar_ij`` for the columns and the log-sigma term.
    Without forming the ``rows x (cols + 1)`` score matrix: ``v @ y`` is a
    float32 product over blocks of rows, exact because every term and partial
    sum is an integer below 2^24 (|v| <= n_boot draws of a unit, y in {0, 1},
    at most 2 rows per unit on average); ``v @ p_bar`` with every cell present
    is a product over the distinct row totals (rows with the same total share
    ``p_bar``), else over blocks of rows in float64.

    ``H`` is the closed-form observed information (:func:`observed_information`)
    with every cell present, else the outer product of the row scores (equal in
    expectation), accumulated over blocks of rows.

    Parameters
    ----------
    yt : numpy.ndarray
        Rows (integrated units, the items) x cols, 0/1 with NaN for missing.
    x : numpy.ndarray
        ``(c, log sigma)`` at the fit.
    unit_of_row, n_units :
        Resampling unit of each row and their number.
    n_boot, rng :
        Replicates, and the generator of
        :func:`rederive.stats.bootstrap.resample_weights` (drawn in blocks by
        :func:`rederive.stats.bootstrap.weight_chunks`: the same draws).
    fractional : bool, default False
        ``yt`` holds scores in [0, 1]: ``v @ y`` is then a float64 product (the
        float32 one is exact only for 0/1 terms).

    Returns
    -------
    moves : numpy.ndarray, shape (n_boot, cols + 1)
    hess : numpy.ndarray, shape (cols + 1, cols + 1)
    kind : str
        ``"observed"`` or ``"outer product"``.
    """
    from rederive.stats.bootstrap import weight_chunks

    data = MarginalData.from_matrix(yt)
    n_rows, n_cols = data.shape
    _, _, post = marginal(x, data, nodes, logw, None)
    sigma = np.exp(x[n_cols])
    p = expit(sigma * nodes[:, None] - x[None, :n_cols])  # (K, cols)
    # Draw-count minus one per row, float32 (small integers: exact).
    v = np.empty((n_boot, n_rows), dtype=np.float32)
    lo = 0
    for block in weight_chunks(n_units, n_boot, rng):
        v[lo : lo + block.shape[0]] = (block - 1)[:, unit_of_row]
        lo += block.shape[0]
    moves = np.zeros((n_boot, n_cols + 1))
    for rows in _blocks(n_rows, n_cols):
        if fractional:
            moves[:, :n_cols] += v[:, rows].astype(float) @ np.nan_to_num(yt[rows])
        else:
            y_block = np.nan_to_num(yt[rows]).astype(np.float32)
            moves[:, :n_cols] += v[:, rows] @ y_block
    sigma_scores = _row_sigma_scores(x, data, nodes, logw, post, p)
    moves[:, n_cols] = v.astype(float) @ sigma_scores
    if data.complete:
        n_groups = data.group_total.size
        by_group = sparse.csr_matrix(
            (np.ones(n_rows), (np.arange(n_rows), data.group_of_row)), shape=(n_rows, n_groups)
        )
        v_groups = np.asarray(by_group.T @ v.T.astype(float)).T  # (n_boot, groups)
        moves[:, :n_cols] -= v_groups @ (post @ p)
        return moves, observed_information(x, data, nodes, logw), "observed"
    hess = np.zeros((n_cols + 1, n_cols + 1))
    for rows in _blocks(n_rows, n_cols):
        present = ~np.isnan(yt[rows])
        scores = np.empty((present.shape[0], n_cols + 1))
        scores[:, :n_cols] = np.nan_to_num(yt[rows]) - present * (post[rows] @ p)
        scores[:, n_cols] = sigma_scores[rows]
        moves[:, :n_cols] -= v[:, rows].astype(float) @ (present * (post[rows] @ p))
        hess += scores.T @ scores
    return moves, hess, "outer product"
