"""Density slopes against numpy's least squares; intervention deltas are paired."""

import numpy as np
import pandas as pd

from rederive.studies.salitrap.density import density_tables
from rederive.studies.salitrap.interventions import intervention_table
from rederive.studies.salitrap.metrics import METRICS


def items_frame(n=240):
    rng = np.random.default_rng(5)
    return pd.DataFrame(
        {
            "item_id": [f"i{k:03d}" for k in range(n)],
            "seed_id": [f"s{k // 3}" for k in range(n)],
            "dimension": np.where(np.arange(n) % 2, "d1", "d2"),
            "n_injected": rng.integers(1, 13, n),
        }
    )


def test_slope_equals_ordinary_least_squares_and_bins_pool_the_extremes():
    items = items_frame()
    rng = np.random.default_rng(6)
    x = items["n_injected"].to_numpy()
    labels = {}
    for m in ("A", "B", "C"):
        p = np.clip(0.9 - 0.07 * x, 0.02, 0.98)
        labels[m] = np.where(rng.random(len(x)) < p, "Strict Pass", "CoT Hijacked")
    labels["C"] = labels["C"].astype(object)
    labels["C"][:5] = np.nan  # excluded rows drop out of C only
    matrix = pd.DataFrame(labels, index=items["item_id"])
    rates, slopes = density_tables(
        items,
        matrix,
        metrics=METRICS,
        metric_names=["TAR", "CHR"],
        dimensions=["d1", "d2"],
        low=3,
        high=10,
        n_boot=300,
        level=0.95,
        seed=2,
    )
    values = matrix.to_numpy()
    valid = pd.notna(values)
    xs = np.repeat(x[:, None], 3, axis=1)[valid]
    ys = (values == "Strict Pass")[valid].astype(float)
    expected = np.polyfit(xs, ys, 1)
    row = slopes[(slopes.dimension == "overall") & (slopes.metric == "TAR")].iloc[0]
    assert np.isclose(row.slope_pp_per_number, expected[0] * 100, atol=1e-3)
    assert np.isclose(row.intercept_pp, expected[1] * 100, atol=1e-3)
    assert row.ci_low < row.slope_pp_per_number < row.ci_high < 0
    tar = rates[(rates.dimension == "overall") & (rates.metric == "TAR")]
    assert tar["bin_label"].iloc[0] == "<=3" and tar["bin_label"].iloc[-1] == ">=10"
    assert tar["items"].sum() == len(items)
    # Mean of per-model rates in the first bin.
    in_bin = x <= 3
    per_model = [np.mean(values[in_bin & valid[:, j], j] == "Strict Pass") for j in range(3)]
    assert np.isclose(tar["percent"].iloc[0], round(np.mean(per_model) * 100, 1), atol=0.051)


def test_intervention_delta_is_paired_and_uses_the_control_run():
    items = items_frame(300)
    rng = np.random.default_rng(9)
    control = np.where(rng.random(300) < 0.3, "Strict Pass", "Hard Fail")
    # P1 passes every item control passed, plus 30 more: a sure, paired gain.
    p1 = control.copy()
    flip = np.flatnonzero(control == "Hard Fail")[:30]
    p1[flip] = "Strict Pass"
    labels = pd.DataFrame(
        [
            {"model": "M", "item_id": i, "condition": c, "label": lbl}
            for c, arr in (("control", control), ("P1", p1))
            for i, lbl in zip(items["item_id"], arr, strict=True)
        ]
    )
    table = intervention_table(
        items, labels, conditions=["P1", "P2"], metrics=METRICS, n_boot=400, level=0.95, seed=4
    ).set_index(["condition", "metric"])
    delta = table.loc[("P1", "TAR_delta")]
    assert np.isclose(delta.percent, 10.0)  # 30 of 300 items
    # Paired: every resample gains at least 0, so the interval never crosses zero.
    assert delta.ci_low > 0 and delta.p_value < 0.01
    assert table.loc[("control", "TAR")].denominator == 300
    assert ("P2", "TAR") not in table.index  # no P2 rows: nothing invented
