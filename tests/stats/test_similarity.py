"""Failure-set similarity: hand-computed cases and the published SaLiTrap Table 5."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from rederive.stats.similarity import (
    LINKAGE_METHODS,
    cluster_models,
    co_failure_matrix,
    empty_union_pairs,
    extreme_pairs,
    failed_by_all,
    jaccard_from_co_failure,
    jaccard_matrix,
)

# Same files as /work/shared/published/ (checked byte-identical when the test was written).
PUBLISHED = Path(__file__).resolve().parents[2] / "raw" / "salitrap" / "published"


def fail_matrix(sets: dict[str, set[int]], n_items: int) -> pd.DataFrame:
    items = [f"i{j}" for j in range(1, n_items + 1)]
    return pd.DataFrame(
        [[j in s for j in range(1, n_items + 1)] for s in sets.values()],
        index=list(sets),
        columns=items,
    )


# A fails {1,2,3}, B {2,3,4}, C {5}, D nothing; N = 6.
FAIL = fail_matrix({"A": {1, 2, 3}, "B": {2, 3, 4}, "C": {5}, "D": set()}, 6)


def test_co_failure_by_hand():
    cf = co_failure_matrix(FAIL)
    expected = np.array(
        [
            [3 / 6, 2 / 6, 0, 0],
            [2 / 6, 3 / 6, 0, 0],
            [0, 0, 1 / 6, 0],
            [0, 0, 0, 0],
        ]
    )
    np.testing.assert_allclose(cf.to_numpy(), expected, rtol=0, atol=1e-15)
    assert list(cf.index) == list(cf.columns) == ["A", "B", "C", "D"]


def test_jaccard_by_hand():
    jac = jaccard_matrix(FAIL)
    # |A∩B| = 2, |A∪B| = 4 -> 0.5; every other distinct pair has an empty intersection
    # and a non-empty union -> 0; the diagonal is 1, including D's (empty ∪ empty).
    expected = np.array(
        [
            [1.0, 0.5, 0, 0],
            [0.5, 1.0, 0, 0],
            [0, 0, 1.0, 0],
            [0, 0, 0, 1.0],
        ]
    )
    np.testing.assert_allclose(jac.to_numpy(), expected, rtol=0, atol=1e-15)


def test_integer_input_is_accepted_like_bool():
    np.testing.assert_array_equal(
        jaccard_matrix(FAIL.astype(int)).to_numpy(), jaccard_matrix(FAIL).to_numpy()
    )


def test_empty_union_is_one_and_listed():
    fail = fail_matrix({"A": {1}, "D": set(), "E": set(), "F": set()}, 3)
    jac = jaccard_matrix(fail)
    assert jac.loc["D", "E"] == 1.0
    assert jac.loc["A", "D"] == 0.0
    pairs = empty_union_pairs(fail)
    assert pairs.to_dict("records") == [
        {"model_a": "D", "model_b": "E"},
        {"model_a": "D", "model_b": "F"},
        {"model_a": "E", "model_b": "F"},
    ]
    assert empty_union_pairs(FAIL).empty
    assert list(empty_union_pairs(FAIL).columns) == ["model_a", "model_b"]


@pytest.mark.parametrize(
    "bad",
    [
        FAIL.astype(float).where(FAIL.index.to_series().ne("A"), axis=0),  # NaN row A
        FAIL.astype(int) * 2,
        FAIL.astype(str),
    ],
)
def test_invalid_failure_matrix(bad):
    with pytest.raises(ValueError):
        jaccard_matrix(bad)


# Jaccard similarities whose distances 1 - J are
#       A    B    C    D
#   A   0   .2   .6   .8
#   B  .2    0   .5   .9
#   C  .6   .5    0   .3
#   D  .8   .9   .3    0
LINK_SIM = pd.DataFrame(
    1.0
    - np.array(
        [
            [0.0, 0.2, 0.6, 0.8],
            [0.2, 0.0, 0.5, 0.9],
            [0.6, 0.5, 0.0, 0.3],
            [0.8, 0.9, 0.3, 0.0],
        ]
    ),
    index=list("ABCD"),
    columns=list("ABCD"),
)


@pytest.mark.parametrize(
    ("method", "last_height"),
    [
        # Worked by hand: A+B merge at 0.2, C+D at 0.3 (AB-C is 0.55 on average,
        # 0.6 complete, 0.5 single - all above 0.3). The final merge of {A,B} with
        # {C,D} is the mean / max / min of the four cross distances .6 .8 .5 .9.
        ("average", (0.6 + 0.8 + 0.5 + 0.9) / 4),
        ("complete", 0.9),
        ("single", 0.5),
    ],
)
def test_linkage_hand_worked(method, last_height):
    res = cluster_models(LINK_SIM, method=method)
    z = res.linkage
    np.testing.assert_array_equal(z[:, [0, 1]], [[0, 1], [2, 3], [4, 5]])
    np.testing.assert_allclose(z[:, 2], [0.2, 0.3, last_height], atol=1e-12)
    np.testing.assert_array_equal(z[:, 3], [2, 2, 4])
    assert res.order == ["A", "B", "C", "D"]
    assert res.method == method


def test_linkage_from_failures_and_optimal_ordering():
    res = cluster_models(jaccard_matrix(FAIL), optimal_ordering=True)
    assert sorted(res.order) == ["A", "B", "C", "D"]
    # A and B (the only overlapping failure sets) are merged first, at distance 0.5.
    assert set(res.linkage[0, :2].astype(int)) == {0, 1}
    assert res.linkage[0, 2] == pytest.approx(0.5)
    assert res.order.index("A") - res.order.index("B") in (-1, 1)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"method": "ward"},
        {"method": "centroid"},
        {"method": "AVERAGE"},
    ],
)
def test_linkage_rejects_methods(kwargs):
    assert "ward" not in LINKAGE_METHODS
    with pytest.raises(ValueError, match="method"):
        cluster_models(LINK_SIM, **kwargs)


def test_linkage_rejects_bad_matrices():
    with pytest.raises(ValueError):
        cluster_models(LINK_SIM.iloc[:, :3])
    with pytest.raises(ValueError):
        cluster_models(LINK_SIM.rename(columns={"A": "Z"}))
    asym = LINK_SIM.copy()
    asym.loc["A", "B"] = 0.1
    with pytest.raises(ValueError, match="symmetric"):
        cluster_models(asym)
    with pytest.raises(ValueError, match="at least 2"):
        cluster_models(LINK_SIM.iloc[:1, :1])


def test_extreme_pairs_order_and_ties():
    jac, cf = jaccard_matrix(FAIL), co_failure_matrix(FAIL)
    out = extreme_pairs(jac, cf, k=2)
    assert list(out.columns) == ["group", "model_a", "model_b", "co_failure_rate", "jaccard"]
    # Five pairs tie at J = 0; names break the tie: (A,C) < (A,D) < (B,C) ...
    assert out[["group", "model_a", "model_b"]].values.tolist() == [
        ["most_similar", "A", "B"],
        ["most_similar", "A", "C"],
        ["least_similar", "A", "C"],
        ["least_similar", "A", "D"],
    ]
    assert out.loc[0, "jaccard"] == 0.5
    assert out.loc[0, "co_failure_rate"] == pytest.approx(2 / 6)


def test_extreme_pairs_independent_of_row_order():
    def as_sets(df):
        return [(g, frozenset((a, b))) for g, a, b in df[["group", "model_a", "model_b"]].values]

    jac, cf = jaccard_matrix(FAIL), co_failure_matrix(FAIL)
    order = ["D", "C", "B", "A"]
    rev = extreme_pairs(jac.loc[order, order], cf.loc[order, order], k=3)
    assert as_sets(rev) == as_sets(extreme_pairs(jac, cf, k=3))
    # Orientation follows the row order of the input.
    assert rev.loc[0, ["model_a", "model_b"]].tolist() == ["B", "A"]


def test_extreme_pairs_validation():
    jac, cf = jaccard_matrix(FAIL), co_failure_matrix(FAIL)
    with pytest.raises(ValueError):
        extreme_pairs(jac, cf, k=0)
    with pytest.raises(ValueError):
        extreme_pairs(jac, cf.loc[list("DCBA"), list("DCBA")])


def test_failed_by_all():
    fail = fail_matrix({"A": {1, 2, 4}, "B": {2, 4}, "C": {2, 3, 4}}, 5)
    res = failed_by_all(fail)
    assert res.count == 2
    assert res.share == pytest.approx(2 / 5)
    assert res.items == ["i2", "i4"]
    none = failed_by_all(FAIL)
    assert (none.count, none.share, none.items) == (0, 0.0, [])


def test_jaccard_from_co_failure_identity_on_sets():
    cf = co_failure_matrix(FAIL)
    jac = jaccard_matrix(FAIL)
    rate = np.diag(cf.to_numpy())
    implied = jaccard_from_co_failure(cf.to_numpy(), rate[:, None], rate[None, :])
    nonempty = ~np.isnan(implied)
    np.testing.assert_allclose(implied[nonempty], jac.to_numpy()[nonempty], atol=1e-15)
    # Only D-D has an empty union (0/0 -> NaN here; jaccard_matrix defines it as 1).
    assert np.isnan(implied).sum() == 1 and np.isnan(implied[3, 3])


def test_jaccard_from_co_failure_scalar_and_inconsistent():
    assert jaccard_from_co_failure(0.2, 0.4, 0.3) == pytest.approx(0.2 / 0.5)
    assert isinstance(jaccard_from_co_failure(0.2, 0.4, 0.3), float)
    assert np.isnan(jaccard_from_co_failure(0.5, 0.4, 0.9))  # c > f_a is impossible
    assert np.isnan(jaccard_from_co_failure(0.0, 0.0, 0.0))  # empty union


def _table5_rows():
    pairs = pd.read_csv(PUBLISHED / "salitrap_table5_pairs.csv")
    return [pytest.param(r, id=f"{r.model_a}|{r.model_b}") for r in pairs.itertuples()]


@pytest.mark.parametrize("row", _table5_rows())
def test_published_table5_identity(row):
    """Table 5's Jaccard equals cf / (f_a + f_b - cf) with f = 1 - TAR (Table 1, overall).

    Every input is rounded: cf and J to 3 decimals (±0.0005), TAR to 0.1 percentage
    point (so f to ±0.0005). J is increasing in cf and decreasing in f_a and f_b,
    so the exact range of J compatible with the rounded inputs is
    [J(cf-δ, f_a+δ, f_b+δ), J(cf+δ, f_a-δ, f_b-δ)]; the published J (itself ±0.0005)
    must fall within that range widened by 0.0005. For the DeepSeek-V4-Pro/Flash row
    (cf 0.798, TAR 14.4 % and 12.1 %) the implied J is 0.8517 (published 0.852) and
    the admissible range is about [0.849, 0.854], i.e. a tolerance of ~0.002.
    """
    tar = pd.read_csv(PUBLISHED / "salitrap_table1_tar_hfr.csv")
    tar = tar[tar["dimension"] == "overall"].set_index("model")["TAR"] / 100.0
    fa, fb, cf = 1.0 - tar[row.model_a], 1.0 - tar[row.model_b], row.co_failure_rate
    delta = 0.0005
    lo = jaccard_from_co_failure(cf - delta, fa + delta, fb + delta)
    hi = jaccard_from_co_failure(cf + delta, fa - delta, fb - delta)
    assert lo - delta <= row.jaccard <= hi + delta
    assert jaccard_from_co_failure(cf, fa, fb) == pytest.approx(row.jaccard, abs=0.0025)


def test_published_table5_example_value():
    assert jaccard_from_co_failure(0.798, 1 - 0.144, 1 - 0.121) == pytest.approx(0.8517, abs=1e-4)
