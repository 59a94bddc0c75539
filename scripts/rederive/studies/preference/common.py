"""What the preference kind's jobs share: the games from the warehouse, the baseline,
the Elo scale, the strong-label weights, the small-n guard and the CSV writer."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from rederive.errors import InputError
from rederive.io import preference
from rederive.io.warehouse import query
from rederive.stats.preference.elo import EloScale

__all__ = [
    "AUTO",
    "FLOAT_FORMAT",
    "SMALL_N",
    "elo_scale",
    "games_per_model",
    "load_games",
    "resolve_baseline",
    "small_n_models",
    "strong_weights",
    "write_csv",
]

#: ``baseline: auto``: the model every game has on one side, when there is one.
AUTO = "auto"
#: ``elo.anchor: baseline``: the baseline fixed at ``anchor_rating``.
ANCHOR_BASELINE = "baseline"
#: Role of a model below ``min_n`` games (fitted, never ranked).
SMALL_N = "small_n"
#: Every float of the kind's CSVs: enough digits to check a leaderboard's
#: full-precision doubles to 1e-9, and the same text for the same double.
FLOAT_FORMAT = "%.12g"
TEXT = ("run", "format", "model_a", "model_b", "verdict", "label", "item_id", "judge", "first")


def load_games(db_path: str | Path) -> pd.DataFrame:
    """Every game of the warehouse in run order, then file order; text columns as
    pandas strings (a missing item or judge stays missing)."""
    games = query(db_path, "SELECT * FROM games ORDER BY rowid")
    for column in TEXT:
        games[column] = games[column].astype("string")
    games["category"] = games["category"].astype("string").fillna("")
    games["first"] = games["first"].fillna("")
    return games


def resolve_baseline(games: pd.DataFrame, setting: str | None) -> str | None:
    """The analysis's baseline (``baseline`` option).

    ``auto``: the model that is ``model_a`` of every game (AlpacaEval's
    ``generator_1``, Arena-Hard's baseline), else the one model that is a side of
    every game, else none. A name: that model, which must have games.

    Raises
    ------
    InputError
        A named baseline without a game.
    """
    if setting is None:
        return None
    a, b = games["model_a"].astype(str), games["model_b"].astype(str)
    if setting != AUTO:
        if not (a.eq(setting).any() or b.eq(setting).any()):
            raise InputError(
                f"baseline {setting!r} has no game (the models with most games: "
                f"{', '.join(games_per_model(games).head(5).index)}); set baseline to one "
                "of the models, auto or null",
                field="baseline",
            )
        return setting
    if a.nunique() == 1:
        return a.iloc[0]
    everywhere = [m for m, n in games_per_model(games).items() if n == len(games)]
    return everywhere[0] if len(everywhere) == 1 else None


def elo_scale(settings: dict, baseline: str | None) -> EloScale:
    """The :class:`EloScale` of the ``elo`` option (``anchor: baseline`` resolved)."""
    anchor = settings.get("anchor")
    if anchor == ANCHOR_BASELINE:
        anchor = baseline
    return EloScale(
        scale=float(settings["scale"]),
        base=float(settings["base"]),
        init_rating=float(settings["init_rating"]),
        anchor=anchor,
        anchor_rating=float(settings["anchor_rating"]),
    )


def strong_weights(games: pd.DataFrame, setting: dict):
    """Each game's strong-label weight from ``strong_weight`` (format -> weight; 1
    for a format not named): one number when every strong game has the same, else
    one per game.

    Raises
    ------
    ValueError
        A format name the registry does not know.
    """
    unknown = sorted(set(setting) - set(preference.names()))
    if unknown:
        raise ValueError(
            f"strong_weight names unknown input format(s) {unknown}; known: "
            f"{', '.join(preference.names())}"
        )
    weight = games["format"].astype(str).map(lambda f: float(setting.get(f, 1))).to_numpy()
    strong = pd.to_numeric(games["strength"]).to_numpy() == 2
    values = np.unique(weight[strong])
    if values.size <= 1:
        return float(values[0]) if values.size else 1.0
    return weight


def games_per_model(games: pd.DataFrame) -> pd.Series:
    """Games each model played (unweighted, either side), most first, ties by name."""
    counts = pd.concat([games["model_a"], games["model_b"]]).astype(str).value_counts()
    order = np.lexsort((counts.index.to_numpy(), -counts.to_numpy()))
    return counts.iloc[order]


def small_n_models(games: pd.DataFrame, min_n: int, baseline: str | None) -> dict[str, str]:
    """Models below ``min_n`` games (the baseline aside), each with the role ``small_n``."""
    counts = games_per_model(games)
    return {m: SMALL_N for m, n in counts.items() if n < min_n and m != baseline}


def write_csv(frame: pd.DataFrame, path: str | Path) -> None:
    """Deterministic CSV: no index, ``\\n`` line ends, :data:`FLOAT_FORMAT`."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(path, index=False, float_format=FLOAT_FORMAT, lineterminator="\n")
