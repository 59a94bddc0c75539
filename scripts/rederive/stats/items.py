"""Item analysis of a models x items 0/1 matrix: which items look broken.

Per item: share correct, item-rest (point-biserial) correlation, Rasch infit and
outfit mean-squares with their standardised values, and flags - negative
discrimination (the models that are best overall fail it: a likely mis-keyed gold
answer), misfit (responses far noisier than the Rasch model expects: an ambiguous
or randomly graded item), solved by none or by all, and outcomes that flip across
epochs.

Estimates behind the fit statistics: model abilities are fixed (the marginal-ML
abilities of :func:`rederive.stats.irt_mml.rasch_mml`, or given), and each item
gets its *own* maximum-likelihood difficulty given those abilities. This is the
LLM-benchmark transpose of classical Rasch item analysis, in which the examinees
(here: the few models) are the conditioning side and each item is estimated
from its own responses; its residuals sum to zero, as in Wright & Masters'
tables. Items solved by none or all have no finite difficulty and no fit
statistics (they are flagged as such). Models with a perfect or zero score carry
no information about any item and are left out of the fit statistics and the
correlations, as eRm leaves out extreme persons.

Formulas (Wright & Masters 1982, ch. 5; Wright & Linacre 1994), for item ``j``
over the models ``i`` that answered it, ``P = logistic(theta_i - b_j)``,
``W = P (1 - P)``, ``C = W (P^3 + (1 - P)^3)`` (the fourth central moment),
``n`` models:

* outfit MNSQ ``u = mean((y - P)^2 / W)``, its SD ``q^2 = sum(C / W^2) / n^2 - 1/n``;
* infit MNSQ ``v = sum((y - P)^2) / sum(W)``, ``q^2 = sum(C - W^2) / sum(W)^2``;
* ZSTD (Wilson-Hilferty cube root) ``(MNSQ^(1/3) - 1) (3 / q) + q / 3``.

These are eRm's ``itemfit`` formulas; ``tests/stats/test_items.py`` checks them
against eRm 1.0 on a committed matrix.

References
----------
Wright, B. D. & Masters, G. N. (1982). *Rating Scale Analysis*, ch. 5. MESA Press.
Wright, B. D. & Linacre, J. M. (1994). Reasonable mean-square fit values. *Rasch
    Measurement Transactions* 8(3), 370.
Linacre, J. M. (2002). What do infit and outfit, mean-square and standardized
    mean? *Rasch Measurement Transactions* 16(2), 878.
Ebel, R. L. & Frisbie, D. A. (1991). *Essentials of Educational Measurement* (5th
    ed.), ch. 13: items with negative discrimination are to be checked for a
    wrong key.
Mair, P. & Hatzinger, R. (2007). Extended Rasch modeling: the eRm package.
    *Journal of Statistical Software* 20(9).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import expit

__all__ = [
    "FLAGS",
    "ItemThresholds",
    "epoch_flips",
    "epoch_flips_from_codes",
    "item_analysis",
    "item_difficulty_given_ability",
    "item_rest_correlation",
    "rasch_item_fit",
    "statistics_note",
    "suspect_items",
]

# Flag names, in the order a reader should look at them (the ranking's order).
FLAGS = (
    "negative_discrimination",
    "misfit",
    "flips_across_epochs",
    "solved_by_none",
    "solved_by_all",
)


@dataclass(frozen=True)
class ItemThresholds:
    """When an item is flagged (defaults: the kinds' ``items`` settings).

    Attributes
    ----------
    discrimination_below : float
        Negative discrimination when the item-rest correlation is below this
        (0: the better a model is overall, the less often it gets the item
        right; Ebel & Frisbie 1991).
    mnsq_above, zstd_above : float
        Misfit when the outfit or the infit mean-square exceeds ``mnsq_above``
        *and* its ZSTD exceeds ``zstd_above`` (Linacre 2002: MNSQ > 1.5 is noise
        that degrades measurement; ZSTD > 2 is beyond chance at about 5%).
    flip_share_above : float
        Flips across epochs when more than this share of the models that ran
        the item more than once disagree with themselves between epochs.
    min_models : int
        Fewest models with a finite ability an item needs for a correlation
        and fit statistics (with fewer, they are NaN and no flag is raised).
    """

    discrimination_below: float = 0.0
    mnsq_above: float = 1.5
    zstd_above: float = 2.0
    flip_share_above: float = 0.5
    min_models: int = 5

    @classmethod
    def from_config(cls, config: dict) -> ItemThresholds:
        return cls(**{k: config[k] for k in cls.__dataclass_fields__ if k in config})


def _matrix(responses: pd.DataFrame, fractional: bool = False) -> np.ndarray:
    from rederive.stats.irt import _binary_matrix

    # One model or one item still has shares correct and the solved-by-none/all
    # flags; the correlation and fit statistics are NaN (need_for_statistics).
    return _binary_matrix(responses, minimum=1, fractional=fractional)


def item_rest_correlation(
    y: np.ndarray, total: np.ndarray | None = None, count: np.ndarray | None = None
) -> np.ndarray:
    """Pearson correlation of each item with the rest score, over the models.

    Parameters
    ----------
    y : numpy.ndarray
        Models x items, 0/1 with NaN for missing.
    total, count : numpy.ndarray, optional
        Each model's number correct and number of observed items over *all*
        items, when ``y`` is a block of the items' columns (default: over ``y``).

    Returns
    -------
    numpy.ndarray
        One value per item; NaN when the item or the rest score is constant.
        The rest score is the model's share correct on its *other* observed
        items (its number correct, as in eRm, when nothing is missing).
    """
    obs = ~np.isnan(y)
    y0 = np.where(obs, y, 0.0)
    total = y0.sum(axis=1, keepdims=True) if total is None else np.reshape(total, (-1, 1))
    count = obs.sum(axis=1, keepdims=True) if count is None else np.reshape(count, (-1, 1))
    with np.errstate(invalid="ignore", divide="ignore"):
        rest = np.where(obs, (total - y0) / (count - 1), 0.0)
        w = obs.astype(float)
        n = w.sum(axis=0)
        mx = y0.sum(axis=0) / n
        mr = rest.sum(axis=0) / n
        dx = np.where(obs, y0 - mx, 0.0)
        dr = np.where(obs, rest - mr, 0.0)
        sxy = (dx * dr).sum(axis=0)
        sxx = (dx**2).sum(axis=0)
        syy = (dr**2).sum(axis=0)
        r = sxy / np.sqrt(sxx * syy)
    # A constant item or rest score has no correlation (0/0), not a number.
    return np.where((sxx > 1e-12) & (syy > 1e-12), r, np.nan)


def item_difficulty_given_ability(y: np.ndarray, ability: np.ndarray) -> np.ndarray:
    """Maximum-likelihood difficulty of each item with the abilities held fixed.

    ``-inf`` for an item every model solves, ``+inf`` for one none solves.
    """
    from rederive.stats.irt import _newton_abilities

    # P = logistic(theta_i - b_j) = logistic((-b_j) - (-theta_i)): the items are
    # the "models" of the transposed problem, with location -b_j.
    yt = y.T
    obs = ~np.isnan(yt)
    est = _newton_abilities(
        np.nan_to_num(yt),
        obs,
        -np.asarray(ability, dtype=float),
        np.ones((1, yt.shape[1])),
        None,
        start=np.zeros(yt.shape[0]),
    )
    return -est[0]


def rasch_item_fit(y: np.ndarray, ability: np.ndarray, difficulty: np.ndarray) -> pd.DataFrame:
    """Infit and outfit mean-squares and ZSTD of each item (Wright & Masters 1982).

    Parameters
    ----------
    y : numpy.ndarray
        Models x items, 0/1 with NaN for missing.
    ability : numpy.ndarray
        One finite ability per model (rows); models with NaN take no part.
    difficulty : numpy.ndarray
        One difficulty per item; a non-finite one gives NaN statistics.

    Returns
    -------
    pandas.DataFrame
        ``outfit_mnsq``, ``outfit_zstd``, ``infit_mnsq``, ``infit_zstd`` and
        ``n_fit`` (models behind them), one row per item.
    """
    theta = np.asarray(ability, dtype=float)
    b = np.asarray(difficulty, dtype=float)
    use = ~np.isnan(y) & np.isfinite(theta)[:, None] & np.isfinite(b)[None, :]
    p = expit(np.where(np.isfinite(theta), theta, 0.0)[:, None] - np.where(np.isfinite(b), b, 0.0))
    w = p * (1.0 - p)
    c = w * (p**3 + (1.0 - p) ** 3)
    sq = np.where(use, (np.nan_to_num(y) - p) ** 2, 0.0)
    w_u = np.where(use, w, 0.0)
    n = use.sum(axis=0).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        outfit = np.where(use, sq / w, 0.0).sum(axis=0) / n
        q_out = np.sqrt(np.where(use, c / w**2, 0.0).sum(axis=0) / n**2 - 1.0 / n)
        sum_w = w_u.sum(axis=0)
        infit = sq.sum(axis=0) / sum_w
        q_in = np.sqrt(np.where(use, c - w**2, 0.0).sum(axis=0) / sum_w**2)
        out = pd.DataFrame(
            {
                "outfit_mnsq": outfit,
                "outfit_zstd": _zstd(outfit, q_out),
                "infit_mnsq": infit,
                "infit_zstd": _zstd(infit, q_in),
                "n_fit": n.astype(int),
            }
        )
    bad = n < 1
    out.loc[bad, ["outfit_mnsq", "outfit_zstd", "infit_mnsq", "infit_zstd"]] = np.nan
    return out


def _zstd(mnsq: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Wilson-Hilferty cube-root transform of a mean-square to a unit normal."""
    return (np.cbrt(mnsq) - 1.0) * (3.0 / q) + q / 3.0


def epoch_flips(long: pd.DataFrame, rule=None) -> pd.DataFrame:
    """Per item: models that ran it in several epochs, and how many of them flipped.

    Parameters
    ----------
    long : pandas.DataFrame
        One row per (model, item, epoch) with columns ``model``, ``item``,
        ``epoch`` and ``correct`` (scores in [0, 1]; an epoch passes when
        ``rule`` says so).
    rule : rederive.stats.fractional.ScoreRule, optional
        Default: above 0.5 passes, exactly 0.5 (a draw) is left out
        (:meth:`~rederive.stats.fractional.ScoreRule.passed`).

    Returns
    -------
    pandas.DataFrame
        Indexed by item: ``n_models_repeated`` (models with two or more epochs)
        and ``n_models_flipped`` (of those, models whose outcome differs
        between epochs).
    """
    from rederive.stats.fractional import ScoreRule

    passed, keep = (rule or ScoreRule()).passed(long["correct"].to_numpy(dtype=float))
    passed = long[keep].assign(_pass=passed[keep].astype(int))
    per = passed.groupby(["item", "model"], sort=True)["_pass"].agg(["size", "min", "max"])
    repeated = per["size"] >= 2
    flipped = repeated & (per["min"] != per["max"])
    out = pd.DataFrame(
        {
            "n_models_repeated": repeated.groupby(level="item").sum(),
            "n_models_flipped": flipped.groupby(level="item").sum(),
        }
    )
    return out.astype("int64")


def epoch_flips_from_codes(
    item: np.ndarray, model: np.ndarray, passed: np.ndarray, items: pd.Index, n_models: int
) -> pd.DataFrame:
    """:func:`epoch_flips` from integer-coded arrays, one entry per (model, item, epoch).

    Parameters
    ----------
    item, model : numpy.ndarray
        Integer codes: position in ``items`` and model number in ``[0, n_models)``.
    passed : numpy.ndarray
        1 where the epoch passed (bool or 0/1; :meth:`ScoreRule.passed`).
    items : pandas.Index
        Labels of the item codes.

    Returns
    -------
    pandas.DataFrame
        As :func:`epoch_flips`, indexed by ``items``. Two counts per (item,
        model) cell (``np.bincount``), ``items x models`` int64 each: 2.4 GB at
        5,000 x 30,000, against ~10 GB for the grouped long frame.
    """
    item = np.asarray(item, dtype=np.int64)
    model = np.asarray(model, dtype=np.int64)
    n_cells = len(items) * int(n_models)
    key = item * int(n_models) + model
    size = np.bincount(key, minlength=n_cells).reshape(len(items), n_models)
    hits = np.bincount(key, weights=np.asarray(passed, dtype=float), minlength=n_cells)
    hits = hits.reshape(len(items), n_models)
    repeated = size >= 2
    flipped = repeated & (hits > 0) & (hits < size)
    return pd.DataFrame(
        {
            "n_models_repeated": repeated.sum(axis=1).astype("int64"),
            "n_models_flipped": flipped.sum(axis=1).astype("int64"),
        },
        index=pd.Index(items, name="item"),
    )


# Cells of one block of items (columns) the item statistics are computed on:
# the bundled matrices (at most 63 k cells) are one block, so their arithmetic is
# unchanged; 5,000 models x 30,000 items go in blocks of 800 items.
_ITEM_BLOCK_CELLS = 4_000_000


def item_analysis(
    responses: pd.DataFrame,
    *,
    ability: pd.Series | None = None,
    flips: pd.DataFrame | None = None,
    thresholds: ItemThresholds | None = None,
    fractional: bool = False,
) -> pd.DataFrame:
    """Item statistics and flags for every item of a models x items 0/1 matrix.

    Parameters
    ----------
    responses : pandas.DataFrame
        Models (rows) x items (columns), 1 / 0 / NaN (not observed).
    ability : pandas.Series, optional
        Model abilities (logits) indexed like the rows; non-finite values (a
        perfect or zero score) leave the model out. Default: the marginal-ML
        abilities of :func:`rederive.stats.irt_mml.rasch_mml`, with models of a
        perfect or zero score left out.
    flips : pandas.DataFrame, optional
        :func:`epoch_flips` of the same items; without it (single-epoch data)
        the flip columns are NaN and never flag.
    thresholds : ItemThresholds, optional
    fractional : bool, default False
        Accept scores in [0, 1] (:mod:`rederive.stats.fractional`): the
        statistics are then those of the scores themselves - ``n_correct`` is
        the sum of the scores (a float), ``share_correct`` their mean, the
        item-rest correlation a Pearson correlation of scores, the abilities
        and the item's difficulty fitted by the fractional likelihood, and the
        residuals ``(s - P)``. The mean-squares keep the Bernoulli variance
        ``P (1 - P)`` in the denominator, which a score between 0 and 1 cannot
        reach (its variance about ``P`` is at most that), so they run below 1
        and a misfit flag on fractional scores is conservative. "Solved by
        none / all" means every score 0 / 1.

    Returns
    -------
    pandas.DataFrame
        Indexed by item: ``n_models``, ``n_correct``, ``share_correct``,
        ``item_rest_r``, ``difficulty_ml`` (the item's ML difficulty given the
        abilities), ``outfit_mnsq``, ``outfit_zstd``, ``infit_mnsq``,
        ``infit_zstd``, ``n_fit``, ``n_models_repeated``, ``n_models_flipped``,
        ``flip_share``, one boolean column per flag of :data:`FLAGS`,
        ``n_flags`` and ``flags`` (the raised flags joined by ``;``).
    """
    thresholds = thresholds or ItemThresholds()
    answered = responses.notna().any(axis=0)
    if not answered.all():
        # An item no model answered has no statistic and raises no flag (not even
        # "solved by none"): it keeps its row, with n_models 0.
        out = item_analysis(
            responses.loc[:, answered],
            ability=ability,
            flips=flips,
            thresholds=thresholds,
            fractional=fractional,
        ).reindex(responses.columns)
        empty = ~answered.to_numpy()
        for column in ("n_models", "n_correct", "n_fit", "n_models_repeated", "n_models_flipped"):
            counts = out[column].fillna(0)
            out[column] = counts if fractional and column == "n_correct" else counts.astype("int64")
        out.loc[empty, list(FLAGS)] = False
        out[list(FLAGS)] = out[list(FLAGS)].astype(bool)
        out["n_flags"] = out["n_flags"].fillna(0).astype("int64")
        out.loc[empty, "flags"] = ""
        return out
    y = _matrix(responses, fractional)
    obs = ~np.isnan(y)
    y0 = np.where(obs, y, 0.0)
    correct = y0.sum(axis=0)
    seen = obs.sum(axis=0)
    model_correct = y0.sum(axis=1)
    model_seen = obs.sum(axis=1)
    del y0
    extreme_model = (model_correct == 0) | (model_correct == model_seen)
    if ability is None:
        from rederive.stats.irt_mml import rasch_mml

        keep = ~extreme_model
        theta = np.full(y.shape[0], np.nan)
        if keep.sum() >= 2 and y.shape[1] >= 2:
            sub = responses if keep.all() else responses.loc[keep]
            answered_sub = ~np.isnan(y[keep]).all(axis=0) if not keep.all() else None
            if answered_sub is not None and not answered_sub.all():
                sub = sub.loc[:, answered_sub]
            theta[keep] = (
                rasch_mml(sub, random="items", fractional=fractional)
                .ability.reindex(sub.index)
                .to_numpy()
            )
    else:
        theta = ability.reindex(responses.index).to_numpy(dtype=float)
        theta = np.where(extreme_model | ~np.isfinite(theta), np.nan, theta)
    informative = np.isfinite(theta)
    n_items = y.shape[1]
    n_inf = np.zeros(n_items, dtype=np.int64)
    r = np.full(n_items, np.nan)
    b = np.full(n_items, np.nan)
    fit = pd.DataFrame(
        np.nan,
        index=range(n_items),
        columns=["outfit_mnsq", "outfit_zstd", "infit_mnsq", "infit_zstd"],
    ).assign(n_fit=0)
    if informative.sum() >= 2:
        # The rest score of a model counts all its items, whichever block.
        total, count = model_correct[informative], model_seen[informative]
        width = max(1, _ITEM_BLOCK_CELLS // max(int(informative.sum()), 1))
        parts = []
        for lo in range(0, n_items, width):
            cols = slice(lo, min(lo + width, n_items))
            rows = y[informative, cols]
            n_inf[cols] = (~np.isnan(rows)).sum(axis=0)
            enough = n_inf[cols] >= thresholds.min_models
            if width >= n_items:
                block_r = item_rest_correlation(rows)
            else:
                block_r = item_rest_correlation(rows, total, count)
            r[cols] = np.where(enough, block_r, np.nan)
            b[cols] = item_difficulty_given_ability(rows, theta[informative])
            parts.append(
                rasch_item_fit(rows, theta[informative], np.where(enough, b[cols], np.nan))
            )
        fit = pd.concat(parts, ignore_index=True)
    out = pd.DataFrame(
        {
            "n_models": seen.astype("int64"),
            # A sum of fractional scores stays a float (int64 would truncate it).
            "n_correct": correct if fractional else correct.astype("int64"),
            "share_correct": correct / seen,
            "item_rest_r": r,
            "difficulty_ml": np.where(np.isfinite(b), b, np.nan),
        },
        index=responses.columns,
    )
    for column in fit.columns:
        out[column] = fit[column].to_numpy()
    out["n_fit"] = out["n_fit"].astype("int64")
    if flips is not None:
        f = flips.reindex(responses.columns)
        out["n_models_repeated"] = f["n_models_repeated"].fillna(0).astype("int64").to_numpy()
        out["n_models_flipped"] = f["n_models_flipped"].fillna(0).astype("int64").to_numpy()
    else:
        out["n_models_repeated"] = 0
        out["n_models_flipped"] = 0
    with np.errstate(invalid="ignore", divide="ignore"):
        out["flip_share"] = np.where(
            out["n_models_repeated"] > 0, out["n_models_flipped"] / out["n_models_repeated"], np.nan
        )
    t = thresholds
    misfit_out = (out["outfit_mnsq"] > t.mnsq_above) & (out["outfit_zstd"] > t.zstd_above)
    misfit_in = (out["infit_mnsq"] > t.mnsq_above) & (out["infit_zstd"] > t.zstd_above)
    out["negative_discrimination"] = out["item_rest_r"] < t.discrimination_below
    out["misfit"] = misfit_out | misfit_in
    out["flips_across_epochs"] = out["flip_share"] > t.flip_share_above
    out["solved_by_none"] = out["n_correct"] == 0
    out["solved_by_all"] = out["n_correct"] == out["n_models"]
    flags = out[list(FLAGS)].astype(bool)
    out[list(FLAGS)] = flags
    out["n_flags"] = flags.sum(axis=1).astype("int64")
    out["flags"] = [
        ";".join(f for f, on in zip(FLAGS, row, strict=True) if on) for row in flags.to_numpy()
    ]
    return out


def statistics_note(analysis: pd.DataFrame, thresholds: ItemThresholds | None = None) -> str:
    """Why no item has a correlation or fit statistic, when none has ("" otherwise).

    An analysis of one item, one model, or models that each solved all or none
    of their items still has every item's share correct and its solved-by-none
    and solved-by-all flags; the item-rest correlation and the Rasch fit
    statistics need models that solved some but not all of their items (at
    least ``thresholds.min_models`` of them answering the item) and at least
    two items.

    Parameters
    ----------
    analysis : pandas.DataFrame
        :func:`item_analysis` of the items (or a table with its columns).
    thresholds : ItemThresholds, optional

    Returns
    -------
    str
        One sentence with the counts, or ``""`` when some item has a statistic.
    """
    thresholds = thresholds or ItemThresholds()
    if analysis["item_rest_r"].notna().any() or analysis["outfit_mnsq"].notna().any():
        return ""
    n_models = int(analysis["n_models"].max()) if len(analysis) else 0
    return (
        "No item has an item-rest correlation or fit statistics: they need at least "
        f"{max(thresholds.min_models, 2)} models that solved some but not all of their items "
        f"(item_analysis.min_models) and at least 2 items; here {len(analysis):,} item(s), "
        f"answered by at most {n_models:,} model(s). Shares correct and the solved-by-none "
        "and solved-by-all flags are given for every item."
    )


def suspect_items(analysis: pd.DataFrame) -> pd.DataFrame:
    """The flagged items of :func:`item_analysis`, most suspect first.

    Order: by the first flag in :data:`FLAGS` order (a likely wrong key before
    noise before instability before items no model or every model solves), then
    more flags first, then the strongest evidence (lowest item-rest correlation,
    then highest outfit ZSTD), then item order. ``rank`` numbers the rows.
    """
    flagged = analysis[analysis["n_flags"] > 0].copy()
    first = np.argmax(flagged[list(FLAGS)].to_numpy(dtype=bool), axis=1)
    order = pd.DataFrame(
        {
            "first": first,
            "n_flags": -flagged["n_flags"].to_numpy(),
            "r": flagged["item_rest_r"].fillna(np.inf).to_numpy(),
            "z": -flagged["outfit_zstd"].fillna(-np.inf).to_numpy(),
            "pos": np.arange(len(flagged)),
        }
    )
    idx = order.sort_values(["first", "n_flags", "r", "z", "pos"]).index.to_numpy()
    out = flagged.iloc[idx]
    out.insert(0, "rank", np.arange(1, len(out) + 1))
    return out
