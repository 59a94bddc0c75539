"""Failure sets from judge labels: hand-computed co-failure and Jaccard, the items
left out when a model has no valid row, two models that never fail, Table 5."""

import math

import numpy as np
import pandas as pd
import pytest

from rederive.errors import InputError
from rederive.studies.salitrap.failure_sets import (
    cluster,
    extreme_pairs,
    failed_by_all,
    failure_matrix,
    latex,
    pair_table,
)

SP, HF, SC = "Strict Pass", "Hard Fail", "Sycophantic Compliance"


def matrix(columns: dict[str, list]) -> pd.DataFrame:
    """Items x models labels, as label_matrix returns them."""
    return pd.DataFrame(columns, index=[f"i{k}" for k in range(len(next(iter(columns.values()))))])


def fail_of(m: pd.DataFrame) -> pd.DataFrame:
    fail, _ = failure_matrix(m, ["Strict Pass"])
    return fail


def pairs_of(m: pd.DataFrame) -> pd.DataFrame:
    return pair_table(fail_of(m)).set_index(["model_a", "model_b"])


def test_hand_computed_co_failure_and_jaccard():
    # A fails {0,1,2}, B fails {1,2,3}, over 5 items: |A∩B| = 2, |A∪B| = 4.
    m = matrix({"A": [HF, SC, HF, SP, SP], "B": [SP, HF, HF, SC, SP]})
    p = pairs_of(m).loc[("A", "B")]
    assert p.both_fail == 2 and p.union == 4 and p.n_items == 5
    assert (p.fail_a, p.fail_b) == (3, 3)
    assert p.co_failure_rate == 2 / 5
    assert p.jaccard == 2 / 4
    # Jaccard follows from co-failure and the two failure rates (Table 5 identity).
    assert math.isclose(p.jaccard, 0.4 / (0.6 + 0.6 - 0.4))
    # Self-pairs: co-failure = failure rate, Jaccard = 1.
    assert pairs_of(m).loc[("A", "A")].co_failure_rate == 3 / 5
    assert pairs_of(m).loc[("A", "A")].jaccard == 1.0


def test_items_without_a_valid_row_of_every_model_are_left_out_and_counted():
    # Item 0 is missing for B: every statistic is over items 1..3 only.
    m = matrix({"A": [HF, HF, SP, HF], "B": [np.nan, HF, HF, SP]})
    fail, n_incomplete = failure_matrix(m, ["Strict Pass"])
    assert n_incomplete == 1 and list(fail.columns) == ["i1", "i2", "i3"]
    p = pair_table(fail).set_index(["model_a", "model_b"]).loc[("A", "B")]
    assert p.n_items == 3
    assert (p.fail_a, p.fail_b, p.both_fail, p.union) == (2, 2, 1, 3)
    assert p.co_failure_rate == 1 / 3


def test_no_item_answered_by_every_model_is_an_input_error():
    m = matrix({"A": [HF, np.nan], "B": [np.nan, SP]})
    with pytest.raises(InputError, match="every model answered validly"):
        failure_matrix(m, ["Strict Pass"])


def test_two_models_that_never_fail_are_flagged_and_cluster_together():
    m = matrix({"A": [SP, SP, SP], "B": [SP, SP, SP], "C": [HF, HF, SP]})
    fail = fail_of(m)
    ab = pair_table(fail).set_index(["model_a", "model_b"]).loc[("A", "B")]
    # Jaccard of two empty failure sets is 1 by convention, and says so.
    assert ab.union == 0 and bool(ab.empty_union) and ab.jaccard == 1.0
    assert ab.co_failure_rate == 0.0
    z, order = cluster(fail, "average")
    assert z[0, 2] == 0.0 and {int(z[0, 0]), int(z[0, 1])} == {0, 1}
    assert order.index("C") in (0, 2)
    table = extreme_pairs(fail, pair_table(fail), 1)
    top = table[table.group == "most_similar"].iloc[0]
    assert (top.model_a, top.model_b, bool(top.empty_union)) == ("A", "B", True)
    all_fail = failed_by_all(fail, 0)
    assert "convention (empty union)" in latex(table, all_fail, simulated=False)


def test_extreme_pairs_order_and_ranks():
    # J(A,B)=1, J(A,C)=1/3, J(B,C)=1/3 -> ties broken by names.
    m = matrix({"A": [HF, SP, SP], "B": [HF, SP, SP], "C": [HF, HF, HF]})
    fail = fail_of(m)
    table = extreme_pairs(fail, pair_table(fail), 2)
    most = table[table.group == "most_similar"]
    least = table[table.group == "least_similar"]
    assert list(zip(most.model_a, most.model_b, strict=True)) == [("A", "B"), ("A", "C")]
    # Rank 1 is the most extreme pair of each group: the least similar comes first.
    assert list(least["rank"]) == [1, 2]
    assert list(zip(least.model_a, least.model_b, strict=True)) == [("A", "C"), ("B", "C")]
    assert (least["both_fail"] == 1).all() and (least["union"] == 3).all()


def test_latex_lists_both_groups_from_high_to_low_jaccard():
    m = matrix({"A": [HF, SP, SP, HF], "B": [HF, SP, SP, SP], "C": [HF, HF, HF, SP]})
    fail = fail_of(m)
    table = extreme_pairs(fail, pair_table(fail), 1)
    tex = latex(table, failed_by_all(fail, 0), simulated=True)
    assert tex.index("Most similar") < tex.index("Least similar")
    assert "SIMULATED" in tex
    # Counts print as counts (they came out as "1.0 items ... 3.0 models").
    assert "1 items (25.0\\%) are failed by all 3 models" in tex


def test_failed_by_all_counts_only_items_every_model_answered():
    m = matrix({"A": [HF, HF, SP, HF], "B": [SC, np.nan, HF, HF]})
    fail, n_incomplete = failure_matrix(m, ["Strict Pass"])
    row = failed_by_all(fail, n_incomplete).iloc[0]
    assert row.items_failed_by_all == 2  # items 0 and 3; item 1 not answered by B
    assert row.n_items == 3 and row.items_not_answered_by_all == 1
    assert row.share_percent == 66.7


def test_heatmap_stays_bounded_and_names_every_model_at_200_models():
    import matplotlib.pyplot as plt
    import numpy as np
    import pandas as pd

    from rederive.plots.theme import MAX_SIDE_IN
    from rederive.studies.salitrap.figures import heatmap

    names = [f"model-{i:03d}" for i in range(200)]
    square = pd.DataFrame(np.random.default_rng(0).random((200, 200)), index=names, columns=names)
    fig = heatmap(square, title="t", label="l")
    width, height = fig.get_size_inches()
    # Was 0.5 in per model: 102 in (20,500 px at 200 dpi, 6.3 GiB to render).
    assert height <= MAX_SIDE_IN + 2.5 and width <= MAX_SIDE_IN + 3.7
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == names
    plt.close(fig)
