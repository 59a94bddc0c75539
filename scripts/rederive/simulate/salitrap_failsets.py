"""Calibrate *which* items each model fails to the paper's Table 5.

A model's failure set (every valid control label but Strict Pass) has a fixed size
per dimension (n - Strict Pass, Table 1); the latent score ``z`` of
:mod:`rederive.simulate.salitrap_labels` only decides which items fall in it. Left
alone, the shared difficulty and family noise give the right *kind* of overlap but
not the printed numbers. This module adjusts ``z`` so that

* every published Table 5 pair has the intersection ``|A and B|`` whose co-failure
  rate ``|A and B| / N`` and Jaccard ``|A and B| / |A or B|`` round to the printed
  values (one integer satisfies both for all ten pairs),
* the published most / least similar pairs stay the top / bottom pairs by Jaccard
  among all model pairs (every other pair is kept a margin away from them), and
* exactly the published number of items is failed by every model.

Method: deterministic local search over *swaps*. A swap exchanges the latent scores
of two items of one model within one dimension, one just above that model's
Strict-Pass threshold and one just below, so the pair trades places (one more
failure, one fewer) while the model's score distribution, its per-dimension counts
and everything calibrated to Tables 1-3, 6 and 7 stay as they were. Each step takes,
for one (model, dimension), the best swap among the ``band`` items nearest the
threshold on either side (closest scores first on ties) if it lowers the squared
distance to the targets; models and dimensions are visited round-robin until the
targets are met or no swap helps. Restricting swaps to the threshold band keeps the
latent structure (difficulty, injected-number effect, family noise) almost intact.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Jaccard margin between a published extreme pair and any other pair.
RANK_MARGIN = 0.005
#: Items nearest the Strict-Pass threshold (each side) considered for a swap.
SWAP_BAND = 96
MAX_SWEEPS = 200


@dataclass(frozen=True)
class FailureTargets:
    """Bounds on every pair's intersection count and the all-fail target.

    ``lower[a, b] <= |F_a and F_b| <= upper[a, b]`` (equal bounds for a published
    pair); ``all_fail`` is the number of items every model fails (``None``: free).
    """

    lower: np.ndarray
    upper: np.ndarray
    all_fail: int | None
    pair_counts: dict[tuple[int, int], int]


@dataclass(frozen=True)
class CalibrationResult:
    """Adjusted latent scores and what the search did."""

    z: np.ndarray
    swaps: int
    loss: int
    sweeps: int


def pair_count(co_thousandths: int, jac_thousandths: int, fail_a: int, fail_b: int, n: int) -> int:
    """Intersection count closest to a printed (co-failure, Jaccard) pair.

    Among counts ``c`` with ``|c / n - co| <= 0.0005`` the one whose Jaccard
    ``c / (fail_a + fail_b - c)`` is closest to the printed Jaccard; if no count rounds
    to the printed co-failure, the nearest one.
    """
    co, jac = co_thousandths / 1000, jac_thousandths / 1000
    centre = round(co * n)
    cands = [c for c in range(centre - 3, centre + 4) if 0 <= c <= min(fail_a, fail_b)]
    ok = [c for c in cands if abs(c / n - co) <= 0.0005 + 1e-12]
    pool = ok or cands
    return min(pool, key=lambda c: (abs(c / (fail_a + fail_b - c) - jac), abs(c / n - co), c))


def _jaccard(c: float, fa: int, fb: int) -> float:
    return c / (fa + fb - c)


def failure_targets(
    models: list[str],
    fail_sizes: dict[str, int],
    n: int,
    pairs: list[tuple[str, str, str, int, int]],
    all_fail: int | None,
    margin: float = RANK_MARGIN,
) -> FailureTargets:
    """Count bounds for every model pair from the published Table 5.

    Parameters
    ----------
    models : list of str
        Row order of the latent score matrix.
    fail_sizes : dict
        Model -> number of items it fails (fixed by Table 1).
    n : int
        Number of items.
    pairs : list of tuple
        ``(group, model_a, model_b, co-failure, Jaccard)``, rates in thousandths;
        ``group`` is ``most_similar`` or ``least_similar``. Pairs naming an unknown
        model are ignored.
    all_fail : int or None
        Published number of items failed by every model.
    margin : float
        Jaccard distance every other pair keeps from the published extremes.
    """
    m = len(models)
    pos = {name: i for i, name in enumerate(models)}
    sizes = np.array([fail_sizes[name] for name in models])
    lower = np.zeros((m, m), dtype=np.int64)
    upper = np.minimum.outer(sizes, sizes).astype(np.int64)
    fixed: dict[tuple[int, int], int] = {}
    top, bottom = [], []
    for group, a, b, co, jac in pairs:
        if a not in pos or b not in pos:
            continue
        i, j = sorted((pos[a], pos[b]))
        c = pair_count(co, jac, int(sizes[i]), int(sizes[j]), n)
        fixed[(i, j)] = c
        value = _jaccard(c, int(sizes[i]), int(sizes[j]))
        (top if group == "most_similar" else bottom).append(value)
    for i in range(m):
        for j in range(i + 1, m):
            if (i, j) in fixed:
                lower[i, j] = upper[i, j] = fixed[(i, j)]
            else:
                fa, fb = int(sizes[i]), int(sizes[j])
                # J(c) = c / (fa + fb - c) is increasing in c, so a Jaccard bound is a count bound.
                if top:
                    cap = min(top) - margin
                    upper[i, j] = min(upper[i, j], int(np.floor(cap * (fa + fb) / (1 + cap))))
                if bottom:
                    floor = max(bottom) + margin
                    lower[i, j] = int(np.ceil(floor * (fa + fb) / (1 + floor)))
            lower[j, i], upper[j, i] = lower[i, j], upper[i, j]
    return FailureTargets(lower, upper, all_fail, fixed)


def failure_matrix(z: np.ndarray, strict: np.ndarray, dim_index: list[np.ndarray]) -> np.ndarray:
    """Boolean ``(models x items)``: not among the model's top ``strict`` scores per dimension.

    Same ordering as the label placement (descending score, stable on ties).
    """
    failed = np.ones(z.shape, dtype=bool)
    for j in range(z.shape[0]):
        for d, idx in enumerate(dim_index):
            order = idx[np.argsort(-z[j, idx], kind="stable")]
            failed[j, order[: strict[j, d]]] = False
    return failed


def _penalty(c: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    over = np.maximum(c - hi, 0)
    under = np.maximum(lo - c, 0)
    return over * over + under * under


def target_loss(failed: np.ndarray, targets: FailureTargets) -> int:
    """Squared count distance of every pair and the all-fail count from their targets."""
    f = failed.astype(np.int64)
    inter = f @ f.T
    iu = np.triu_indices(len(f), 1)
    loss = int(_penalty(inter[iu], targets.lower[iu], targets.upper[iu]).sum())
    if targets.all_fail is not None:
        loss += (int(failed.all(axis=0).sum()) - targets.all_fail) ** 2
    return loss


def _best_swap(j, idx, k, z, f, inter, n_all, targets, band):
    """Best loss-lowering swap for model ``j`` in one dimension, or ``None``.

    Returns ``(passer, failer, loss change)``; the passer starts failing, the
    failer passes.
    """
    order = idx[np.argsort(-z[j, idx], kind="stable")]
    passers, failers = order[:k][::-1][:band], order[k:][:band]
    if len(passers) == 0 or len(failers) == 0:
        return None
    others = np.arange(len(f)) != j
    fo = f[others]
    row = inter[j, others]
    lo, hi = targets.lower[j, others], targets.upper[j, others]
    new_row = row[:, None, None] + fo[:, passers][:, :, None] - fo[:, failers][:, None, :]
    delta = _penalty(new_row, lo[:, None, None], hi[:, None, None]).sum(axis=0) - int(
        _penalty(row, lo, hi).sum()
    )
    if targets.all_fail is not None:
        all_others = fo.all(axis=0)
        new_all = n_all + all_others[passers][:, None].astype(int) - all_others[failers][None, :]
        delta = delta + (new_all - targets.all_fail) ** 2 - (n_all - targets.all_fail) ** 2
    gap = z[j, passers][:, None] - z[j, failers][None, :]
    flat = np.lexsort((gap.ravel(), delta.ravel()))[0]
    a, b = np.unravel_index(flat, delta.shape)
    if delta[a, b] >= 0:
        return None
    return int(passers[a]), int(failers[b]), int(delta[a, b])


def calibrate_failures(
    z: np.ndarray,
    strict: np.ndarray,
    dim_index: list[np.ndarray],
    targets: FailureTargets,
    band: int = SWAP_BAND,
    max_sweeps: int = MAX_SWEEPS,
) -> CalibrationResult:
    """Swap latent scores until the failure sets meet ``targets`` (see module docstring).

    Parameters
    ----------
    z : numpy.ndarray
        ``(models x items)`` latent scores; not modified.
    strict : numpy.ndarray
        ``(models x dimensions)`` Strict Pass counts of the control run.
    dim_index : list of numpy.ndarray
        Item indices of each dimension, in the column order of ``strict``.
    targets : FailureTargets
    band, max_sweeps : int
        Swap candidates per side of the threshold; sweep limit.

    Returns
    -------
    CalibrationResult
        ``loss`` 0 means every target is met.
    """
    z = z.copy()
    f = failure_matrix(z, strict, dim_index).astype(np.int64)
    inter = f @ f.T
    n_all = int(f.all(axis=0).sum())
    loss = target_loss(f.astype(bool), targets)
    swaps = sweeps = 0
    while loss > 0 and sweeps < max_sweeps:
        sweeps += 1
        improved = False
        for j in range(len(z)):
            for d, idx in enumerate(dim_index):
                move = _best_swap(j, idx, int(strict[j, d]), z, f, inter, n_all, targets, band)
                if move is None:
                    continue
                p, q, change = move
                others = np.arange(len(z)) != j
                n_all += int(f[others, p].all()) - int(f[others, q].all())
                step = f[:, p] - f[:, q]
                step[j] = 0
                inter[j] += step
                inter[:, j] += step
                f[j, p], f[j, q] = 1, 0
                z[j, p], z[j, q] = z[j, q], z[j, p]
                loss += change
                swaps += 1
                improved = True
                if loss == 0:
                    break
            if loss == 0:
                break
        if not improved:
            break
    return CalibrationResult(z, swaps, loss, sweeps)
