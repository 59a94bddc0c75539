"""Published leaderboards in percent and at printed precision (issue 37 item 3).

A leaderboard that prints ``score`` = 70.5 for an accuracy of 0.705 used to give one
FAIL at about -70 per model; a score printed at three decimals failed at the default
tolerance of 1e-9."""

from __future__ import annotations

import pandas as pd
import pytest

from rederive.errors import InputError
from rederive.studies.benchmark.check import checks, read_published


def _accuracy(ours: dict[str, float], n: int = 805) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "model": list(ours),
            "accuracy": list(ours.values()),
            "n_items": n,
            "accuracy_pct": [round(100 * v, 1) for v in ours.values()],
        }
    )


def _write(tmp_path, text: str, name: str = "leaderboard.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _cells(published: dict, ours: dict, tolerance: float = 1e-9) -> pd.DataFrame:
    rows = [c.row() for c in checks(published, _accuracy(ours), tolerance) if c.kind == "cell"]
    return pd.DataFrame(rows).set_index("item")


def test_a_percent_leaderboard_passes_with_a_note(tmp_path):
    # 57 models printed in percent at two decimals, as AlpacaEval prints win rates.
    ours = {f"model-{k:02d}": (k * 7919 % 805) / 805 for k in range(57)}
    lines = ["model,score"] + [f"{m},{100 * v:.2f}" for m, v in ours.items()]
    table = read_published(_write(tmp_path, "\n".join(lines) + "\n"))
    assert set(table["printed_decimals"]) == {4}  # two decimals of a percentage
    cells = _cells({"leaderboard": table}, ours)
    assert len(cells) == 57 and (cells["status"] == "pass").all()
    assert cells["note"].str.contains(r"read as a percentage \(median value above 1\)").all()
    assert (cells["published"] <= 1).all()


def test_a_percent_score_printed_at_one_decimal_is_a_fraction_at_three(tmp_path):
    table = read_published(_write(tmp_path, "model,score\nm,70.5%\nn,8.25%\n"))
    assert list(table["printed_decimals"]) == [4, 4]  # the column's finest: 8.25
    cells = _cells({"t": table}, {"m": 0.70496, "n": 0.0825})
    assert cells.loc["m", "status"] == "pass"
    assert cells.loc["m", "note"].startswith("published 70.5% read as a percentage (cells carry %)")
    one = read_published(_write(tmp_path, "model,score\nm,70.5%\n", "one.csv"))
    assert _cells({"t": one}, {"m": 0.7046}).loc["m", "status"] == "pass"  # 70.46 %
    assert _cells({"t": one}, {"m": 0.7044}).loc["m", "status"] == "FAIL"


@pytest.mark.parametrize(
    ("header", "cell", "why"),
    [
        ("score", "70.5%", "cells carry %"),
        ("score_pct", "70.5", "header says percent"),
        ("score (%)", "70.5", "header says percent"),
    ],
)
def test_percent_is_read_from_a_sign_or_a_header(tmp_path, header, cell, why):
    path = _write(tmp_path, f'model,"{header}"\nm,{cell}\nn,0.9\n')
    table = read_published(path).set_index("model")
    assert table.loc["m", "accuracy"] == pytest.approx(0.705)
    assert table.loc["n", "accuracy"] == pytest.approx(0.009)  # 0.9 % in a percent column
    assert why in table.loc["m", "scale_note"]


def test_a_fraction_column_holding_a_score_above_one_is_refused_with_the_fix(tmp_path):
    path = _write(tmp_path, "model,score\na,0.5\nb,0.6\nc,70.5\n")
    with pytest.raises(InputError) as err:
        read_published(path)
    text = str(err.value)
    assert "leaderboard.csv:4, field 'score'" in text and "'70.5' is above 1" in text
    assert "check.published_scale: percent" in text and "score_pct" in text
    # Said explicitly, the same file reads as percent.
    table = read_published(path, "percent").set_index("model")
    assert table.loc["c", "accuracy"] == pytest.approx(0.705)
    assert "check.published_scale: percent" in table.loc["c", "scale_note"]


def test_a_percentage_above_100_is_refused(tmp_path):
    path = _write(tmp_path, "model,score\na,70.5\nb,170.5\n")
    with pytest.raises(InputError, match="above 100"):
        read_published(path)


def test_an_all_below_one_percent_column_fails_with_the_fix_in_its_note(tmp_path):
    """Scores of 0.3 % and 0.7 % read as fractions (the audit's median rule): the check
    fails, and the note says that as percentages they would pass and how to say so."""
    path = _write(tmp_path, "model,score\na,0.3\nb,0.7\nc,0.1\n")
    ours = {"a": 0.003, "b": 0.007, "c": 0.2}
    cells = _cells({"t": read_published(path)}, ours)
    assert (cells["status"] == "FAIL").all()
    for model in ("a", "b"):
        assert "read as a percentage it would pass" in cells.loc[model, "note"]
        assert "check.published_scale: percent" in cells.loc[model, "note"]
    assert "would pass" not in cells.loc["c", "note"]  # c fails either way
    fixed = _cells({"t": read_published(path, "percent")}, ours)
    assert list(fixed["status"]) == ["pass", "pass", "FAIL"]


def test_names_stay_text_and_missing_scores_are_na(tmp_path):
    path = _write(tmp_path, ',score\nNA,0.5\n1000,0.25\nnull,\n"a | b\nc",0.125\n')
    table = read_published(path)
    assert list(table["model"]) == ["NA", "1000", "null", "a | b\nc"]
    assert table["accuracy"].isna().tolist() == [False, False, True, False]
    assert list(table["printed_decimals"].astype(object)) == [3, 3, pd.NA, 3]


@pytest.mark.parametrize("header", ["model,accuracy", "model,score,score_pct"])
def test_one_score_column_is_required(tmp_path, header):
    path = _write(tmp_path, header + "\n")
    with pytest.raises(InputError, match="score"):
        read_published(path)


def test_a_three_decimal_score_passes_within_its_printed_precision(tmp_path):
    # τ-bench prints 0.273 for 0.27333; ChemBench's full-precision column stays exact.
    path = _write(tmp_path, "model,score\ntau,0.273\nhalf,0.5\n")
    cells = _cells({"t": read_published(path)}, {"tau": 0.27333, "half": 0.5004})
    assert cells.loc["tau", "status"] == "pass"
    assert cells.loc["half", "status"] == "pass"  # 0.5 in a 3-decimal column is 0.500
    full = _write(tmp_path, "model,score\nx,0.5567624386825508\nhalf,0.5\n", "full.csv")
    cells = _cells({"t": read_published(full)}, {"x": 0.5567624386825508, "half": 0.5004})
    assert cells.loc["x", "status"] == "pass" and cells.loc["half", "status"] == "FAIL"
