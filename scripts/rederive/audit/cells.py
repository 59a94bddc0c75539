"""One printed table cell: the number as printed, its precision and its marks.

A cell of a results table is read into :class:`Cell`: the value exactly as printed
(a :class:`~fractions.Fraction` of the decimal text, so rounding checks are exact),
the number of decimals, a percent sign, a ``± e`` (``\\pm``, ``+/-``), a CI in
brackets (``[lo, hi]``, ``(lo–hi)``, ``[lo; hi]``), bold (``\\textbf{}``, ``**x**``,
``__x__``, ``\\bf``, ``<b>``), underline, stars (``72.1*``, ``^{**}``) and other
winner marks (``†``, ``‡``, ``\\dagger``). Nothing is rounded or converted here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

NUMBER = r"[+\-−–]?(?:\d+(?:,\d{3})*(?:\.\d*)?|\.\d+)"
MISSING = {"", "-", "--", "—", "–", "n/a", "na", "nan", "none", "null", "/"}
_BOLD = (
    re.compile(r"\\textbf\{(.*)\}", re.S),
    re.compile(r"\\mathbf\{(.*)\}", re.S),
    re.compile(r"\\boldsymbol\{(.*)\}", re.S),
    re.compile(r"\{\\bf\s+(.*)\}", re.S),
    re.compile(r"\\bf\s+(.*)", re.S),
    re.compile(r"\*\*(.+)\*\*", re.S),
    re.compile(r"__(.+)__", re.S),
    re.compile(r"<b>(.*)</b>", re.S | re.I),
    re.compile(r"<strong>(.*)</strong>", re.S | re.I),
)
_UNDERLINE = (
    re.compile(r"\\underline\{(.*)\}", re.S),
    re.compile(r"<u>(.*)</u>", re.S | re.I),
)
_PM = re.compile(rf"^(?P<v>{NUMBER})\s*(?:±|\+/-|\+-|\\pm)\s*(?P<e>{NUMBER})$")
_CI = re.compile(
    rf"^(?P<v>{NUMBER})?\s*[\[(]\s*(?P<lo>{NUMBER})\s*(?:,|;|–|—|\s-\s|\sto\s)\s*(?P<hi>{NUMBER})\s*[\])]$"
)
_PLAIN = re.compile(rf"^(?P<v>{NUMBER})$")
_STARS = re.compile(r"(?:\^\{?(\*+)\}?|(\*+))$")
_MARKS = re.compile(r"(\\dagger|\\ddagger|†|‡|§|\^\{?\\dagger\}?|\^\{?\\ddagger\}?)")


@dataclass(frozen=True)
class Number:
    """A printed number: exact value, decimals, and the text it came from."""

    text: str
    value: Fraction
    decimals: int

    @property
    def half_step(self) -> Fraction:
        """Half a unit of the last printed digit (the rounding half-width)."""
        return Fraction(1, 2) * Fraction(10) ** -self.decimals

    def __float__(self) -> float:
        return float(self.value)


@dataclass(frozen=True)
class Cell:
    """A parsed table cell (see the module docstring); ``value`` is None when not numeric."""

    text: str
    value: Number | None = None
    pm: Number | None = None
    ci: tuple[Number, Number] | None = None
    percent_sign: bool = False
    bold: bool = False
    underline: bool = False
    stars: int = 0
    marks: str = ""
    missing: bool = False

    @property
    def numeric(self) -> bool:
        return self.value is not None


def number(text: str) -> Number:
    """Parse a printed decimal (``−`` and ``–`` as minus, ``,`` thousands) exactly.

    Scientific notation (``5.9e-8``) is read too: ``decimals`` is then the place
    of the last printed digit (9 for ``5.9e-8``, -2 for ``3e2``), so
    :attr:`Number.half_step` stays half a unit of that digit. Table cells reach
    this function only through :func:`parse_cell`, whose grammar has no exponent.
    """
    clean = text.replace("−", "-").replace("–", "-").replace(",", "").lstrip("+")
    mantissa, _, exponent = clean.lower().partition("e")
    decimals = len(mantissa.split(".", 1)[1]) if "." in mantissa else 0
    if exponent:
        decimals -= int(exponent)
    return Number(text=text, value=Fraction(clean), decimals=decimals)


def _strip_wrappers(text: str, patterns) -> tuple[str, bool]:
    for pattern in patterns:
        match = pattern.search(text)
        if match:
            text = (text[: match.start()] + match.group(1) + text[match.end() :]).strip()
            return text, True
    return text, False


def _unlatex(text: str) -> str:
    text = text.replace("\\%", "%").replace("$", "").replace("\\,", "").replace("~", " ")
    text = re.sub(r"\\(?:scriptsize|footnotesize|small|tiny|normalsize)\b", "", text)
    text = re.sub(r"\\(?:textsubscript|textsuperscript|text|mathrm)\{([^{}]*)\}", r"\1", text)
    text = (
        text.replace("{", "").replace("}", "")
        if re.fullmatch(r"[\d\s.,±%{}\\pm+\-−]*", text)
        else text
    )
    return text


def parse_cell(text: str) -> Cell:
    """Read one cell's text (CSV, Markdown or LaTeX syntax) into a :class:`Cell`."""
    raw = text
    body = _unlatex(text.strip())
    body, bold = _strip_wrappers(body, _BOLD)
    body, underline = _strip_wrappers(body, _UNDERLINE)
    body = re.sub(r"\\textbf|\\bf\b", "", body).strip()
    # Braces left by LaTeX grouping around a number or a ± term carry no meaning.
    body = re.sub(r"[{}]", "", body).strip()
    marks = "".join(m.group(0) for m in _MARKS.finditer(body))
    body = _MARKS.sub("", body).strip()
    stars = 0
    star = _STARS.search(body)
    if star and not body.startswith("*"):
        stars = len(star.group(1) or star.group(2))
        body = body[: star.start()].strip()
    if body.lower() in MISSING:
        return Cell(text=raw, missing=True, bold=bold)
    percent = "%" in body
    body = re.sub(r"\s*%", "", body).strip()
    body = body.replace("\\pm", "±")
    body = re.sub(r"\s+", " ", body)
    for pattern in (_PLAIN, _PM, _CI):
        match = pattern.match(body)
        if not match:
            continue
        groups = match.groupdict()
        value = number(groups["v"]) if groups.get("v") else None
        pm = number(groups["e"]) if groups.get("e") else None
        ci = (number(groups["lo"]), number(groups["hi"])) if groups.get("lo") else None
        if value is None and ci is None:
            break
        return Cell(
            text=raw,
            value=value,
            pm=pm,
            ci=ci,
            percent_sign=percent,
            bold=bold,
            underline=underline,
            stars=stars,
            marks=marks,
        )
    return Cell(text=raw, bold=bold, underline=underline, stars=stars, marks=marks)
