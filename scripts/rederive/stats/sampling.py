"""Many samples per item: pass@k, pass^k, maj@k and avg@n, with item-clustered intervals.

A model sampled ``n_i`` times on item ``i`` (Inspect epochs, evalplus samples,
τ-bench trials, a long file's ``epoch``) with ``c_i`` of the samples correct gives,
for any ``k ≤ n_i``, an unbiased estimate of what ``k`` fresh samples would do:

* **pass@k** — at least one of ``k`` samples is correct:
  ``1 − C(n − c, k) / C(n, k)`` (Chen et al. 2021, eq. 1), computed in the
  numerically stable product form ``1 − Π_{i=n−c+1}^{n} (1 − k / i)`` of their
  Figure 3 (the form evalplus and Inspect's ``pass_at`` reducer use);
* **pass^k** — all ``k`` samples are correct: ``C(c, k) / C(n, k)``
  ``= Π_{i=0}^{k−1} (c − i) / (n − i)`` (Yao et al. 2024, τ-bench, eq. 1);
* **maj@k** — the plurality answer of ``k`` samples is a correct one
  (self-consistency: Wang et al. 2023; Minerva's maj1@k: Lewkowycz et al. 2022),
  over the answers the grader extracted;
* **avg@n** — the mean of all ``n`` samples, ``c / n`` (pass@1 = pass^1 = avg@n
  on 0/1 grades; it is the accuracy the warehouse reports).

Each is the exact expectation over the ``C(n, k)`` equally likely ``k``-subsets
of the item's samples, so it is unbiased for the item's true value whatever the
order the samples were drawn in; the metric of a model is the mean over items of
the per-item estimates. Items with fewer than ``k`` samples have no estimate at
``k``: they are left out of that model's mean and counted
(:attr:`EstimateMatrix.n_excluded`, :func:`excluded_items`).

maj@k tie rule
--------------
The ``k`` drawn samples vote with their extracted answers (equal strings are one
answer); a sample without an extracted answer does not vote. The answers with
the most votes win; when several tie, one of them is taken uniformly at random,
so a draw counts ``(correct answers among the winners) / (winners)``; a draw in
which no sample voted counts 0. maj@k is the expectation of that over the
``k``-subsets: with multivariate hypergeometric draw counts ``x`` of the answer
classes (Johnson, Kotz & Balakrishnan 1997, ch. 39) it is computed exactly by a
generating-function recursion over the classes (no enumeration of subsets, no
Monte Carlo): for each correct class ``j`` and each vote count ``t`` it sums the
weight ``Π C(m_i, x_i)`` of every composition with ``x_j = t``, every other
voting class at most ``t``, and ``r`` of them at ``t``, each divided by
``(1 + r)``. An answer must be graded the same every time it occurs in an item:
otherwise "the majority answer is correct" has no meaning and the input is
refused. Without extracted answers maj@k is not available (NaN, with the reason).
This rule differs from taking the first ``k`` samples and the first-seen answer
among ties (lighteval's ``maj@k``): that number depends on the sample order.

Intervals
---------
The per-item estimates are means of a statistic over items, so the uncertainty
of another draw of items is that of a mean over items (clusters of items when
``cluster_by`` groups them): the sampling noise of the samples is inside each
per-item estimate and so inside their spread. The mean's linearisation is exact,
so its clustered SE (Miller 2024, eq. 4) is the delta-method SE. Three intervals
are computed (:func:`item_intervals`), all clustered by item or cluster:

* ``wilson`` (the default, :data:`DEFAULT_INTERVAL`): the Wilson score interval
  on the effective n ``R̂(1 − R̂)/SE²`` with the ``t_{C−1}`` quantile
  (:func:`rederive.stats.clustered.clustered_wilson`, what accuracy uses with
  clusters), the effective n at most the samples, and the items where the SE is
  0 (every per-item estimate equal: the data then say nothing of the design
  effect, so each item counts once);
* ``t``: the mean ± ``t_{C−1}`` · SE, clipped to [0, 1];
* ``bootstrap``: the percentile item (cluster) bootstrap.

``bench/sampling_coverage.py`` (bench/README.md, "Coverage of pass@k and pass^k
intervals") measured them at 20, 50 and 200 items, k = 1..8, 8 and 16 samples per
item, three spreads of the items' success rates: averaged over the spreads,
``wilson`` covers pass@k 0.926–0.960 at 20 items (``t`` 0.904–0.949,
``bootstrap`` 0.884–0.935) and 0.949–0.952 at 200 (``t`` 0.945–0.951,
``bootstrap`` 0.943–0.947), pass^k 0.920–0.960 at 20 items (``t`` 0.770–0.949),
with the width of ``t``; the bootstrap is never the best. All three under-cover a
rare pass^k (a true value of a few per cent carried by one or two items, e.g.
pass^8 = 0.018): the estimated SE is then as unreliable as the estimate, and
:func:`sampling_table` says so in ``note`` when fewer than
:data:`SPARSE_ITEMS` items carry the estimate (or keep it from 1).

Comparisons of models at a given ``k`` reuse the benchmark's paired machinery
(:func:`rederive.studies.benchmark.pairwise.pairwise` and ``ranking``) on the
per-item estimate matrix: exact McNemar where every per-item value is 0 or 1
(e.g. ``k = n``), else the paired t test on item differences (the clustered t
with ``C − 1`` df with ``cluster_by``), Benjamini–Hochberg over the family, and
rank ranges with tie groups.

References
----------
Chen, M. et al. (2021). Evaluating large language models trained on code.
    arXiv:2107.03374 (§2.1, eq. 1 and Figure 3: the unbiased pass@k estimator and
    its numerically stable product form).
Yao, S., Shinn, N., Razavi, P. & Narasimhan, K. (2024). τ-bench: a benchmark for
    tool-agent-user interaction in real-world domains. arXiv:2406.12045 (§5, pass^k).
Wang, X. et al. (2023). Self-consistency improves chain of thought reasoning in
    language models. ICLR 2023, arXiv:2203.11171 (majority vote over sampled answers).
Lewkowycz, A. et al. (2022). Solving quantitative reasoning problems with language
    models. arXiv:2206.14858 (maj1@k).
Johnson, N. L., Kotz, S. & Balakrishnan, N. (1997). *Discrete Multivariate
    Distributions*, ch. 39 (the multivariate hypergeometric distribution). Wiley.
Miller, E. (2024). Adding error bars to evals: a statistical approach to language
    model evaluations. arXiv:2411.00640 (§2.2 clustered SE; §3 resampled answers).
Efron, B. & Tibshirani, R. (1993). *An Introduction to the Bootstrap*. Chapman & Hall.
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import pandas as pd

from rederive.errors import InputError

__all__ = [
    "AVG_AT_N",
    "DEFAULT_INTERVAL",
    "INTERVALS",
    "INTERVAL_BOOTSTRAP",
    "INTERVAL_T",
    "INTERVAL_WILSON",
    "SPARSE_ITEMS",
    "TABLE_COLUMNS",
    "MAJ_AT_K",
    "METRICS",
    "PASS_AT_K",
    "PASS_HAT_K",
    "ComparisonMatrix",
    "EstimateMatrix",
    "SampleCounts",
    "avg_at_n",
    "comparison_matrix",
    "counts_for",
    "estimate_matrix",
    "excluded_items",
    "item_intervals",
    "maj_at_k",
    "pass_at_k",
    "pass_hat_k",
    "sample_counts",
    "sampling_pairwise",
    "sampling_ranking",
    "sampling_table",
]

PASS_AT_K = "pass@k"
PASS_HAT_K = "pass^k"
MAJ_AT_K = "maj@k"
AVG_AT_N = "avg@n"
#: Every metric, in table order; avg@n has no ``k`` (it uses all samples).
METRICS = (PASS_AT_K, PASS_HAT_K, MAJ_AT_K, AVG_AT_N)


def _check_k(k) -> int:
    if isinstance(k, bool) or not float(k).is_integer() or int(k) < 1:
        raise ValueError(f"k must be a whole number >= 1, got {k!r}")
    return int(k)


def _counts(n, c) -> tuple[np.ndarray, np.ndarray]:
    n_arr, c_arr = np.broadcast_arrays(np.asarray(n), np.asarray(c))
    if not (np.all(n_arr == np.round(n_arr)) and np.all(c_arr == np.round(c_arr))):
        raise ValueError("n and c must be whole numbers")
    n_arr, c_arr = n_arr.astype(np.int64), c_arr.astype(np.int64)
    if np.any(c_arr < 0) or np.any(c_arr > n_arr):
        raise ValueError("need 0 <= c <= n for every item")
    return n_arr, c_arr


def _per_unique(n: np.ndarray, c: np.ndarray, k: int, one) -> np.ndarray:
    """``one(n, c, k)`` on each distinct (n, c) with ``n ≥ k``; NaN where ``n < k``."""
    out = np.full(n.shape, np.nan)
    ok = n >= k
    if ok.any():
        # One integer key per (n, c), grouped by hashing (np.unique over axis=1 sorts
        # lexicographically: 10 s of 4 M cells).
        base = int(n[ok].max()) + 1
        codes, keys = pd.factorize(n[ok].astype(np.int64) * base + c[ok])
        values = np.array([one(int(key // base), int(key % base), k) for key in keys])
        out[ok] = values.astype(float)[codes]
    return out


def _pass_at_k_one(n: int, c: int, k: int) -> float:
    if n - c < k:
        return 1.0
    # Chen et al. (2021), Figure 3: 1 - prod_{i = n-c+1}^{n} (1 - k/i); c = 0 gives 0.
    return float(1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1, dtype=float)))


def _pass_hat_k_one(n: int, c: int, k: int) -> float:
    if c < k:
        return 0.0
    # C(c, k) / C(n, k) = prod_{i=0}^{k-1} (c - i) / (n - i).
    i = np.arange(k, dtype=float)
    return float(np.prod((c - i) / (n - i)))


def pass_at_k(n, c, k: int) -> np.ndarray:
    """Unbiased pass@k of items with ``n`` samples of which ``c`` are correct.

    Parameters
    ----------
    n, c : array_like of int
        Samples per item and correct samples (broadcast together, ``0 ≤ c ≤ n``).
    k : int
        Samples drawn, ``k ≥ 1``.

    Returns
    -------
    ndarray of float
        ``1 − C(n − c, k) / C(n, k)`` per item; NaN where ``n < k`` (no unbiased
        estimate: the item has fewer samples than ``k``).

    Notes
    -----
    Evaluated as ``1 − Π_{i=n−c+1}^{n} (1 − k / i)`` (1 when ``n − c < k``), the
    product form of Chen et al. (2021), which never forms a binomial coefficient
    and so neither overflows nor loses precision for large ``n``; once per
    distinct ``(n, c)``.

    References
    ----------
    Chen, M. et al. (2021). Evaluating large language models trained on code.
        arXiv:2107.03374, eq. 1 and Figure 3.
    """
    k = _check_k(k)
    n_arr, c_arr = _counts(n, c)
    return _per_unique(n_arr, c_arr, k, _pass_at_k_one)


def pass_hat_k(n, c, k: int) -> np.ndarray:
    """Unbiased pass^k (all ``k`` samples correct) of items with ``c`` of ``n`` correct.

    Parameters
    ----------
    n, c : array_like of int
        Samples per item and correct samples (``0 ≤ c ≤ n``).
    k : int
        Samples drawn, ``k ≥ 1``.

    Returns
    -------
    ndarray of float
        ``C(c, k) / C(n, k)`` per item (0 when ``c < k``); NaN where ``n < k``.

    Notes
    -----
    Evaluated as ``Π_{i=0}^{k−1} (c − i) / (n − i)``: ``k`` factors in [0, 1], no
    binomial coefficient. τ-bench's ``display_metrics`` computes the same ratio with
    ``math.comb`` and averages it over tasks.

    References
    ----------
    Yao, S., Shinn, N., Razavi, P. & Narasimhan, K. (2024). τ-bench.
        arXiv:2406.12045, §5.
    """
    k = _check_k(k)
    n_arr, c_arr = _counts(n, c)
    return _per_unique(n_arr, c_arr, k, _pass_hat_k_one)


def avg_at_n(n, c) -> np.ndarray:
    """avg@n: the mean grade of all samples of each item, ``c / n`` (NaN where ``n = 0``).

    Parameters
    ----------
    n, c : array_like of int
        Samples per item and correct samples.

    Returns
    -------
    ndarray of float
    """
    n_arr, c_arr = _counts(n, c)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n_arr > 0, c_arr / np.where(n_arr > 0, n_arr, 1), np.nan)


# --- maj@k ------------------------------------------------------------------------


def _poly_mul(acc: np.ndarray, factor: list[tuple[int, int, float]], s_max: int) -> np.ndarray:
    """``acc`` (sum × ties) times one class's terms ``(votes, is_at_t, weight)``, truncated."""
    r_max = acc.shape[1] - 1
    out = np.zeros_like(acc)
    for votes, tie, weight in factor:
        if votes > s_max or weight == 0:
            continue
        if tie:
            out[votes:, 1:] += weight * acc[: s_max + 1 - votes, :r_max]
        else:
            out[votes:, :] += weight * acc[: s_max + 1 - votes, :]
    return out


