"""The published check's sampling rows: a published pass@k/pass^k/maj@k table, long or
wide, compared with sampling.csv at its printed precision; a tool's own pass@k
(k >= 2) against ours from the same samples; accuracy rows unchanged."""

import math
import shutil
from pathlib import Path

import duckdb
import pandas as pd
import pytest

from rederive.errors import InputError
from rederive.stats.sampling import estimate_matrix, sample_counts
from rederive.studies.benchmark import check
from rederive.studies.benchmark import sampling_check as sc

TAU = Path(__file__).parents[1] / "stats" / "fixtures" / "sampling" / "tau_bench"
MODEL = "gpt-4o (tool-calling)"


def tau_table(ks=(1, 2, 3, 4)) -> pd.DataFrame:
    """sampling.csv's columns that the check reads, for τ-bench's gpt-4o."""
    long = pd.read_csv(TAU / "gpt-4o-airline.csv")
    counts = sample_counts(long)
    rows = []
    for metric in ("pass@k", "pass^k"):
        for k in ks:
            value = float(estimate_matrix(counts, metric, k).values.mean().iloc[0])
            rows.append(
                {
                    "model": MODEL,
                    "metric": metric,
                    "k": k,
                    "estimate": value,
                    "ci_low": value - 0.1,
                    "ci_high": value + 0.1,
                    "n_items": 50,
                    "n_samples": 200,
                    "note": "",
                }
            )
    table = pd.DataFrame(rows)
    table["k"] = table["k"].astype("Int64")
    return table


def test_the_tau_bench_readme_row_passes_at_its_printed_precision():
    published = sc.read_sampling_published(TAU / "published.csv")
    assert published[["metric", "k"]].values.tolist() == [["pass^k", k] for k in (1, 2, 3, 4)]
    assert published["printed_decimals"].tolist() == [3, 3, 3, 3]
    assert published["line"].tolist() == [2, 3, 4, 5]
    checks = sc.published_checks({"readme": published}, tau_table(), 1e-9)
    assert [c.status for c in checks] == ["pass"] * 4
    assert [c.quantity for c in checks] == ["pass^1", "pass^2", "pass^3", "pass^4"]
    assert checks[1].published == 0.273 and checks[1].ours == pytest.approx(0.2733333, abs=1e-6)
    assert "over the model's 50 items (200 samples" in checks[1].note


