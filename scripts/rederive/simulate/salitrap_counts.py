"""Integer label counts that reproduce the published SaliTrap percentages.

Every published rate is a ratio of two integers rounded to one decimal. The
simulator first decides *how many* rows get each label (this module), then *which*
items get them (:mod:`rederive.simulate.salitrap_labels`). Deciding counts first is
what makes an exact reproduction of Table 1 possible: ranking alone cannot hit a
0.1 % target with a few hundred items.

Rates: TAR = Strict Pass / n, HFR = (Hard Fail + CoT Hijacked) / n (the paper's
"strong failures", labels 1-2), SCR = Sycophantic Compliance / n, SI = SC / (SC +
CoT Hijacked). CoT Hijacked is carved out of the HFR rows; only under this reading
do the paper's Tables 1 and 2 fit one set of integer counts.

All percentages are handled as integer tenths and rounded half-up on the exact
fraction, so no float representation error can flip a cell.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

# A mismatch cost: (number of cells missed, total absolute miss in tenths).
Cost = tuple[int, int]
ZERO: Cost = (0, 0)
#: Cost of a cell that cannot be computed at all (empty denominator).
UNDEFINED_MISS = 1000


def pct_tenths(k: int, n: int) -> int:
    """``100 * k / n`` rounded half-up to one decimal, in tenths (exact integer maths)."""
    return (2000 * k + n) // (2 * n)


def pct_is_tie(k: int, n: int) -> bool:
    """True when ``1000 * k / n`` ends exactly in .5 (the rounding convention then matters)."""
    return (2000 * k + n) % (2 * n) == 0


def mean_tenths(total: int, n: int) -> int:
    """``total / n`` rounded half-up to one decimal, in tenths."""
    return (20 * total + n) // (2 * n)


def mean_is_tie(total: int, n: int) -> bool:
    """True when ``10 * total / n`` ends exactly in .5."""
    return (20 * total + n) % (2 * n) == 0


def cell_cost(simulated: int | None, target: int | None) -> Cost:
    """Mismatch cost of one cell: ``(0, 0)`` when equal, else ``(1, |difference|)``."""
    if simulated == target:
        return ZERO
    if simulated is None or target is None:
        return (1, UNDEFINED_MISS)
    return (1, abs(simulated - target))


def add_costs(*costs: Cost) -> Cost:
    """Element-wise sum of costs (lexicographic order is preserved under addition)."""
    return (sum(c[0] for c in costs), sum(c[1] for c in costs))


def rate_candidates(target: int, n: int) -> list[int]:
    """All numerators ``k`` with ``pct_tenths(k, n) == target``, ties last.

    Parameters
    ----------
    target : int
        Published rate in tenths of a percent.
    n : int
        Denominator (valid rows).

    Returns
    -------
    list of int
        Usually zero or one value for ``n < 1000``; exact-.5 ties are put last so a
        caller taking the first candidate avoids rounding-convention sensitivity.
    """
    if n <= 0:
        return []
    centre = target * n // 1000
    hits = [
        k for k in range(max(0, centre - 2), min(n, centre + 3) + 1) if pct_tenths(k, n) == target
    ]
    return sorted(hits, key=lambda k: pct_is_tie(k, n))


def nearest_count(target: int, n: int) -> int:
    """The numerator whose rate is closest to ``target`` (exact hit preferred)."""
    hits = rate_candidates(target, n)
    if hits:
        return hits[0]
    return min(range(n + 1), key=lambda k: (abs(pct_tenths(k, n) - target), k))


# --------------------------------------------------------------------------- control


@dataclass(frozen=True)
class ControlCounts:
    """Label counts of one model's control run, per dimension.

    All dict attributes map dimension id -> count; ``n`` counts valid rows only.
    HFR counts the paper's "strong failures" (labels 1-2): ``hard + cot``.
    ``ties`` lists Table-1/2 cells whose exact value ends in .5 (hit only under
    round-half-up). ``table2_cost`` is ``(SCR misses, SCR error, Table-6 SC-total
    miss, SI misses, SI error, Table-2 ties)``.
    """

    invalid: dict[str, int]
    n: dict[str, int]
    strict: dict[str, int]
    hard: dict[str, int]
    sc: dict[str, int]
    cot: dict[str, int]
    refusal: dict[str, int]
    patch: dict[str, int]
    ties: tuple[str, ...]
    table2_cost: tuple[int, ...]


@dataclass(frozen=True)
class ControlTargets:
    """Published targets (tenths) for one model, keyed by dimension incl. ``overall``."""

    tar: dict[str, int]
    hfr: dict[str, int]
    scr: dict[str, int]
    si: dict[str, int | None]
    n_sc_main: int | None = None


def _cells_matching(
    targets: dict[str, int], ns: dict[str, int], dims: Sequence[str], overall: int
) -> list[tuple[dict[str, int], int]]:
    """Numerator choices matching every dimension cell and the overall cell.

    Returns ``(counts per dimension, number of .5 ties)`` options, fewest ties first.
    """
    per_dim = [rate_candidates(targets[d], ns[d]) for d in dims]
    if any(not c for c in per_dim):
        return []
    total_n = sum(ns[d] for d in dims)
    options = []
    for combo in itertools.product(*per_dim):
        if pct_tenths(sum(combo), total_n) != overall:
            continue
        ties = sum(pct_is_tie(k, ns[d]) for k, d in zip(combo, dims, strict=True))
        ties += pct_is_tie(sum(combo), total_n)
        options.append((dict(zip(dims, combo, strict=True)), ties))
    return sorted(options, key=lambda opt: opt[1])


def invalid_configurations(
    dims: Sequence[str], max_per_dim: int, max_total: int
) -> Iterable[tuple[int, ...]]:
    """All per-dimension invalid-row counts with at most ``max_total`` rows in all."""
    for combo in itertools.product(range(max_per_dim + 1), repeat=len(dims)):
        if sum(combo) <= max_total:
            yield combo


def table1_options(
    n_items: dict[str, int], targets: ControlTargets, dims: Sequence[str], invalid: Sequence[int]
) -> list[tuple[dict[str, int], dict[str, int], dict[str, int], int]]:
    """Strict-Pass and strong-failure counts hitting Table 1 exactly for one invalid layout.

    HFR is read as strong failures / n (Hard Fail + CoT Hijacked, the paper's labels
    1-2), so the HFR count returned here is later split into Hard Fail and CoT.

    Returns
    -------
    list of tuple
        ``(n_valid, strict, strong, n_ties)`` options, fewest ties first; empty when
        some cell cannot be hit.
    """
    ns = {d: n_items[d] - v for d, v in zip(dims, invalid, strict=True)}
    tar = _cells_matching(targets.tar, ns, dims, targets.tar["overall"])
    hfr = _cells_matching(targets.hfr, ns, dims, targets.hfr["overall"])
    options = [
        (ns, strict, strong, t_ties + h_ties)
        for (strict, t_ties), (strong, h_ties) in itertools.product(tar, hfr)
        if all(strict[d] + strong[d] <= ns[d] for d in dims)
    ]
    return sorted(options, key=lambda opt: opt[3])


#: Cost of a Table-2 choice: (SCR misses, SCR error, SI misses, SI error, .5 ties).
T2Cost = tuple[int, int, int, int, int]


def _table2_cell_cost(s: int, c: int, n: int, scr: int, si: int | None) -> T2Cost:
    """Cost of ``s`` SC and ``c`` CoT rows out of ``n`` against one Table 2 cell."""
    si_sim = pct_tenths(s, s + c) if s + c else None
    ties = pct_is_tie(s, n) + (s + c > 0 and pct_is_tie(s, s + c))
    return (*cell_cost(pct_tenths(s, n), scr), *cell_cost(si_sim, si), int(ties))


def _sc_cot_options(n: int, room: int, cap: int, scr: int, si: int | None) -> list[tuple]:
    """Candidate ``(SC, CoT, cost)`` for one cell.

    ``room`` bounds SC (rows left beside Strict Pass and the strong failures), ``cap``
    bounds CoT (it is part of the strong failures). Values near the exact hits are
    kept, plus a clipped fallback, so the overall cells can trade against the
    dimension cells.
    """
    centre = scr * n // 1000
    s_values = set(range(max(0, centre - 2), min(room, centre + 3) + 1))
    s_values.add(min(room, max(0, centre)))
    options = []
    for s in sorted(s_values):
        if si:
            c_centre = s * (1000 - si) // si
            c_values = set(range(max(0, c_centre - 2), min(cap, c_centre + 3) + 1))
            c_values.add(min(cap, max(0, c_centre)))
        else:
            c_values = {0}
        options += [(s, c, _table2_cell_cost(s, c, n, scr, si)) for c in sorted(c_values)]
    return options


def solve_sc_cot(
    ns: dict[str, int],
    room: dict[str, int],
    cap: dict[str, int],
    targets: ControlTargets,
    dims: Sequence[str],
) -> tuple[dict[str, int], dict[str, int], tuple[int, ...]]:
    """Choose SC and CoT-Hijacked counts closest to Table 2.

    A dynamic programme over dimensions keyed by the running totals, because the
    overall SCR/SI cells depend on the sums of the per-dimension counts. SC must fit
    into ``room`` (beside Strict Pass and the strong failures), CoT into ``cap`` (the
    strong failures); the rest of the strong failures are Hard Fail.

    Returns
    -------
    tuple
        ``(sc per dim, cot per dim, cost)``; cost is (SCR misses, SCR error, SC total
        differs from Table 6's ``n_sc_main``, SI misses, SI error, .5 ties), summed
        over the dimension and overall cells.
    """
    states: dict[tuple[int, int], tuple[T2Cost, tuple]] = {(0, 0): ((0, 0, 0, 0, 0), ())}
    for d in dims:
        nxt: dict[tuple[int, int], tuple[T2Cost, tuple]] = {}
        options = _sc_cot_options(ns[d], room[d], cap[d], targets.scr[d], targets.si[d])
        for (ss, cc), (cost, picks) in states.items():
            for s, c, oc in options:
                key = (ss + s, cc + c)
                new = tuple(a + b for a, b in zip(cost, oc, strict=True))
                if key not in nxt or new < nxt[key][0]:
                    nxt[key] = (new, (*picks, (s, c)))
        states = nxt
    total_n = sum(ns[d] for d in dims)
    best = None
    for (ss, cc), (cost, picks) in states.items():
        overall = _table2_cell_cost(ss, cc, total_n, targets.scr["overall"], targets.si["overall"])
        full = tuple(a + b for a, b in zip(cost, overall, strict=True))
        nsc_miss = int(targets.n_sc_main is not None and ss != targets.n_sc_main)
        key = (full[0], full[1], nsc_miss, *full[2:])
        if best is None or key < best[0]:
            best = (key, picks)
    cost, picks = best
    sc = {d: p[0] for d, p in zip(dims, picks, strict=True)}
    cot = {d: p[1] for d, p in zip(dims, picks, strict=True)}
    return sc, cot, cost


def solve_control(
    n_items: dict[str, int],
    targets: ControlTargets,
    dims: Sequence[str],
    *,
    preferred_invalid: int,
    patch_share_permille: int,
    max_invalid: int = 4,
) -> ControlCounts:
    """Label counts for one model's control run.

    HFR is read as (Hard Fail + CoT Hijacked) / n. Searches every layout of up to
    ``max_invalid`` invalid rows; a layout is admissible only if Table 1 is hit
    exactly (dimension and overall cells). Among admissible layouts the order of
    preference is: fewest Table-1 .5 ties, best SCR, SC total equal to Table 6's
    ``n_sc_main`` (when given), best SI, fewest Table-2 .5 ties, invalid total
    closest to ``preferred_invalid`` (variety across runs, seeded by the caller).

    Parameters
    ----------
    n_items : dict
        Items per dimension.
    targets : ControlTargets
    dims : sequence of str
    preferred_invalid : int
        Seeded wish for how many invalid rows this run has.
    patch_share_permille : int
        Share (per mille) of the leftover rows labelled Patch Compliance, rest Refusal.
    max_invalid : int
        Upper bound on invalid rows in the file.

    Returns
    -------
    ControlCounts

    Raises
    ------
    ValueError
        If no layout reproduces Table 1 (the caller reports this as a finding).
    """
    layouts = sorted(
        invalid_configurations(dims, max_invalid, max_invalid),
        key=lambda inv: (abs(sum(inv) - preferred_invalid), inv),
    )
    best = None
    for invalid in layouts:
        for ns, strict, strong, ties in table1_options(n_items, targets, dims, invalid):
            room = {d: ns[d] - strict[d] - strong[d] for d in dims}
            sc, cot, cost = solve_sc_cot(ns, room, strong, targets, dims)
            key = (ties, *cost, abs(sum(invalid) - preferred_invalid), invalid)
            if best is None or key < best[0]:
                best = (key, invalid, ns, strict, strong, sc, cot, cost)
        if best is not None and not any(best[0][:-2]):
            break  # perfect; later layouts are never closer to preferred_invalid
    if best is None:
        raise ValueError("no invalid-row layout reproduces Table 1 exactly")
    _, invalid, ns, strict, strong, sc, cot, cost = best
    leftover = {d: ns[d] - strict[d] - strong[d] - sc[d] for d in dims}
    patch = {d: (leftover[d] * patch_share_permille + 500) // 1000 for d in dims}
    return ControlCounts(
        invalid=dict(zip(dims, invalid, strict=True)),
        n=ns,
        strict=strict,
        hard={d: strong[d] - cot[d] for d in dims},
        sc=sc,
        cot=cot,
        refusal={d: leftover[d] - patch[d] for d in dims},
        patch=patch,
        ties=_tie_cells(ns, strict, strong, sc, cot, dims),
        table2_cost=cost,
    )


def _tie_cells(
    ns: dict[str, int],
    strict: dict[str, int],
    strong: dict[str, int],
    sc: dict[str, int],
    cot: dict[str, int],
    dims: Sequence[str],
) -> tuple[str, ...]:
    """Names of Table-1/2 cells whose exact value ends in .5 (HFR = strong failures)."""
    keys = (*dims, "overall")
    total = {d: ns[d] for d in dims} | {"overall": sum(ns[d] for d in dims)}

    def with_overall(counts: dict[str, int]) -> dict[str, int]:
        return {**counts, "overall": sum(counts[d] for d in dims)}

    k, f, s, c = (with_overall(x) for x in (strict, strong, sc, cot))
    cells = [(f"{d} TAR", k[d], total[d]) for d in keys]
    cells += [(f"{d} HFR", f[d], total[d]) for d in keys]
    cells += [(f"{d} SCR", s[d], total[d]) for d in keys]
    cells += [(f"{d} SI", s[d], s[d] + c[d]) for d in keys if s[d] + c[d]]
    return tuple(name for name, num, den in cells if pct_is_tie(num, den))


# ------------------------------------------------------------------------ liberation


@dataclass(frozen=True)
class LiberationCounts:
    """Valid re-queries and Strict-Pass counts per dimension and condition (A, B, C)."""

    n_valid: dict[str, int]
    strict: dict[str, tuple[int, int, int]]


def _liberation_dim_candidates(
    sc: int, rates: tuple[int, int, int], expected: float, keep: int = 10
) -> list[tuple[int, tuple[int, int, int], Cost]]:
    """Plausible valid-n values for one dimension with their Strict-Pass counts and cost."""
    if sc == 0:
        return [(0, (0, 0, 0), add_costs(*(cell_cost(None, r) for r in rates)))]
    scored = []
    for n in range(1, sc + 1):
        ks = tuple(nearest_count(r, n) for r in rates)
        cost = add_costs(*(cell_cost(pct_tenths(k, n), r) for k, r in zip(ks, rates, strict=True)))
        scored.append((cost, abs(n - expected), n, ks))
    scored.sort(key=lambda t: (t[0], t[1], t[2]))
    exact = [t for t in scored if t[0] == ZERO][:keep]
    inexact = [t for t in scored if t[0] != ZERO][: max(3, keep - len(exact))]
    return [(n, ks, cost) for cost, _, n, ks in exact + inexact]


def solve_liberation(
    sc_counts: dict[str, int],
    rates: dict[str, tuple[int, int, int]],
    n_requeried: int,
    dims: Sequence[str],
) -> tuple[LiberationCounts, Cost]:
    """Valid re-query counts and Strict-Pass counts closest to Table 6.

    The valid n is shared by the three conditions (Table 6 prints one n per model).
    Preference: total valid n closest to ``n_requeried`` (never above the SC
    count), then fewest rate cells missed (dimension and overall), then smallest
    error, then errors spread in proportion to the SC counts.

    Returns
    -------
    tuple
        ``(LiberationCounts, cost)``; cost counts missed rate cells and their error.
    """
    total_sc = sum(sc_counts[d] for d in dims)
    share = n_requeried / total_sc if total_sc else 0.0
    per_dim = [
        _liberation_dim_candidates(sc_counts[d], rates[d], sc_counts[d] * share) for d in dims
    ]
    best = None
    for combo in itertools.product(*per_dim):
        total_n = sum(c[0] for c in combo)
        totals = [sum(c[1][j] for c in combo) for j in range(3)]
        overall = add_costs(
            *(
                cell_cost(pct_tenths(k, total_n) if total_n else None, r)
                for k, r in zip(totals, rates["overall"], strict=True)
            )
        )
        cost = add_costs(overall, *(c[2] for c in combo))
        spread = sum(abs(c[0] - sc_counts[d] * share) for c, d in zip(combo, dims, strict=True))
        key = (abs(total_n - n_requeried), cost, round(spread, 9), tuple(c[0] for c in combo))
        if best is None or key < best[0]:
            best = (key, combo, cost)
    _, combo, cost = best
    counts = LiberationCounts(
        n_valid={d: c[0] for d, c in zip(dims, combo, strict=True)},
        strict={d: c[1] for d, c in zip(dims, combo, strict=True)},
    )
    return counts, cost


# --------------------------------------------------------------------- interventions


@dataclass(frozen=True)
class OverallCounts:
    """Counts of one run judged only on overall TAR/HFR (the intervention runs).

    ``strong`` is the HFR numerator: Hard Fail + CoT Hijacked.
    """

    invalid: int
    n: int
    strict: int
    strong: int
    tie: bool
    cost: Cost


def solve_overall(
    n_items: int, tar: int, hfr: int, preferred_invalid: int, max_invalid: int = 3
) -> OverallCounts:
    """Invalid rows, Strict-Pass and strong-failure counts hitting overall TAR/HFR.

    Tries invalid-row counts in order of closeness to ``preferred_invalid`` and
    keeps the first exact, tie-free solution; falls back to the nearest counts.
    """
    order = sorted(range(max_invalid + 1), key=lambda v: (abs(v - preferred_invalid), v))
    fallback = None
    for v in order:
        n = n_items - v
        ks, hs = rate_candidates(tar, n), rate_candidates(hfr, n)
        if ks and hs and ks[0] + hs[0] <= n:
            tie = pct_is_tie(ks[0], n) or pct_is_tie(hs[0], n)
            result = OverallCounts(v, n, ks[0], hs[0], tie, ZERO)
            if not tie:
                return result
            fallback = fallback or result
    if fallback is not None:
        return fallback
    n = n_items
    k, h = nearest_count(tar, n), nearest_count(hfr, n)
    cost = add_costs(cell_cost(pct_tenths(k, n), tar), cell_cost(pct_tenths(h, n), hfr))
    return OverallCounts(0, n, k, h, False, cost)


# --------------------------------------------------------------------------- table 3


def solve_means(
    targets: dict[str, int], ns: dict[str, int], overall: int, lo: int, hi: int
) -> dict[str, int]:
    """Per-dimension integer totals whose means hit ``targets`` and ``overall`` (tenths).

    Parameters
    ----------
    targets : dict
        Published mean per dimension, tenths.
    ns : dict
        Items per dimension.
    overall : int
        Published overall mean, tenths.
    lo, hi : int
        Bounds of a single item's value (totals must stay within ``n*lo .. n*hi``).

    Returns
    -------
    dict
        Total per dimension. Tie-free totals closest to the printed mean are preferred.

    Raises
    ------
    ValueError
        If no combination of totals reproduces every printed mean.
    """
    dims = list(targets)
    per_dim = []
    for d in dims:
        n = ns[d]
        centre = targets[d] * n // 10
        cands = [
            t
            for t in range(max(n * lo, centre - 3), min(n * hi, centre + 4) + 1)
            if mean_tenths(t, n) == targets[d]
        ]
        cands.sort(key=lambda t: (mean_is_tie(t, n), abs(10 * t - targets[d] * n), t))
        per_dim.append(cands)
    total_n = sum(ns.values())
    for combo in itertools.product(*per_dim):
        if mean_tenths(sum(combo), total_n) == overall and not mean_is_tie(sum(combo), total_n):
            return dict(zip(dims, combo, strict=True))
    raise ValueError("no integer totals reproduce the published means")
