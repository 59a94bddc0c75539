"""Per-model panel tables (composition, maybe, category split, lineage trend) carry
the small-n flag of tag_effects.csv."""

import pandas as pd

from rederive.studies.tag_sycophancy.panel import with_small_n


def test_with_small_n_maps_the_effect_table_flag():
    table = pd.DataFrame({"model": ["Big", "Tiny"], "small_n": [False, True]})
    frame = pd.DataFrame({"model": ["Big", "Tiny", "Tiny", "(field mean)"], "x": [1, 2, 3, 4]})
    out = with_small_n(frame, table)
    assert out["small_n"].tolist() == [False, True, True, False]
    assert out["x"].tolist() == [1, 2, 3, 4] and list(out.columns) == ["model", "x", "small_n"]
    # An effect table from before the flag existed leaves the frame unchanged.
    assert with_small_n(frame, table[["model"]]).equals(frame)
