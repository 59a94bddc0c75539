"""Suspicious duplicates are data-quality notes naming both models (issue 37, item 5)."""

import duckdb
import pandas as pd

from rederive.io.shared_quality import (
    NOTE,
    digest_sql,
    identical_results_notes,
    note_sentences,
    with_notes,
)

QUALITY = pd.DataFrame(
    {
        "study": "s",
        "run": ["ra", "ra", "rb", "rc"],
        "file": ["a.csv", "a.csv", "b.csv", "c.csv"],
        "sha256": ["1", "1", "2", "3"],
        "rows_read": [5, 5, 4, 4],
        "reason": ["used", "missing score", "used", "used"],
        "rows": [4, 1, 4, 4],
        "example_lines": ["", "3", "", ""],
    }
)


def _digests(rows: pd.DataFrame) -> pd.DataFrame:
    con = duckdb.connect()
    con.register("r", rows)
    return con.execute(
        f"SELECT model, min(run) AS run, count(DISTINCT item) AS n_items, "
        f"min(correct) < max(correct) AS varies, "
        f"{digest_sql('item, CAST(correct AS DOUBLE)')} AS digest FROM r GROUP BY model "
        "ORDER BY model"
    ).df()


def test_identical_results_in_another_order_are_one_note_per_model_naming_both():
    items = ["q1", "q2", "q3", "q4"]
    rows = pd.DataFrame(
        {
            "model": ["a"] * 4 + ["b"] * 4 + ["c"] * 4,
            "run": ["ra"] * 4 + ["rb"] * 4 + ["rc"] * 4,
            "item": items + items[::-1] + items,
            "correct": [1, 0, 0.5, 1] + [1, 0.5, 0, 1] + [1, 0, 0.5, 0],
        }
    )
    notes = identical_results_notes(_digests(rows))
    assert sorted(notes["run"]) == ["ra", "rb"]
    for reason in notes["reason"]:
        assert reason.startswith(
            f"{NOTE}: identical per-item results for a (run ra) and b (run rb)"
        )
        assert "on all 4 items" in reason
    table = with_notes(QUALITY, notes)
    added = table[table["reason"].str.startswith(NOTE)]
    assert (added["rows"] == 0).all() and len(added) == 2
    # Each run still reconciles, and its other columns are the run's own.
    totals = table.groupby("run").agg(read=("rows_read", "first"), rows=("rows", "sum"))
    assert (totals["read"] == totals["rows"]).all()
    assert table.loc[table["reason"].str.endswith("[b]"), "file"].tolist() == ["b.csv"]
    # One sentence for the report, not one per model.
    sentence = note_sentences(table)
    assert sentence.count("identical per-item results") == 1 and sentence.endswith("?")


def test_models_without_variation_or_without_a_twin_get_no_note():
    rows = pd.DataFrame(
        {
            "model": ["a", "a", "b", "b", "c", "c"],
            "run": ["ra", "ra", "rb", "rb", "rc", "rc"],
            "item": ["q1", "q2"] * 3,
            "correct": [1.0, 1.0, 1.0, 1.0, 0.0, 1.0],
        }
    )
    # a and b are both right on everything: alike, not a copy; c has no twin.
    assert identical_results_notes(_digests(rows)).empty
    assert with_notes(QUALITY, identical_results_notes(_digests(rows))) is QUALITY
    assert note_sentences(QUALITY) == ""


def test_salitrap_labels_identical_item_by_item(tmp_path):
    from rederive.studies.salitrap.tables import duplicate_notes

    db = tmp_path / "s.duckdb"
    labels = pd.DataFrame(
        {
            "run": ["ra"] * 3 + ["rb"] * 3,
            "model": ["A"] * 3 + ["B"] * 3,
            "item_id": ["i1", "i2", "i3"] * 2,
            "condition": "P1",
            "label": ["Strict Pass", "Sycophantic Compliance", "Strict Pass"] * 2,
        }
    )
    with duckdb.connect(str(db)) as con:
        con.register("f", labels)
        con.execute("CREATE TABLE labels AS SELECT * FROM f")
    notes = duplicate_notes(db)
    assert sorted(notes["run"]) == ["ra", "rb"]
    assert (
        notes["reason"]
        .str.contains("identical labels for A (run ra) and B (run rb)", regex=False)
        .all()
    )