def test_a_value_ours_does_not_round_to_fails(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text(f"model,metric,k,value\n{MODEL},pass^k,2,0.274\n")
    (row,) = sc.published_checks({"p": sc.read_sampling_published(path)}, tau_table(), 1e-9)
    assert row.status == "FAIL"


def test_wide_columns_percent_and_a_k_column(tmp_path):
    wide = tmp_path / "wide.csv"
    wide.write_text(f"model,pass@1 (%),pass^2\n{MODEL},42.0,0.273\n")
    got = sc.read_sampling_published(wide)
    assert got[["metric", "k", "value"]].values.tolist() == [
        ["pass@k", 1, 0.42],
        ["pass^k", 2, 0.273],
    ]
    # 42.0 % printed at one decimal is a fraction at three.
    assert got["printed_decimals"].tolist() == [3, 3]
    assert got["scale_note"].iloc[0].startswith("read as a percentage (the header 'pass@1 (%)'")
    with_k = tmp_path / "with_k.csv"
    with_k.write_text(f"model,k,pass^k\n{MODEL},1,0.420\n{MODEL},4,0.200\n")
    got = sc.read_sampling_published(with_k)
    assert got[["metric", "k"]].values.tolist() == [["pass^k", 1], ["pass^k", 4]]
    checks = sc.published_checks({"w": got}, tau_table(), 1e-9)
    assert [c.status for c in checks] == ["pass", "pass"]


def test_every_published_value_gets_a_row_even_when_it_cannot_be_compared(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text(
        f"model,metric,k,value\n{MODEL},pass^k,8,0.1\nclaude,pass^k,1,0.5\n{MODEL},maj@k,1,0.4\n"
        f"{MODEL},pass@k,1,\n"
    )
    published = sc.read_sampling_published(path)
    assert len(published) == 3  # the empty value printed nothing
    rows = sc.published_checks({"p": published}, tau_table(), 1e-9)
    notes = [c.note for c in rows]
    assert all(c.status == "n/a" for c in rows)
    assert notes == [
        "k = 8 is not in sampling.k: add it to compare",
        "model not in the run",
        "maj@k is not in sampling.metrics: add it to compare",
    ]
    unset = sc.published_checks({"p": published}, None, 1e-9)
    assert {c.note for c in unset} == {sc.NOT_SET} and {c.status for c in unset} == {"n/a"}


def test_an_na_estimate_says_why(tmp_path):
    table = tau_table()
    table.loc[0, "estimate"] = math.nan
    table.loc[0, "note"] = "not available: grades not 0/1"
    path = tmp_path / "p.csv"
    path.write_text(f"model,pass@1\n{MODEL},0.42\n")
    (row,) = sc.published_checks({"p": sc.read_sampling_published(path)}, table, 1e-9)
    assert row.status == "n/a" and row.note == "not available: not available: grades not 0/1"


@pytest.mark.parametrize(
    "text, field, message",
    [
        ("model,metric,k,value\nm,pass@x,1,0.3\n", "metric", "is none of pass@<k>"),
        ("model,metric,value\nm,pass@k,0.3\n", "k", "needs its k here"),
        ("model,pass@2\nm,abc\n", "pass@2", "abc"),
    ],
)
def test_bad_published_cells_name_file_line_and_column(tmp_path, text, field, message):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(InputError) as caught:
        sc.read_sampling_published(path)
    assert caught.value.field == field and caught.value.line == 2
    assert message in str(caught.value)


def test_published_files_are_sorted_into_score_and_sampling_tables(tmp_path):
    shutil.copy(TAU / "published.csv", tmp_path / "readme.csv")
    (tmp_path / "scores.csv").write_text("model,score\nm,0.5\n")
    (tmp_path / "both.csv").write_text("model,score,pass@2\nm,0.5,0.6\n")
    files = sorted(tmp_path.glob("*.csv"))
    scores, sampling = check.published_tables(files, "auto")
    assert sorted(scores) == ["both", "scores"] and sorted(sampling) == ["both", "readme"]
    (tmp_path / "neither.csv").write_text("model,points\nm,3\n")
    with pytest.raises(InputError, match="required column is missing"):
        check.published_tables(sorted(tmp_path.glob("*.csv")), "auto")


def test_reported_pass_at_k_rows_are_routed_away_from_the_accuracy_check():
    reported = pd.DataFrame(
        {
            "model": ["m"] * 4,
            "task": ["t"] * 4,
            "metric": ["accuracy", "pass@1", "pass@2", "pass^3"],
            "filter": [""] * 4,
            "value": [0.5, 0.5, 0.7, 0.2],
            "file": ["f"] * 4,
        }
    )
    assert sc.harness_rows(reported).tolist() == [False, False, True, True]
    ours = pd.DataFrame({"model": ["m"], "task": ["t"], "ours": [0.5]})
    rows = check.harness_checks(reported, ours, 1e-9)
    assert [r.quantity for r in rows] == ["accuracy,", "pass@1,"]


def test_task_estimates_are_the_unbiased_means_per_model_and_task(tmp_path):
    long = pd.read_csv(TAU / "gpt-4o-airline.csv")
    frame = pd.concat(
        [
            long.assign(task="airline", item_id=long["item_id"].astype(str)),
            long.assign(task="retail", item_id=long["item_id"].astype(str), correct=0.5),
        ]
    )[["model", "task", "item_id", "epoch", "correct"]]
    db = tmp_path / "w.duckdb"
    con = duckdb.connect(str(db))
    con.register("f", frame)
    con.execute("CREATE TABLE responses AS SELECT * FROM f")
    con.close()
    reported = pd.DataFrame(
        {
            "model": [MODEL] * 3,
            "task": ["airline", "airline", "retail"],
            "metric": ["pass^2", "pass@4", "pass@2"],
            "filter": ["x"] * 3,
            "value": [0.2733333333333333, 0.72, 0.5],
            "file": ["h.json"] * 3,
        }
    )
    rows = sc.harness_checks(db, reported)
    by = {(r.item, r.quantity): r for r in rows}
    airline = by[(f"{MODEL} / airline", "pass^2,x")]
    assert airline.status == "pass" and airline.ours == pytest.approx(41 / 150, abs=1e-15)
    assert "ours: mean over 50 items of the unbiased pass^k (200 samples)" in airline.note
    assert by[(f"{MODEL} / airline", "pass@4,x")].status == "pass"
    retail = by[(f"{MODEL} / retail", "pass@2,x")]
    assert retail.status == "n/a" and "grades not 0/1" in retail.note


def test_parse_metric():
    assert sc.parse_metric("pass@10") == ("pass@k", 10)
    assert sc.parse_metric(" pass^k ") == ("pass^k", None)
    assert sc.parse_metric("avg@n") == ("avg@n", None)
    assert sc.parse_metric("pass@0") is None and sc.parse_metric("accuracy") is None
