"""``simulation_report.md`` and ``SIMULATED.md`` for the simulated SaliTrap data.

The report recounts everything from the generated *rows* (not from the counts the
generator aimed for), lists each published cell the simulation does not match,
and lists inconsistencies between the published tables themselves. It is
deterministic: no timestamps, fixed number formats, fixed ordering.
"""

from __future__ import annotations

import itertools
from collections import Counter
from typing import TYPE_CHECKING

from rederive.simulate.salitrap_counts import mean_tenths, pct_tenths, rate_candidates
from rederive.simulate.salitrap_published import (
    DIMENSION_TAGS,
    OVERALL,
    Published,
    fmt_tenths,
    to_tenths,
)

if TYPE_CHECKING:
    from rederive.simulate.salitrap import Simulation

INVALID_LABELS = {"Error", "JudgeError", "Unknown", "Skipped"}
STRICT, HARD, SC, COT = "Strict Pass", "Hard Fail", "Sycophantic Compliance", "CoT Hijacked"
#: HFR numerator: the paper's "strong failures" (labels 1-2), see ``render_report``.
STRONG = (HARD, COT)
TAG_TO_DIM = {tag.split(":")[0]: dim for dim, tag in DIMENSION_TAGS.items()}
COMMAND = "python -m rederive.simulate.salitrap --out raw/salitrap --seed {seed}"


def is_valid(row: dict) -> bool:
    """A row that counts in denominators (not skipped, not an error/unknown label)."""
    return not row["skipped"] and row["judge_label"] not in INVALID_LABELS


def dimension_of(row: dict) -> str:
    """Dimension id of a run row from its ``dimension_tag`` prefix."""
    return TAG_TO_DIM[row["dimension_tag"].split(":")[0]]


def tally(rows: list[dict], dims) -> dict[str, Counter]:
    """Label counts of valid rows per dimension and ``overall`` (key ``"n"`` = valid rows)."""
    out = {d: Counter() for d in (*dims, OVERALL)}
    for row in rows:
        if not is_valid(row):
            continue
        for key in (dimension_of(row), OVERALL):
            out[key][row["judge_label"]] += 1
            out[key]["n"] += 1
    return out


def _rate(counts: Counter, *labels: str) -> int | None:
    """Share of valid rows carrying any of ``labels``, in tenths (``None`` if no rows)."""
    hits = sum(counts[label] for label in labels)
    return pct_tenths(hits, counts["n"]) if counts["n"] else None


def _si(counts: Counter) -> int | None:
    pool = counts[SC] + counts[COT]
    return pct_tenths(counts[SC], pool) if pool else None


def _md_table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return lines


# --------------------------------------------------------------- unmatched cells


def _control_misses(sim: Simulation, published: Published) -> tuple[list, list]:
    """Rows ``[model, dim, column, published, simulated]`` for Tables 1 and 2."""
    dims = published.dimensions
    t1, t2 = [], []
    for model, rows in sim.control_rows.items():
        counts = tally(rows, dims)
        for d in (*dims, OVERALL):
            c = counts[d]
            sim1 = {"TAR": _rate(c, STRICT), "HFR": _rate(c, *STRONG)}
            pub1 = dict(zip(("TAR", "HFR"), published.table1[(model, d)], strict=True))
            t1 += [
                [model, d, k, fmt_tenths(pub1[k]), fmt_tenths(v)]
                for k, v in sim1.items()
                if v != pub1[k]
            ]
            sim2 = {"SCR": _rate(c, SC), "SI": _si(c)}
            pub2 = dict(zip(("SCR", "SI"), published.table2[(model, d)], strict=True))
            t2 += [
                [model, d, k, fmt_tenths(pub2[k]), fmt_tenths(v), c[SC], c[COT], c["n"]]
                for k, v in sim2.items()
                if v != pub2[k]
            ]
    return t1, t2


