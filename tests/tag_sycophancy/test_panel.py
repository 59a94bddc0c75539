"""Panel analyses: trend with lineage fixed effects, endpoints, rubber-stamp score, composition."""

import numpy as np
import pandas as pd
import pytest

from rederive.studies.tag_sycophancy.panel import (
    composition,
    correlation,
    decimal_year,
    fit_trend,
    lineage_endpoints,
    resister_composition,
    rubber_stamp_scores,
    trend_frame,
)


def panel(slope=-6.0):
    rows, meta = [], []
    offsets = {"A": 10.0, "B": -5.0, "C": 0.0}
    for lineage, off in offsets.items():
        for k, date in enumerate(["2023-07-02", "2024-07-02", "2025-07-02"]):
            model = f"{lineage}{k}"
            year = decimal_year([date]).iloc[0]
            rows.append(
                {
                    "model": model,
                    "effect": off + slope * (year - 2024),
                    "floor_limited": False,
                    "class": "x",
                }
            )
            meta.append(
                {"model": model, "lineage": lineage, "release_date": date, "out_of_sample": False}
            )
    rows.append({"model": "solo", "effect": 30.0, "floor_limited": False, "class": "x"})
    meta.append(
        {"model": "solo", "lineage": "S", "release_date": "2024-01-01", "out_of_sample": False}
    )
    rows.append({"model": "late", "effect": -40.0, "floor_limited": False, "class": "x"})
    meta.append(
        {"model": "late", "lineage": "A", "release_date": "2026-07-02", "out_of_sample": True}
    )
    rows.append({"model": "floor", "effect": 0.0, "floor_limited": True, "class": "floor-limited"})
    meta.append(
        {"model": "floor", "lineage": "B", "release_date": "2026-01-01", "out_of_sample": False}
    )
    return pd.DataFrame(rows), pd.DataFrame(meta)


def test_trend_recovers_known_slope_with_fixed_effects():
    table, meta = panel()
    frame = trend_frame(table, meta, min_models=2, exclude_floor=True)
    fit = fit_trend(frame)
    assert fit["slope"] == pytest.approx(-6.0)
    assert fit["n_models"] == 9 and fit["n_lineages"] == 3  # solo, out-of-sample, floor left out
    assert not frame.set_index("model").loc[["solo", "late", "floor"], "in_fit"].any()


def test_lineage_endpoints_skip_floor_and_out_of_sample():
    table, meta = panel()
    ends = lineage_endpoints(trend_frame(table, meta, min_models=2, exclude_floor=False)).set_index(
        "lineage"
    )
    assert ends.loc["A", "last_model"] == "A2"  # not the out-of-sample release
    assert ends.loc["B", "last_model"] == "B2"  # not the floor-limited one
    assert ends.loc["A", "first_effect"] == pytest.approx(
        10 - 6 * (decimal_year(["2023-07-02"]).iloc[0] - 2024)
    )


def test_rubber_stamp_score():
    cells = pd.DataFrame(
        {
            "model": ["s", "s", "s", "s", "p", "p", "p", "p"],
            "item_id": ["a", "a", "b", "b"] * 2,
            "option": ["x", "y"] * 4,
            "arm": ["tag_maybe"] * 8,
            "n_endorse": [4, 4, 4, 3, 4, 0, 1, 3],
            "n_valid": [4, 4, 4, 4, 4, 4, 4, 4],
        }
    )
    score = rubber_stamp_scores(cells, ["s", "p"])
    assert score["s"] == pytest.approx((1 + 0.75) / 2)
    assert score["p"] == pytest.approx((0 + 0.25) / 2)  # a stable preference stays <= 0.5


def test_composition_and_resister_means():
    cells = pd.DataFrame(
        {
            "model": ["r1", "r1", "r2", "r2"],
            "item_id": ["a"] * 4,
            "option": ["x"] * 4,
            "arm": ["ask", "tag"] * 2,
            "n_endorse": [6, 2, 5, 1],
            "n_reject": [3, 6, 1, 1],
            "n_evade": [1, 2, 4, 8],
            "n_valid": [10, 10, 10, 10],
        }
    )
    table = pd.DataFrame({"model": ["r1", "r2"], "class": ["resisting", "resisting"]})
    comp = composition(cells, table)
    res = resister_composition(comp)
    assert res["reject_ask"] == pytest.approx(20.0) and res["reject_tag"] == pytest.approx(35.0)
    assert res["evade_tag"] == pytest.approx(50.0) and res["more_reject"] == 1


def test_correlation_matches_numpy_and_handles_missing():
    x = np.array([1.0, 2, 3, 4, 5, np.nan])
    y = np.array([2.0, 1, 4, 3, 6, 1])
    r = correlation(x, y)
    assert r["r"] == pytest.approx(np.corrcoef(x[:5], y[:5])[0, 1]) and r["n_models"] == 5
    assert r["ci_low"] < r["r"] < r["ci_high"]


def test_published_identities_hold():
    """The paper's own numbers agree with each other (span, field means, 15 + 2 resisters)."""
    from pathlib import Path

    from rederive.studies.tag_sycophancy.check import identity_checks
    from rederive.studies.tag_sycophancy.published import load_published

    published = load_published(Path(__file__).resolve().parents[2] / "raw/tag_sycophancy/published")
    checks = identity_checks(published)
    assert len(checks) == 5
    assert {c.status for c in checks} == {"pass"}
