"""Which items get which judge label, given the label counts.

A latent score ``z = ability - difficulty + family noise + model noise`` orders
the items of each model; the counts from :mod:`rederive.simulate.salitrap_counts`
are then handed out along that order (best scores -> Strict Pass, worst -> the
strong failures, Hard Fail and CoT Hijacked, whose count is the HFR numerator).
Shared difficulty and family noise make related models fail the same
items (paper Table 5 / Fig. 5; :mod:`rederive.simulate.salitrap_failsets` then
calibrates the scores to Table 5's numbers); the difficulty's dependence on the number of
injected numbers makes denser prompts fail more often (paper Fig. 6).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import cycle

import numpy as np

from rederive.simulate.salitrap_counts import ControlCounts, LiberationCounts, OverallCounts
from rederive.simulate.salitrap_items import Item
from rederive.simulate.salitrap_published import DIMENSION_TAGS

STRICT = "Strict Pass"
SC = "Sycophantic Compliance"
COT = "CoT Hijacked"
HARD = "Hard Fail"
REFUSAL = "Refusal"
PATCH = "Patch Compliance"

CONTROL = "control"
LIBERATION_CONDITIONS = ("lib_A", "lib_B", "lib_C")
INTERVENTION_CONDITIONS = ("P1", "P2", "P3")

#: Invalid-row kinds as the authors' eval script writes them (label, skipped, error).
INVALID_KINDS = {
    "Skipped": (
        "Skipped",
        True,
        "RuntimeError('exceeded max retries 50 for model={model}') [simulated]",
    ),
    "JudgeError": ("JudgeError", False, "judge call failed: ReadTimeout [simulated]"),
    "Unknown": ("Unknown", False, None),
    "Error": ("Error", False, "RuntimeError('HTTP 502: upstream gateway error') [simulated]"),
}
LIBERATION_ERROR_KINDS = ("JudgeError", "Error")


@dataclass(frozen=True)
class LatentParams:
    """Noise scales (logit units) of the latent score and label placement."""

    family_sd: float = 0.6
    model_sd: float = 0.7
    cot_per_number: float = 0.35
    placement_sd: float = 0.5
    liberation_sd: float = 1.0
    intervention_sd: float = 0.6
    intervention_refusal: float = 0.08
    intervention_patch: float = 0.07


def latent_scores(
    items: list[Item],
    models: list[str],
    families: dict[str, str],
    abilities: dict[str, float],
    params: LatentParams,
    rng: np.random.Generator,
) -> np.ndarray:
    """Latent score matrix ``(models x items)``; higher = more likely to avoid the trap.

    Ability is a constant per model and so does not change a model's own ranking;
    it is kept so that ``z`` reads as a logit (positive ~ likely pass).
    """
    difficulty = np.array([it.difficulty for it in items])
    family_names = list(dict.fromkeys(families[m] for m in models))
    family_noise = rng.normal(0, params.family_sd, (len(family_names), len(items)))
    model_noise = rng.normal(0, params.model_sd, (len(models), len(items)))
    rows = [
        abilities[m] - difficulty + family_noise[family_names.index(families[m])] + model_noise[j]
        for j, m in enumerate(models)
    ]
    return np.vstack(rows)


def _ranked(indices: np.ndarray, score: np.ndarray) -> np.ndarray:
    """``indices`` sorted by descending ``score`` (stable, so ties keep item order)."""
    return indices[np.argsort(-score[indices], kind="stable")]


def _split_strong(
    strong: np.ndarray,
    n_cot: int,
    z: np.ndarray,
    n_numbers: np.ndarray,
    params: LatentParams,
    rng: np.random.Generator,
) -> dict[int, str]:
    """Split the strong failures (paper labels 1-2) into CoT Hijacked and Hard Fail.

    CoT Hijacked (the trap is noticed only after the arithmetic has started) goes to
    the milder failures -- higher latent score -- with many injected numbers, so the
    CoT rate rises with distractor density as in the paper's Fig. 6. The rest never
    notice the trap: Hard Fail.
    """
    if len(strong) == 0:
        return {}
    cot_key = (
        params.cot_per_number * (n_numbers[strong] - n_numbers.mean())
        + z[strong]
        + rng.normal(0, params.placement_sd, len(strong))
    )
    by_cot = strong[np.argsort(-cot_key, kind="stable")]
    labels = dict.fromkeys(by_cot[:n_cot].tolist(), COT)
    labels.update(dict.fromkeys(by_cot[n_cot:].tolist(), HARD))
    return labels


def _split_middle(
    middle: np.ndarray, counts: dict[str, int], rng: np.random.Generator
) -> dict[int, str]:
    """Share the in-between items out at random as Refusal, Patch Compliance and SC."""
    rest = rng.permutation(middle)
    n_ref, n_patch = counts[REFUSAL], counts[PATCH]
    labels = dict.fromkeys(rest[:n_ref].tolist(), REFUSAL)
    labels.update(dict.fromkeys(rest[n_ref : n_ref + n_patch].tolist(), PATCH))
    labels.update(dict.fromkeys(rest[n_ref + n_patch :].tolist(), SC))
    return labels


def _place(
    valid: np.ndarray,
    score: np.ndarray,
    counts: dict[str, int],
    z: np.ndarray,
    n_numbers: np.ndarray,
    params: LatentParams,
    rng: np.random.Generator,
) -> dict[int, str]:
    """Top ``Strict Pass`` by score, bottom the strong failures (Hard Fail + CoT), middle rest.

    The strong failures are split by ``_split_strong``, the middle by ``_split_middle``.
    """
    order = _ranked(valid, score)
    k, f = counts[STRICT], counts[HARD] + counts[COT]
    labels = dict.fromkeys(order[:k].tolist(), STRICT)
    labels.update(_split_strong(order[len(order) - f :], counts[COT], z, n_numbers, params, rng))
    labels.update(_split_middle(order[k : len(order) - f], counts, rng))
    return labels


def control_labels(
    counts: ControlCounts,
    z: np.ndarray,
    dim_index: dict[str, np.ndarray],
    n_numbers: np.ndarray,
    params: LatentParams,
    rng: np.random.Generator,
) -> tuple[dict[int, str], list[int]]:
    """Labels of one model's control run.

    Returns
    -------
    tuple
        ``(labels by item index, invalid item indices)``; invalid items get no label here.
    """
    labels: dict[int, str] = {}
    invalid: list[int] = []
    for d, idx in dim_index.items():
        bad = np.sort(rng.choice(idx, counts.invalid[d], replace=False))
        invalid += bad.tolist()
        valid = np.setdiff1d(idx, bad)
        cell = {
            STRICT: counts.strict[d],
            HARD: counts.hard[d],
            COT: counts.cot[d],
            REFUSAL: counts.refusal[d],
            PATCH: counts.patch[d],
        }
        labels.update(_place(valid, z, cell, z, n_numbers, params, rng))
    return labels, sorted(invalid)


def liberation_labels(
    counts: LiberationCounts,
    sc_items: dict[str, np.ndarray],
    z: np.ndarray,
    params: LatentParams,
    rng: np.random.Generator,
) -> dict[str, tuple[dict[int, str], list[int]]]:
    """Labels of the re-queried SC cases, per liberation condition.

    Items with a higher control score are more likely to be liberated; the
    non-liberated keep mostly complying. Returns ``condition -> (labels, errors)``.
    """
    out = {}
    others = np.array([SC, COT, PATCH, REFUSAL])
    for j, cond in enumerate(LIBERATION_CONDITIONS):
        labels: dict[int, str] = {}
        errors: list[int] = []
        for d, idx in sc_items.items():
            n_err = len(idx) - counts.n_valid[d]
            bad = np.sort(rng.choice(idx, n_err, replace=False))
            errors += bad.tolist()
            valid = np.setdiff1d(idx, bad)
            score = z + rng.normal(0, params.liberation_sd, len(z))
            order = _ranked(valid, score)
            k = counts.strict[d][j]
            labels.update(dict.fromkeys(order[:k].tolist(), STRICT))
            rest = order[k:]
            drawn = rng.choice(others, size=len(rest), p=[0.6, 0.15, 0.15, 0.1])
            labels.update(zip(rest.tolist(), drawn.tolist(), strict=True))
        out[cond] = (labels, sorted(errors))
    return out


def _largest_remainder(total: int, weights: dict[str, float]) -> dict[str, int]:
    """Integer shares of ``total`` proportional to ``weights`` (sum exactly ``total``)."""
    norm = sum(weights.values()) or 1.0
    raw = {k: total * w / norm for k, w in weights.items()}
    base = {k: int(np.floor(v)) for k, v in raw.items()}
    short = total - sum(base.values())
    for k in sorted(raw, key=lambda k: (-(raw[k] - base[k]), k))[:short]:
        base[k] += 1
    return base


def intervention_labels(
    counts: OverallCounts,
    control: ControlCounts,
    z: np.ndarray,
    n_numbers: np.ndarray,
    params: LatentParams,
    rng: np.random.Generator,
) -> tuple[dict[int, str], list[int]]:
    """Labels of one model under one prompt intervention (ranked over all items).

    The strong failures (the HFR numerator) keep the control run's Hard Fail : CoT
    balance; the middle is SC plus small fixed Refusal and Patch shares.
    """
    everything = np.arange(len(z))
    bad = np.sort(rng.choice(everything, counts.invalid, replace=False))
    valid = np.setdiff1d(everything, bad)
    score = z + rng.normal(0, params.intervention_sd, len(z))
    hard, cot = sum(control.hard.values()), sum(control.cot.values())
    strong = _largest_remainder(
        counts.strong,
        {
            HARD: hard / (hard + cot) if hard + cot else 0.5,
            COT: cot / (hard + cot) if hard + cot else 0.5,
        },
    )
    middle = counts.n - counts.strict - counts.strong
    shares = _largest_remainder(
        middle,
        {
            SC: 1 - params.intervention_refusal - params.intervention_patch,
            REFUSAL: params.intervention_refusal,
            PATCH: params.intervention_patch,
        },
    )
    cell = {STRICT: counts.strict, **strong, **shares}
    return _place(valid, score, cell, z, n_numbers, params, rng), bad.tolist()


def run_row(item: Item, model: str, condition: str, label: str) -> dict:
    """One valid run record, fields in the authors' order plus ``condition``."""
    return {
        "item_id": item.item_id,
        "model_id": model,
        "seed_id": item.seed_id,
        "dimension_tag": DIMENSION_TAGS[item.dimension],
        "judge_label": label,
        "skipped": False,
        "error": None,
        "condition": condition,
    }


def invalid_row(item: Item, model: str, condition: str, kind: str) -> dict:
    """One unusable run record of the given kind (see ``INVALID_KINDS``)."""
    label, skipped, error = INVALID_KINDS[kind]
    row = run_row(item, model, condition, label)
    row["skipped"] = skipped
    row["error"] = None if error is None else error.format(model=model)
    return row


def kind_cycle(kinds) -> cycle:
    """Round-robin over invalid kinds, so every kind occurs once enough rows are invalid."""
    return cycle(kinds)
