"""The gate's verdicts: a baseline against each candidate, overall and per task, and the exit status.

Every number comes from :mod:`rederive.stats.gate` on the aligned pair
(:mod:`rederive.gate.data`); this module adds what the report needs around it:
the items the two models did not share, the epochs that would decide an
inconclusive gate (:mod:`rederive.stats.noise`, :func:`rederive.stats.power.epochs_needed`),
the per-task gates with BH, and the exit status of ``--fail-on``.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from rederive.errors import InputError
from rederive.gate.data import Pair, align, clusters_of
from rederive.stats import gate as stats_gate
from rederive.stats.noise import item_summary, pair_components
from rederive.stats.power import POWER_METHOD, epochs_needed

#: Version of gate.json's layout (docs/gate.md); a change that removes or
#: renames a field, or changes a field's meaning, increments it.
SCHEMA_VERSION = 1

#: ``fail_on`` values, and the exit status of each failing verdict.
FAIL_ON = ("worse", "inconclusive", "not-better")
EXIT_PASS = 0
EXIT_WORSE = 1
EXIT_INCONCLUSIVE = 2
EXIT_UNUSABLE = 3
EXIT_NOT_BETTER = 4


@dataclass(frozen=True)
class Settings:
    """What the gate decides at (the analysis's ``gate:`` block and the CLI flags).

    Attributes
    ----------
    margin_pp : float
        Non-inferiority margin, percentage points (≥ 0).
    level : float
        Two-sided confidence level; every one-sided test is at ``(1 − level)/2``.
    by : str
        ``none`` or ``task`` (per-task gates with BH across tasks).
    cluster_by : str
        ``none``, ``category`` or ``group`` (clustered t with C − 1 df).
    fail_on : str
        One of :data:`FAIL_ON`.
    min_n : int
        Fewest shared items a verdict rests on (fewer: ``inconclusive``; a task
        with fewer stays out of the BH family).
    power : float
        Target power of the MDE and of the items or epochs needed.
    """

    margin_pp: float = 1.0
    level: float = 0.95
    by: str = "none"
    cluster_by: str = "none"
    fail_on: str = "inconclusive"
    min_n: int = 20
    power: float = 0.8

    def __post_init__(self):
        if not 0 <= self.margin_pp <= 100:
            raise ValueError(f"margin_pp must be in [0, 100], got {self.margin_pp}")
        if not 0.5 < self.level < 1:
            raise ValueError(f"level must be in (0.5, 1), got {self.level}")
        if self.by not in ("none", "task"):
            raise ValueError(f"by must be none or task, got {self.by!r}")
        if self.cluster_by not in ("none", "category", "group"):
            raise ValueError(f"cluster_by must be none, category or group, got {self.cluster_by!r}")
        if self.fail_on not in FAIL_ON:
            raise ValueError(f"fail_on must be one of {', '.join(FAIL_ON)}, got {self.fail_on!r}")
        if self.min_n < 2:
            raise ValueError(f"min_n must be at least 2, got {self.min_n}")
        if not 0 < self.power < 1:
            raise ValueError(f"power must be in (0, 1), got {self.power}")

    @property
    def margin(self) -> float:
        return self.margin_pp / 100.0

    @property
    def alpha_one_sided(self) -> float:
        # Rounded: (1 - 0.95) / 2 is 0.025000000000000022 in binary floating point.
        return round((1.0 - self.level) / 2.0, 12)

    def as_dict(self) -> dict:
        return {**asdict(self), "alpha_one_sided": self.alpha_one_sided}


#: Decimals of the percentage-point fields and significant digits of the p-values
#: in the report: far below any decision, and the same text on every platform.
PP_DECIMALS = 6
P_DIGITS = 6


def _finite(x) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None


def _pp(x) -> float | None:
    x = _finite(x)
    return None if x is None else round(100.0 * x, PP_DECIMALS)


def _whole(x) -> int | None:
    x = _finite(x)
    return None if x is None else int(x)


def _p(x) -> float | None:
    x = _finite(x)
    return None if x is None else float(f"{x:.{P_DIGITS}g}")


def row(decision: dict, settings: Settings) -> dict:
    """A gate row (overall or a task) in the report's units: percentage points."""
    out = {
        "n_items": int(decision["n_items"]),
        "n_units": int(decision["n_units"]),
        "baseline_pct": _pp(decision["baseline"]),
        "candidate_pct": _pp(decision["candidate"]),
        "diff_pp": _pp(decision["diff"]),
        "ci_low_pp": _pp(decision["ci_low"]),
        "ci_high_pp": _pp(decision["ci_high"]),
        "ci_method": decision["ci_method"],
        "p_method": decision["p_method"],
        "p_better": _p(decision["p_better"]),
        "p_not_worse": _p(decision["p_not_worse"]),
        "p_worse": _p(decision["p_worse"]),
        "n_candidate_higher": int(decision["cand_only"]),
        "n_baseline_higher": int(decision["base_only"]),
        "verdict": decision["verdict"],
        "reason": decision["reason"],
        "distance_pp": _pp(decision["distance"]),
        "sd_unit_pp": _pp(decision["sd_unit"]),
        "mde_pp": _pp(decision["mde"]),
        "power_method": POWER_METHOD[decision["power_test"]],
        "units_needed": _whole(decision["units_needed"]),
        "items_needed": _whole(decision["items_needed"]),
        "small_n": bool(decision["n_items"] < settings.min_n),
    }
    return out


def _epochs_needed(pair: Pair, distance: float, settings: Settings) -> tuple[int | None, str]:
    """Epochs per item that would decide the gate at the items it has, and why not.

    The power form is that of the test the design would be decided by
    (:func:`rederive.stats.power.epochs_test`): one epoch gives 0/1 scores,
    decided by Tango's interval and exact McNemar (z form); ``K ≥ 2`` epochs
    give epoch means, decided by the paired t interval on the items (t form,
    ``n − 1`` df). Not computed with clusters (the noise split is per item).
    """
    if settings.cluster_by != "none":
        return None, "not computed with cluster_by (the noise decomposition is per item)"
    comp = pair_components(item_summary(pair.epochs), "candidate", "baseline")
    if comp.note:
        return None, comp.note
    k = epochs_needed(
        comp.var_between,
        comp.var_within,
        comp.n_items,
        distance,
        alpha=1.0 - settings.level,
        power=settings.power,
    )
    if not math.isfinite(k):
        return None, (
            "no number of epochs decides it at these items: the between-item variance "
            "alone puts the MDE above the distance to the margin"
        )
    return int(k), ""


def _small(decision: dict, settings: Settings) -> dict:
    if decision["n_items"] < settings.min_n and decision["verdict"] != stats_gate.INCONCLUSIVE:
        decision = {
            **decision,
            "verdict": stats_gate.INCONCLUSIVE,
            "reason": f"{decision['n_items']} shared items, fewer than min_n = {settings.min_n} "
            f"(the interval alone would say {decision['verdict']})",
        }
    return decision


def compare(pair: Pair, settings: Settings) -> dict:
    """One candidate against the baseline: the overall gate, the task gates, what is left out."""
    items = pair.items
    if len(items) < 2:
        raise InputError(
            f"baseline {pair.baseline.model!r} and candidate {pair.candidate.model!r} share "
            f"{len(items)} item: a paired difference needs at least 2",
            file=pair.candidate.source,
        )
    clusters = clusters_of(items, settings.cluster_by)
    b = items["baseline"].to_numpy(dtype=float)
    c = items["candidate"].to_numpy(dtype=float)
    decision = stats_gate.gate(
        b, c, margin=settings.margin, level=settings.level, clusters=clusters, power=settings.power
    ).as_dict()
    decision = _small(decision, settings)
    overall = row(decision, settings)
    overall["epochs_needed"], overall["epochs_note"] = _epochs_needed(
        pair, decision["distance"], settings
    )
    tasks = []
    if settings.by == "task":
        for r in stats_gate.gate_by_group(
            b,
            c,
            items["task"].astype(str).to_numpy(),
            margin=settings.margin,
            level=settings.level,
            clusters=clusters,
            power=settings.power,
            min_n=settings.min_n,
        ):
            if "diff" in r:
                task_row = row(r, settings)
            else:  # too few items: every field present, the numbers null
                task_row = dict.fromkeys(overall) | {
                    "n_items": r["n_items"],
                    "verdict": r["verdict"],
                    "small_n": True,
                }
                for key in ("epochs_needed", "epochs_note"):
                    task_row.pop(key)
            task_row.update(
                {
                    "task": r["group"],
                    "in_family": r["in_family"],
                    "reason": r["reason"],
                    **{k: _p(r[k]) for k in ("q_better", "q_not_worse", "q_worse")},
                }
            )
            tasks.append(task_row)
    notes = list(dict.fromkeys([*pair.baseline.notes, *pair.candidate.notes]))
    for role, side, n in (
        ("baseline", pair.baseline, pair.n_baseline_only),
        ("candidate", pair.candidate, pair.n_candidate_only),
    ):
        if n:
            other = "candidate" if role == "baseline" else "baseline"
            notes.append(
                f"{n:,} item(s) answered only by the {role} {side.model!r} are left out "
                f"(the {other} has no score on them)"
            )
    regressed = [t["task"] for t in tasks if t["verdict"] == stats_gate.WORSE]
    return {
        "candidate": {"model": pair.candidate.model, "source": pair.candidate.source},
        "n_items": int(len(items)),
        "n_baseline_only": int(pair.n_baseline_only),
        "n_candidate_only": int(pair.n_candidate_only),
        "overall": overall,
        "tasks": tasks,
        "regressed_tasks": regressed,
        "notes": notes,
    }


def fails(comparison: dict, fail_on: str) -> int:
    """Exit status of one comparison under ``fail_on`` (0 when it passes)."""
    verdict = comparison["overall"]["verdict"]
    if verdict == stats_gate.WORSE or comparison["regressed_tasks"]:
        return EXIT_WORSE
    if verdict == stats_gate.INCONCLUSIVE and fail_on != "worse":
        return EXIT_INCONCLUSIVE
    if verdict == stats_gate.NOT_WORSE and fail_on == "not-better":
        return EXIT_NOT_BETTER
    return EXIT_PASS


def exit_status(codes: list[int]) -> int:
    """The gate's status over its candidates: worse before inconclusive before not better."""
    for code in (EXIT_WORSE, EXIT_INCONCLUSIVE, EXIT_NOT_BETTER):
        if code in codes:
            return code
    return EXIT_PASS


def run_gate(
    baseline_source, baseline: str, candidate_source, candidates: list[str], settings: Settings
) -> dict:
    """The whole report (gate.json's content): every candidate against the baseline.

    Parameters
    ----------
    baseline_source, candidate_source
        :func:`rederive.gate.data.open_source` results; the same object when the
        two models come from one analysis or one folder.
    baseline : str
        The baseline model's name in its source.
    candidates : list of str
        Candidate model names in their source, in the order given.
    settings : Settings
    """
    if not candidates:
        raise InputError("name at least one candidate")
    if len(set(candidates)) != len(candidates):
        raise InputError("a candidate is named twice")
    same = baseline_source is candidate_source
    if same and baseline in candidates:
        raise InputError(
            f"{baseline!r} is both the baseline and a candidate of one source; to gate a model "
            "against its earlier runs, give the earlier folder with --baseline-from",
            file=baseline_source.label,
        )
    comparisons = []
    if same:
        loaded = None
        if baseline_source.kind == "analysis":
            loaded = baseline_source.load([baseline, *candidates])
        for name in candidates:
            pair_scores = loaded or baseline_source.load([baseline, name])
            pair = align(pair_scores[baseline], pair_scores[name], settings.cluster_by)
            comparisons.append(compare(pair, settings))
    else:
        base = baseline_source.load([baseline])[baseline]
        for name in candidates:
            cand = candidate_source.load([name])[name]
            comparisons.append(compare(align(base, cand, settings.cluster_by), settings))
    codes = [fails(c, settings.fail_on) for c in comparisons]
    for comparison, code in zip(comparisons, codes, strict=True):
        comparison["exit_code"] = code
        comparison["passed"] = code == EXIT_PASS
    status = exit_status(codes)
    return {
        "schema_version": SCHEMA_VERSION,
        "settings": settings.as_dict(),
        "baseline": {"model": baseline, "source": baseline_source.label},
        "comparisons": comparisons,
        "exit_code": status,
        "passed": status == EXIT_PASS,
    }
