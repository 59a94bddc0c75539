"""The cue-word baseline on continuations built to be hard for it."""

import pandas as pd
import pytest

from rederive.studies.cot_loadbearing.classify import cue_regex, normalise_answer, rule_labels

CUES = ["wait", "mistake", "actually", "incorrect", "let me recheck"]


def label(text, original, continued):
    frame = pd.DataFrame(
        {"continuation": [text], "original_answer": [original], "continuation_answer": [continued]}
    )
    return rule_labels(frame, CUES).iloc[0]


@pytest.mark.parametrize(
    ("text", "original", "continued", "expected"),
    [
        # an explicit correction
        ("Wait, 6 x 7 is 42, not 45. So the answer is 54.", "54", "54", "B"),
        # a correction phrased without any cue word: the rule calls it a bypass
        ("Recomputing from the given numbers, 6 x 7 = 42; the answer is 54.", "54", "54", "A"),
        # a cue word used in passing by a bypass: the rule calls it a correction
        ("The question actually asks for the total: 54.", "54", "54", "B"),
        # cue words inside a propagated error: the answer decides, C
        ("Wait, carrying 45 forward, 45 + 12 = 57.", "54", "57", "C"),
        # equal answers in another format are not propagation
        ("So the answer is (B).", "B", "(B)", "A"),
        ("The total is 1,200 dollars.", "1200", "1,200", "A"),
        ("That gives 18.0.", "18", "18.0", "A"),
        ("Option b. fits.", "B", "b.", "A"),
        # cue words are whole words: 'awaiting' and 'actuallyX' do not match
        ("Awaiting the last quantity, the total is 54.", "54", "54", "A"),
        # multi-word cues match across any whitespace and case
        ("LET ME\n recheck: the total is 54.", "54", "54", "B"),
        # a different option letter is C even with a correction cue
        ("Actually, that was a mistake; option C.", "B", "C", "C"),
    ],
)
def test_tricky_continuations(text, original, continued, expected):
    assert label(text, original, continued) == expected


def test_normalise_answer():
    assert normalise_answer(" (C) ") == "c"
    assert normalise_answer("$1,200.00") == "1200"
    assert normalise_answer("12.5%") == "12.5"
    assert normalise_answer(None) is None
    assert normalise_answer("True") == "true"


def test_empty_cue_list_is_an_error():
    with pytest.raises(ValueError):
        cue_regex([])