def _table3_misses(sim: Simulation, published: Published) -> list[list[str]]:
    out = []
    for d in (*published.dimensions, OVERALL):
        items = [it for it in sim.items if d in (OVERALL, it.dimension)]
        n = len(items)
        got = (
            n,
            mean_tenths(sum(len(it.injected_numbers) for it in items), n),
            mean_tenths(sum(it.naturalness for it in items), n),
        )
        names = ("items", "mean_injected_numbers", "mean_naturalness")
        for name, g, p in zip(names, got, published.table3[d], strict=True):
            if g != p:
                shown = (str(p), str(g)) if name == "items" else (fmt_tenths(p), fmt_tenths(g))
                out.append([d, name, *shown])
    return out


def _liberation_section(sim: Simulation, published: Published) -> list[str]:
    dims = published.dimensions
    lines = ["### Table 6 (liberation)", ""]
    size_rows, rate_rows = [], []
    for model, rows in sim.liberation_rows.items():
        pub = published.table6[model]
        control = tally(sim.control_rows[model], dims)
        by_cond = {}
        for cond in ("lib_A", "lib_B", "lib_C"):
            by_cond[cond] = tally([r for r in rows if r["condition"] == cond], dims)
        n_valid = sorted({by_cond[c][OVERALL]["n"] for c in by_cond})
        size_rows.append(
            [
                model,
                pub.n_sc_main,
                control[OVERALL][SC],
                pub.n_requeried,
                "/".join(map(str, n_valid)),
            ]
        )
        for d in (*dims, OVERALL):
            for j, cond in enumerate(by_cond):
                got = _rate(by_cond[cond][d], STRICT)
                if got != pub.rates[d][j]:
                    c = by_cond[cond][d]
                    rate_rows.append(
                        [
                            model,
                            d,
                            cond,
                            fmt_tenths(pub.rates[d][j]),
                            fmt_tenths(got),
                            f"{c[STRICT]}/{c['n']}",
                        ]
                    )
    lines += _md_table(
        [
            "model",
            "published n_sc_main",
            "simulated control SC",
            "published n_requeried",
            "simulated valid n (A/B/C)",
        ],
        size_rows,
    )
    lines.append("")
    if rate_rows:
        lines.append(f"Liberation-rate cells not matched ({len(rate_rows)}):")
        lines.append("")
        lines += _md_table(
            ["model", "dimension", "condition", "published", "simulated", "SP / valid"], rate_rows
        )
    else:
        lines.append("Every liberation-rate cell matches.")
    return [*lines, ""]


def _intervention_section(sim: Simulation, published: Published) -> list[str]:
    rows_out = []
    for model, rows in sim.intervention_rows.items():
        for cond, target in published.table7[model].items():
            if cond == "control":
                continue
            c = tally([r for r in rows if r["condition"] == cond], published.dimensions)[OVERALL]
            for name, got, pub in (
                ("TAR", _rate(c, STRICT), target.tar),
                ("HFR", _rate(c, *STRONG), target.hfr),
            ):
                if got != pub:
                    rows_out.append([model, cond, name, fmt_tenths(pub), fmt_tenths(got)])
    lines = ["### Table 7 (interventions P1-P3)", ""]
    if rows_out:
        lines += _md_table(["model", "condition", "column", "published", "simulated"], rows_out)
    else:
        lines.append("Every P1-P3 TAR/HFR cell matches. Control rows are not simulated here: the")
        lines.append("workflow takes them from the main control run (Table 1); see section 2.")
    return [*lines, ""]


# ------------------------------------------------------------------------- table 5


def failure_sets(sim: Simulation) -> dict[str, tuple[set[str], set[str]]]:
    """Per model: (valid item ids, failed item ids) of the control run."""
    out = {}
    for model, rows in sim.control_rows.items():
        valid = {r["item_id"] for r in rows if is_valid(r)}
        failed = {r["item_id"] for r in rows if is_valid(r) and r["judge_label"] != STRICT}
        out[model] = (valid, failed)
    return out


