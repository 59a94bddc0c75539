"""The sampling rule's gathering (rederive.studies.benchmark.sampling): which models
get which metrics and why, the items left out at k, the rows of the n/a models, the
comparison at rank_at and the figure."""

import math

import numpy as np
import pandas as pd
import pytest

from rederive.stats.sampling import (
    NO_ANSWERS,
    TABLE_COLUMNS,
    estimate_matrix,
    pass_at_k,
    sample_counts,
)
from rederive.studies.benchmark import sampling as study
from rederive.studies.benchmark.sampling_compare import compare
from rederive.studies.benchmark.sampling_figure import missing_models, plot_sampling

SETTINGS = {"n_boot": 50, "seed": 7, "level": 0.95, "interval": "wilson"}
COMPARISONS = {"all_pairs_up_to": 200, "neighbours": 2}


def long_frame(rng, models, n_items=30, n_samples=4, answers=True):
    rows = []
    for model, p in models.items():
        for i in range(n_items):
            for e in range(n_samples):
                ok = int(rng.random() < p)
                rows.append(
                    {
                        "model": model,
                        "item_key": f"t:{i}",
                        "epoch": e + 1,
                        "correct": float(ok),
                        "answer": ("right" if ok else f"wrong{rng.integers(3)}")
                        if answers
                        else None,
                    }
                )
    return pd.DataFrame(rows)


def items_of(frame):
    return sorted(frame["item_key"].unique(), key=lambda k: int(k.split(":")[1]))


def test_a_model_with_fractional_grades_is_na_with_the_reason_others_are_estimated():
    rng = np.random.default_rng(1)
    frame = long_frame(rng, {"a": 0.6, "b": 0.4})
    frame.loc[(frame["model"] == "b") & (frame["epoch"] == 1), "correct"] = 0.5
    samples = study.gather(frame, items_of(frame), {"a": "long", "b": "long"})
    assert set(samples.unavailable) == {"b"}
    assert "30 of 120 samples have a grade that is not 0 or 1 (e.g. 0.5" in samples.unavailable["b"]
    assert samples.counts.models == ["a"]
    table = study.table(samples, ks=[1, 2], metrics=["pass@k", "avg@n"], **SETTINGS)
    assert list(table.columns) == TABLE_COLUMNS
    rows_b = table[table["model"] == "b"]
    assert rows_b["estimate"].isna().all() and len(rows_b) == 3  # pass@1, pass@2, avg@n
    assert (rows_b["note"] == samples.unavailable["b"]).all()
    assert (rows_b["n_samples"] == 120).all() and (rows_b["n_items"] == 30).all()
    rows_a = table[table["model"] == "a"].set_index(["metric", "k"])
    counts = frame[frame["model"] == "a"].groupby("item_key")["correct"].agg(["size", "sum"])
    expected = pass_at_k(counts["size"], counts["sum"].astype(int), 2).mean()
    assert rows_a.loc[("pass@k", 2), "estimate"] == pytest.approx(expected, abs=1e-12)
    # Rows by model, then metric order, then k.
    assert table[["model", "metric"]].values.tolist()[:3] == [
        ["a", "pass@k"],
        ["a", "pass@k"],
        ["a", "avg@n"],
    ]


def test_maj_at_k_reasons_per_model():
    rng = np.random.default_rng(2)
    frame = long_frame(rng, {"grid": 0.5, "noans": 0.5, "flaky": 0.5, "ok": 0.5})
    frame.loc[frame["model"].isin(["grid", "noans"]), "answer"] = None
    # "flaky": one answer graded both ways within an item.
    flaky = frame.index[(frame["model"] == "flaky") & (frame["item_key"] == "t:3")]
    frame.loc[flaky, "answer"] = "same"
    frame.loc[flaky[0], "correct"], frame.loc[flaky[1], "correct"] = 1.0, 0.0
    fmt = {"grid": "matrix", "noans": "long", "flaky": "long", "ok": "inspect"}
    samples = study.gather(frame, items_of(frame), fmt)
    notes = samples.counts.answers_note
    assert (
        notes["grid"] == "no extracted answers: the matrix format logs none (docs/input-formats.md)"
    )
    assert notes["noans"].startswith(
        "no extracted answers: no sample of this model has one (long: "
    )
    assert notes["flaky"].startswith("no maj@k: the answer 'same' of item t:3 is graded correct")
    assert notes["ok"] == ""
    table = study.table(samples, ks=[3], metrics=["pass@k", "maj@k"], **SETTINGS)
    maj = table[table["metric"] == "maj@k"].set_index("model")
    assert maj.loc[["grid", "noans", "flaky"], "estimate"].isna().all()
    assert maj.loc["flaky", "note"] == notes["flaky"]
    assert maj.loc["ok", "estimate"] > 0
    # pass@k of the flaky model is not affected.
    assert (
        table[(table["metric"] == "pass@k") & (table["model"] == "flaky")]["estimate"].notna().all()
    )


