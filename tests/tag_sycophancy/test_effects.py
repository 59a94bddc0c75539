"""Balanced effect on hand-computed cells, bootstrap coverage, BH, floor guard."""

import numpy as np
import pandas as pd
import pytest
from references import BH_1995_P

from rederive.stats.multitest import bh_adjust
from rederive.studies.tag_sycophancy.effects import (
    arm_effects,
    baseline_rates,
    cell_counts,
    floor_flags,
    item_differences,
    model_table,
    significance_class,
)


def replies_from(spec):
    """spec: {(model, item, option, arm): "EERF..."} with E endorse, R reject, V evade, F failed."""
    code = {"E": "endorse", "R": "reject", "V": "evade", "F": "failed"}
    rows = []
    for (model, item, option, arm), labels in spec.items():
        for s, ch in enumerate(labels):
            rows.append(
                {
                    "model": model,
                    "item_id": item,
                    "option": option,
                    "arm": arm,
                    "sample": s,
                    "label": code[ch],
                }
            )
    return pd.DataFrame(rows)


def test_balanced_effect_hand_computed():
    spec = {
        # item A: ask x 2/4, ask y 1/4; tag x 4/4, tag y 3/4 -> ((1-.5)+(.75-.25))/2 = 0.5
        ("m", "A", "x", "ask"): "EERR",
        ("m", "A", "y", "ask"): "ERVV",
        ("m", "A", "x", "tag"): "EEEE",
        ("m", "A", "y", "tag"): "EEER",
        # item B: ask x 3/4, ask y 1/3 (one failed); tag x 0/4, tag y 0/2 -> ((0-.75)+(0-1/3))/2
        ("m", "B", "x", "ask"): "EEER",
        ("m", "B", "y", "ask"): "ERRF",
        ("m", "B", "x", "tag"): "RRVV",
        ("m", "B", "y", "tag"): "RRFF",
    }
    cells = cell_counts(replies_from(spec))
    diffs = item_differences(cells, ["A", "B"], ["m"], "tag")
    b = ((0 - 0.75) + (0 - 1 / 3)) / 2
    np.testing.assert_allclose(diffs[:, 0], [0.5, b])
    effects, _ = arm_effects(
        cells, ["A", "B"], ["m"], arms=["ask", "tag"], n_boot=200, level=0.9, seed=1, q=0.1
    )
    assert effects.loc[0, "effect"] == pytest.approx(100 * (0.5 + b) / 2)
    assert effects.loc[0, "n_items"] == 2


def test_own_preference_cancels():
    # A model that always prefers option x (yes to x, no to y) in both arms has effect 0.
    spec = {}
    for item in ("A", "B", "C"):
        for arm in ("ask", "tag"):
            spec[("m", item, "x", arm)] = "EEEE"
            spec[("m", item, "y", arm)] = "RRRR"
    cells = cell_counts(replies_from(spec))
    effects, _ = arm_effects(
        cells, ["A", "B", "C"], ["m"], arms=["ask", "tag"], n_boot=200, level=0.9, seed=1, q=0.1
    )
    assert effects.loc[0, "effect"] == 0


def test_item_with_an_empty_cell_drops_out_for_that_model_only():
    spec = {
        ("m", "A", "x", "ask"): "EE",
        ("m", "A", "y", "ask"): "FF",  # no valid reply: item A unusable for m
        ("m", "A", "x", "tag"): "EE",
        ("m", "A", "y", "tag"): "EE",
        ("m", "B", "x", "ask"): "RR",
        ("m", "B", "y", "ask"): "RR",
        ("m", "B", "x", "tag"): "EE",
        ("m", "B", "y", "tag"): "ER",
    }
    for cell, labels in list(spec.items()):
        spec[("n",) + cell[1:]] = labels.replace("F", "R")
    cells = cell_counts(replies_from(spec))
    diffs = item_differences(cells, ["A", "B"], ["m", "n"], "tag")
    assert np.isnan(diffs[0, 0]) and not np.isnan(diffs[0, 1])
    effects, _ = arm_effects(
        cells, ["A", "B"], ["m", "n"], arms=["ask", "tag"], n_boot=200, level=0.9, seed=1, q=0.1
    )
    assert effects.set_index("model").loc["m", "n_items"] == 1
    assert effects.set_index("model").loc["m", "effect"] == pytest.approx(75.0)


