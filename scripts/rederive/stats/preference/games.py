"""The canonical games frame and the per-unit pair counts computed from it.

A *game* is one judged comparison of two sides, ``model_a`` and ``model_b``. The
readers of the ``preference`` kind produce one row per game with these columns:

================  ==========================================================
``model_a/b``     the two sides as the source names them (str)
``outcome``       preference for ``model_a`` in [0, 1]: 1 a wins, 0 b wins,
                  0.5 tie; graded preferences in between allowed
``verdict``       ``a``, ``b``, ``tie``, ``both_bad`` or ``graded``
``strength``      1, or 2 for a strong label (Arena-Hard ``A>>B``)
``label``         the source's own verdict text
``item_id``       the prompt (may be missing: each game is then its own unit)
``judge``         who judged (may be missing)
``game``          1, or 2 for Arena-Hard's second order
``first``         ``a``, ``b`` or '' : which side was shown first
``category``      the source's category
``len_a/len_b``   output lengths (NaN when unknown)
================  ==========================================================

Every statistic of the kind works from *pair counts*: for each resampling unit
(an item, or a game when items are unknown) and each unordered model pair
``(i, j)``, ``i < j`` in name order, the weighted number of games ``i`` won, lost
and tied, and (only when graded games exist) the summed graded preference for
``i`` and the weight of those graded games. A strong label counts
``strong_weight`` times (Arena-Hard's scoring counts ``A>>B`` three times;
Chatbot Arena and AlpacaEval have no strong labels). ``both_bad`` is a tie, as
in Chatbot Arena's ``tie (bothbad)``.

The counts are a sparse matrix with one row per unit, so that a bootstrap
replicate's totals are one product ``weights @ counts`` (see
:mod:`rederive.stats.preference.bootstrap`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import sparse

__all__ = [
    "REQUIRED",
    "TIES",
    "VERDICTS",
    "PairCounts",
    "as_independent_games",
    "check_games",
    "game_weights",
    "pair_counts",
]

REQUIRED = ("model_a", "model_b", "outcome", "verdict")
VERDICTS = ("a", "b", "tie", "both_bad", "graded")
#: Verdicts counted as a tie.
TIES = ("tie", "both_bad")

WINS, LOSSES, TIE_COUNTS, GRADED_SCORE, GRADED_N = range(5)


def check_games(games: pd.DataFrame) -> None:
    """Raise ``ValueError`` naming the first row that breaks the frame's contract.

    The readers validate their files and raise ``InputError`` with file and
    line; this is the library's own guard against a frame built by hand.
    """
    missing = [c for c in REQUIRED if c not in games.columns]
    if missing:
        raise ValueError(f"games frame lacks column(s) {', '.join(missing)}")
    outcome = pd.to_numeric(games["outcome"], errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(outcome) | (outcome < 0) | (outcome > 1)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ValueError(f"games row {row}: outcome {games['outcome'].iloc[row]} not in [0, 1]")
    verdict = games["verdict"].astype(str).to_numpy()
    unknown = ~np.isin(verdict, VERDICTS)
    if unknown.any():
        row = int(np.flatnonzero(unknown)[0])
        raise ValueError(f"games row {row}: verdict {verdict[row]!r} not one of {VERDICTS}")
    expected = {"a": 1.0, "b": 0.0, "tie": 0.5, "both_bad": 0.5}
    for name, value in expected.items():
        clash = (verdict == name) & (outcome != value)
        if clash.any():
            row = int(np.flatnonzero(clash)[0])
            raise ValueError(
                f"games row {row}: verdict {name!r} needs outcome {value}, got {outcome[row]}"
            )
    same = games["model_a"].astype(str).to_numpy() == games["model_b"].astype(str).to_numpy()
    if same.any():
        row = int(np.flatnonzero(same)[0])
        raise ValueError(
            f"games row {row}: a model cannot play itself ({games['model_a'].iloc[row]})"
        )
    if "strength" in games.columns:
        strength = pd.to_numeric(games["strength"], errors="coerce")
        if not strength.isin([1, 2]).all():
            row = int(np.flatnonzero(~strength.isin([1, 2]).to_numpy())[0])
            raise ValueError(f"games row {row}: strength must be 1 or 2")


def game_weights(games: pd.DataFrame, strong_weight=1) -> np.ndarray:
    """Weight of each game: ``strong_weight`` for a strong label, else 1.

    Arena-Hard's ``show_result.py`` repeats an ``A>>B`` battle ``--weight`` times
    (default 3); pass ``strong_weight=3`` to score as it does. ``strong_weight``
    may be one number or one per game (an analysis mixing sources that weigh
    their strong labels differently).
    """
    strong_weight = np.broadcast_to(np.asarray(strong_weight, dtype=float), (len(games),))
    if (strong_weight <= 0).any():
        raise ValueError("strong_weight must be positive")
    if "strength" not in games.columns:
        return np.ones(len(games))
    strong = pd.to_numeric(games["strength"], errors="coerce").to_numpy() == 2
    return np.where(strong, strong_weight, 1.0)


def as_independent_games(games: pd.DataFrame, strong_weight=1) -> pd.DataFrame:
    """The games as the arena notebooks and Arena-Hard's ``show_result.py`` resample them:
    each game its own unit (no ``item_id``), a strong label repeated ``strong_weight``
    times as games of strength 1.

    Parameters
    ----------
    games : DataFrame
        The canonical games frame.
    strong_weight : int or array of int
        One count, or one per game; a weight that is not a whole number cannot be
        repeated (``ValueError``).

    Returns
    -------
    DataFrame
        The games, strong ones repeated (each copy after its original), with
        ``item_id`` missing and ``strength`` 1: the same pair counts as the games
        weighted, each copy drawn on its own by a bootstrap.
    """
    weight = game_weights(games, strong_weight)
    if not np.array_equal(weight, np.round(weight)):
        raise ValueError(
            "resampling games repeats a strong label strong_weight times: it must be a "
            f"whole number, got {sorted(set(weight[weight != np.round(weight)]))[:3]}"
        )
    out = games.loc[games.index.repeat(weight.astype(int))].reset_index(drop=True)
    out["item_id"] = pd.array([pd.NA] * len(out), dtype="string")
    if "strength" in out.columns:
        out["strength"] = 1
    return out


@dataclass(frozen=True)
class PairCounts:
    """Weighted win/loss/tie counts per resampling unit and model pair.

    Attributes
    ----------
    models : list of str
        Model names, sorted; positions are the model indices.
    ia, ib : ndarray of intp, shape (P,)
        The model pairs observed, ``ia < ib``, sorted.
    counts : scipy.sparse.csr_matrix, shape (U, K * P)
        Per unit: wins of ``ia`` over ``ib`` (columns ``0 … P−1``), losses
        (``P … 2P−1``), ties (``2P … 3P−1``) and, when ``graded``, the summed
        graded preference for ``ia`` and the weight of graded games.
    units : ndarray
        Label of each row: the item id, or for games without an item the
        game's row position as ``"game:<row>"``.
    multiplicity : ndarray of int, shape (U,)
        How many identical units a row stands for (1 for items; the number of
        identical games when games are the units, see :func:`pair_counts`).
    graded : bool
        Whether graded (non 0/½/1) preferences are present.
    n_games : int
    unit_kind : str
        ``"item"``, ``"game"`` or ``"item+game"`` (some games without item).
    """

    models: list
    ia: np.ndarray
    ib: np.ndarray
    counts: sparse.csr_matrix
    units: np.ndarray
    multiplicity: np.ndarray
    graded: bool
    n_games: int
    unit_kind: str

    @property
    def n_pairs(self) -> int:
        return int(self.ia.size)

    @property
    def n_units(self) -> int:
        return int(self.multiplicity.sum())

    def totals(self, weights=None) -> np.ndarray:
        """Summed counts, shape (K, P), or (B, K, P) for a (B, U) weight matrix.

        ``weights`` row ``b`` holds how often each row of :attr:`counts` is drawn;
        None sums every unit once (each row ``multiplicity`` times).
        """
        k = self.counts.shape[1] // max(self.n_pairs, 1)
        if weights is None:
            flat = np.asarray(self.counts.T @ self.multiplicity.astype(float)).ravel()
            return flat.reshape(k, self.n_pairs)
        weights = np.asarray(weights, dtype=float)
        flat = np.asarray((self.counts.T @ weights.T).T)
        return flat.reshape(weights.shape[0], k, self.n_pairs)


def _unit_codes(games: pd.DataFrame):
    """Unit label per game: its item id, or a unique label when the item is missing."""
    n = len(games)
    if "item_id" not in games.columns:
        return np.char.add("game:", np.arange(n).astype(str)).astype(object), "game"
    item = games["item_id"]
    missing = item.isna().to_numpy() | (item.astype(str).to_numpy() == "")
    labels = item.astype(str).to_numpy().astype(object)
    if missing.any():
        labels[missing] = np.char.add("game:", np.flatnonzero(missing).astype(str))
    kind = "game" if missing.all() else ("item+game" if missing.any() else "item")
    return labels, kind


def pair_counts(games: pd.DataFrame, *, models=None, strong_weight=1, exclude=()) -> PairCounts:
    """Per-unit pair counts of a games frame.

    Parameters
    ----------
    games : DataFrame
        The canonical games frame (:func:`check_games`).
    models : sequence of str, optional
        The models to index (sorted); default every model in ``games``. Games
        with a model outside the list are an error, not a silent drop.
    strong_weight : float or array
        Weight of a strong label, or one per game (:func:`game_weights`).
    exclude : sequence of str
        Models whose games are left out (e.g. a judge's own games); the caller
        counts them in its accounting.

    Returns
    -------
    PairCounts

    Notes
    -----
    With items, the unit is the item: a bootstrap draws items with all their
    games. Without (``item_id`` absent or empty), each game is its own unit;
    identical games (same pair, verdict, graded value and weight) are then
    collapsed into one row with a multiplicity, which a multinomial draw over
    rows resamples exactly as drawing games would.
    """
    check_games(games)
    strong_weight = np.broadcast_to(np.asarray(strong_weight, dtype=float), (len(games),))
    if len(exclude):
        keep = (~(games["model_a"].isin(exclude) | games["model_b"].isin(exclude))).to_numpy()
        games, strong_weight = games[keep], strong_weight[keep]
    a = games["model_a"].astype(str).to_numpy()
    b = games["model_b"].astype(str).to_numpy()
    names = sorted(set(a) | set(b)) if models is None else sorted(str(m) for m in models)
    position = {m: k for k, m in enumerate(names)}
    unknown = [m for m in set(a) | set(b) if m not in position]
    if unknown:
        raise ValueError(f"games name model(s) not in the model list: {sorted(unknown)[:5]}")
    ka = np.array([position[m] for m in a], dtype=np.intp)
    kb = np.array([position[m] for m in b], dtype=np.intp)
    lo, hi = np.minimum(ka, kb), np.maximum(ka, kb)
    flipped = ka > kb
    n = len(names)
    pair_key = lo * n + hi
    keys, pair = np.unique(pair_key, return_inverse=True)
    ia, ib = np.divmod(keys, n)
    p = keys.size

    outcome = games["outcome"].to_numpy(dtype=float)
    verdict = games["verdict"].astype(str).to_numpy()
    weight = game_weights(games, strong_weight)
    # Preference for the lower-indexed model of the pair.
    pref = np.where(flipped, 1.0 - outcome, outcome)
    is_tie = np.isin(verdict, TIES)
    is_graded = (verdict == "graded") & (outcome != 0) & (outcome != 1)
    graded = bool(is_graded.any())
    kind = np.where(is_tie, TIE_COUNTS, np.where(is_graded, GRADED_SCORE, 0))
    kind = np.where(~is_tie & ~is_graded, np.where(pref == 1.0, WINS, LOSSES), kind)

    labels, unit_kind = _unit_codes(games)
    if unit_kind == "game":
        # Collapse identical games: one row per distinct (pair, kind, value, weight).
        signature = pd.DataFrame({"pair": pair, "kind": kind, "pref": pref, "w": weight})
        groups = signature.groupby(["pair", "kind", "pref", "w"], sort=True)
        distinct = groups.size().reset_index(name="m")
        row_of_game = groups.ngroup().to_numpy()
        unit_rows = np.arange(len(distinct))
        mult = distinct["m"].to_numpy(dtype=np.int64)
        d_pair = distinct["pair"].to_numpy(dtype=np.intp)
        d_kind = distinct["kind"].to_numpy(dtype=np.intp)
        d_pref = distinct["pref"].to_numpy(dtype=float)
        d_w = distinct["w"].to_numpy(dtype=float)
        first_game = np.zeros(len(distinct), dtype=np.int64)
        first_game[row_of_game[::-1]] = np.arange(len(games))[::-1]
        units = np.char.add("game:", first_game.astype(str)).astype(object)
        rows, cols, vals = _entries(unit_rows, d_pair, d_kind, d_pref, d_w, p)
        n_rows = len(distinct)
    else:
        # factorize, not np.unique of a str array: a fixed-width unicode copy of
        # AlpacaEval's instruction texts (item ids of thousands of characters) took
        # 1 GB for 46,000 games; the codes and the sorted labels are the same.
        unit_row, units = pd.factorize(labels, sort=True)
        units = np.asarray(units, dtype=object)
        mult = np.ones(units.size, dtype=np.int64)
        rows, cols, vals = _entries(unit_row, pair, kind, pref, weight, p)
        n_rows = units.size
    k = 5 if graded else 3
    counts = sparse.csr_matrix((vals, (rows, cols)), shape=(n_rows, k * p))
    counts.sum_duplicates()
    return PairCounts(
        models=names,
        ia=ia.astype(np.intp),
        ib=ib.astype(np.intp),
        counts=counts,
        units=units,
        multiplicity=mult,
        graded=graded,
        n_games=len(games),
        unit_kind=unit_kind,
    )


def _entries(unit_row, pair, kind, pref, weight, p):
    """Sparse (row, column, value) triplets of the count matrix."""
    graded = kind == GRADED_SCORE
    rows = np.concatenate([unit_row, unit_row[graded]])
    cols = np.concatenate([kind * p + pair, GRADED_N * p + pair[graded]])
    vals = np.concatenate([np.where(graded, weight * pref, weight), weight[graded]])
    return rows, cols, vals
