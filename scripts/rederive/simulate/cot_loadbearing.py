"""Seeded simulator of the CoT load-bearing continuations (paper 003).

The paper's raw continuations are not public. This generator writes data in the
study's raw format (``raw/cot_loadbearing/runs/<model>.jsonl`` and
``raw/cot_loadbearing/baselines.csv``) calibrated to the published aggregates in
``raw/cot_loadbearing/published/*.csv``:

* Label counts are fixed per *cell* (model × experiment × dataset × subject group)
  by largest-remainder apportionment of the published shares, so Table 1, Table 2,
  the MMLU subject spread, DeepSeek's per-dataset rates and the overall C rates come
  out at the published value up to rounding.
* Within a cell, which rows are Type C is drawn by Gumbel top-k on a row propensity
  (problem effect, perturbation position, remaining steps, strength), so the
  position and remaining-step gradients and the difficulty signal *emerge* from the
  rows rather than being written in; their strength constants below were tuned by
  hand against the published gradients and Table 5.
* Continuation texts are templated to be hard for a cue-word classifier: many
  corrections carry no cue word, some bypasses use a cue word in passing, some
  propagated errors contain cue words, and equal answers are sometimes formatted
  differently ("(B)" vs "B", "1,200" vs "1200").

Shares the paper does not publish (Llama and DeepSeek per-dataset A/B, the A/B split
of the decoupling runs) are marked ``CHOSEN`` below.

References
----------
Paper 003 (CoT load-bearing): Table 1, Table 2, Table 5, Table 6, §5.3, §5.6, Figure 3.
"""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.optimize import brentq
from scipy.special import expit, logit

from rederive.stats.bootstrap import rng_for

MATH = ("numeric_value", "operator_swap")
CONCEPTUAL = (
    "confidence_injection",
    "false_elimination",
    "reverse_logic",
    "false_analogy",
    "premise_contradiction",
)
POSITIONS = ("early", "mid", "late")
POSITION_FRACTION = {"early": 0.25, "mid": 0.5, "late": 0.75}
STRENGTHS = ("subtle", "moderate", "obvious")
MSA = "multistep_arithmetic_two"

MMLU_SUBJECTS = (
    "abstract_algebra anatomy astronomy business_ethics clinical_knowledge college_biology "
    "college_chemistry college_computer_science college_mathematics college_medicine "
    "college_physics computer_security conceptual_physics econometrics electrical_engineering "
    "elementary_mathematics formal_logic global_facts high_school_biology high_school_chemistry "
    "high_school_geography high_school_macroeconomics high_school_physics high_school_psychology "
    "international_law jurisprudence logical_fallacies machine_learning moral_scenarios"
).split()
BBH_SUBTASKS = (
    "boolean_expressions causal_judgement date_understanding disambiguation_qa "
    "formal_fallacies geometric_shapes hyperbaton logical_deduction_five_objects "
    "movie_recommendation multistep_arithmetic_two navigate object_counting "
    "penguins_in_a_table reasoning_about_colored_objects ruin_names "
    "salient_translation_error_detection snarks sports_understanding temporal_sequences "
    "tracking_shuffled_objects_three_objects web_of_lies word_sorting dyck_languages"
).split()

# Row-propensity strengths (logit scale), tuned by hand against the published
# position gradient (33.5/27.4/22.5%), remaining-step bins (19.7% / 41.0%) and the
# Table 5 difficulty deviance; see SIMULATED.md.
PROBLEM_SD = 1.0  # between-problem spread of Type C propensity
POSITION_EFFECT = 0.2  # early +, late −
REMAINING_EFFECT = 0.15  # per log(remaining steps)
DIFFICULTY_NOISE_SD = 2.4  # how loosely the 4-level difficulty bucket tracks propensity
CELL_WEIGHT = 1.0  # how much of the perturbation-family effect the bucket absorbs
B_SCORE_WEIGHT = 0.5  # B (self-correction) also leans to harder rows, as an ordinal outcome
STEP_MEANS = {
    "gsm8k": 2.0,
    "mmlu": 1.5,
    "bbh": 6.0,
}  # extra CoT steps beyond the minimum (Poisson means)
# CHOSEN: B (self-correction) shares of the runs whose A/B split is unpublished.
CHOSEN_B = {"gsm8k_text": 0.016, "msa_numeric": 0.3, "strength_gsm8k": 0.016, "strength_bbh": 0.3}
MSA_EXTRA_STEPS = 6  # multi-step arithmetic chains are longer
# Share of judge-B continuations that name the error with a cue word; the rest
# re-derive silently (the cue-word rule calls them A). CHOSEN.
EXPLICIT_B_SHARE = 0.3
INCIDENTAL_CUE_A_SHARE = 0.06  # judge-A continuations that use a cue word in passing
CUE_IN_C_SHARE = 0.15  # propagated errors that contain a cue word
REFORMAT_SHARE = 0.12  # equal answers written in another format
ERROR_REASONS = ("no_final_answer", "judge_unparseable", "generation_truncated")