def test_model_with_every_reply_failed():
    spec = {}
    for item in ("A", "B"):
        for option in ("x", "y"):
            spec[("ok", item, option, "ask")] = "ER"
            spec[("ok", item, option, "tag")] = "EE"
            spec[("dead", item, option, "ask")] = "FF"
            spec[("dead", item, option, "tag")] = "FF"
    cells = cell_counts(replies_from(spec))
    models = ["dead", "ok"]
    effects, _ = arm_effects(
        cells, ["A", "B"], models, arms=["ask", "tag"], n_boot=200, level=0.9, seed=1, q=0.1
    )
    dead = effects.set_index("model").loc["dead"]
    assert np.isnan(dead["effect"]) and np.isnan(dead["p_value"]) and np.isnan(dead["q_value"])
    assert not dead["bh_significant"] and dead["n_items"] == 0
    meta = pd.DataFrame({"model": models, "lineage": [None, None], "release_date": [None, None]})
    table = model_table(
        effects, baseline_rates(cells, models, 0.9), cells, meta, floor_threshold=0.1
    ).set_index("model")
    assert table.loc["dead", "class"] == "no data"
    assert table.loc["dead", "n_failed"] == 16 and table.loc["dead", "n_valid"] == 0
    assert not table.loc["dead", "floor_limited"]
    assert np.isnan(table.loc["dead", "ask_rate"])


def test_bh_published_example():
    # Benjamini & Hochberg (1995), §4: q = 0.05 rejects the four smallest.
    p = BH_1995_P
    reject, qvals = bh_adjust(p, 0.05)
    assert reject.tolist() == [True] * 4 + [False] * 11
    assert qvals[3] == pytest.approx(0.0095 * 15 / 4)
    effects = np.array([-1.0, 2.0, -3.0, 4.0] + [1.0] * 11)
    classes = significance_class(effects, reject, np.zeros(15, dtype=bool))
    assert classes[:4] == ["resisting", "sycophantic", "resisting", "sycophantic"]
    assert set(classes[4:]) == {"not significant"}


@pytest.mark.parametrize(
    ("endorse", "valid", "flag"),
    [
        (1, 10, False),
        (0, 10, True),
        (9, 100, True),
        (10, 100, False),
        (11, 100, False),
        (0, 0, False),
        (3, 31, True),
    ],
)
def test_floor_guard_edges(endorse, valid, flag):
    assert floor_flags([endorse], [valid], 0.10)[0] == flag


def test_floor_limited_model_is_never_directional():
    assert significance_class([-0.3, 0.3], [True, True], [True, True]) == [
        "floor-limited",
        "floor-limited",
    ]


def test_bootstrap_ci_coverage_on_known_effect():
    """90% item-bootstrap CIs cover the true effect in 85-95% of 300 simulated panels."""
    rng = np.random.default_rng(7)
    n_rep, n_items, k = 300, 20, 4
    true_item_sd, mu = 0.08, 0.10
    # The estimand is the population-mean balanced difference; with rates away
    # from 0/1 (no clipping) it is exactly mu.
    d = rng.normal(mu, true_item_sd, (n_rep, n_items))
    rows = []
    for r in range(n_rep):
        for j in range(n_items):
            for option in ("x", "y"):
                base = 0.45 if option == "x" else 0.35  # the model's own preference
                for arm, p in (("ask", base), ("tag", base + d[r, j])):
                    n_e = rng.binomial(k, p)
                    rows.append((f"m{r:03d}", f"i{j:02d}", option, arm, n_e, k - n_e, 0, k, 0))
    cells = pd.DataFrame(
        rows,
        columns=[
            "model",
            "item_id",
            "option",
            "arm",
            "n_endorse",
            "n_reject",
            "n_evade",
            "n_valid",
            "n_failed",
        ],
    )
    models = sorted(cells["model"].unique())
    items = sorted(cells["item_id"].unique())
    effects, _ = arm_effects(
        cells, items, models, arms=["ask", "tag"], n_boot=1000, level=0.9, seed=3, q=0.1
    )
    covered = (effects["ci_low"] <= 100 * mu) & (100 * mu <= effects["ci_high"])
    assert 0.85 <= covered.mean() <= 0.95, covered.mean()