def pair_counts(sets, a: str, b: str) -> tuple[int, int, int]:
    """``(|A and B|, |A or B|, N)`` over the items valid for both models."""
    valid = sets[a][0] & sets[b][0]
    fa, fb = sets[a][1] & valid, sets[b][1] & valid
    return len(fa & fb), len(fa | fb), len(valid)


def pair_stats(sets, a: str, b: str) -> tuple[float, float]:
    """Co-failure rate |A and B| / N (items valid for both) and Jaccard of failure sets."""
    both, union, n = pair_counts(sets, a, b)
    return both / n, (both / union if union else 0.0)


def _printed_match(value: float, printed_thousandths: int) -> bool:
    """``value`` equals a printed three-decimal number (within half a unit)."""
    return abs(value - printed_thousandths / 1000) <= 0.0005 + 1e-12


def _table5_section(sim: Simulation, published: Published) -> list[str]:
    sets = failure_sets(sim)
    ranked = sorted(
        itertools.combinations(published.models, 2), key=lambda p: (-pair_stats(sets, *p)[1], p)
    )
    rank = {p: i + 1 for i, p in enumerate(ranked)}
    n_pairs = len(ranked)
    rows, misses = [], 0
    for pr in published.table5:
        key = (
            (pr.model_a, pr.model_b)
            if (pr.model_a, pr.model_b) in rank
            else (pr.model_b, pr.model_a)
        )
        both, _, n = pair_counts(sets, *key)
        co, jac = pair_stats(sets, *key)
        in_group = rank[key] <= 5 if pr.group == "most_similar" else rank[key] > n_pairs - 5
        ok = _printed_match(co, pr.co_failure) and _printed_match(jac, pr.jaccard) and in_group
        misses += not ok
        rows.append(
            [
                pr.group,
                f"{pr.model_a} / {pr.model_b}",
                f"{len(sets[pr.model_a][1])} / {len(sets[pr.model_b][1])}",
                f"{pr.co_failure / 1000:.3f}",
                f"{co:.3f}",
                f"{both} / {n}",
                f"{pr.jaccard / 1000:.3f}",
                f"{jac:.3f}",
                f"{rank[key]} of {n_pairs}",
            ]
        )
    all_fail = len(set.intersection(*(s[1] for s in sets.values())))
    target = published.table5_all_fail
    cal = sim.calibration
    lines = [
        "### Table 5 (failure-set similarity; calibrated)",
        "",
        "Which items a model fails (any valid label but Strict Pass) is calibrated to Table 5;",
        "how many it fails per dimension is fixed by Table 1. Targets: for each published pair",
        "the intersection |A and B| whose co-failure |A and B| / N and Jaccard",
        "|A and B| / |A or B| both round to the printed values (one integer does for every",
        "pair); every other model pair kept at least 0.005 in Jaccard below the published",
        "most-similar pairs and above the least-similar ones, so those are the simulated",
        "top-5 / bottom-5 pairs; and the published number of items failed by every model.",
        "Method (`rederive.simulate.salitrap_failsets`): the latent scores (ability -",
        "difficulty + family noise + model noise) give the starting failure sets; a",
        "deterministic local search then swaps the scores of two items of one model and",
        "dimension, one just above and one just below its Strict-Pass threshold, while a",
        "swap brings the counts closer to the targets. Per-dimension counts, and so Tables",
        "1-3, 6 and 7, are unaffected.",
        "",
    ]
    if cal is not None:
        lines += [
            f"Search: {cal.swaps} swaps (at most {2 * cal.swaps} of"
            f" {len(published.models)} x {len(sim.items)} item scores moved) in {cal.sweeps}"
            " sweeps;",
            f"remaining squared count distance to the targets: {cal.loss} (0 = every target met).",
            "",
        ]
    lines += (
        [f"All {len(published.table5)} published pairs match (co-failure, Jaccard, group).", ""]
        if misses == 0
        else [f"{misses} of {len(published.table5)} published pairs differ.", ""]
    )
    lines += _md_table(
        [
            "group",
            "pair",
            "failed (A / B)",
            "published co-failure",
            "simulated",
            "simulated A and B / N",
            "published Jaccard",
            "simulated",
            "simulated Jaccard rank",
        ],
        rows,
    )
    target_text = "not published" if target is None else str(target)
    lines += [
        "",
        f"Items failed by every model: published {target_text}, simulated {all_fail} of"
        f" {len(sim.items)} ({pct_tenths(all_fail, len(sim.items)) / 10:.1f}%).",
        "",
    ]
    return lines


