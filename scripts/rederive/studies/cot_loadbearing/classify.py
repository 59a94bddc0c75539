"""Rule-based baseline classifier of forced continuations (Type A / B / C).

C when the continuation's final answer differs from the original correct answer;
otherwise B when the text names a correction with a cue word; otherwise A. The
paper's production labels come from an LLM judge; this rule is its baseline
(paper 003, §3.3 and the keyword baseline of §4), kept to show where cue words fail:
silent re-derivations (judge B, rule A) and cue words used in passing (judge A,
rule B). Answers are compared after normalisation, so "(B)" equals "B" and "1,200"
equals "1200.0"; the judge's C / non-C split is answer mismatch by construction.

References
----------
Paper 003 (CoT load-bearing), §3.3 (taxonomy), §6.3 and appendix S (rule limits).
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

LABELS = ("A", "B", "C")
_NUMBER = re.compile(r"^[-+]?\$?\d[\d,]*(\.\d+)?%?$")


def normalise_answer(answer) -> str | None:
    """Canonical form of a final answer for equality tests.

    Case, surrounding whitespace, brackets around an option letter, a trailing full
    stop, thousands separators, currency/percent signs and trailing ``.0`` are all
    presentation, not content.
    """
    if answer is None or (isinstance(answer, float) and np.isnan(answer)):
        return None
    text = str(answer).strip().casefold().rstrip(".").strip()
    if len(text) >= 3 and text[0] == "(" and text[-1] == ")":
        text = text[1:-1].strip()
    if _NUMBER.match(text):
        number = float(text.replace(",", "").replace("$", "").rstrip("%"))
        return str(int(number)) if number.is_integer() else repr(number)
    return " ".join(text.split())


def cue_regex(cues) -> re.Pattern:
    """One case-insensitive pattern matching any cue as whole words."""
    if not cues:
        raise ValueError("the cue-word list is empty")
    parts = [r"\s+".join(re.escape(w) for w in str(c).split()) for c in cues]
    return re.compile(
        r"\b(?:" + "|".join(sorted(parts, key=len, reverse=True)) + r")\b", re.IGNORECASE
    )


def rule_labels(frame: pd.DataFrame, cues) -> pd.Series:
    """Rule label per row from ``continuation``, ``original_answer``, ``continuation_answer``."""
    original = frame["original_answer"].map(normalise_answer)
    continued = frame["continuation_answer"].map(normalise_answer)
    differs = (original != continued).to_numpy()
    has_cue = frame["continuation"].fillna("").str.contains(cue_regex(cues)).to_numpy()
    labels = np.where(differs, "C", np.where(has_cue, "B", "A"))
    return pd.Series(labels, index=frame.index, name="rule_label")
