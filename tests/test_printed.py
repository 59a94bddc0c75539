"""The published check reads numbers as printed (issue 37 item 3): precision from the
CSV text, the closed rounding interval with the tolerance on top, percent vs fraction."""

from __future__ import annotations

import random
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal

import pandas as pd
import pytest

from rederive.check import Check, checks_frame, summary_markdown
from rederive.errors import InputError
from rederive.printed import column_decimals, half_unit, read_printed, read_published, score_scale


def cell(published, ours, decimals, tolerance=0.0, relation="=="):
    return Check("s", "t", "cell", "m", "q", published, ours, tolerance, printed_decimals=decimals)


# ------------------------------------------------------------------ reading


@pytest.mark.parametrize(
    ("text", "value", "decimals"),
    [
        ("0.273", 0.273, 3),
        ("70.5", 70.5, 1),
        ("13.0", 13.0, 1),
        ("120", 120.0, 0),
        ("1,500", 1500.0, 0),
        ("−0.5", -0.5, 1),
        ("+31.4", 31.4, 1),
        ("70.5%", 70.5, 1),
        ("5.9e-8", 5.9e-8, 9),
        ("1.20E-05", 1.2e-5, 7),
        ("3e2", 300.0, -2),
        ("0.5567624386825508", 0.5567624386825508, 16),
    ],
)
def test_a_cell_is_read_with_the_place_of_its_last_digit(text, value, decimals):
    printed = read_printed(text)
    assert printed.value == value and printed.decimals == decimals
    assert printed.percent_sign == text.endswith("%")


@pytest.mark.parametrize("text", ["", "NA", "n/a", "--", None, float("nan")])
def test_missing_cells_are_none(text):
    assert read_printed(text) is None


@pytest.mark.parametrize("text", ["abc", "12 ± 3", "[1, 2]", "1.2.3"])
def test_text_that_is_not_one_number_is_refused(text):
    with pytest.raises(ValueError):
        read_printed(text)


def test_a_column_is_as_precise_as_its_finest_plain_decimal():
    # 0.25 in a three-decimal column was printed 0.250 (the CSV writer dropped the 0);
    # 0.5 among full-precision doubles is exactly 0.5, not "0.5 at one decimal".
    texts = ["0.273", "0.25", None, "1e-3"]
    assert column_decimals(read_printed(t) for t in texts) == [3, 3, None, 3]
    dump = ["0.5567624386825508", "0.5"]
    assert column_decimals(read_printed(t) for t in dump) == [16, 16]


def test_read_published_keeps_names_and_groups_a_long_table(tmp_path):
    path = tmp_path / "panel.csv"
    path.write_text(
        "model,quantity,value\nNA,rate,1.3\n1000,rate,13\nx,count,1500\nx,p,5.9e-8\n",
        encoding="utf-8",
    )
    frame = read_published(path, ["value"], by=["quantity"])
    assert list(frame["model"]) == ["NA", "1000", "x", "x"]
    assert list(frame["value"]) == [1.3, 13.0, 1500.0, 5.9e-8]
    assert list(frame["value__decimals"]) == [1, 1, 0, 9]