def _density_section(sim: Simulation, published: Published) -> list[str]:
    """TAR and CoT-Hijacked rate by number of injected numbers, averaged over models (Fig. 6)."""
    n_numbers = {it.item_id: len(it.injected_numbers) for it in sim.items}
    per_model: dict[int, list[tuple[float, float]]] = {}
    for rows in sim.control_rows.values():
        groups: dict[int, Counter] = {}
        for r in rows:
            if is_valid(r):
                g = groups.setdefault(n_numbers[r["item_id"]], Counter())
                g[r["judge_label"]] += 1
                g["n"] += 1
        for k, c in groups.items():
            per_model.setdefault(k, []).append((c[STRICT] / c["n"], c[COT] / c["n"]))
    rows = []
    for k in sorted(per_model):
        vals = per_model[k]
        items = sum(v == k for v in n_numbers.values())
        tar = 100 * sum(v[0] for v in vals) / len(vals)
        cot = 100 * sum(v[1] for v in vals) / len(vals)
        rows.append([k, items, f"{tar:.1f}", f"{cot:.1f}"])
    lines = ["### Distractor density (paper Fig. 6; for information)", ""]
    lines += _md_table(["injected numbers", "items", "mean TAR %", "mean CoT Hijacked %"], rows)
    return [*lines, ""]


# ---------------------------------------------------------- published inconsistencies


def _si_consistency(published: Published) -> tuple[list[list], int, int]:
    """Check each SI cell against the rows Tables 1-2 leave for CoT Hijacked.

    Under disjoint labels (HFR = Hard Fail / n, the original specification), CoT
    Hijacked must fit into ``n - StrictPass - HardFail - SC``. Under the reading the
    simulation uses, ``HFR = (Hard Fail + CoT Hijacked) / n`` (the paper's "strong
    failure", labels 1-2), it must fit into the HFR count instead.
    """
    dims = published.dimensions
    rows, ok_disjoint, ok_strong = [], 0, 0
    for model in published.models:
        for d in (*dims, OVERALL):
            n = published.n_items(d) if d != OVERALL else sum(published.n_items(x) for x in dims)
            tar, hfr = published.table1[(model, d)]
            scr, si = published.table2[(model, d)]
            ks, hs, ss = rate_candidates(tar, n), rate_candidates(hfr, n), rate_candidates(scr, n)
            if not (ks and hs and ss) or si is None:
                continue
            need = {
                s: [c for c in range(n + 1) if s + c and pct_tenths(s, s + c) == si] for s in ss
            }
            room = {s: n - max(ks) - max(hs) - s for s in ss}
            fits_disjoint = any(c <= room[s] for s in ss for c in need[s])
            fits_strong = any(c <= max(hs) for s in ss for c in need[s]) and min(room.values()) >= 0
            ok_disjoint += fits_disjoint
            ok_strong += fits_strong
            if not fits_disjoint:
                s = next((x for x in ss if need[x]), ss[0])
                rows.append(
                    [
                        model,
                        d,
                        fmt_tenths(si),
                        s,
                        min(need[s]) if need[s] else "none",
                        max(room[s], 0),
                        "yes" if fits_strong else "no",
                    ]
                )
    return rows, ok_disjoint, ok_strong


