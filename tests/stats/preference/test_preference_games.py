"""The games frame's contract and its pair counts."""

import numpy as np
import pandas as pd
import pytest

from rederive.stats.preference.games import check_games, game_weights, pair_counts


def frame(**overrides):
    base = {
        "model_a": ["x", "y", "x"],
        "model_b": ["y", "z", "z"],
        "outcome": [1.0, 0.5, 0.0],
        "verdict": ["a", "tie", "b"],
        "item_id": ["1", "1", "2"],
    }
    base.update(overrides)
    return pd.DataFrame(base)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"outcome": [1.0, 1.5, 0.0]}, "outcome 1.5 not in"),
        ({"verdict": ["a", "draw", "b"]}, "verdict 'draw' not one of"),
        ({"outcome": [1.0, 0.5, 0.5]}, "verdict 'b' needs outcome 0.0"),
        ({"model_b": ["y", "y", "z"]}, "cannot play itself"),
        ({"strength": [1, 3, 1]}, "strength must be 1 or 2"),
    ],
)
def test_a_broken_frame_names_its_row(overrides, message):
    with pytest.raises(ValueError, match=message):
        check_games(frame(**overrides))


def test_counts_are_oriented_to_the_pair_in_name_order():
    counts = pair_counts(frame())
    assert counts.models == ["x", "y", "z"]
    assert list(zip(counts.ia, counts.ib, strict=True)) == [(0, 1), (0, 2), (1, 2)]
    totals = counts.totals()
    # x beat y; z beat x (x lost to z); y tied z.
    np.testing.assert_array_equal(totals[0], [1, 0, 0])  # wins of the first-named
    np.testing.assert_array_equal(totals[1], [0, 1, 0])  # losses
    np.testing.assert_array_equal(totals[2], [0, 0, 1])  # ties
    assert counts.unit_kind == "item" and counts.n_units == 2


def test_both_bad_is_a_tie_and_strong_labels_carry_their_weight():
    games = frame(verdict=["a", "both_bad", "b"], strength=[2, 1, 1])
    assert list(game_weights(games, 3)) == [3.0, 1.0, 1.0]
    totals = pair_counts(games, strong_weight=3).totals()
    assert totals[0][0] == 3 and totals[2][2] == 1


def test_excluded_models_and_unknown_models():
    counts = pair_counts(frame(), exclude=["z"])
    assert counts.models == ["x", "y"] and counts.n_games == 1
    with pytest.raises(ValueError, match="not in the model list"):
        pair_counts(frame(), models=["x", "y"])


def test_games_without_an_item_are_their_own_units():
    games = frame(item_id=["1", None, ""])
    counts = pair_counts(games)
    assert counts.unit_kind == "item+game" and counts.n_units == 3


def test_independent_games_repeat_strong_labels_and_drop_items():
    from rederive.stats.preference.games import as_independent_games, pair_counts

    games = pd.DataFrame(
        {
            "model_a": ["a", "a", "b"],
            "model_b": ["b", "c", "c"],
            "outcome": [1.0, 0.0, 0.5],
            "verdict": ["a", "b", "tie"],
            "strength": [2, 1, 1],
            "item_id": ["q1", "q1", "q2"],
        }
    )
    out = as_independent_games(games, 3)
    assert len(out) == 5 and out["item_id"].isna().all() and (out["strength"] == 1).all()
    assert list(out["model_b"]) == ["b", "b", "b", "c", "c"]
    weighted = pair_counts(games, strong_weight=3).totals()
    assert np.array_equal(pair_counts(out).totals(), weighted)
    with pytest.raises(ValueError, match="whole number"):
        as_independent_games(games, 2.5)
