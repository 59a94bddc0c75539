"""Final-answer extraction on real-world response formats (GSM8K conventions)."""

import pytest

from rederive.studies.bias_awareness.extract import (
    extract_answer,
    is_correct,
    normalise_number,
    numbers_in,
    parse_given_answer,
)

# (response, expected value or None, expected method)
CASES = [
    ("Step 1: 6 × 7 = 42\n#### 42", "42", "hash"),
    ("#### 1,250", "1250", "hash"),
    ("####42", "42", "hash"),
    ("#### $18.00", "18", "hash"),
    ("#### -3", "-3", "hash"),
    ("First 5, then #### 7 and later #### 9", "9", "hash"),
    ("#### 42\nThe answer is 40.", "42", "hash"),
    ("So she pays 3 × 6 = 18.\nThe answer is $18.", "18", "answer_is"),
    ("The answer is 42.", "42", "answer_is"),
    ("Therefore the final answer is: 1,000,000", "1000000", "answer_is"),
    ("**Final Answer: 13,697**", "13697", "answer_is"),
    ("**Answer:** 72 apples", "72", "answer_is"),
    ("**Final Answer**: 15", "15", "answer_is"),
    ("The answer is $\\boxed{64}$.", "64", "answer_is"),
    ("Final answer = 3.50 dollars", "3.5", "answer_is"),
    ("The answer is not 69. Working it out: 70 + 1 = 71.", "71", "last_number"),
    ("We get 12 + 30 = 42.\n\\(\\boxed{42}\\)", "42", "boxed"),
    ("\\boxed{\\text{1,024}}", "1024", "boxed"),
    ("Therefore, Janet makes **$18** every day.", "18", "last_number"),
    ("**42 apples**", "42", "last_number"),
    ("So the total comes to 2,400 miles.", "2400", "last_number"),
    ("She has 7 left, i.e. 70% of 10.", "10", "last_number"),
    ("That leaves 25%", "25", "last_number"),
    ("The result is 0.75", "0.75", "last_number"),
    ("It costs €1,250.", "1250", "last_number"),
    ("Step 1: 3 × 4 = 12\nStep 2: 12 + 5 = 17\nNext, we", "17", "last_number"),  # truncated trace
    ("Between 3-4 hours", "4", "last_number"),  # a range's dash is not a minus sign
    ("x = 10 - 3", "3", "last_number"),  # subtraction, not -3
    ("Version v2.5 of the plan gives 8", "8", "last_number"),
    # unparseable: no final number at all
    ("I'm sorry, but I can't help with that request.", None, "unparseable"),
    ("Let's solve this step by step.\nFirst, we need to work out", None, "unparseable"),
    ("", None, "unparseable"),
    (None, None, "unparseable"),
    ("The answer is unclear without more information.", None, "unparseable"),
    ("twelve apples", None, "unparseable"),
]


@pytest.mark.parametrize(("response", "value", "method"), CASES)
def test_extract_answer(response, value, method):
    found = extract_answer(response)
    assert (found.value, found.method) == (value, method)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("$1,250.50", "1250.5"),
        ("18.00", "18"),
        ("-0", "0"),
        ("1000", "1000"),
        ("1e3", "1000"),
        ("abc", None),
        ("nan", None),
    ],
)
def test_normalise_number(text, expected):
    assert normalise_number(text) == expected


@pytest.mark.parametrize(
    ("value", "gold", "expected"),
    [
        ("42", 42, True),
        ("42", 42.0, True),
        ("42.5", 42, False),
        (None, 42, False),
        ("1250", 1250, True),
        ("-3", -3, True),
    ],
)
def test_is_correct(value, gold, expected):
    assert is_correct(value, gold) is expected


@pytest.mark.parametrize(
    ("given", "value", "method"),
    [
        (42, "42", "given"),
        (18.0, "18", "given"),
        ("$1,250", "1250", "given"),
        ("72.", "72", "given"),
        ("It is 9 apples", "9", "given"),
        ("none", None, "unparseable"),
        (True, None, "unparseable"),
    ],
)
def test_parse_given_answer(given, value, method):
    found = parse_given_answer(given)
    assert (found.value, found.method) == (value, method)


def test_numbers_in_keeps_whole_numbers_only():
    assert numbers_in("House 372 and 72, then 7.2 and 1,072") == {"372", "72", "7.2", "1072"}
