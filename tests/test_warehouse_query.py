"""``rederive.io.warehouse.query`` with shared strings: same frame, less memory."""

import numpy as np
import pandas as pd
import pytest

from rederive.io import warehouse


@pytest.fixture
def db(tmp_path):
    n = 450_000  # more than two fetch chunks (2 x 100 x 2,048 rows)
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "model": np.array([f"model-{i}" for i in range(40)], dtype=object)[
                rng.integers(0, 40, n)
            ],
            "label": np.array(["Strict Pass", "Trap Hit", "Other"], dtype=object)[
                rng.integers(0, 3, n)
            ],
            "note": np.where(rng.random(n) < 0.01, None, "x").astype(object),
            "count": rng.integers(0, 5, n),
            "score": np.where(rng.random(n) < 0.01, np.nan, rng.random(n)),
            "row": np.arange(n),
        }
    )
    path = tmp_path / "w.duckdb"
    warehouse.build(path, {"t": frame})
    return path


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM t ORDER BY model, label, count, score, row",
        "SELECT model, label FROM t WHERE count = 3 ORDER BY row",
        "SELECT model, label FROM t WHERE count > 99 ORDER BY row",
    ],
)
def test_shared_query_equals_plain_query(db, sql):
    plain = warehouse.query(db, sql)
    shared = warehouse.query(db, sql, share_strings=True)
    pd.testing.assert_frame_equal(shared, plain)


def test_equal_strings_are_one_object_across_chunks(db):
    shared = warehouse.query(db, "SELECT model FROM t ORDER BY row", share_strings=True)
    plain = warehouse.query(db, "SELECT model FROM t ORDER BY row")
    first = shared["model"].iloc[0]
    same_value = shared.index[shared["model"] == first]
    assert len(same_value) > 1 and same_value[-1] > 2 * 100 * 2048
    assert all(shared["model"].iloc[i] is first for i in same_value)
    assert plain["model"].iloc[same_value[0]] is not plain["model"].iloc[same_value[-1]]
