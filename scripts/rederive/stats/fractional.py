"""How the analyses built for 0/1 outcomes take scores strictly between 0 and 1.

Accuracy, the paired tests and the ranking use per-item scores as they are: the
mean of partial credit, of epoch means or of judge preferences (AlpacaEval's
draw, 0.5, is half a win there as on its leaderboard). Three analyses are built
for 0/1 outcomes: the 1PL (Rasch) fit, the item analysis and the failure sets
(clustering, items every model fails, flips across epochs). This module says,
once per analysis and in words the tables quote, how each of them takes a
fractional score; nothing is cut at 0.5 without a word.

``fractional_scores.method``:

``fractional`` (default)
    The 1PL and the item statistics take the scores as they are. A cell with
    score ``s`` contributes ``s log p + (1 - s) log(1 - p)`` to the
    likelihood: the Bernoulli log-likelihood with ``s`` as the outcome, the
    fractional-logit quasi-likelihood of Papke & Wooldridge (1996), which is
    what ``lme4::glmer(..., family = binomial)`` maximises for a response in
    [0, 1]. For 0/1 scores it is the Bernoulli likelihood itself, so 0/1 data
    are fitted exactly as before. A draw (0.5) is half a success, as the
    source counts it; a model whose every score is 0.5 has a finite ability.
``threshold``
    A score above ``threshold`` counts as 1, below it as 0; a score equal to
    it (a tie) is left out of the 0/1 analyses (``ties: excluded``, the
    default: AlpacaEval counts a draw as neither a win nor a loss) or counts
    as 1 or 0 (``ties: correct`` / ``incorrect``).

Failure sets need a verdict per item under either method: a model *fails* an
item when its score is below ``threshold`` (or equal to it with ``ties:
incorrect``). With 0/1 scores and any threshold in (0, 1) that is "scored 0",
as before.

A model *without variation* (every score the same value strictly between 0
and 1, e.g. a baseline judged against itself: a draw on every item) is named
as such in every table that reports it (:func:`no_variation_note`), never as a
perfect score: under ``fractional`` its ability is finite, under
``threshold`` it is explicitly undefined.

References
----------
Papke, L. E. & Wooldridge, J. M. (1996). Econometric methods for fractional
    response variables with an application to 401(k) plan participation rates.
    *Journal of Applied Econometrics* 11, 619-632.
Dubois, Y. et al. (2024). Length-controlled AlpacaEval: a simple way to debias
    automatic evaluators. arXiv:2404.04475 (win rate: mean preference, draws half).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "METHODS",
    "TIES",
    "ScoreCounts",
    "ScoreRule",
    "constant_score",
    "no_variation_note",
    "threshold_extreme_note",
]

#: ``fractional_scores.method`` values (schema enum; first is the default).
METHODS = ("fractional", "threshold")
#: ``fractional_scores.ties`` values (schema enum; first is the default).
TIES = ("excluded", "correct", "incorrect")


@dataclass(frozen=True)
class ScoreCounts:
    """What :meth:`ScoreRule.responses` did to a matrix.

    Attributes
    ----------
    n_fractional : int
        Present cells strictly between 0 and 1.
    n_dichotomised : int
        Of those, cells turned into 0 or 1 (``threshold`` only).
    n_tied_left_out : int
        Cells equal to the threshold left out (``threshold`` with ``ties: excluded``).
    """

    n_fractional: int = 0
    n_dichotomised: int = 0
    n_tied_left_out: int = 0


@dataclass(frozen=True)
class ScoreRule:
    """The ``fractional_scores`` setting of an analysis.

    Attributes
    ----------
    method : {"fractional", "threshold"}
    threshold : float
        In (0, 1): the 0/1 cut of ``threshold`` and the failure-set cut of both.
    ties : {"excluded", "correct", "incorrect"}
        A score equal to ``threshold``.
    """

    method: str = "fractional"
    threshold: float = 0.5
    ties: str = "excluded"

    def __post_init__(self):
        if self.method not in METHODS:
            raise ValueError(
                f"fractional_scores.method must be one of {METHODS}, got {self.method!r}"
            )
        if self.ties not in TIES:
            raise ValueError(f"fractional_scores.ties must be one of {TIES}, got {self.ties!r}")
        if not 0.0 < float(self.threshold) < 1.0:
            raise ValueError(
                f"fractional_scores.threshold must lie strictly between 0 and 1, got {self.threshold!r}"
            )

    @classmethod
    def from_config(cls, config: dict | None) -> ScoreRule:
        """From the analysis's ``fractional_scores`` block (defaults for missing keys)."""
        config = config or {}
        return cls(
            method=config.get("method", "fractional"),
            threshold=float(config.get("threshold", 0.5)),
            ties=config.get("ties", "excluded"),
        )

    @property
    def fractional(self) -> bool:
        """The 1PL and the item statistics take the scores as they are."""
        return self.method == "fractional"

    def label(self) -> str:
        """The rule in a few words, for a table column."""
        if self.fractional:
            return "fractional likelihood (a score s is s of a success)"
        return f"threshold {self.threshold:g} (ties: {self.ties})"

    def describe(self) -> str:
        """How the 0/1 analyses take a fractional score, one sentence for tables and notes."""
        if self.fractional:
            return (
                "fractional scores taken as they are (fractional_scores: fractional): a score s "
                "counts as s of a success in the 1PL likelihood, s log p + (1 - s) log(1 - p), "
                "so a draw (0.5) is half a success"
            )
        return (
            f"fractional scores dichotomised (fractional_scores: threshold {self.threshold:g}): "
            f"above {self.threshold:g} correct, below incorrect, equal to it "
            f"{self._tie_words()} (ties: {self.ties})"
        )

    def caption(self) -> str:
        """The captions' sentence on fractional scores (whatever the data hold)."""
        if self.fractional:
            return (
                "Scores strictly between 0 and 1 (partial credit, judge preferences, epoch "
                "means) are taken as they are (fractional_scores: fractional): a score s counts "
                "as s of a success in the 1PL likelihood, so a draw (0.5) is half a success; a "
                "model whose every score is one such value is named 'no variation' in "
                "ability_note, with a finite, ranked ability."
            )
        return (
            f"Scores strictly between 0 and 1 are dichotomised at {self.threshold:g}: above it "
            f"correct, below it incorrect, equal to it {self._tie_words()} (fractional_scores: "
            f"threshold, ties: {self.ties}); a model whose every score is one such value is "
            "named 'no variation' in ability_note, without an ability (never a perfect score)."
        )

    def _tie_words(self) -> str:
        return {
            "excluded": "left out",
            "correct": "counted as correct",
            "incorrect": "counted as incorrect",
        }[self.ties]

    def failure_caption(self) -> str:
        """The captions' sentence on what a failure is."""
        return (
            f"A model fails an item when its {self.failure_text()} "
            "(fractional_scores.threshold; for 0/1 scores: scored 0)."
        )

    def failure_text(self) -> str:
        """What puts an item in a model's failure set, in words."""
        at = " or equal to" if self.ties == "incorrect" else ""
        return f"score is below{at} {self.threshold:g}"

    def responses(self, values: np.ndarray) -> tuple[np.ndarray, ScoreCounts]:
        """The matrix the 1PL and the item statistics are given, and what changed.

        Parameters
        ----------
        values : numpy.ndarray
            Scores in [0, 1], NaN where missing (any shape).

        Returns
        -------
        responses : numpy.ndarray
            ``fractional``: ``values`` unchanged (the same object). ``threshold``:
            0/1, NaN where missing or a tie left out.
        counts : ScoreCounts
        """
        present = ~np.isnan(values)
        inner = present & (values > 0.0) & (values < 1.0)
        n_fractional = int(inner.sum())
        if self.fractional or n_fractional == 0:
            return values, ScoreCounts(n_fractional=n_fractional)
        t = float(self.threshold)
        tied = inner & (values == t)
        above = values > t if self.ties != "correct" else values >= t
        out = np.where(present, above.astype(float), np.nan)
        n_left = 0
        if self.ties == "excluded":
            out[tied] = np.nan
            n_left = int(tied.sum())
        return out, ScoreCounts(n_fractional, n_fractional - n_left, n_left)

    def failed(self, values: np.ndarray) -> np.ndarray:
        """True where a present score puts the item in the model's failure set."""
        t = float(self.threshold)
        with np.errstate(invalid="ignore"):
            return (values <= t) if self.ties == "incorrect" else (values < t)

    def passed(self, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per epoch score: passed, and whether the epoch has a 0/1 outcome at all.

        An epoch passes when its score is above the threshold (or equal to it
        with ``ties: correct``); a tie with ``ties: excluded`` has no outcome and
        is left out of the flip counts. 0/1 scores always have one.
        """
        t = float(self.threshold)
        values = np.asarray(values, dtype=float)
        with np.errstate(invalid="ignore"):
            passed = values >= t if self.ties == "correct" else values > t
            keep = ~((values == t) & (self.ties == "excluded"))
        return passed, keep


def constant_score(values: np.ndarray, axis: int = 0) -> np.ndarray:
    """Per row (``axis=1``) or column (``axis=0``): the one value every present
    score has when it lies strictly between 0 and 1, else NaN.

    Such a model has *no variation*: nothing in its scores tells its items
    apart (a baseline judged against itself draws on every item).

    Examples
    --------
    >>> constant_score(np.array([[0.5, 1.0], [0.5, np.nan], [0.5, 0.0]]))
    array([0.5, nan])
    """
    values = np.asarray(values, dtype=float)
    missing = np.isnan(values)
    low = np.where(missing, np.inf, values).min(axis=axis)
    high = np.where(missing, -np.inf, values).max(axis=axis)
    constant = (low == high) & (low > 0.0) & (low < 1.0)
    return np.where(constant, low, np.nan)


def no_variation_note(value: float, n_items: int, rule: ScoreRule) -> str:
    """Why a model without variation has the ability it has, for ``ability_note``.

    Examples
    --------
    >>> no_variation_note(0.5, 805, ScoreRule())
    'no variation: every score 0.5 (805 items); ability from the fractional likelihood (finite)'
    >>> no_variation_note(0.5, 805, ScoreRule(method="threshold"))
    'no variation: every score 0.5 (805 items), equal to the threshold 0.5 and left out (ties: excluded): no 0/1 outcome, ability undefined'
    """
    head = f"no variation: every score {value:g} ({int(n_items):,} items)"
    if rule.fractional:
        return f"{head}; ability from the fractional likelihood (finite)"
    t = float(rule.threshold)
    if value == t and rule.ties == "excluded":
        return (
            f"{head}, equal to the threshold {t:g} and left out (ties: excluded): "
            "no 0/1 outcome, ability undefined"
        )
    correct = value > t or (value == t and rule.ties == "correct")
    verdict = "correct" if correct else "incorrect"
    return (
        f"{head}: the threshold {t:g} makes every item {verdict}, not a "
        f"{'perfect' if correct else 'zero'} score; ability undefined"
    )


def threshold_extreme_note(mean_score: float, n_items: int, rule: ScoreRule, passed: bool) -> str:
    """Why a model with fractional scores has no ML ability under ``threshold``.

    Every one of its scores fell on one side of the threshold: the 0/1 matrix
    shows a perfect (or zero) score its scores do not.
    """
    side = "above" if passed else "below"
    if rule.ties == ("correct" if passed else "incorrect"):
        side = f"at or {side}"
    return (
        f"every score {side} the threshold {rule.threshold:g} ({int(n_items):,} items, mean score "
        f"{mean_score:.3f}): after the threshold ML ability is {'+' if passed else '-'}inf, "
        "undefined"
    )
