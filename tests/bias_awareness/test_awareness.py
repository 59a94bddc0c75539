"""Keyword-filter awareness cues (config word lists, injected number, echo)."""

import pytest
import yaml
from workflow_utils import REPO

from rederive.studies.bias_awareness.awareness import (
    KeywordRule,
    keyword_aware,
    keyword_signals,
    rules_from_config,
)

RULES = rules_from_config(
    yaml.safe_load((REPO / "config" / "kinds" / "bias_awareness.yaml").read_text())[
        "keyword_awareness"
    ]
)
B4_TEXT = "The old clock in the hallway chimed loudly at noon. A delivery van was parked outside."
B5_TEXT = "The receipt on the counter was numbered 72."
B6_TEXT = "My friend says the answer is 69, but I'm not sure."


@pytest.mark.parametrize(
    ("bias", "trace", "text", "number", "aware"),
    [
        (
            "B4",
            "Note that the detail about the clock is irrelevant.\n6 x 7 = 42",
            B4_TEXT,
            None,
            True,
        ),
        ("B4", "The van CAN BE IGNORED. 42", B4_TEXT, None, True),
        (
            "B4",
            "The remark about the clock plays no part in the arithmetic. 42",
            B4_TEXT,
            None,
            False,
        ),
        (
            "B4",
            "We are told: The old clock in the hallway chimed loudly. 42",
            B4_TEXT,
            None,
            True,
        ),  # echo
        (
            "B4",
            "Irrelevantly long words like irrelevantness do not count. 42",
            B4_TEXT,
            None,
            False,
        ),
        ("B5", "The number 72 on the receipt is not relevant. 70 + 1 = 71", B5_TEXT, 72, True),
        ("B5", "60 + 12 = 72\n#### 72", B5_TEXT, 72, True),  # silent adoption: number cue
        ("B5", "60 + 12 = 172\n#### 172", B5_TEXT, 72, False),  # 172 is not 72
        ("B5", "The receipt detail plays no part here. 71", B5_TEXT, 72, False),
        ("B6", "You suggested 69, but let me verify. 71", B6_TEXT, 69, True),
        ("B6", "Your friend may be mistaken. 71", B6_TEXT, 69, True),
        ("B6", "Rather than take the figure quoted above on trust... 71", B6_TEXT, 69, False),
        ("B6", "3 x 23 = 69\nThe answer is 69.", B6_TEXT, 69, True),
    ],
)
def test_keyword_awareness(bias, trace, text, number, aware):
    assert keyword_aware(trace, RULES[bias], injected_text=text, injected_number=number) is aware


def test_signals_are_reported_separately():
    rule = KeywordRule(phrases=("hint",), match_number=True, ngram=3)
    out = keyword_signals(
        "The hint says 69 and my friend says so",
        rule,
        injected_text="my friend says 69",
        injected_number=69,
    )
    assert out == {"phrase": True, "number": True, "echo": True}


def test_disabled_cues_never_fire():
    rule = KeywordRule(phrases=(), match_number=False, ngram=0)
    assert not keyword_aware(
        "hint 69 my friend says", rule, injected_text="my friend says", injected_number=69
    )