#: Up to this many samples an item's maj@k is summed in exact integers (then
#: rounded once); beyond it in scaled floats (relative error about 1e-15 per term).
EXACT_MAJ_SAMPLES = 200


@functools.lru_cache(maxsize=65536)
def _maj_at_k_signature(classes: tuple[tuple[int, bool], ...], abstained: int, k: int) -> float:
    """maj@k of one item from its answer classes ``(size, correct)`` and abstentions.

    Up to :data:`EXACT_MAJ_SAMPLES` samples the weights are the integers
    ``C(m, x)`` and the result is one exactly rounded division by ``C(n, k)``.
    Beyond, weights are scaled by ``s**x`` with ``s = C(n, k)**(−1/k)``: a
    composition of ``k`` has weight ``Π C(m_i, x_i) s^k``, so the weights of all
    compositions sum to 1 and none overflows however large ``C(n, k)``.
    """
    n = sum(m for m, _ in classes) + abstained
    exact = n <= EXACT_MAJ_SAMPLES
    log_scale = -(math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)) / k

    def weight(m: int, x: int):
        if exact:
            return math.comb(m, x)
        return math.exp(
            math.lgamma(m + 1) - math.lgamma(x + 1) - math.lgamma(m - x + 1) + x * log_scale
        )

    groups = Counter(classes)
    total = Fraction(0) if exact else 0.0
    for (m_win, correct), multiplicity in sorted(groups.items()):
        if not correct:
            continue
        for t in range(1, min(m_win, k) + 1):
            s_max = k - t
            # At most s_max // t other classes can also reach t votes.
            acc = np.zeros((s_max + 1, s_max // t + 2), dtype=object if exact else float)
            acc[0, 0] = 1
            if abstained:
                acc = _poly_mul(
                    acc,
                    [(x, 0, weight(abstained, x)) for x in range(min(abstained, s_max) + 1)],
                    s_max,
                )
            for (m, other_correct), q in sorted(groups.items()):
                q -= int((m, other_correct) == (m_win, correct))
                terms = [(x, 0, weight(m, x)) for x in range(min(m, t - 1, s_max) + 1)]
                if m >= t:
                    terms.append((t, 1, weight(m, t)))
                for _ in range(q):
                    acc = _poly_mul(acc, terms, s_max)
            # A winner tied with r others is taken with probability 1 / (1 + r).
            for r, ways in enumerate(acc[s_max, :]):
                if exact:
                    total += Fraction(multiplicity * weight(m_win, t) * int(ways), 1 + r)
                else:
                    total += multiplicity * weight(m_win, t) * float(ways) / (1 + r)
    if exact:
        return float(total / math.comb(n, k))
    return float(min(max(total, 0.0), 1.0))


def maj_at_k(answer_counts, answer_correct, k: int, *, abstained: int = 0) -> float:
    """maj@k of one item: expected correctness of the plurality answer of ``k`` samples.

    Parameters
    ----------
    answer_counts : sequence of int
        Samples giving each distinct extracted answer (``m_j ≥ 1``).
    answer_correct : sequence of bool
        Whether each answer is graded correct.
    k : int
        Samples drawn without replacement from the item's ``n`` samples.
    abstained : int
        Samples without an extracted answer (they do not vote).

    Returns
    -------
    float
        The exact expectation over the ``C(n, k)`` subsets of ``k`` samples of
        ``(correct answers among the plurality winners) / (winners)`` (ties broken
        uniformly at random; 0 when no drawn sample voted); NaN when ``n < k``.

    Notes
    -----
    A generating-function recursion over the answer classes (module docstring),
    cached per item signature (the multiset of ``(count, correct)`` pairs,
    abstentions, ``k``): items with the same vote pattern cost one computation.
    Equal to the brute-force mean over ``itertools.combinations`` to 1e-12
    (tests/stats/test_sampling.py).

    References
    ----------
    Wang, X. et al. (2023). Self-consistency improves chain of thought reasoning in
        language models. arXiv:2203.11171.
    Johnson, N. L., Kotz, S. & Balakrishnan, N. (1997). *Discrete Multivariate
        Distributions*, ch. 39. Wiley.
    """
    k = _check_k(k)
    counts = [int(m) for m in answer_counts]
    correct = [bool(x) for x in answer_correct]
    if len(counts) != len(correct):
        raise ValueError("answer_counts and answer_correct must have one entry per answer")
    if any(m < 1 for m in counts) or abstained < 0:
        raise ValueError("answer counts must be >= 1 and abstained >= 0")
    n = sum(counts) + int(abstained)
    if n < k:
        return float("nan")
    if not any(correct):
        return 0.0
    signature = tuple(sorted(zip(counts, correct, strict=True)))
    return _maj_at_k_signature(signature, int(abstained), k)


# --- samples per item × model ----------------------------------------------------------

#: Reasons maj@k is not available for a model.
NO_ANSWER_COLUMN = "no extracted answers: the input has no answer column"
NO_ANSWERS = "no extracted answers: every sample's answer is empty"

_Signature = tuple[tuple[tuple[int, bool], ...], int]


@dataclass(frozen=True)
class SampleCounts:
    """Samples per item × model: how many, how many correct, and the answers' vote pattern.

    Attributes
    ----------
    models : list of str
        Model names, sorted.
    items : list of str
        Item labels (the order given to :func:`sample_counts`, else sorted).
    n, c : ndarray of int64, shape (n_items, n_models)
        Samples and correct samples; ``n = 0`` where the model has no sample of the item.
    signature : ndarray of int64, shape (n_items, n_models), or None
        Index into ``signatures`` of each cell's answer pattern (−1: no sample, or
        no answers); None when the input carries no answers at all.
    signatures : list
        Distinct answer patterns ``(classes, abstained)``: ``classes`` the sorted
        ``(samples, correct)`` of each distinct answer, ``abstained`` the samples
        without an answer.
    answers_note : dict of str to str
        Per model, why maj@k is not available ("" when it is).
    n_abstained : ndarray of int64, shape (n_models,)
        Samples without an extracted answer (they do not vote), per model.
    """

    models: list[str]
    items: list[str]
    n: np.ndarray
    c: np.ndarray
    signature: np.ndarray | None
    signatures: list[_Signature]
    answers_note: dict[str, str]
    n_abstained: np.ndarray


def _where(frame: pd.DataFrame, row: int, file) -> dict:
    """``file`` and ``line`` of a long-frame row for an :class:`InputError`."""
    source = frame["source_file"].iloc[row] if "source_file" in frame else None
    line = frame["line"].iloc[row] if "line" in frame else None
    where = source if isinstance(source, str) and source else file
    line = int(line) if line is not None and pd.notna(line) else None
    return {"file": where, "line": line}


def _describe(frame: pd.DataFrame, row: int, item: str) -> str:
    epoch = frame["epoch"].iloc[row] if "epoch" in frame else None
    text = f"model {frame['model'].iloc[row]!s}, item {frame[item].iloc[row]!s}"
    return text + (f", epoch {epoch}" if epoch is not None and pd.notna(epoch) else "")


def _binary_grades(frame: pd.DataFrame, item: str, file) -> np.ndarray:
    """The ``correct`` column as 0/1 integers, or an :class:`InputError` naming the first bad row."""
    raw = frame["correct"]
    if pd.api.types.is_bool_dtype(raw) or pd.api.types.is_numeric_dtype(raw):
        grades = raw.to_numpy(dtype=float, na_value=np.nan)
    else:
        grades = pd.to_numeric(raw.astype("object").where(raw.notna(), None), errors="coerce")
        grades = grades.astype(float).to_numpy()
    bad = ~np.isin(grades, (0.0, 1.0))
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        value = raw.iloc[row]
        what = "a missing grade" if pd.isna(value) else f"the grade {value!r}"
        raise InputError(
            f"{_describe(frame, row, item)} has {what}: pass@k, pass^k and maj@k count correct "
            f"samples, so every sample needs a 0/1 grade ({int(bad.sum())} of {bad.size} samples "
            "are not 0/1, e.g. partial credit or epochs already reduced by the harness); "
            "the accuracy tables take fractional scores, the sampling table cannot",
            field="correct",
            **_where(frame, row, file),
        )
    return grades.astype(np.int64)


def sample_counts(
    long: pd.DataFrame,
    *,
    item: str = "item_id",
    answer: str = "answer",
    items=None,
    file=None,
) -> SampleCounts:
    """Count samples and correct samples per (item, model) from one row per sample.

    Parameters
    ----------
    long : pandas.DataFrame
        One row per graded sample: ``model``, ``item`` (column named by ``item``),
        ``correct`` (0/1; booleans accepted), optionally ``epoch``, the extracted
        ``answer`` (column named by ``answer``; empty = no answer), ``source_file``
        and ``line`` (used to name the row of an error).
    item : str
        Name of the item column.
    answer : str
        Name of the extracted-answer column (absent: maj@k is not available).
    items : sequence of str, optional
        Item order of the matrices (e.g. the warehouse's); default sorted labels.
        Every item of ``long`` must be in it.
    file : str, optional
        File named in errors when ``long`` has no ``source_file``.

    Returns
    -------
    SampleCounts

    Raises
    ------
    InputError
        A grade that is not 0 or 1 (missing, fractional, a reduced epoch score),
        or an answer graded both correct and incorrect within one item.
    """
    missing = [col for col in ("model", item, "correct") if col not in long]
    if missing:
        raise InputError(f"the samples have no {missing[0]!r} column", file=file, field=missing[0])
    frame = long.reset_index(drop=True)
    grades = _binary_grades(frame, item, file)
    model_code, model_index = pd.factorize(frame["model"].astype(str), sort=True)
    models = [str(m) for m in model_index]
    if items is None:
        item_code, item_index = pd.factorize(frame[item].astype(str), sort=True)
        item_list = [str(i) for i in item_index]
    else:
        item_list = [str(i) for i in items]
        item_labels = frame[item].astype(str)
        item_code = pd.Index(item_list).get_indexer(item_labels)
        if (item_code < 0).any():
            unknown = item_labels.iloc[int(np.flatnonzero(item_code < 0)[0])]
            raise ValueError(f"item {unknown!r} of the samples is not in `items`")
    shape = (len(item_list), len(models))
    cell = item_code.astype(np.int64) * len(models) + model_code
    n = np.bincount(cell, minlength=shape[0] * shape[1]).reshape(shape).astype(np.int64)
    c = np.bincount(cell, weights=grades, minlength=shape[0] * shape[1]).reshape(shape)
    c = np.rint(c).astype(np.int64)
    signature, signatures, notes, abstained = _answer_patterns(
        frame, answer, grades, cell, shape, models, item, file
    )
    return SampleCounts(models, item_list, n, c, signature, signatures, notes, abstained)


def _answer_patterns(frame, answer, grades, cell, shape, models, item, file):
    """Per cell, the code of its answer pattern (see :class:`SampleCounts`).

    Vectorised: (cell, answer) groups by one ``np.unique`` of integer keys, each
    cell's classes ``2 · size + correct`` sorted into one row of a small matrix
    (columns: the most distinct answers of a cell, then the abstentions), and the
    distinct rows are the patterns; no Python loop over cells or answers.
    """
    n_models = len(models)
    if answer not in frame:
        return None, [], dict.fromkeys(models, NO_ANSWER_COLUMN), np.zeros(n_models, np.int64)
    text = frame[answer]
    has = text.notna().to_numpy()
    if has.any():
        has &= (text != "").to_numpy()
    model_of_cell = cell % n_models
    abstained = np.bincount(model_of_cell[~has], minlength=n_models).astype(np.int64)
    answered = np.bincount(model_of_cell[has], minlength=n_models)
    notes = {m: ("" if answered[j] else NO_ANSWERS) for j, m in enumerate(models)}
    if not has.any():
        return None, [], notes, abstained
    answer_code, _ = pd.factorize(text[has].astype(str))
    n_answers = int(answer_code.max()) + 1
    key = cell[has].astype(np.int64) * n_answers + answer_code
    # Hash-based grouping (pandas), O(rows): np.unique's sort dominated at 16 M samples.
    inverse, groups = pd.factorize(key)
    size = np.bincount(inverse, minlength=groups.size)
    right = np.bincount(inverse, weights=grades[has], minlength=groups.size)
    mixed = (right > 0) & (right < size)
    if mixed.any():
        bad = int(np.flatnonzero(mixed)[0])
        row = int(np.flatnonzero(has)[int(np.flatnonzero(inverse == bad)[0])])
        raise InputError(
            f"{_describe(frame, row, item).rsplit(', epoch', 1)[0]}: the answer "
            f"{str(text.iloc[row])!r} is graded correct in one sample and incorrect in "
            "another; maj@k needs the grade to follow from the extracted answer",
            field="correct",
            **_where(frame, row, file),
        )
    group_cell = groups // n_answers
    value = 2 * size + (right > 0)  # sorts as (size, correct)
    order = np.lexsort((value, group_cell))
    group_cell, value = group_cell[order], value[order]
    skipped = np.bincount(cell[~has], minlength=shape[0] * shape[1])
    with_pattern = skipped > 0
    with_pattern[group_cell] = True
    cells = np.flatnonzero(with_pattern)
    row_of = np.searchsorted(cells, group_cell)
    position = np.arange(group_cell.size) - np.searchsorted(group_cell, group_cell, side="left")
    width = int(position.max()) + 1
    table = np.zeros((cells.size, width + 1), dtype=np.int64)
    table[row_of, position] = value
    table[:, width] = skipped[cells]
    patterns, codes = _distinct_rows(table)
    signature = np.full(shape[0] * shape[1], -1, dtype=np.int64)
    signature[cells] = codes
    signatures = []
    for pattern in patterns:
        classes = tuple((int(v) // 2, bool(v % 2)) for v in pattern[:width] if v)
        signatures.append((classes, int(pattern[width])))
    return signature.reshape(shape), signatures, notes, abstained


def _distinct_rows(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of a non-negative integer matrix and each row's index among them.

    Rows are packed into one int64 when they fit (base = largest value + 1), then
    grouped by hashing; otherwise ``np.unique(axis=0)``. Patterns come sorted.
    """
    base = int(table.max()) + 1
    if base ** table.shape[1] < 2**62:
        packed = np.zeros(table.shape[0], dtype=np.int64)
        for column in range(table.shape[1]):
            packed = packed * base + table[:, column]
        codes, uniques = pd.factorize(packed, sort=True)
        first = np.zeros(uniques.size, dtype=np.int64)
        first[codes[::-1]] = np.arange(codes.size)[::-1]
        return table[first], codes
    patterns, codes = np.unique(table, axis=0, return_inverse=True)
    return patterns, codes.ravel()


# --- per-item estimates at k ---------------------------------------------------------


@dataclass(frozen=True)
class EstimateMatrix:
    """Per-item estimates of one metric at one ``k``, items × models.

    Attributes
    ----------
    metric : str
        One of :data:`METRICS`.
    k : int or None
        None for avg@n.
    values : pandas.DataFrame
        Items × models; NaN where the model has no sample of the item, fewer
        than ``k`` samples, or (maj@k) no extracted answers.
    n_items, n_samples, n_excluded : ndarray of int64, shape (n_models,)
        Items with an estimate, the samples behind them, and items left out for
        having fewer than ``k`` samples (``1 ≤ n < k``).
    notes : dict of str to str
        Per model, why the metric is not available ("" when it is).
    """

    metric: str
    k: int | None
    values: pd.DataFrame
    n_items: np.ndarray
    n_samples: np.ndarray
    n_excluded: np.ndarray
    notes: dict[str, str]


def _maj_values(counts: SampleCounts, k: int) -> np.ndarray:
    out = np.full(counts.n.shape, np.nan)
    if counts.signature is None:
        return out
    codes = counts.signature
    usable = (codes >= 0) & (counts.n >= k)
    per_code = np.full(len(counts.signatures), np.nan)
    for code in np.unique(codes[usable]):
        classes, abstained = counts.signatures[code]
        per_code[code] = maj_at_k(
            [m for m, _ in classes], [ok for _, ok in classes], k, abstained=abstained
        )
    out[usable] = per_code[codes[usable]]
    return out


def estimate_matrix(counts: SampleCounts, metric: str, k: int | None = None) -> EstimateMatrix:
    """Per-item estimates of ``metric`` at ``k`` for every model (:class:`EstimateMatrix`).

    Parameters
    ----------
    counts : SampleCounts
    metric : str
        :data:`PASS_AT_K`, :data:`PASS_HAT_K`, :data:`MAJ_AT_K` or :data:`AVG_AT_N`.
    k : int, optional
        Samples drawn (required, ``≥ 1``, except for avg@n, which takes none).

    Returns
    -------
    EstimateMatrix
    """
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {METRICS}, got {metric!r}")
    n, c = counts.n, counts.c
    notes = dict.fromkeys(counts.models, "")
    if metric == AVG_AT_N:
        if k is not None:
            raise ValueError("avg@n uses all samples: k must be None")
        values = avg_at_n(n, c)
        excluded = np.zeros(n.shape[1], dtype=np.int64)
    else:
        k = _check_k(k)
        if metric == PASS_AT_K:
            values = pass_at_k(n, c, k)
        elif metric == PASS_HAT_K:
            values = pass_hat_k(n, c, k)
        else:
            values = _maj_values(counts, k)
            notes = dict(counts.answers_note)
            # A model without any extracted answer has no maj@k (not 0).
            values[:, [bool(notes[m]) for m in counts.models]] = np.nan
        excluded = ((n >= 1) & (n < k)).sum(axis=0).astype(np.int64)
    has = ~np.isnan(values)
    frame = pd.DataFrame(
        values,
        index=pd.Index(counts.items, name="item"),
        columns=pd.Index(counts.models, dtype=object, name="model"),
    )
    return EstimateMatrix(
        metric=metric,
        k=k,
        values=frame,
        n_items=has.sum(axis=0).astype(np.int64),
        n_samples=np.where(has, n, 0).sum(axis=0).astype(np.int64),
        n_excluded=excluded,
        notes=notes,
    )


def excluded_items(counts: SampleCounts, ks) -> pd.DataFrame:
    """Items left out of each model's estimates at each ``k``: fewer than ``k`` samples.

    One row per (model, k) with at least one such item, for the data-quality
    table: ``model, k, n_items`` (items the model has samples of),
    ``n_items_excluded``, ``reason``. The same items are left out of pass@k,
    pass^k and maj@k at that ``k``.
    """
    rows = []
    present = (counts.n >= 1).sum(axis=0)
    for k in sorted({_check_k(k) for k in ks}):
        short = ((counts.n >= 1) & (counts.n < k)).sum(axis=0)
        for j, model in enumerate(counts.models):
            if short[j]:
                rows.append(
                    {
                        "model": model,
                        "k": k,
                        "n_items": int(present[j]),
                        "n_items_excluded": int(short[j]),
                        "reason": f"fewer than {k} samples: no unbiased estimate at k = {k}",
                    }
                )
    columns = ["model", "k", "n_items", "n_items_excluded", "reason"]
    return pd.DataFrame(rows, columns=columns)


# --- intervals over items ------------------------------------------------------------

INTERVAL_BOOTSTRAP = "bootstrap"
INTERVAL_T = "t"
INTERVAL_WILSON = "wilson"
INTERVALS = (INTERVAL_WILSON, INTERVAL_T, INTERVAL_BOOTSTRAP)
#: Interval :func:`sampling_table` and :func:`sampling_ranking` report by default
#: (bench/sampling_coverage.py; the module docstring and docs/statistics.md say why).
DEFAULT_INTERVAL = INTERVAL_WILSON
#: Fewer items than this with a per-item estimate above 0 (or below 1) make the
#: interval approximate: the table's ``note`` says so.
SPARSE_ITEMS = 5
#: ``method`` text of each interval, without and with clusters.
INTERVAL_TEXT = {
    (INTERVAL_WILSON, False): (
        "Wilson on the effective n (mean of per-item estimates, their SE, t with n-1 df; "
        "at most the samples, the items when the SE is 0)"
    ),
    (INTERVAL_WILSON, True): (
        "clustered Wilson (effective n from the clustered SE, t with C-1 df; "
        "at most the samples, the items when the SE is 0)"
    ),
    (
        INTERVAL_T,
        False,
    ): "mean of per-item estimates, t with n-1 df on their SE (clipped to [0, 1])",
    (INTERVAL_T, True): (
        "mean of per-item estimates, clustered SE (C/(C-1)), t with C-1 df (clipped to [0, 1])"
    ),
    (INTERVAL_BOOTSTRAP, False): "item bootstrap, percentile",
    (INTERVAL_BOOTSTRAP, True): "cluster bootstrap, percentile",
}


def item_intervals(
    values,
    *,
    clusters=None,
    n_boot: int,
    rng: np.random.Generator,
    level: float = 0.95,
    n_samples=None,
) -> pd.DataFrame:
    """The three item-clustered intervals of every column mean of a per-item estimate matrix.

    Parameters
    ----------
    values : pandas.DataFrame or ndarray, shape (n_items, n_models)
        Per-item estimates (NaN = no estimate: the item drops out of that column).
    clusters : array_like, shape (n_items,), optional
        Cluster of each item; default every item is its own cluster.
    n_boot : int
        Bootstrap replicates (one resample of items shared by every column); 0
        skips the bootstrap (``boot_low``/``boot_high`` NaN): at 200 models ×
        20,000 items it is 90% of :func:`sampling_table`'s time.
    rng : numpy.random.Generator
        From :func:`rederive.stats.bootstrap.rng_for`.
    level : float
        Confidence level.
    n_samples : array_like of int, shape (n_models,), optional
        Samples behind each column's estimates, the most the Wilson interval's
        effective n may credit; default the items.

    Returns
    -------
    pandas.DataFrame
        One row per column: ``estimate`` (mean of the per-item estimates),
        ``se`` (clustered SE with the ``C/(C − 1)`` factor: the SD of the
        per-item estimates over √n without clusters), ``n_items``, ``n_clusters``,
        ``wilson_low, wilson_high`` (Wilson score interval on the effective n
        ``R̂(1 − R̂)/SE²`` with the ``t_{C−1}`` quantile,
        :func:`rederive.stats.clustered.clustered_wilson`, at most ``n_samples``,
        and the items where the SE is 0), ``t_low, t_high``
        (``estimate ± t_{C−1} · se``, clipped to [0, 1]) and ``boot_low,
        boot_high`` (percentile bootstrap over items or clusters).

    Notes
    -----
    The estimate is a mean, so its linearisation is exact and the clustered SE
    is the delta-method SE of Miller (2024, eq. 4). Where the SE is 0 (every
    per-item estimate equal, e.g. no item reaching pass^k) the data carry no
    information on the design effect, so the Wilson interval counts each item
    once (the interval of ``n`` Bernoulli items) rather than each sample. NaN
    where a column has no estimate; the t and Wilson intervals need two clusters.
    """
    from rederive.stats.bootstrap import bootstrap_mean, percentile_ci
    from rederive.stats.clustered import clustered_ratio, clustered_wilson, t_interval

    array = np.asarray(values, dtype=float)
    present = ~np.isnan(array)
    filled = np.where(present, array, 0.0)
    fit = clustered_ratio(filled, present.astype(float), clusters=clusters)
    n_items = present.sum(axis=0)
    cap = n_items if n_samples is None else np.asarray(n_samples, dtype=float)
    rows = np.where(fit.se > 0, cap, n_items)
    w_low, w_high = clustered_wilson(fit.estimate, fit.se, rows, fit.n_clusters, level)
    t_low, t_high = t_interval(fit.estimate, fit.se, fit.n_clusters, level)
    if n_boot > 0:
        boot = bootstrap_mean(array, clusters=clusters, n_boot=n_boot, rng=rng)
        boot_low, boot_high = percentile_ci(boot.replicates, level)
    else:
        boot_low = boot_high = np.full(array.shape[1], np.nan)
    columns = values.columns if isinstance(values, pd.DataFrame) else range(array.shape[1])
    return pd.DataFrame(
        {
            "model": list(columns),
            "estimate": fit.estimate,
            "se": fit.se,
            "n_items": n_items.astype(np.int64),
            "n_clusters": fit.n_clusters,
            "wilson_low": w_low,
            "wilson_high": w_high,
            "t_low": np.clip(t_low, 0.0, 1.0),
            "t_high": np.clip(t_high, 0.0, 1.0),
            "boot_low": boot_low,
            "boot_high": boot_high,
        }
    )


def _cluster_labels(clusters, items) -> np.ndarray | None:
    """Cluster per item of ``items`` from a Series indexed by item (None: every item alone)."""
    if clusters is None:
        return None
    labels = pd.Series(clusters).astype("string")
    labels.index = labels.index.astype(str)
    aligned = labels.reindex(pd.Index(items, dtype=object).astype(str))
    # An item without a cluster is its own cluster, as rederive.studies.benchmark does.
    fill = pd.Series(["__item__" + str(i) for i in items], index=aligned.index, dtype="string")
    return aligned.fillna(fill).to_numpy(dtype=str)


def _key(metric: str, k) -> tuple[str, str]:
    return metric, "n" if k is None else str(k)


def _pct(value) -> float:
    from rederive.stats.rates import round_half_up

    return round_half_up(100 * value, 1)


def _bounds(table: pd.DataFrame, interval: str) -> tuple[np.ndarray, np.ndarray]:
    if interval not in INTERVALS:
        raise ValueError(f"interval must be one of {INTERVALS}, got {interval!r}")
    prefix = {INTERVAL_WILSON: "wilson", INTERVAL_T: "t", INTERVAL_BOOTSTRAP: "boot"}[interval]
    return table[f"{prefix}_low"].to_numpy(), table[f"{prefix}_high"].to_numpy()


#: Columns of :func:`sampling_table`, in order.
TABLE_COLUMNS = [
    "model",
    "metric",
    "k",
    "n_items",
    "n_samples",
    "n_items_excluded",
    "estimate",
    "ci_low",
    "ci_high",
    "estimate_pct",
    "ci_low_pct",
    "ci_high_pct",
    "method",
    "se",
    "boot_low",
    "boot_high",
    "level",
    "cluster_by",
    "n_clusters",
    "n_boot",
    "seed",
    "note",
]


def _metric_ks(metrics, ks) -> list[tuple[str, int | None]]:
    for metric in metrics:
        if metric not in METRICS:
            raise ValueError(f"metric must be one of {METRICS}, got {metric!r}")
    ks = sorted({_check_k(k) for k in ks})
    pairs: list[tuple[str, int | None]] = []
    for metric in dict.fromkeys(metrics):
        pairs += [(metric, None)] if metric == AVG_AT_N else [(metric, k) for k in ks]
    return pairs


def _sparse_note(values: pd.Series) -> str:
    """Say so when fewer than :data:`SPARSE_ITEMS` items carry an estimate near 0 or 1."""
    present = values.dropna()
    if present.empty:
        return ""
    above, below = int((present > 0).sum()), int((present < 1).sum())
    if min(above, below) >= SPARSE_ITEMS or present.size < SPARSE_ITEMS:
        return ""
    side = (
        f"{above} of {present.size} items above 0"
        if above < below
        else (f"{below} of {present.size} items below 1")
    )
    return f"only {side}: the interval is approximate (rare events under-cover, bench/README.md)"


def _abstain_note(counts: SampleCounts, j: int) -> str:
    abstained = int(counts.n_abstained[j])
    if not abstained:
        return ""
    total = int(counts.n[:, j].sum())
    return f"{abstained} of {total} samples without an extracted answer do not vote"


def sampling_table(
    counts: SampleCounts,
    *,
    ks,
    metrics=METRICS,
    clusters=None,
    cluster_by: str = "none",
    n_boot: int,
    seed: int,
    level: float = 0.95,
    interval: str = DEFAULT_INTERVAL,
) -> pd.DataFrame:
    """``tables/sampling.csv``: every model × metric × k with its estimate and interval.

    Parameters
    ----------
    counts : SampleCounts
    ks : iterable of int
        The ``k`` of pass@k, pass^k and maj@k (avg@n has one row, ``k`` empty).
    metrics : iterable of str
        Subset of :data:`METRICS`, in the order wanted.
    clusters : pandas.Series, optional
        Cluster label per item label (``cluster_by``); None: each item its own.
    cluster_by : str
        Name of the clustering, written to the table.
    n_boot, seed : int
        Bootstrap replicates (0: no bootstrap columns) and the seed
        (``rng_for(seed, "sampling", metric, k)``).
    level : float
        Confidence level.
    interval : str
        Which of :data:`INTERVALS` fills ``ci_low``/``ci_high`` (``method`` names
        it); the percentile bootstrap is always kept in ``boot_low``/``boot_high``.

    Returns
    -------
    pandas.DataFrame
        :data:`TABLE_COLUMNS`, rows by model, then metric in ``metrics`` order,
        then ``k``. Fractions unrounded in ``estimate``, ``ci_*``, ``se``,
        ``boot_*``; percentages at one decimal (half up) in ``*_pct``.
        ``n_items_excluded`` counts the model's items with fewer than ``k``
        samples (left out of that row); ``note`` says why a maj@k is NaN, or how
        many samples had no answer to vote with.
    """
    from rederive.stats.bootstrap import rng_for

    if interval not in INTERVALS:
        raise ValueError(f"interval must be one of {INTERVALS}, got {interval!r}")
    if interval == INTERVAL_BOOTSTRAP and n_boot < 1:
        raise ValueError("the bootstrap interval needs n_boot >= 1")
    labels = _cluster_labels(clusters, counts.items)
    frames = []
    for metric, k in _metric_ks(list(metrics), ks):
        matrix = estimate_matrix(counts, metric, k)
        got = item_intervals(
            matrix.values,
            clusters=labels,
            n_boot=n_boot,
            rng=rng_for(seed, "sampling", *_key(metric, k)),
            level=level,
            n_samples=matrix.n_samples,
        )
        low, high = _bounds(got, interval)
        notes = []
        for j, model in enumerate(counts.models):
            note = matrix.notes.get(model, "")
            if not note and matrix.n_items[j] == 0 and matrix.n_excluded[j] > 0:
                most = int(counts.n[:, j].max())
                note = f"no item has {k} samples (at most {most}): not estimable at k = {k}"
            if not note:
                parts = [_abstain_note(counts, j) if metric == MAJ_AT_K else ""]
                parts.append(_sparse_note(matrix.values[model]))
                note = "; ".join(p for p in parts if p)
            notes.append(note)
        frames.append(
            pd.DataFrame(
                {
                    "model": counts.models,
                    "metric": metric,
                    "k": pd.array([k] * len(counts.models), dtype="Int64"),
                    "n_items": matrix.n_items,
                    "n_samples": matrix.n_samples,
                    "n_items_excluded": matrix.n_excluded,
                    "estimate": got["estimate"],
                    "ci_low": low,
                    "ci_high": high,
                    "estimate_pct": [_pct(v) for v in got["estimate"]],
                    "ci_low_pct": [_pct(v) for v in low],
                    "ci_high_pct": [_pct(v) for v in high],
                    "method": INTERVAL_TEXT[(interval, labels is not None)],
                    "se": got["se"],
                    "boot_low": got["boot_low"],
                    "boot_high": got["boot_high"],
                    "level": level,
                    "cluster_by": cluster_by,
                    "n_clusters": got["n_clusters"],
                    "n_boot": n_boot,
                    "seed": seed,
                    "note": notes,
                }
            )
        )
    if not frames:
        return pd.DataFrame(columns=TABLE_COLUMNS)
    table = pd.concat(frames, ignore_index=True)
    order = {m: i for i, m in enumerate(metrics)}
    table = table.assign(_m=table["metric"].map(order), _k=table["k"].fillna(0).astype(int))
    table = table.sort_values(["model", "_m", "_k"], kind="stable").drop(columns=["_m", "_k"])
    return table.reset_index(drop=True)[TABLE_COLUMNS]


# --- comparisons and ranking at one k --------------------------------------------------


@dataclass(frozen=True)
class ComparisonMatrix:
    """The per-item estimates a comparison at ``k`` runs on.

    Attributes
    ----------
    values : pandas.DataFrame
        Items × compared models, complete: the items every compared model has an
        estimate for (so each pair is paired on the same items).
    small : dict of str to bool
        Per model: fewer than ``min_n`` items with an estimate at ``k`` (no rank,
        not compared).
    unavailable : dict of str to str
        Models without the metric at all (maj@k without answers), with the reason.
    n_items_dropped : int
        Items some compared model has no estimate for (fewer than ``k`` samples),
        left out of every comparison at ``k``.
    estimates : EstimateMatrix
        The full matrix (every model, its own items).
    """

    values: pd.DataFrame
    small: dict[str, bool]
    unavailable: dict[str, str]
    n_items_dropped: int
    estimates: EstimateMatrix


def comparison_matrix(
    counts: SampleCounts, metric: str, k: int | None, *, min_n: int
) -> ComparisonMatrix:
    """The complete items × models matrix of ``metric`` at ``k`` that comparisons use.

    Models with the metric (maj@k needs answers) and at least ``min_n`` items with
    an estimate are compared, on the items all of them have an estimate for; the
    others are ``small`` or ``unavailable`` and get no rank. A short item set of
    one model shrinks every comparison at ``k``, and ``n_items_dropped`` says by
    how much.
    """
    matrix = estimate_matrix(counts, metric, k)
    unavailable = {m: note for m, note in matrix.notes.items() if note}
    small = {
        m: bool(matrix.n_items[j] < min_n) and m not in unavailable
        for j, m in enumerate(counts.models)
    }
    compared = [m for m in counts.models if m not in unavailable and not small[m]]
    values = matrix.values[compared]
    has_any = matrix.values[compared].notna().any(axis=1)
    complete = values.notna().all(axis=1)
    return ComparisonMatrix(
        values=values[complete],
        small=small,
        unavailable=unavailable,
        n_items_dropped=int((has_any & ~complete).sum()),
        estimates=matrix,
    )


def sampling_pairwise(
    counts: SampleCounts,
    metric: str,
    k: int | None,
    *,
    clusters=None,
    n_boot: int,
    seed: int,
    fdr_q: float,
    min_n: int,
    level: float = 0.95,
    all_pairs_up_to: int | None = None,
    neighbours: int = 2,
) -> pd.DataFrame:
    """Every model pair compared at ``k`` on the per-item estimates: ``pairwise.csv``'s columns.

    The benchmark's :func:`rederive.studies.benchmark.pairwise.pairwise` on the
    :func:`comparison_matrix`: the paired difference of the two means of per-item
    estimates, its interval and p (exact McNemar where every per-item value is 0
    or 1, e.g. ``k = n``; otherwise the paired t test on the item differences,
    the clustered t with ``C − 1`` df with clusters), BH over the family at
    ``fdr_q``. Columns: those of ``pairwise.csv`` (``diff_pct`` etc. are the
    metric in points) plus ``metric``, ``k`` and ``n_items_dropped``.
    """
    from rederive.studies.benchmark.pairwise import pairwise

    chosen = comparison_matrix(counts, metric, k, min_n=min_n)
    labels = _cluster_labels(clusters, list(chosen.values.index))
    pairs = pairwise(
        chosen.values,
        labels,
        n_boot=n_boot,
        seed=seed,
        fdr_q=fdr_q,
        small={},
        level=level,
        all_pairs_up_to=all_pairs_up_to,
        neighbours=neighbours,
    )
    pairs["metric"] = metric
    pairs["k"] = pd.array([k] * len(pairs), dtype="Int64")
    pairs["n_items_dropped"] = chosen.n_items_dropped
    return pairs


def sampling_ranking(
    counts: SampleCounts,
    pairs: pd.DataFrame,
    metric: str,
    k: int | None,
    *,
    clusters=None,
    n_boot: int,
    seed: int,
    min_n: int,
    level: float = 0.95,
    interval: str = DEFAULT_INTERVAL,
) -> pd.DataFrame:
    """Rank ranges with tie groups at ``k`` from :func:`sampling_pairwise`'s pairs.

    The benchmark's :func:`rederive.studies.benchmark.pairwise.ranking` on the
    compared models' estimates over the comparison's items (``accuracy_pct``,
    ``ci_low_pct``, ``ci_high_pct`` hold the metric in percent with ``interval``);
    small-n models follow with their own estimate and rank "small n", models
    without the metric (maj@k without answers) last with rank "n/a". Columns:
    those of ``ranking.csv`` plus ``metric`` and ``k``.
    """
    from rederive.stats.bootstrap import rng_for, sum_by_cluster
    from rederive.stats.small_n import SMALL_N
    from rederive.studies.benchmark.pairwise import ranking

    chosen = comparison_matrix(counts, metric, k, min_n=min_n)
    values = chosen.values
    labels = _cluster_labels(clusters, list(values.index))
    n_samples = np.where(chosen.values.notna(), counts_for(counts, values), 0).sum(axis=0)
    got = item_intervals(
        values,
        clusters=labels,
        n_boot=n_boot,
        rng=rng_for(seed, "sampling-ranking", *_key(metric, k)),
        level=level,
        n_samples=n_samples,
    )
    low, high = _bounds(got, interval)
    # The order of rederive.studies.benchmark.pairwise: its bootstrap's estimates.
    array = values.to_numpy(dtype=float)
    sums, _ = sum_by_cluster(array, labels)
    estimate = sums.sum(axis=0) / np.isfinite(array).sum(axis=0) if array.size else got["estimate"]
    ranked = pd.DataFrame(
        {
            "model": list(values.columns),
            "estimate": estimate,
            "accuracy_pct": [_pct(v) for v in got["estimate"]],
            "ci_low_pct": [_pct(v) for v in low],
            "ci_high_pct": [_pct(v) for v in high],
            SMALL_N: False,
        }
    ).sort_values(["estimate", "model"], ascending=[False, True])
    small = [m for m in counts.models if chosen.small[m]]
    own = chosen.estimates
    rest = pd.DataFrame(
        {
            "model": small,
            "estimate": [float(own.values[m].mean()) for m in small],
            "accuracy_pct": [_pct(own.values[m].mean()) for m in small],
            "ci_low_pct": np.nan,
            "ci_high_pct": np.nan,
            SMALL_N: True,
        }
    ).sort_values(["estimate", "model"], ascending=[False, True])
    frames = [f for f in (ranked, rest) if len(f)]
    accuracy = pd.concat(frames, ignore_index=True) if frames else ranked
    out = ranking(accuracy.reset_index(drop=True), pairs)
    if chosen.unavailable:
        start = len(out) + 1
        missing = pd.DataFrame(
            {
                "order": range(start, start + len(chosen.unavailable)),
                "model": sorted(chosen.unavailable),
                "accuracy_pct": np.nan,
                "ci_low_pct": np.nan,
                "ci_high_pct": np.nan,
                "rank": "n/a",
                "n_tied": 0,
                "tied_with": "",
                SMALL_N: False,
            }
        )
        out = pd.concat([out, missing], ignore_index=True)
        for column in ("rank_best", "rank_worst"):
            out[column] = out[column].astype("Int64")
    out["metric"] = metric
    out["k"] = pd.array([k] * len(out), dtype="Int64")
    return out


def counts_for(counts: SampleCounts, values: pd.DataFrame) -> np.ndarray:
    """Samples per cell of ``values`` (its items × models), from ``counts``."""
    rows = pd.Index(counts.items).get_indexer(values.index.astype(str))
    cols = pd.Index(counts.models).get_indexer(values.columns.astype(str))
    return counts.n[np.ix_(rows, cols)]
