"""The one-call Bradley–Terry tables: determinism, the baseline, the caption note."""

import io

import numpy as np
from preference_fixtures import ARENA_HARD_BASELINE as BASE
from preference_fixtures import load_arena_hard

from rederive.stats.preference.elo import EloScale
from rederive.stats.preference.simulate import simulate_arena
from rederive.stats.preference.tables import bradley_terry_tables


def _csv(frame):
    buffer = io.StringIO()
    frame.to_csv(buffer, index=False, float_format="%.10g", lineterminator="\n")
    return buffer.getvalue()


def test_same_seed_same_bytes():
    games, _ = simulate_arena(8, 4000, 100, rng=np.random.default_rng(1), prompt_sd=0.3)
    one = bradley_terry_tables(games, n_boot=200, seed=5, fdr_q=0.05)
    two = bradley_terry_tables(games, n_boot=200, seed=5, fdr_q=0.05)
    for name in ("scores", "pairs", "ranks"):
        assert _csv(getattr(one, name)) == _csv(getattr(two, name))
    assert one.note == two.note


def test_arena_hard_tables_and_note():
    tables = bradley_terry_tables(
        load_arena_hard(),
        n_boot=200,
        seed=36,
        fdr_q=0.05,
        strong_weight=3,
        scale=EloScale(anchor=BASE, anchor_rating=1000.0),
        baseline=BASE,
    )
    assert tables.scores.set_index("model").loc[BASE, "role"] == "baseline"
    assert BASE not in set(tables.pairs["a"]) | set(tables.pairs["b"])
    assert list(tables.ranks["rank"])[-1] == "baseline"
    assert "a strong label counted 3 times" in tables.note
    assert f"{BASE} fixed at 1000" in tables.note
    assert "500 items (prompts)" in tables.note
    assert "BH over all 10 pairs" in tables.note
    # Five contestants far apart: every pair separated.
    assert list(tables.ranks["rank"])[:5] == ["1", "2", "3", "4", "5"]