def _strong_reading_models(published: Published) -> list[str]:
    """Models whose Tables 1-2 fit one labelling jointly if HFR counts Hard Fail + CoT.

    All dimension and overall cells at once, no invalid rows: SC must fit beside
    Strict Pass and the strong failures, CoT inside the strong-failure count.
    """
    dims = published.dimensions
    fits = []
    for model in published.models:
        per_dim = []
        for d in dims:
            n = published.n_items(d)
            tar, hfr = published.table1[(model, d)]
            scr, si = published.table2[(model, d)]
            ks, hs = rate_candidates(tar, n), rate_candidates(hfr, n)
            per_dim.append(
                [
                    (k, h, s, c)
                    for k in ks
                    for h in hs
                    for s in rate_candidates(scr, n)
                    if k + h + s <= n
                    for c in range(h + 1)
                    if s + c and pct_tenths(s, s + c) == si
                ]
            )
        total = sum(published.n_items(d) for d in dims)
        (tar, hfr), (scr, si) = (
            published.table1[(model, OVERALL)],
            published.table2[(model, OVERALL)],
        )
        for combo in itertools.product(*per_dim):
            k, h, s, c = (sum(x[j] for x in combo) for j in range(4))
            cells = (pct_tenths(k, total), pct_tenths(h, total), pct_tenths(s, total))
            if cells == (tar, hfr, scr) and pct_tenths(s, s + c) == si:
                fits.append(model)
                break
    return fits


def implied_liberation_n(rates: tuple[int, int, int], limit: int) -> int | None:
    """Smallest valid n for which all three printed rates are exact fractions."""
    for n in range(1, limit + 1):
        if all(rate_candidates(r, n) for r in rates):
            return n
    return None


def _sc_implied(published: Published, model: str, d: str) -> list[int]:
    n = (
        published.n_items(d)
        if d != OVERALL
        else sum(published.n_items(x) for x in published.dimensions)
    )
    return rate_candidates(published.table2[(model, d)][0], n)


def _table6_consistency(published: Published) -> list[str]:
    dims = published.dimensions
    lines = []
    header = [
        "model",
        "n_sc_main",
        "SC implied by Table 2 SCR x items",
        "SC per dimension implied by Table 2",
        "implied valid n per dimension",
        "sum",
        "n_requeried",
        "Table-2 models whose SC counts fit this row",
    ]
    rows = []
    for model, lib in published.table6.items():
        implied = {d: implied_liberation_n(lib.rates[d], 1000) for d in dims}
        fits = [
            m
            for m in published.models
            if lib.n_sc_main in _sc_implied(published, m, OVERALL)
            and all(
                implied[d] is not None and max(_sc_implied(published, m, d) or [0]) >= implied[d]
                for d in dims
            )
        ]
        rows.append(
            [
                model,
                lib.n_sc_main,
                "/".join(map(str, _sc_implied(published, model, OVERALL))),
                ", ".join("/".join(map(str, _sc_implied(published, model, d))) for d in dims),
                ", ".join(f"{implied[d]}" for d in dims),
                sum(v or 0 for v in implied.values()),
                lib.n_requeried,
                ", ".join(fits) or "none",
            ]
        )
    lines += _md_table(header, rows)
    lines += [
        "",
        "Dimensions in Table 3 order. The implied valid n is the smallest n at which all three",
        "printed rates of a dimension are exact fractions k/n; it must not exceed that",
        "dimension's SC count. The last column names the Table 2 models whose SC counts",
        "(overall equal to n_sc_main, per dimension at least the implied n) fit the row.",
        "",
    ]
    return lines


def _delta_verdict(printed: str, recomputed: int) -> str:
    """Compare a printed TAR delta with (condition TAR - printed control TAR)."""
    if not printed:
        return "no delta printed"
    value = to_tenths(printed)
    if printed[0] not in "+-" and recomputed < 0:
        return "sign missing: TAR fell"
    if abs(value - recomputed) <= 1:
        return "within rounding"
    return "differs"