def test_answer_conflicts_names_the_first_answer_and_counts():
    frame = pd.DataFrame(
        {
            "model": ["m"] * 4 + ["n"] * 2,
            "item_key": ["a", "a", "b", "b", "a", "a"],
            "answer": ["x", "x", "y", "y", "x", None],
            "correct": [1.0, 0.0, 1.0, 0.0, 1.0, 0.0],
        }
    )
    got = study.answer_conflicts(frame)
    assert list(got) == ["m"]
    assert "'x' of item a" in got["m"] and "(2 such answer(s))" in got["m"]


def test_items_with_fewer_than_k_samples_are_counted_for_the_data_quality_table():
    rng = np.random.default_rng(3)
    frame = long_frame(rng, {"a": 0.5, "b": 0.5})
    short = (frame["model"] == "a") & frame["item_key"].isin(["t:0", "t:1"]) & (frame["epoch"] > 2)
    frame = frame[~short]
    samples = study.gather(frame, items_of(frame), {"a": "long", "b": "long"})
    excluded = study.excluded_at_k(samples, [1, 2, 4])
    assert excluded[["model", "k", "n_items", "n_items_excluded"]].values.tolist() == [
        ["a", 4, 30, 2]
    ]
    notes = study.quality_notes(excluded, {"a": "run-a", "b": "run-b"}, ["pass@k", "maj@k"])
    assert notes["run"].tolist() == ["run-a"]
    assert notes["reason"].iloc[0] == (
        "left out of sampling.csv only (sampling.k): 2 of 30 items have fewer than 4 samples, "
        "no estimate at k = 4 (pass@k, maj@k) [a]"
    )
    table = study.table(samples, ks=[4], metrics=["pass^k"], **SETTINGS).set_index("model")
    assert table.loc["a", "n_items_excluded"] == 2 and table.loc["a", "n_items"] == 28
    assert table.loc["b", "n_items_excluded"] == 0


def test_the_table_is_reproducible_and_written_at_full_precision(tmp_path):
    rng = np.random.default_rng(4)
    frame = long_frame(rng, {"a": 0.3, "b": 0.7})
    samples = study.gather(frame, items_of(frame), {"a": "long", "b": "long"})
    paths = []
    for name in ("one.csv", "two.csv"):
        table = study.table(samples, ks=[1, 2, 4], **SETTINGS)
        study.write_table(table, tmp_path / name)
        paths.append(tmp_path / name)
    assert paths[0].read_bytes() == paths[1].read_bytes()
    back = pd.read_csv(paths[0])
    np.testing.assert_allclose(back["estimate"], table["estimate"], rtol=0, atol=1e-14)
    # Percentages keep their one decimal.
    text = paths[0].read_text().splitlines()[1].split(",")
    assert text[TABLE_COLUMNS.index("estimate_pct")].count(".") == 1


def test_no_estimable_model_gives_a_table_of_na_rows():
    frame = pd.DataFrame(
        {"model": ["m"] * 2, "item_key": ["a", "b"], "epoch": [1, 1], "correct": [0.5, 1.0]}
    )
    samples = study.gather(frame, ["a", "b"], {"m": "long"})
    assert samples.counts is None
    table = study.table(samples, ks=[1], metrics=["pass@k"], **SETTINGS)
    assert len(table) == 1 and math.isnan(table["estimate"].iloc[0])
    assert study.excluded_at_k(samples, [2]).empty


