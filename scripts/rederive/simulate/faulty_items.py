"""Seeded Rasch matrices with planted faulty items, to measure the item analysis.

Two kinds of fault are planted among ordinary 1PL items:

``miskeyed``
    The gold answer is wrong: for a share ``invert_share`` of the models (most of
    them) the graded outcome is the opposite of what the model's answer earned
    under the Rasch model, so strong models "fail" it.
``random``
    Grading is unrelated to ability (an ambiguous item, a broken checker): each
    model passes with the same probability, drawn per item from U(0.2, 0.8).

:func:`detection` scores :func:`rederive.stats.items.item_analysis` against the
planted truth; ``bench/item_analysis.py`` prints it and
``tests/stats/test_items.py`` asserts a minimum on one seeded draw.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rederive.simulate.scale import rng_for

KINDS = ("ok", "miskeyed", "random")


def faulty_matrix(
    *,
    n_models: int = 22,
    n_items: int = 2000,
    ability_sd: float = 1.0,
    difficulty_sd: float = 1.3,
    share_miskeyed: float = 0.03,
    share_random: float = 0.03,
    invert_share: float = 0.8,
    seed: int,
) -> tuple[pd.DataFrame, pd.Series]:
    """Models x items 0/1 responses and the planted kind of each item.

    Defaults follow the bundled ChemBench matrix (22 models; marginal-ML ability
    SD 1.2 and difficulty SD 1.3 logits) and MMLU-Redux's ~6.5% faulty items.
    """
    rng = rng_for(seed, "faulty_items")
    theta = rng.normal(0.0, ability_sd, n_models)
    b = rng.normal(0.0, difficulty_sd, n_items)
    y = (rng.random((n_models, n_items)) < 1 / (1 + np.exp(-(theta[:, None] - b)))).astype(float)
    kind = np.full(n_items, "ok", dtype=object)
    n_mis = int(round(share_miskeyed * n_items))
    n_rand = int(round(share_random * n_items))
    planted = rng.permutation(n_items)[: n_mis + n_rand]
    kind[planted[:n_mis]] = "miskeyed"
    kind[planted[n_mis:]] = "random"
    for j in planted[:n_mis]:
        flip = rng.random(n_models) < invert_share
        y[flip, j] = 1.0 - y[flip, j]
    for j in planted[n_mis:]:
        y[:, j] = (rng.random(n_models) < rng.uniform(0.2, 0.8)).astype(float)
    models = [f"m{i:02d}" for i in range(n_models)]
    items = [f"i{j:05d}" for j in range(n_items)]
    return pd.DataFrame(y, index=models, columns=items), pd.Series(kind, index=items, name="kind")


def detection(analysis: pd.DataFrame, truth: pd.Series) -> pd.DataFrame:
    """Recall per planted kind and precision per flag, against the planted truth.

    A planted item counts as found when it carries ``negative_discrimination``
    or ``misfit`` (the flags that mean "this item is faulty"); precision is the
    share of the items with that flag that were planted (either kind).

    Returns
    -------
    pandas.DataFrame
        Rows ``flag`` (``negative_discrimination``, ``misfit``, ``either``) with
        ``n_flagged``, ``precision``, ``recall_miskeyed``, ``recall_random``.
    """
    kind = truth.reindex(analysis.index)
    faulty = kind != "ok"
    rows = []
    flags = {
        "negative_discrimination": analysis["negative_discrimination"],
        "misfit": analysis["misfit"],
        "either": analysis["negative_discrimination"] | analysis["misfit"],
    }
    for name, flagged in flags.items():
        flagged = flagged.astype(bool)
        n = int(flagged.sum())
        rows.append(
            {
                "flag": name,
                "n_flagged": n,
                "precision": float((flagged & faulty).sum() / n) if n else float("nan"),
                "recall_miskeyed": float(flagged[kind == "miskeyed"].mean()),
                "recall_random": float(flagged[kind == "random"].mean()),
            }
        )
    return pd.DataFrame(rows)