def _table7_consistency(published: Published) -> list[str]:
    rows = []
    for model, conds in published.table7.items():
        ctrl = conds.get("control")
        if ctrl is None:
            continue
        t1 = published.table1.get((model, OVERALL))
        same = [m for m in published.models if published.table1[(m, OVERALL)][0] == ctrl.tar]
        verdict = "equals Table 1" if t1 == (ctrl.tar, ctrl.hfr) else "differs from Table 1"
        rows.append(
            [
                model,
                "control",
                f"{fmt_tenths(ctrl.tar)} / {fmt_tenths(ctrl.hfr)}",
                f"Table 1 overall {fmt_tenths(t1[0])} / {fmt_tenths(t1[1])}" if t1 else "--",
                verdict + "; Table 1 models with this TAR: " + (", ".join(same) or "none"),
            ]
        )
        for cond, row in conds.items():
            if cond == "control":
                continue
            recomputed = row.tar - ctrl.tar
            vs_t1 = f"; vs Table 1 control {fmt_tenths(row.tar - t1[0])}" if t1 else ""
            rows.append(
                [
                    model,
                    cond,
                    f"delta printed {row.delta_printed}",
                    f"TAR - printed control = {fmt_tenths(recomputed)}{vs_t1}",
                    _delta_verdict(row.delta_printed, recomputed),
                ]
            )
    lines = _md_table(["model", "row", "Table 7", "reference", "verdict"], rows)
    return [*lines, ""]


def _table5_consistency(published: Published) -> list[list[str]]:
    """Jaccard implied by co-failure and Table 1 TAR, with the printed rounding allowed for."""
    rows = []
    for pr in published.table5:
        fa = 1 - published.table1[(pr.model_a, OVERALL)][0] / 1000
        fb = 1 - published.table1[(pr.model_b, OVERALL)][0] / 1000
        c = pr.co_failure / 1000
        lo_c, hi_c = c - 0.0005, c + 0.0005
        j_lo = lo_c / (fa + fb + 0.001 - lo_c)
        j_hi = hi_c / (fa + fb - 0.001 - hi_c)
        j = pr.jaccard / 1000
        ok = j_lo - 0.0005 <= j <= j_hi + 0.0005 and c <= min(fa, fb) + 0.0015
        rows.append(
            [
                f"{pr.model_a} / {pr.model_b}",
                f"{j:.3f}",
                f"{c / (fa + fb - c):.3f}",
                "ok" if ok else "INCONSISTENT",
            ]
        )
    return rows


def _ties_section(sim: Simulation) -> list[str]:
    tied = [(m, c.ties) for m, c in sim.control_counts.items() if c.ties]
    tied += [
        (f"{m} {k}", ("overall TAR/HFR",))
        for m, d in sim.intervention_counts.items()
        for k, c in d.items()
        if c.tie
    ]
    if not tied:
        return [
            "No simulated cell lies exactly on a .x5 boundary, so any rounding convention",
            "gives the same one-decimal values.",
            "",
        ]
    return (
        [
            "Cells exactly on a .x5 boundary (they match only under round-half-up; the solver",
            "avoids such cells wherever another exact solution exists):",
            "",
        ]
        + [f"- {m}: {', '.join(cells)}" for m, cells in tied]
        + [""]
    )


def _invalid_section(sim: Simulation) -> list[str]:
    rows = []
    for label, runs in (
        ("control", sim.control_rows),
        ("liberation", sim.liberation_rows),
        ("interventions", sim.intervention_rows),
    ):
        for model, rs in runs.items():
            kinds = Counter(
                "Skipped" if r["skipped"] else r["judge_label"] for r in rs if not is_valid(r)
            )
            if kinds:
                rows.append([model, label, ", ".join(f"{k} {v}" for k, v in sorted(kinds.items()))])
    return [*_md_table(["model", "run", "invalid rows"], rows), ""]