MODEL_IDS = ("gemma-2-9b-it", "llama-3.1-8b-instruct", "deepseek-r1-distill-qwen-7b")
JUDGE_VARIANTS = ("production", "explicit_only", "any_rederivation", "rubric_v2")


@dataclass
class Cell:
    """Rows of one label quota: fixed A/B/C counts among its labelled rows."""

    experiment: str
    dataset: str
    family: str
    subjects: tuple[str, ...] | None  # None: every subject of the dataset
    n_labelled: int
    c_share: float
    b_share: float


def load_published(folder: Path) -> dict[tuple[str, str, str], float]:
    """(table, item, quantity) → value from every published CSV."""
    frames = [pd.read_csv(p) for p in sorted(Path(folder).glob("*.csv"))]
    pub = pd.concat(frames, ignore_index=True)
    return {(r.table, r.item, r.quantity): float(r.value) for r in pub.itertuples()}


def apportion(total: int, weights) -> np.ndarray:
    """Largest-remainder split of an integer total proportional to ``weights``."""
    w = np.asarray(weights, dtype=float)
    exact = total * w / w.sum() if w.sum() > 0 else np.zeros_like(w)
    base = np.floor(exact).astype(int)
    rest = total - base.sum()
    order = np.lexsort((np.arange(len(w)), -(exact - base)))
    base[order[:rest]] += 1
    return base


def subject_spread(sizes: np.ndarray, lo: float, hi: float, mean: float) -> np.ndarray:
    """Per-subject rates from ``lo`` to ``hi`` whose size-weighted mean is ``mean``.

    Rates are ``expit(logit(lo) + (logit(hi) − logit(lo)) · u**g)`` on an even grid
    ``u``; the shape ``g`` is solved so the weighted mean hits ``mean``.
    """
    u = np.linspace(0.0, 1.0, len(sizes))

    def rates(g):
        return expit(logit(lo) + (logit(hi) - logit(lo)) * u**g)

    g = brentq(lambda g: np.average(rates(g), weights=sizes) - mean, 0.05, 20.0)
    return rates(g)


# ----------------------------------------------------------------------------- design