def test_a_bad_cell_names_its_file_line_and_column(tmp_path):
    path = tmp_path / "t.csv"
    # The quoted line break makes the bad record start on line 4, not 3.
    path.write_text('model,score\n"a\nb",0.5\nc,lots\n', encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_published(path, ["score"])
    text = str(err.value)
    assert "t.csv:4, field 'score'" in text and "lots" in text


def test_a_missing_column_is_named(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("quantity,val\nn,3\n", encoding="utf-8")
    for columns, by, missing in ((["value"], [], "value"), (["val"], ["table"], "table")):
        with pytest.raises(InputError, match=f"t.csv:1, field '{missing}'"):
            read_published(path, columns, by=by)


# ------------------------------------------------------------------ the rule


@pytest.mark.parametrize(
    ("published", "decimals", "ours", "status"),
    [
        (0.273, 3, 0.27333, "pass"),  # τ-bench: printed at three decimals
        (70.5, 1, 70.46, "pass"),
        (70.5, 1, 70.44, "FAIL"),
        (0.273, 3, 0.2735, "pass"),  # an exact tie passes for both neighbours
        (0.274, 3, 0.2735, "pass"),
        (0.273, 3, 0.2725, "pass"),
        (0.272, 3, 0.2725, "pass"),
        (0.273, 3, 0.27351, "FAIL"),
        (0.273, 3, 0.27249, "FAIL"),
        (28.8, 1, 100 * 23 / 80, "pass"),  # 28.749999999999996: its exact value 28.75
        (28.8, 1, 28.74, "FAIL"),
        (1234567.9, 1, 1234567.85, "pass"),  # a tie far from zero: a few ulps, not 1e-9
        (5.9e-8, 9, 5.94e-8, "pass"),
        (5.9e-8, 9, 5.96e-8, "FAIL"),
        (120, 0, 120.4, "pass"),
        (120, 0, 120.6, "FAIL"),
        (0.5, 16, 0.52, "FAIL"),  # 0.5 among full-precision scores is exact
    ],
)
def test_ours_passes_when_it_rounds_to_the_printed_value(published, decimals, ours, status):
    assert cell(published, ours, decimals).status == status


def test_the_tolerance_comes_on_top_of_the_printed_precision():
    assert cell(0.273, 0.2745, 3, tolerance=0.001).status == "pass"
    assert cell(0.273, 0.2746, 3, tolerance=0.001).status == "FAIL"
    assert cell(0.273, 0.2745, 3).allowance == pytest.approx(0.0005)


def test_a_value_not_read_from_print_is_compared_as_before():
    assert cell(1.0, 1.0 + 5e-10, None).status == "pass"  # the 1e-9 float margin
    assert cell(1.0, 1.01, None, tolerance=0.01).status == "pass"
    assert cell(1.0, 1.02, None, tolerance=0.01).status == "FAIL"
    assert half_unit(None) == 0.0


def test_a_bound_counts_the_printed_precision_once():
    bound = Check("s", "t", "cell", "m", "q", 100.0, 100.04, 0.0, relation="<=", printed_decimals=1)
    assert bound.status == "pass"
    bound.ours = 100.06
    assert bound.status == "FAIL"


def _standard_roundings(x: float, decimals: int) -> set[Decimal]:
    """How common software prints ``x`` at ``decimals`` (an independent implementation)."""
    step = Decimal(1).scaleb(-decimals)
    shortest = Decimal(repr(x))
    return {
        shortest.quantize(step, rounding=ROUND_HALF_UP),  # Excel, rederive.stats.rates
        shortest.quantize(step, rounding=ROUND_HALF_EVEN),  # Python's decimal, R's round
        Decimal(f"{x:.{decimals}f}"),  # the binary double through printf (NumPy, pandas)
    }


def test_every_standard_rounding_of_ours_passes_and_the_next_digit_fails():
    rng = random.Random(37)
    for _ in range(3000):
        decimals = rng.randint(0, 4)
        x = rng.uniform(0, 100)
        if rng.random() < 0.3:  # many exact ties: k / 2000 and friends
            x = rng.randint(0, 200000) / 2000
        printed = _standard_roundings(x, decimals)
        for p in printed:
            assert cell(float(p), x, decimals).status == "pass", (x, decimals, p)
        step = Decimal(1).scaleb(-decimals)
        for p in (min(printed) - step, max(printed) + step):
            # Exactly halfway (as ours prints) passes for both neighbours, whatever
            # the binary double would round to; anything farther fails.
            tie = abs(Decimal(repr(x)) - p) == step / 2
            expected = "pass" if tie else "FAIL"
            assert cell(float(p), x, decimals).status == expected, (x, decimals, p)


def test_the_check_report_shows_the_printed_decimals():
    frame = checks_frame([cell(0.273, 0.3, 3), cell(1.0, 2.0, None)])
    assert list(frame["printed_decimals"].astype(object)) == [3, pd.NA]
    text = frame.to_csv(index=False)
    assert ",3,==,FAIL" in text and ",,==,FAIL" in text
    markdown = summary_markdown(frame, title="t")
    assert "| printed decimals |" in markdown and "| == ±0 | 3 | FAIL |" in markdown


# ------------------------------------------------------------------ scale


@pytest.mark.parametrize(
    ("texts", "header", "forced", "scale", "why"),
    [
        (["70.5%", "60.1%"], "score", None, 100, "cells carry %"),
        (["70.5", "60.1"], "score_pct", None, 100, "header says percent"),
        (["0.7", "0.6"], "score (%)", None, 100, "header says percent"),
        (["70.5", "60.1", "0.5"], "score", None, 100, "median value above 1"),
        (["0.705", "0.601"], "score", None, 1, "median value in [0, 1]"),
        (["0.5", "0.3"], "score", "percent", 100, "check.published_scale: percent"),
    ],
)
def test_the_scale_is_the_audits(texts, header, forced, scale, why):
    reason = "check.published_scale: percent" if forced else ""
    assert score_scale(texts, header, forced, reason) == (scale, why)