def test_describe_names_the_settings():
    text = study.describe(
        {
            "k": [4, 1],
            "metrics": ["pass@k", "pass^k"],
            "interval": "t",
            "rank_at": 4,
            "rank_metric": "pass^k",
        },
        "category",
    )
    assert text == (
        "Metrics pass@k, pass^k at k = 1, 4; intervals over clusters of items (category): "
        "the mean ± t · SE (t with C − 1 df). Models compared and ranked on pass^k at k = 4."
    )
    assert study.describe(None) == ""
    with pytest.raises(ValueError, match="sampling is not set"):
        study.require(None, "x")


def test_compare_at_rank_at_ranks_with_ties_and_puts_unavailable_models_last():
    rng = np.random.default_rng(5)
    frame = long_frame(rng, {"strong": 0.9, "strong2": 0.88, "weak": 0.2, "frac": 0.5}, n_items=40)
    frame.loc[frame["model"] == "frac", "correct"] = 0.5
    samples = study.gather(frame, items_of(frame), dict.fromkeys(frame["model"].unique(), "long"))
    pairs, ranked = compare(
        samples,
        "pass@k",
        2,
        n_boot=50,
        seed=1,
        fdr_q=0.05,
        min_n=20,
        level=0.95,
        interval="wilson",
        comparisons=COMPARISONS,
    )
    assert len(pairs) == 3 and (pairs["metric"] == "pass@k").all() and (pairs["k"] == 2).all()
    assert ranked["model"].tolist()[-1] == "frac" and ranked["rank"].tolist()[-1] == "n/a"
    assert ranked["note"].iloc[-1] == samples.unavailable["frac"]
    top = ranked.set_index("model")
    assert top.loc["weak", "rank"] == "3"
    assert top.loc["strong", "rank"] == "1-2" and "strong2" in top.loc["strong", "tied_with"]
    # estimate_pct is pass@2 over the compared items.
    values = estimate_matrix(samples.counts, "pass@k", 2).values
    assert top.loc["weak", "estimate_pct"] == pytest.approx(
        round(100 * values["weak"].mean(), 1), abs=1e-9
    )


def test_compare_maj_at_k_without_answers_is_na_with_the_reason():
    rng = np.random.default_rng(6)
    frame = long_frame(rng, {"a": 0.5, "b": 0.6}, answers=False)
    samples = study.gather(frame, items_of(frame), {"a": "matrix", "b": "long"})
    pairs, ranked = compare(
        samples,
        "maj@k",
        2,
        n_boot=50,
        seed=1,
        fdr_q=0.05,
        min_n=5,
        level=0.95,
        interval="wilson",
        comparisons=COMPARISONS,
    )
    assert pairs.empty or len(pairs) == 0
    assert ranked["rank"].tolist() == ["n/a", "n/a"]
    assert (
        ranked.set_index("model")
        .loc["a", "note"]
        .startswith("no extracted answers: the matrix format")
    )


def test_the_figure_draws_from_the_table_and_names_models_it_cannot_draw(tmp_path):
    rng = np.random.default_rng(7)
    frame = long_frame(rng, {"a": 0.5, "b": 0.7})
    frame = pd.concat(
        [frame, frame[frame["model"] == "a"].assign(model="c", correct=0.5)], ignore_index=True
    )
    samples = study.gather(frame, items_of(frame), dict.fromkeys(["a", "b", "c"], "long"))
    table = study.table(samples, ks=[1, 2, 4], **SETTINGS)
    assert missing_models(table) == ["c"]
    plot_sampling(table, "Simulated data", tmp_path / "s.png", tmp_path / "s.pdf")
    assert (tmp_path / "s.png").stat().st_size > 10_000
    assert (tmp_path / "s.pdf").read_bytes().startswith(b"%PDF")


def test_no_answers_message_is_the_statistics_modules():
    counts = sample_counts(
        pd.DataFrame({"model": ["m"], "item_id": ["a"], "correct": [1], "answer": [None]})
    )
    assert counts.answers_note["m"] == NO_ANSWERS