def model_design(model: str, pub: dict, scale: float) -> dict:
    """Baseline counts and label cells of one model (published where published)."""

    def p(table, item, q):
        return pub[(table, item, q)]

    def n(x):
        return max(3, int(round(x * scale)))

    if model == "gemma-2-9b-it":
        datasets = {}
        for ds in ("gsm8k", "mmlu", "bbh"):
            item = f"{model} / {ds}"
            datasets[ds] = (
                int(p("table1", item, "n_problems")),
                int(p("table1", item, "n_baselines")),
            )
        shares = {
            ds: (
                p("table1", f"{model} / {ds}", "B_pct") / 100,
                p("table1", f"{model} / {ds}", "C_pct") / 100,
            )
            for ds in ("gsm8k", "mmlu", "bbh")
        }
        # Labelled rows per dataset: the published Table 1 CIs imply n ≈ p(1−p)/se²;
        # split the published total so the overall C rate is the published 27.8%.
        total = int(p("table1", f"{model} / all", "n_labelled"))
        n_gsm = 2200  # CHOSEN: 760 baselines × 3 positions less unparseable answers
        c = {ds: shares[ds][1] for ds in shares}
        target = p("models", f"{model} / all", "C_pct") / 100 * total - n_gsm * c["gsm8k"]
        n_bbh = int(round((target - c["mmlu"] * (total - n_gsm)) / (c["bbh"] - c["mmlu"])))
        n_lab = {"gsm8k": n_gsm, "mmlu": total - n_gsm - n_bbh, "bbh": n_bbh}
        msa_text_c = p("table2", f"{model} / bbh-multistep_arithmetic / text", "C_pct") / 100
        dec = {
            "gsm8k_text": (
                int(p("table2", f"{model} / gsm8k / text", "n")),
                p("table2", f"{model} / gsm8k / text", "C_pct") / 100,
            ),
            "msa_numeric": (
                int(p("table2", f"{model} / bbh-multistep_arithmetic / numeric", "n")),
                p("table2", f"{model} / bbh-multistep_arithmetic / numeric", "C_pct") / 100,
            ),
        }
        # The paper's pooled ordinal regression has 28,584 rows; main + the two
        # decoupling runs give 27,577, so the strength sweep is taken to be the rest.
        strength_n = (
            int(p("table5", "pool", "n_rows"))
            - total
            - dec["gsm8k_text"][0]
            - dec["msa_numeric"][0]
        )
        cells = [
            Cell("main", "gsm8k", "math", None, n(n_lab["gsm8k"]), c["gsm8k"], shares["gsm8k"][0]),
            Cell(
                "main", "mmlu", "conceptual", None, n(n_lab["mmlu"]), c["mmlu"], shares["mmlu"][0]
            ),
            Cell("main", "bbh", "conceptual", None, n(n_lab["bbh"]), c["bbh"], shares["bbh"][0]),
            Cell(
                "decoupling",
                "gsm8k",
                "conceptual",
                None,
                n(dec["gsm8k_text"][0]),
                dec["gsm8k_text"][1],
                CHOSEN_B["gsm8k_text"],
            ),
            Cell(
                "decoupling",
                "bbh",
                "math",
                (MSA,),
                n(dec["msa_numeric"][0]),
                dec["msa_numeric"][1],
                CHOSEN_B["msa_numeric"],
            ),
        ]
        strength = {
            "gsm8k": (
                p("gradients", f"{model} / strength / gsm8k", "C_min_pct") / 100,
                p("gradients", f"{model} / strength / gsm8k", "C_max_pct") / 100,
            ),
            "bbh": (
                p("gradients", f"{model} / strength / bbh-multistep_arithmetic", "C_min_pct") / 100,
                p("gradients", f"{model} / strength / bbh-multistep_arithmetic", "C_max_pct") / 100,
            ),
        }
        mmlu_spread = (
            int(p("gradients", f"{model} / mmlu subjects", "n_subjects")),
            p("gradients", f"{model} / mmlu subjects", "C_min_pct") / 100,
            p("gradients", f"{model} / mmlu subjects", "C_max_pct") / 100,
        )
        return {
            "datasets": datasets,
            "cells": cells,
            "msa_text_c": msa_text_c,
            "strength_n": n(strength_n),
            "strength": strength,
            "mmlu_spread": mmlu_spread,
            "msa_baselines": -(-dec["msa_numeric"][0] // 3),
            "error_share": None,
            "scale": scale,
        }
    if model == "llama-3.1-8b-instruct":
        acc = {
            ds: p("models", f"{model} / {ds}", "base_accuracy_pct") / 100
            for ds in ("gsm8k", "mmlu", "bbh")
        }
        problems = {"gsm8k": 879, "mmlu": 5000, "bbh": 5511}
        total = int(p("models", f"{model} / all", "n_labelled"))
        c_gsm = p("table2", f"{model} / gsm8k / numeric", "C_pct") / 100
        c_msa = p("table2", f"{model} / bbh-multistep_arithmetic / numeric", "C_pct") / 100
        # CHOSEN sizes (the paper gives only the total); MMLU's C share is solved so
        # the overall rate is the published 57.2%.
        n_gsm, n_msa, n_bbh = 1100, 300, 3091
        n_mmlu = total - n_gsm - n_msa - n_bbh
        c_bbh = 0.66  # CHOSEN
        target = p("models", f"{model} / all", "C_pct") / 100 * total
        c_mmlu = (target - n_gsm * c_gsm - n_msa * c_msa - n_bbh * c_bbh) / n_mmlu
        datasets = {ds: (problems[ds], int(round(problems[ds] * acc[ds]))) for ds in problems}
        cells = [
            Cell("main", "gsm8k", "math", None, n(n_gsm), c_gsm, 0.05),
            Cell("main", "mmlu", "conceptual", None, n(n_mmlu), c_mmlu, 0.12),
            Cell("main", "bbh", "conceptual", None, n(n_bbh), c_bbh, 0.10),
            # The paper counts Llama's multi-step arithmetic numeric run inside its
            # 7,791 continuations, so it is part of the main run here.
            Cell("main", "bbh", "math", (MSA,), n(n_msa), c_msa, 0.05),
        ]
        return {"datasets": datasets, "cells": cells, "error_share": 0.03, "scale": scale}
    # DeepSeek-R1-Distill-Qwen-7B: 1,603 continuations with >= 4 post-think steps.
    total = int(p("models", f"{model} / all", "n_labelled"))
    b_lo = p("models", f"{model} / all", "B_min_pct") / 100
    b_hi = p("models", f"{model} / all", "B_max_pct") / 100
    sizes = apportion(total, [0.25, 0.375, 0.375])  # CHOSEN split over datasets
    b = {"gsm8k": b_lo, "mmlu": b_hi, "bbh": (b_lo + b_hi) / 2}  # CHOSEN order
    cells = [
        Cell(
            "main",
            ds,
            "math" if ds == "gsm8k" else "conceptual",
            None,
            n(int(k)),
            p("models", f"{model} / {ds}", "C_pct") / 100,
            b[ds],
        )
        for ds, k in zip(("gsm8k", "mmlu", "bbh"), sizes, strict=True)
    ]
    datasets = {"gsm8k": (879, 780), "mmlu": (5000, 3350), "bbh": (5511, 2900)}  # CHOSEN
    return {
        "datasets": datasets,
        "cells": cells,
        "error_share": 0.0,
        "scale": scale,
        "min_steps": 4,
    }


# ----------------------------------------------------------------------------- problems


def make_problems(model: str, design: dict, seed: int) -> pd.DataFrame:
    """One row per correct multi-step baseline problem."""
    rng = rng_for(seed, model, "problems")
    scale = design["scale"]
    rows = []
    for ds, (_, n_base) in design["datasets"].items():
        k = max(3, int(round(n_base * scale)))
        subjects = {"gsm8k": ("gsm8k",), "mmlu": MMLU_SUBJECTS, "bbh": BBH_SUBTASKS}[ds]
        subj = np.array(subjects)[np.arange(k) % len(subjects)]
        if ds == "bbh" and "msa_baselines" in design:
            # The decoupling run perturbs each multi-step arithmetic baseline at the
            # three positions, so that subtask holds n / 3 of the BBH baselines.
            n_msa = min(k - 1, max(1, int(round(design["msa_baselines"] * scale))))
            others = [t for t in subjects if t != MSA]
            subj = np.concatenate(
                [np.full(n_msa, MSA), np.array(others)[np.arange(k - n_msa) % len(others)]]
            )
        lam = STEP_MEANS[ds]
        steps = design.get("min_steps", 3) + rng.poisson(lam, size=k)
        steps = np.where(subj == MSA, steps + MSA_EXTRA_STEPS, steps)
        for i in range(k):
            rows.append((f"{ds}-{i:05d}", ds, subj[i], int(steps[i])))
    frame = pd.DataFrame(rows, columns=["problem_id", "dataset", "subject", "n_steps"])
    frame["effect"] = rng.normal(0.0, PROBLEM_SD, size=len(frame))
    frame["noise"] = rng.normal(0.0, DIFFICULTY_NOISE_SD, size=len(frame))
    # The correct answer belongs to the problem: every continuation of it shares it.
    frame["answer_number"] = rng.integers(12, 4000, size=len(frame))
    frame["answer_letter"] = rng.integers(0, 4, size=len(frame))
    return frame


def remaining_steps(n_steps: np.ndarray, position: np.ndarray) -> np.ndarray:
    frac = np.vectorize(POSITION_FRACTION.get)(position)
    k = np.clip(np.rint(frac * n_steps).astype(int), 1, n_steps - 1)
    return n_steps - k


def expand(
    problems: pd.DataFrame, n_rows: int, strategies, rng, *, strengths=("moderate",)
) -> pd.DataFrame:
    """``n_rows`` continuations cycling through problems × positions × strategies."""
    idx = np.arange(n_rows)
    k = len(problems)
    take = problems.iloc[idx % k].reset_index(drop=True)
    take["position"] = (
        np.array(POSITIONS)[(idx // k) % 3] if n_rows > k else rng.choice(POSITIONS, n_rows)
    )
    take["strategy"] = rng.choice(strategies, size=n_rows)
    take["strength"] = (
        np.array(strengths)[idx % len(strengths)] if len(strengths) > 1 else strengths[0]
    )
    return take


def build_rows(model: str, design: dict, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """All continuation rows of one model, with judge labels assigned."""
    rng = rng_for(seed, model, "rows")
    problems = make_problems(model, design, seed)
    parts = []
    for cell in design["cells"]:
        pool = problems[problems["dataset"] == cell.dataset]
        if cell.subjects is not None:
            pool = pool[pool["subject"].isin(cell.subjects)]
        strategies = MATH if cell.family == "math" else CONCEPTUAL
        if cell.experiment == "main":
            # Gemma: every baseline is perturbed once per position and the unusable
            # rows (no final answer, judge parse failure) are the difference to the
            # published labelled count; the other models get a CHOSEN error share.
            share = design["error_share"]
            n_total = 3 * len(pool) if share is None else int(round(cell.n_labelled * (1 + share)))
            # Small pools (one BBH subtask) perturb a baseline more than once per position.
            reps = 3 * max(1, -(-n_total // (3 * len(pool))))
            rows = pool.loc[pool.index.repeat(reps)].reset_index(drop=True)
            rows["position"] = np.tile(POSITIONS, len(rows) // 3)
            rows = rows.iloc[np.sort(rng.permutation(len(rows))[:n_total])].reset_index(drop=True)
            rows["strategy"] = rng.choice(strategies, size=len(rows))
            rows["strength"] = "moderate" if cell.family == "math" else None
        else:
            rows = expand(pool.reset_index(drop=True), cell.n_labelled, strategies, rng)
            if cell.family != "math":
                rows["strength"] = None
        rows["experiment"] = cell.experiment
        rows["family"] = cell.family
        n_err = len(rows) - cell.n_labelled
        err = np.zeros(len(rows), dtype=bool)
        err[rng.permutation(len(rows))[:n_err]] = True
        rows["error"] = np.where(err, rng.choice(ERROR_REASONS, size=len(rows)), None)
        rows["_cell"] = f"{cell.experiment}/{cell.dataset}/{cell.family}"
        rows["_c"] = cell.c_share
        rows["_b"] = cell.b_share
        parts.append(rows)
    if "strength_n" in design:
        per = apportion(design["strength_n"], [1, 1])
        for (ds, subj), k in zip((("gsm8k", None), ("bbh", MSA)), per, strict=True):
            pool = problems[problems["dataset"] == ds]
            if subj:
                pool = pool[pool["subject"] == subj]
            rows = expand(pool.reset_index(drop=True), int(k), MATH, rng, strengths=STRENGTHS)
            rows["experiment"] = "strength"
            rows["family"] = "math"
            rows["error"] = None
            lo, hi = design["strength"][ds]
            rows["_c"] = rows["strength"].map(
                {"subtle": lo, "moderate": (lo + hi) / 2, "obvious": hi}
            )
            rows["_b"] = CHOSEN_B["strength_" + ds]
            rows["_cell"] = "strength/" + ds + "/" + rows["strength"]
            parts.append(rows)
    rows = pd.concat(parts, ignore_index=True)
    rows["remaining_steps"] = remaining_steps(
        rows["n_steps"].to_numpy(), rows["position"].to_numpy()
    )
    split_cells(rows, design)
    assign_labels(rows, rng)
    assign_difficulty(rows, problems)
    return rows, problems


def split_cells(rows: pd.DataFrame, design: dict) -> None:
    """Refine the main MMLU and BBH cells: per-subject C shares, and BBH's own MSA rate."""
    if "mmlu_spread" not in design:
        return
    labelled = rows["error"].isna()
    main_mmlu = (rows["_cell"] == "main/mmlu/conceptual") & labelled
    n_subj, lo, hi = design["mmlu_spread"]
    subjects = sorted(rows.loc[main_mmlu, "subject"].unique())[:n_subj]
    sizes = rows.loc[main_mmlu].groupby("subject").size().reindex(subjects).to_numpy()
    mean = rows.loc[main_mmlu, "_c"].iloc[0]
    rates = subject_spread(sizes, lo, hi, mean)
    # The hardest subjects get the highest rates, in a fixed shuffled order.
    order = rng_for(0, "mmlu-order").permutation(len(subjects))
    for s, r in zip(np.array(subjects)[order], rates, strict=True):
        sel = (rows["_cell"] == "main/mmlu/conceptual") & (rows["subject"] == s)
        rows.loc[sel, "_c"] = r
        rows.loc[sel, "_cell"] = f"main/mmlu/{s}"
    main_bbh = (rows["_cell"] == "main/bbh/conceptual") & labelled
    is_msa = rows["subject"] == MSA
    n_msa = int((main_bbh & is_msa).sum())
    n_all = int(main_bbh.sum())
    c_all = rows.loc[main_bbh, "_c"].iloc[0]
    c_rest = (c_all * n_all - design["msa_text_c"] * n_msa) / (n_all - n_msa)
    rows.loc[(rows["_cell"] == "main/bbh/conceptual") & is_msa, ["_c", "_cell"]] = [
        design["msa_text_c"],
        "main/bbh/msa",
    ]
    rows.loc[rows["_cell"] == "main/bbh/conceptual", "_c"] = c_rest


def gumbel_top(score: np.ndarray, k: int, rng) -> np.ndarray:
    """Indices of a size-k sample without replacement, P ∝ exp(score) (Gumbel top-k)."""
    if k <= 0:
        return np.array([], dtype=int)
    keys = score + rng.gumbel(size=len(score))
    return np.argsort(-keys, kind="stable")[:k]


def assign_labels(rows: pd.DataFrame, rng) -> None:
    """Exact A/B/C counts per cell; which rows get C follows the row propensity."""
    pos = rows["position"].map({"early": 1.0, "mid": 0.0, "late": -1.0}).to_numpy()
    score = (
        rows["effect"].to_numpy()
        + POSITION_EFFECT * pos
        + REMAINING_EFFECT * np.log(rows["remaining_steps"].to_numpy())
    )
    labels = np.full(len(rows), None, dtype=object)
    labelled = rows["error"].isna().to_numpy()
    for cell in sorted(rows["_cell"].unique()):
        idx = np.flatnonzero((rows["_cell"].to_numpy() == cell) & labelled)
        c_share = rows["_c"].to_numpy()[idx[0]]
        b_share = rows["_b"].to_numpy()[idx[0]]
        counts = apportion(len(idx), [1 - c_share - b_share, b_share, c_share])
        c_idx = idx[gumbel_top(score[idx], counts[2], rng)]
        labels[c_idx] = "C"
        rest = np.setdiff1d(idx, c_idx)
        b_idx = rest[gumbel_top(B_SCORE_WEIGHT * score[rest], counts[1], rng)]
        labels[b_idx] = "B"
        labels[np.setdiff1d(rest, b_idx)] = "A"
    rows["judge_label"] = labels


def assign_difficulty(rows: pd.DataFrame, problems: pd.DataFrame) -> None:
    """4-level difficulty bucket: quartile of a noisy, model-relative hardness score.

    Hardness is the logit of the C share of the continuation's cell (how hard the
    task is for this model under this kind of perturbation), shrunk towards its
    subject's mean by ``CELL_WEIGHT``, plus the problem's own effect and noise. The
    noise keeps the bucket from being a relabelling of the dataset; ``CELL_WEIGHT``
    < 1 leaves part of the perturbation-family effect outside the bucket.
    """
    # The cell's mean position on the A < B < C scale, as a share of its maximum.
    level = ((rows["_b"] + 2 * rows["_c"]) / 2).clip(0.005, 0.995)
    cell = logit(level.to_numpy())
    subject = logit(level.groupby(rows["subject"]).transform("mean").to_numpy())
    per_problem = problems.set_index("problem_id")
    hard = CELL_WEIGHT * cell + (1 - CELL_WEIGHT) * subject
    hard = (
        hard + rows["effect"].to_numpy() + rows["problem_id"].map(per_problem["noise"]).to_numpy()
    )
    labelled = rows["error"].isna().to_numpy()
    cuts = np.quantile(hard[labelled], [0.25, 0.5, 0.75])
    rows["difficulty"] = 1 + np.searchsorted(cuts, hard, side="right")


# ----------------------------------------------------------------------------- texts


CUES_EXPLICIT = (
    "Wait, that step is wrong: {fix}.",
    "Actually, I made a mistake: {fix}.",
    "Let me recheck that: {fix}.",
    "Hmm, the previous step is incorrect; {fix}.",
)
IMPLICIT_FIX = (
    "Recomputing from the given numbers, {fix}.",
    "Taking the quantities from the problem statement again, {fix}.",
    "Using the original values, {fix}.",
    "From the data in the question, {fix}.",
)
INCIDENTAL = (
    "The question actually asks for the total, so we continue.",
    "This is a common mistake in such problems, but here the setup is clear.",
    "Wait for the last quantity: it is added at the end.",
)
CUE_IN_ERROR = (
    "Wait, carrying that value forward as stated,",
    "Actually, building on the previous step,",
    "Let me recheck the arithmetic with that result:",
)


def fmt_number(value: int, style: int) -> str:
    if style == 1:
        return f"{value:,}"
    if style == 2:
        return f"{value}.0"
    return str(value)


def fmt_choice(letter: str, style: int) -> str:
    return {0: letter, 1: f"({letter})", 2: f"{letter.lower()}."}[style]


def make_texts(rows: pd.DataFrame, seed: int, model: str) -> None:
    """Continuation text and answers consistent with each judge label."""
    rng = rng_for(seed, model, "texts")
    n = len(rows)
    u = rng.random((n, 4))
    pick = rng.integers(0, 4, size=(n, 4))
    numeric = (rows["dataset"] == "gsm8k").to_numpy() | (rows["subject"] == MSA).to_numpy()
    ans_num = rows["answer_number"].to_numpy()
    off = rng.integers(1, 40, size=n)
    letters = np.array(list("ABCD"))
    ans_let = rows["answer_letter"].to_numpy()
    texts, originals, conts, explicit = [], [], [], []
    for i, (label, strategy) in enumerate(zip(rows["judge_label"], rows["strategy"], strict=True)):
        if numeric[i]:
            true = int(ans_num[i])
            wrong = (
                true + int(off[i]) if strategy != "operator_swap" else max(1, true - int(off[i]))
            )
            original = str(true)
            fix = f"the intermediate value is {true - 7} before adding 7"
            keep = f"adding the last 7 gives {true}"
            follow = f"adding the last 7 gives {wrong}"
            fmt = lambda v, s=int(pick[i, 1]) % 3: fmt_number(v, s)  # noqa: E731
            right_ans, wrong_ans = true, wrong
        else:
            true_l = letters[ans_let[i]]
            wrong_l = letters[(ans_let[i] + 1 + pick[i, 2] % 3) % 4]
            original = str(true_l)
            fix = f"the premise rules out option {wrong_l}, not option {true_l}"
            keep = f"the evidence in the question still points to option {true_l}"
            follow = f"given that step, option {wrong_l} is the one that fits"
            fmt = lambda v, s=int(pick[i, 1]) % 3: fmt_choice(v, s)  # noqa: E731
            right_ans, wrong_ans = true_l, wrong_l
        reformat = u[i, 1] < REFORMAT_SHARE
        if label == "C":
            lead = CUE_IN_ERROR[pick[i, 0] % 3] + " " if u[i, 0] < CUE_IN_C_SHARE else ""
            text = f"{lead}{follow}. So the answer is {fmt(wrong_ans)}."
            cont = fmt(wrong_ans) if reformat else str(wrong_ans)
        elif label == "B":
            explicit.append(u[i, 0] < EXPLICIT_B_SHARE)
            if explicit[-1]:
                lead = CUES_EXPLICIT[pick[i, 0]].format(fix=fix)
            else:
                lead = IMPLICIT_FIX[pick[i, 0]].format(fix=fix)
            text = f"{lead} Then {keep}. So the answer is {fmt(right_ans)}."
            cont = fmt(right_ans) if reformat else str(right_ans)
        elif label == "A":
            extra = INCIDENTAL[pick[i, 0] % 3] + " " if u[i, 0] < INCIDENTAL_CUE_A_SHARE else ""
            text = f"{extra}Continuing, {keep}. So the answer is {fmt(right_ans)}."
            cont = fmt(right_ans) if reformat else str(right_ans)
        else:
            text = "Continuing the computation" if u[i, 2] < 0.5 else ""
            cont = None
        if label != "B":
            explicit.append(False)
        texts.append(text)
        originals.append(original)
        conts.append(cont)
    rows["continuation"] = texts
    rows["original_answer"] = originals
    rows["continuation_answer"] = conts
    rows["_explicit"] = explicit


# ----------------------------------------------------------------------------- judge variants


def judge_variants(
    rows: pd.DataFrame, pub: dict, seed: int, model: str, scale: float
) -> pd.DataFrame:
    """Re-labels of a sample of main continuations under the other judge prompts.

    Type C is the answer mismatch, so every variant keeps it. Between A and B the
    variants differ: ``explicit_only`` counts only named corrections (explicit cue
    rows first), ``any_rederivation`` counts any recomputation as B, ``rubric_v2``
    sits near production. The published extremes set the A shares among non-C rows.
    """
    rng = rng_for(seed, model, "judge")
    item = f"{model} / sensitivity"
    n = max(10, int(round(pub[("judge", item, "n")] * scale)))
    a_min = pub[("judge", item, "A_min_pct")] / 100
    a_max = pub[("judge", item, "A_max_pct")] / 100
    main = rows[(rows["experiment"] == "main") & rows["judge_label"].notna()]
    sample = main.iloc[np.sort(rng.permutation(len(main))[:n])]
    explicit = (
        sample["continuation"]
        .str.contains("Wait, that|mistake|recheck that|incorrect;", regex=True)
        .to_numpy()
    )
    out = []
    non_c = np.flatnonzero(sample["judge_label"].to_numpy() != "C")
    prod_b = sample["judge_label"].to_numpy() == "B"
    for variant, a_share in (
        ("explicit_only", a_max),
        ("any_rederivation", a_min),
        ("rubric_v2", None),
    ):
        labels = sample["judge_label"].to_numpy().copy()
        if a_share is None:
            flip = rng.random(len(labels)) < 0.05
            labels[non_c] = np.where(
                flip[non_c], np.where(labels[non_c] == "A", "B", "A"), labels[non_c]
            )
        else:
            k_b = len(non_c) - int(round(a_share * len(non_c)))
            # explicit corrections first, then production B, then the rest
            priority = 2.0 * explicit[non_c] + 1.0 * prod_b[non_c] + 0.01 * rng.random(len(non_c))
            chosen = non_c[np.argsort(-priority, kind="stable")[:k_b]]
            labels[non_c] = "A"
            labels[chosen] = "B"
        v = sample.copy()
        v["judge_label"] = labels
        v["judge_variant"] = variant
        out.append(v)
    return pd.concat(out, ignore_index=True)


# ----------------------------------------------------------------------------- writing

FIELDS = (
    "model problem_id dataset subject difficulty strategy family position strength n_steps "
    "remaining_steps experiment continuation original_answer continuation_answer judge_label"
).split()


def to_records(rows: pd.DataFrame, model: str) -> list[dict]:
    records = []
    for r in rows.itertuples(index=False):
        rec = {"model": model}
        for f in FIELDS[1:]:
            v = getattr(r, f)
            if isinstance(v, np.integer):
                v = int(v)
            if v is None or (isinstance(v, float) and math.isnan(v)):
                if f == "strength":
                    continue
                v = None
            rec[f] = v
        variant = getattr(r, "judge_variant", None)
        if isinstance(variant, str) and variant != "production":
            rec["judge_variant"] = variant
        if isinstance(r.error, str):
            rec["error"] = r.error
            rec["judge_label"] = None
        records.append(rec)
    return records


def generate(
    out_dir: Path, published: Path, *, seed: int = 20250603, scale: float = 1.0, models=MODEL_IDS
) -> list[Path]:
    """Write ``runs/<model>.jsonl`` and ``baselines.csv`` under ``out_dir``."""
    pub = load_published(published)
    out_dir = Path(out_dir)
    (out_dir / "runs").mkdir(parents=True, exist_ok=True)
    written, base_rows = [], []
    for model in models:
        design = model_design(model, pub, scale)
        rows, problems = build_rows(model, design, seed)
        make_texts(rows, seed, model)
        order = ["experiment", "dataset", "problem_id", "position", "strategy", "strength"]
        rows = rows.sort_values(order, kind="stable", na_position="first").reset_index(drop=True)
        records = to_records(rows, model)
        if model == "gemma-2-9b-it":
            records += to_records(judge_variants(rows, pub, seed, model, scale), model)
        path = out_dir / "runs" / f"{model}.jsonl"
        with open(path, "w", encoding="utf-8", newline="\n") as handle:
            for rec in records:
                handle.write(json.dumps(rec, ensure_ascii=False, separators=(",", ":")) + "\n")
        written.append(path)
        for ds, (n_prob, n_base) in design["datasets"].items():
            k = int((problems["dataset"] == ds).sum())
            base_rows.append(
                {
                    "model": model,
                    "dataset": ds,
                    "n_problems": max(k, int(round(n_prob * scale))),
                    "n_correct": k if scale != 1.0 else n_base,
                    "n_baselines": k,
                }
            )
    pd.DataFrame(base_rows).to_csv(out_dir / "baselines.csv", index=False, lineterminator="\n")
    written.append(out_dir / "baselines.csv")
    return written


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="raw/cot_loadbearing", help="output folder")
    parser.add_argument(
        "--published", default=None, help="published CSVs (default: <out>/published)"
    )
    parser.add_argument("--seed", type=int, default=20250603)
    parser.add_argument("--scale", type=float, default=1.0, help="shrink every count (tests)")
    args = parser.parse_args(argv)
    published = Path(args.published) if args.published else Path(args.out) / "published"
    for path in generate(Path(args.out), published, seed=args.seed, scale=args.scale):
        print(path)


if __name__ == "__main__":
    main()