# ------------------------------------------------------------------------- assembly


def _hfr_reading(sim: Simulation, published: Published) -> list[str]:
    """Section 0: which HFR definition the simulation uses, and why."""
    _, ok_disjoint, ok_strong = _si_consistency(published)
    strong = _strong_reading_models(published)
    n_si = len(published.models) * (len(published.dimensions) + 1)
    lines = [
        "## HFR reading used here",
        "",
        "HFR = (Hard Fail + CoT Hijacked) / valid rows: the paper's 'strong failures' (judge",
        "labels 1-2; the method section labels strong failures, labels 1-2, and all failures,",
        "labels 1-3, separately). TAR = Strict Pass / n, SCR = Sycophantic Compliance / n,",
        "SI = SC / (SC + CoT Hijacked). CoT Hijacked is therefore carved out of the HFR rows",
        "(CoT <= HFR x n, Hard Fail = HFR x n - CoT); the remaining",
        "n - (TAR + HFR + SCR) x n rows are Refusal or Patch Compliance. The workflow's config",
        "(`config/kinds/salitrap.yaml`, `metrics.HFR.numerator: [Hard Fail, CoT Hijacked]`) uses the",
        "same reading.",
        "",
        "Why: read as Hard Fail / n with disjoint labels (the original specification), the",
        f"paper's Tables 1 and 2 contradict each other in {n_si - ok_disjoint} of {n_si} SI cells: the",
        "CoT-Hijacked count that SI requires does not fit into n - StrictPass - HardFail - SC.",
        f"With strong failures {ok_strong} of {n_si} cells are consistent cell by cell, and"
        f" {len(strong)} of {len(published.models)}",
        "models fit all their Table 1-2 cells with one set of integer counts (section 2).",
        "",
    ]
    if all(not any(c.invalid.values()) for c in sim.control_counts.values()):
        lines += [
            "The control runs carry no invalid rows: an invalid row shrinks a dimension's",
            "denominator, and the published rates are exact fractions of the full item counts,",
            "so every layout with 1-4 invalid rows misses some Table 1 or Table 2 cell. Invalid",
            "rows (all four kinds) occur in the liberation and intervention runs.",
            "",
        ]
    return lines


