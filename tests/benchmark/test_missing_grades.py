"""``item_sets``: how a missing grade counts, and the headline's basis (issue 37, item 2)."""

import pandas as pd
import pytest

from rederive.errors import InputError
from rederive.studies.benchmark.basis import (
    basis_note,
    check_compares_headline,
    missing_grades_caption,
    with_own_items,
)
from rederive.studies.benchmark.check import checks, own_item_accuracy
from rederive.studies.benchmark.warehouse import build_tables


def responses() -> pd.DataFrame:
    """Three models on four items; B has no grade on q3 (a judge that returned nothing)."""
    rows = [
        (model, item, score)
        for model, scores in {
            "A": [1, 0, 1, 0.5],
            "B": [1, 1, None, 0],
            "C": [0, 1, 1, 1],
        }.items()
        for item, score in zip(["q1", "q2", "q3", "q4"], scores, strict=True)
        if score is not None
    ]
    frame = pd.DataFrame(rows, columns=["model", "item_id", "correct"])
    return frame.assign(
        run=frame["model"],
        format="long",
        task="t",
        category=pd.NA,
        epoch=0,
        source_file=frame["model"] + ".csv",
        item_id=frame["item_id"].astype("string"),
    )


def test_require_equal_refuses_intersection_excludes_zero_counts_zero():
    with pytest.raises(InputError, match="not graded on the same items"):
        build_tables(responses(), None, "require_equal")
    shared = build_tables(responses(), None, "intersection")
    assert sorted(shared["scores"]["item_key"].unique()) == ["t:q1", "t:q2", "t:q4"]
    assert "n_missing_as_zero" not in shared["overlap"]
    zero = build_tables(responses(), None, "zero")
    scores = zero["scores"].set_index(["model", "item_key"])
    assert len(scores) == 12
    filled = scores.loc[("B", "t:q3")]
    assert filled["score"] == 0.0 and filled["n_rows"] == 0 and filled["n_epochs"] == 0
    assert (scores.drop(index=("B", "t:q3"))["n_rows"] == 1).all()
    overlap = zero["overlap"].set_index("model")
    assert overlap["n_missing_as_zero"].to_dict() == {"A": 0, "B": 1, "C": 0}
    assert overlap["n_items_shared"].eq(4).all() and overlap["n_dropped"].eq(0).all()
    # The scores stay sorted by model, then item.
    assert zero["scores"][["model", "item_key"]].equals(
        zero["scores"][["model", "item_key"]]
        .sort_values(["model", "item_key"])
        .reset_index(drop=True)
    )


def _accuracy(scores: pd.DataFrame) -> pd.DataFrame:
    grouped = scores.groupby("model")["score"]
    return pd.DataFrame(
        {"accuracy": grouped.mean(), "n_items": grouped.size(), "accuracy_pct": 0.0}
    ).reset_index()


def test_basis_columns_only_when_the_items_differ():
    own = own_item_accuracy(responses())
    equal = _accuracy(
        build_tables(responses()[responses()["item_id"] != "q3"], None, "require_equal")["scores"]
    )
    assert with_own_items(equal, own.assign(n_items=3), "intersection") is equal
    for policy, n in (("intersection", 3), ("zero", 4)):
        table = with_own_items(
            _accuracy(build_tables(responses(), None, policy)["scores"]), own, policy
        )
        row = table.set_index("model").loc["B"]
        assert row["n_items"] == n and row["n_items_own"] == 3
        assert row["accuracy_own"] == pytest.approx(2 / 3) and row["accuracy_own_pct"] == 66.7
        assert f"item_sets: {policy}" in row["basis"] and str(n) in row["basis"]
        assert basis_note(table).startswith("Accuracy over ")


def test_the_check_compares_own_items_or_the_score_with_zeros():
    published = {"board": pd.DataFrame({"model": ["A", "B"], "accuracy": [2.5 / 4, 2 / 3]})}
    own = own_item_accuracy(responses())
    intersection = with_own_items(
        _accuracy(build_tables(responses(), None, "intersection")["scores"]), own, "intersection"
    )
    assert not check_compares_headline("intersection")
    cells = {c.item: c for c in checks(published, intersection, 1e-9, own) if c.kind == "cell"}
    # A was graded on 4 items, the headline uses the 3 every model was: own items compared.
    assert cells["A"].ours == pytest.approx(2.5 / 4)
    assert "accuracy.csv uses the 3 shared items" in cells["A"].note
    assert cells["B"].ours == pytest.approx(2 / 3)
    zero = with_own_items(_accuracy(build_tables(responses(), None, "zero")["scores"]), own, "zero")
    assert check_compares_headline("zero")
    cells = {c.item: c for c in checks(published, zero, 1e-9, None) if c.kind == "cell"}
    assert cells["B"].ours == pytest.approx(2 / 4)
    assert "1 missing grade(s) counted as 0" in cells["B"].note
    assert "item_sets: zero" in cells["B"].note
    assert cells["A"].note == "fraction correct over the model's 4 items (accuracy.csv)"


@pytest.mark.parametrize("policy", ["require_equal", "intersection", "zero"])
def test_every_setting_is_named_in_the_captions(policy):
    assert f"(item_sets: {policy})" in missing_grades_caption(policy)
