"""Co-failure and Jaccard on hand-computed cases, incl. two models that never fail."""

import math

import numpy as np
import pandas as pd

from rederive.studies.salitrap.failure_sets import (
    cluster,
    extreme_pairs,
    failed_by_all,
    failure_matrix,
    pair_table,
)

SP, HF, SC = "Strict Pass", "Hard Fail", "Sycophantic Compliance"


def matrix(columns: dict[str, list]) -> pd.DataFrame:
    return pd.DataFrame(columns, index=[f"i{k}" for k in range(len(next(iter(columns.values()))))])


def pairs_of(m: pd.DataFrame) -> pd.DataFrame:
    failed, valid = failure_matrix(m, ["Strict Pass"])
    return pair_table(failed, valid, list(m.columns)).set_index(["model_a", "model_b"])


def test_hand_computed_co_failure_and_jaccard():
    # A fails {0,1,2}, B fails {1,2,3}, over 5 items: |A∩B| = 2, |A∪B| = 4.
    m = matrix({"A": [HF, SC, HF, SP, SP], "B": [SP, HF, HF, SC, SP]})
    p = pairs_of(m).loc[("A", "B")]
    assert p.both_fail == 2 and p.union == 4 and p.n_items == 5
    assert p.co_failure_rate == 2 / 5
    assert p.jaccard == 2 / 4
    # Jaccard follows from co-failure and the two failure rates (Table 5 identity).
    assert math.isclose(p.jaccard, 0.4 / (0.6 + 0.6 - 0.4))
    # Self-pairs: co-failure = failure rate, Jaccard = 1.
    assert pairs_of(m).loc[("A", "A")].co_failure_rate == 3 / 5
    assert pairs_of(m).loc[("A", "A")].jaccard == 1.0


def test_excluded_rows_are_neither_pass_nor_fail():
    # Item 0 is missing for B: the pair is computed over items 1..3 only.
    m = matrix({"A": [HF, HF, SP, HF], "B": [np.nan, HF, HF, SP]})
    p = pairs_of(m).loc[("A", "B")]
    assert p.n_items == 3
    assert (p.fail_a, p.fail_b, p.both_fail, p.union) == (2, 2, 1, 3)
    assert p.co_failure_rate == 1 / 3


def test_two_models_that_never_fail_have_undefined_jaccard_and_cluster_together():
    m = matrix({"A": [SP, SP, SP], "B": [SP, SP, SP], "C": [HF, HF, SP]})
    pairs = pairs_of(m).reset_index()
    ab = pairs.set_index(["model_a", "model_b"]).loc[("A", "B")]
    assert ab.union == 0 and bool(ab.empty_union)
    assert math.isnan(ab.jaccard)
    assert ab.co_failure_rate == 0.0
    # Not ranked among similar/dissimilar pairs (undefined), but clustered as identical.
    table = extreme_pairs(pairs, 1)
    assert ("A", "B") not in set(zip(table.model_a, table.model_b, strict=True))
    z, order = cluster(pairs, ["A", "B", "C"], "average")
    assert z[0, 2] == 0.0 and {int(z[0, 0]), int(z[0, 1])} == {0, 1}
    assert order.index("C") in (0, 2)


def test_extreme_pairs_order_and_ranks():
    # J(A,B)=1, J(A,C)=1/3, J(B,C)=1/3 -> ties broken by names.
    m = matrix({"A": [HF, SP, SP], "B": [HF, SP, SP], "C": [HF, HF, HF]})
    table = extreme_pairs(pairs_of(m).reset_index(), 2)
    most = table[table.group == "most_similar"]
    least = table[table.group == "least_similar"]
    assert list(zip(most.model_a, most.model_b, strict=True)) == [("A", "B"), ("A", "C")]
    # Least similar listed from the least-dissimilar end; rank 1 = least similar.
    assert list(least["rank"]) == [2, 1]
    assert least.iloc[-1].jaccard <= least.iloc[0].jaccard


def test_failed_by_all_counts_only_items_every_model_answered():
    m = matrix({"A": [HF, HF, SP, HF], "B": [SC, np.nan, HF, HF]})
    failed, valid = failure_matrix(m, ["Strict Pass"])
    row = failed_by_all(failed, valid, ["A", "B"]).iloc[0]
    assert row.items_failed_by_all == 2  # items 0 and 3; item 1 not answered by B
    assert row.n_items == 3 and row.items_not_answered_by_all == 1
    assert row.share_percent == 66.7