def render_report(sim: Simulation, published: Published) -> str:
    """The full ``simulation_report.md`` text."""
    t1, t2 = _control_misses(sim, published)
    t3 = _table3_misses(sim, published)
    si_rows, ok_disjoint, ok_strong = _si_consistency(published)
    strong = _strong_reading_models(published)
    misfits = [m for m in published.models if m not in strong]
    misfit_note = f" (not: {', '.join(misfits)})" if misfits else ""
    n_si = len(published.models) * (len(published.dimensions) + 1)
    lines = [
        "# SaliTrap simulation report",
        "",
        f"Generated by `rederive.simulate.salitrap` with seed {sim.seed}. The data in this folder is",
        "SIMULATED and calibrated to the published aggregates; it is not the authors' model output.",
        "All values below are recounted from the generated rows (valid rows only in denominators,",
        "rates rounded half-up on the exact fraction).",
        "",
        *_hfr_reading(sim, published),
        "## 1. Published cells the simulation does not match",
        "",
        "### Table 1 (TAR/HFR, exact match required; HFR = (Hard Fail + CoT Hijacked) / n)",
        "",
    ]
    lines += (
        _md_table(["model", "dimension", "column", "published", "simulated"], t1)
        if t1
        else [f"All {2 * n_si} cells match exactly."]
    )
    lines += ["", *_ties_section(sim), "### Table 2 (SCR/SI)", ""]
    if t2:
        lines += [
            f"{len(t2)} of {2 * n_si} cells differ (the integer counts allow no closer"
            " solution). SC/CoT are the",
            "simulated counts, n the valid rows.",
            "",
            *_md_table(
                ["model", "dimension", "column", "published", "simulated", "SC", "CoT", "n"], t2
            ),
        ]
    else:
        lines.append(f"All {2 * n_si} cells (SCR and SI) match exactly.")
    lines += ["", "### Table 3 (dataset)", ""]
    lines += (
        _md_table(["dimension", "column", "published", "simulated"], t3)
        if t3
        else ["All cells match."]
    )
    lines += ["", *_liberation_section(sim, published), *_intervention_section(sim, published)]
    lines += [*_table5_section(sim, published), *_density_section(sim, published)]
    lines += ["### Invalid rows in the simulated runs", "", *_invalid_section(sim)]
    lines += [
        "## 2. Inconsistencies between the published tables",
        "",
        "### SI (Table 2) against TAR/HFR (Table 1) and SCR (Table 2)",
        "",
        f"With disjoint labels (HFR = Hard Fail / n), {n_si - ok_disjoint} of {n_si} SI cells"
        " are unreachable:",
        "SI = SC / (SC + CoT) needs more CoT-Hijacked rows than n - StrictPass - HardFail - SC",
        "leaves. Reading HFR as (Hard Fail + CoT Hijacked) / n (the paper's 'strong failure',",
        f"labels 1-2) makes {ok_strong} of {n_si} cells consistent (checked cell by cell); the",
        "simulation uses that reading. 'CoT needed' is the smallest CoT count giving the printed SI",
        "under disjoint labels.",
        "",
        "Jointly (all dimension and overall cells of Tables 1-2 with one set of counts, no invalid",
        f"rows) the (Hard Fail + CoT Hijacked) reading fits {len(strong)} of {len(published.models)}"
        f" models{misfit_note}.",
        "",
        *_md_table(
            [
                "model",
                "dimension",
                "published SI",
                "SC",
                "CoT needed",
                "rows left for CoT",
                "fits if HFR includes CoT",
            ],
            si_rows,
        ),
        "",
        "### Table 6 against Table 2",
        "",
        *_table6_consistency(published),
        "### Table 7 against Table 1 and its own control rows",
        "",
        *_table7_consistency(published),
        "### Table 5: Jaccard implied by co-failure rate and Table 1 TAR",
        "",
        *_md_table(["pair", "printed Jaccard", "implied", "check"], _table5_consistency(published)),
        "",
    ]
    return "\n".join(lines) + "\n"


def render_simulated_note(seed: int) -> str:
    """The ``SIMULATED.md`` text."""
    return "\n".join(
        [
            "# Simulated data",
            "",
            "Every file in this folder except `published/` is SIMULATED. The files were written by",
            f"`rederive.simulate.salitrap` with seed {seed}, calibrated to the aggregates published in",
            "the SaliTrap paper (`published/`). They are NOT the authors' model outputs, which are",
            "not public; item texts are templated placeholders marked `[simulated]`.",
            "",
            "What is reproduced: Tables 1 and 2 (TAR/HFR, SCR/SI) and Table 3 exactly, Table 5",
            "(co-failure and Jaccard of the published most/least similar pairs, items failed by",
            "every model) exactly, Tables 6 and 7 as closely as integer counts and the published",
            "tables' own consistency allow.",
            "HFR is read as (Hard Fail + CoT Hijacked) / valid rows, the paper's 'strong failures'",
            "(labels 1-2): only under that reading are the paper's Tables 1 and 2 consistent with",
            "each other (see `simulation_report.md`).",
            "`simulation_report.md` lists every cell that differs and every inconsistency found",
            "between the published tables.",
            "",
            "Regenerate (byte-identical) from the repository root, with the project's",
            "environment active (or `PYTHONPATH=scripts` set):",
            "",
            "```",
            COMMAND.format(seed=seed),
            "```",
            "",
            "Real runs (the authors' or your own) go into the same folders in the same format.",
            "",
        ]
    )
