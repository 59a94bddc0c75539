"""Degenerate real data, in process: every reply evasive (a 270M model), one model,
every reply unparseable, a small-n model, and no ``published/`` folder."""

from types import SimpleNamespace

import matplotlib
import numpy as np
import pandas as pd
import pytest

from rederive.studies.tag_sycophancy import check, figures, panel
from rederive.studies.tag_sycophancy.effects import (
    FLOOR_BOTH_ARMS,
    NO_BALANCED_ITEM,
    arm_effects,
    baseline_rates,
    cell_counts,
    model_table,
)

from .test_effects import replies_from

matplotlib.use("Agg")
ITEMS = ["A", "B", "C"]
ARMS = ["ask", "tag", "tag_maybe"]


def panel_cells(pattern: dict[str, dict[str, str]]):
    """pattern: model -> arm -> labels string, the same in every item and option."""
    spec = {
        (model, item, option, arm): labels
        for model, arms in pattern.items()
        for item in ITEMS
        for option in ("x", "y")
        for arm, labels in arms.items()
    }
    return cell_counts(replies_from(spec))


def tables(cells, models, *, min_items=1):
    effects, _ = arm_effects(
        cells, ITEMS, models, arms=ARMS, n_boot=200, level=0.9, seed=1, q=0.1, min_items=min_items
    )
    meta = pd.DataFrame(
        {
            "model": models,
            "lineage": ["L"] * len(models),
            "release_date": ["2024-01-01"] * len(models),
            "out_of_sample": [False] * len(models),
        }
    )
    table = model_table(
        effects, baseline_rates(cells, models, 0.9), cells, meta, floor_threshold=0.1
    )
    return effects, table, meta


def test_every_reply_evasive_is_not_estimable_not_a_precise_zero():
    """Before: effect 0, CI [0, 0], p = 1, q = 1. Now NaN with the reason."""
    models = ["evasive", "ok"]
    cells = panel_cells(
        {
            "evasive": {"ask": "VVVV", "tag": "VVVV", "tag_maybe": "VVVV"},
            "ok": {"ask": "ERRR", "tag": "EEER", "tag_maybe": "EEEE"},
        }
    )
    effects, table, _ = tables(cells, models)
    row = table.set_index("model").loc["evasive"]
    for column in ("effect", "ci_low", "ci_high", "p_value", "q_value"):
        assert np.isnan(row[column]), column
    assert row["not_estimable"] == FLOOR_BOTH_ARMS
    assert row["class"] == "not estimable" and row["floor_limited"]
    assert not row["bh_significant"]
    ok = table.set_index("model").loc["ok"]
    assert ok["effect"] == pytest.approx(50.0) and ok["not_estimable"] == ""
    # Only the estimable model is in the BH family: its q equals its p.
    assert ok["q_value"] == pytest.approx(ok["p_value"])


def test_all_models_floor_limited_panel_writes_header_only_tables(tmp_path):
    """Before: lineage_endpoints.csv was a 1-byte file -> EmptyDataError downstream."""
    models = ["a", "b"]
    cells = panel_cells({m: {"ask": "VVVV", "tag": "VVVV", "tag_maybe": "VVVV"} for m in models})
    effects, table, meta = tables(cells, models)
    assert (table["class"] == "not estimable").all()
    frame = panel.trend_frame(table, meta, min_models=2, exclude_floor=False)
    lineages = panel.lineage_endpoints(frame)
    path = tmp_path / "lineage_endpoints.csv"
    lineages.to_csv(path, index=False)
    back = pd.read_csv(path)
    assert back.empty and list(back.columns) == panel.LINEAGE_COLUMNS
    fit = panel.fit_trend(frame)
    assert np.isnan(fit["slope"])
    # The figures draw NaN effects as "not estimable" instead of failing or plotting 0.
    fig = figures.forest(table, 0.9)
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert texts.count(" not estimable") == 2
    fig2 = figures.baseline(table)
    assert "2 not estimable" in fig2.axes[0].get_title()


def test_one_model_and_every_reply_unparseable():
    one = panel_cells({"solo": {"ask": "ERRR", "tag": "EERR", "tag_maybe": "EEER"}})
    effects, table, _ = tables(one, ["solo"])
    assert table.loc[0, "effect"] == pytest.approx(25.0)
    failed = panel_cells({"solo": {"ask": "FFFF", "tag": "FFFF", "tag_maybe": "FFFF"}})
    effects, table, _ = tables(failed, ["solo"])
    assert np.isnan(table.loc[0, "effect"]) and table.loc[0, "class"] == "no data"
    assert table.loc[0, "not_estimable"] == NO_BALANCED_ITEM


def test_small_n_model_is_flagged_and_left_out_of_bh():
    models = ["big", "tiny"]
    cells = panel_cells(
        {
            "big": {"ask": "ERRR", "tag": "EEEE", "tag_maybe": "EEEE"},
            "tiny": {"ask": "ERRR", "tag": "EEEE", "tag_maybe": "EEEE"},
        }
    )
    # "tiny" answered only item A: drop its other items.
    cells = cells[(cells["model"] == "big") | (cells["item_id"] == "A")]
    effects, table, _ = tables(cells, models, min_items=2)
    t = table.set_index("model")
    assert t.loc["tiny", "small_n"] and not t.loc["big", "small_n"]
    assert np.isnan(t.loc["tiny", "q_value"]) and t.loc["tiny", "class"] == "small n"
    assert t.loc["tiny", "effect"] == pytest.approx(75.0)  # its own number is kept
    assert t.loc["big", "q_value"] == pytest.approx(t.loc["big", "p_value"])


def test_check_without_published_says_so(tmp_path):
    """Before: FileNotFoundError from simulate/tag_sycophancy_panel.py:load_published."""
    out = SimpleNamespace(csv=tmp_path / "check.csv", md=tmp_path / "check.md")
    params = SimpleNamespace(
        published_dir=str(tmp_path / "raw" / "published"),
        effect_tolerance=3.0,
        ci_tolerance=5.0,
        simulated=False,
    )
    check.main(
        SimpleNamespace(
            params=params,
            output=out,
            input=SimpleNamespace(),
            wildcards=SimpleNamespace(analysis="x"),
        )
    )
    assert pd.read_csv(out.csv).empty
    assert "No published numbers to compare" in out.md.read_text()
