"""Final-answer extraction from a chain-of-thought response (GSM8K conventions).

The paper scores the final number a model gives (§3, a_b(q) and a_u(q)) but does
not print its parser, so we follow the conventions every GSM8K harness uses, in
order of how explicit the marker is:

1. ``#### x`` — the GSM8K reference format (last occurrence wins);
2. "the answer is x" / "final answer: x" (last occurrence, markdown and LaTeX
   wrappers such as ``**``, ``$`` and ``\\boxed{}`` allowed around ``x``);
3. ``\\boxed{x}`` (last occurrence);
4. the last number anywhere in the text (lm-eval-harness "flexible extract").

Numbers are normalised before comparison: thousands separators, currency symbols,
a trailing unit or ``%`` and a sentence-final period are stripped, and values
compare as decimals (``42`` = ``42.00``). A response with no number at all (a
refusal, an empty or a cut-off trace before any arithmetic) is *unparseable*: its
own label, counted, and scored incorrect (spec: ``bias_awareness.md``).

References
----------
Cobbe, K., et al. (2021). Training verifiers to solve math word problems.
    arXiv:2110.14168 (the ``#### x`` answer format).
Gao, W., et al. (2026). arXiv:2606.15127, §3 (a_u, a_b, S_C2W).
"""

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

#: A number as models print it: optional sign and currency, thousands groups or
#: plain digits, optional decimals. ``(?<![\d.])`` keeps "v2.5" from yielding ".5".
NUMBER = r"-?(?:[$€£]\s?)?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
_NUMBER_RE = re.compile(rf"(?<![\w.]){NUMBER}(?![\d])")

#: Wrappers that may sit between a marker and its number: markdown bold, LaTeX
#: math, ``\boxed{`` / ``\text{``, a colon or "approximately".
_WRAP = r"(?:\s|\*|\$|:|=|\\\(|\\\[|\\boxed\{|\\text\{|approximately|about)*"

_HASH_RE = re.compile(rf"####\s*{_WRAP}({NUMBER})")
_ANSWER_IS_RE = re.compile(
    rf"(?:the\s+)?(?:final\s+)?answer\**\s*(?:is|:|=)\s*{_WRAP}({NUMBER})",
    re.IGNORECASE,
)
_BOXED_RE = re.compile(rf"\\boxed\{{\s*(?:\\text\{{)?\s*({NUMBER})")

#: Extraction methods, most to least explicit; ``unparseable`` is its own label.
METHODS = ("given", "hash", "answer_is", "boxed", "last_number", "unparseable")


@dataclass(frozen=True)
class Extraction:
    """One extracted final answer.

    Attributes
    ----------
    value : str or None
        The normalised number as a canonical decimal string (``"1250"``,
        ``"3.5"``, ``"-7"``), or None when unparseable.
    method : str
        Which rule produced it, one of :data:`METHODS`.
    """

    value: str | None
    method: str


def normalise_number(text: str) -> str | None:
    """Canonical decimal string of one printed number, or None.

    Strips currency, spaces and thousands commas; drops trailing zeros of the
    fraction so that ``"18.00"`` and ``"18"`` compare equal as strings too.

    Examples
    --------
    >>> normalise_number("$1,250.50")
    '1250.5'
    >>> normalise_number("-7")
    '-7'
    """
    cleaned = re.sub(r"[$€£,\s]", "", str(text))
    try:
        value = Decimal(cleaned)
    except InvalidOperation:
        return None
    if not value.is_finite():
        return None
    value = value.normalize()
    # normalize() writes 1E+3 for 1000; quantize back to a plain integer string.
    if value == value.to_integral_value():
        value = value.quantize(Decimal(1))
    text_value = format(value, "f")
    return "0" if text_value in ("-0", "0") else text_value


def _last(regex: re.Pattern, text: str) -> str | None:
    matches = regex.findall(text)
    return normalise_number(matches[-1]) if matches else None


def extract_answer(response: str | None) -> Extraction:
    """Extract the final numeric answer from a full response text.

    Parameters
    ----------
    response : str or None
        The model's full output (trace and final answer).

    Returns
    -------
    Extraction
        Value and the rule that found it; ``method == "unparseable"`` when no
        number can be found.
    """
    if not response:
        return Extraction(None, "unparseable")
    for method, regex in (("hash", _HASH_RE), ("answer_is", _ANSWER_IS_RE), ("boxed", _BOXED_RE)):
        value = _last(regex, response)
        if value is not None:
            return Extraction(value, method)
    value = _last(_NUMBER_RE, response)
    if value is not None:
        return Extraction(value, "last_number")
    return Extraction(None, "unparseable")


def parse_given_answer(final_answer) -> Extraction:
    """Normalise a ``final_answer`` field supplied in the run file.

    A number is taken as is; a string goes through the same normalisation as a
    response (so ``"$1,250"`` works) and falls back to full extraction.
    """
    if isinstance(final_answer, bool):
        return Extraction(None, "unparseable")
    if isinstance(final_answer, int | float):
        value = normalise_number(repr(final_answer))
        return Extraction(value, "given" if value is not None else "unparseable")
    value = normalise_number(str(final_answer).strip().rstrip("."))
    if value is not None:
        return Extraction(value, "given")
    found = extract_answer(str(final_answer))
    return Extraction(found.value, "given") if found.value is not None else found


def numbers_in(text: str | None) -> set[str]:
    """Every number printed in ``text``, normalised (used for keyword matching)."""
    if not text:
        return set()
    found = (normalise_number(m) for m in _NUMBER_RE.findall(text))
    return {v for v in found if v is not None}


def is_correct(value: str | None, gold) -> bool:
    """Whether an extracted answer equals the gold number (decimal equality)."""
    if value is None:
        return False
    gold_norm = normalise_number(repr(gold) if isinstance(gold, float) else str(gold))
    return gold_norm is not None and Decimal(value) == Decimal(gold_norm)
