"""Helpers shared by this study's analysis jobs: reading the warehouse, clustered
share tables, deterministic CSV output.

References
----------
Paper 003 (CoT load-bearing), Table 1 (shares with 95% CIs).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from rederive.io.warehouse import query
from rederive.stats.bootstrap import bootstrap_ratio, percentile_ci, rng_for
from rederive.stats.clustered import WILSON_METHOD, clustered_ratio, rate_wilson
from rederive.stats.rates import percent

LABELS = ("A", "B", "C")
PRODUCTION = "production"


def production_rows(db: str | Path, production: str = PRODUCTION) -> pd.DataFrame:
    """Every labelled continuation under the production judge, in a stable order."""
    return query(
        db,
        "SELECT * FROM continuations WHERE judge_variant = ? ORDER BY run, line",
        [production],
    )


def write_csv(frame: pd.DataFrame, path: str | Path) -> None:
    """CSV with fixed float formatting and ``\\n`` line ends (byte-stable)."""
    frame.to_csv(path, index=False, float_format="%.6g", lineterminator="\n")


def clustered_shares(
    frame: pd.DataFrame,
    by: list[str],
    *,
    labels=LABELS,
    label_col: str = "judge_label",
    cluster: str = "problem_id",
    n_boot: int,
    seed: int,
    key: str,
) -> pd.DataFrame:
    """Share of each label per group, with 95% CIs clustered by problem.

    One problem yields several continuations (three positions, several strategies),
    so treating rows as independent would overstate the precision. The interval is
    the clustered Wilson interval (:mod:`rederive.stats.clustered`: effective n
    from the problem-clustered SE, t with C − 1 df), because a Table 2 cell rests
    on as few as 26 problems, where the percentile cluster bootstrap under-covers
    (bench/coverage.py). The percentile bootstrap over problems, the paper's
    method, stays in ``boot_low``/``boot_high`` (one call per group, so each
    group's interval is its own).

    Returns
    -------
    DataFrame
        One row per group and label: ``n`` (labelled rows), ``count``, ``pct`` (one
        decimal, exact), ``ci_low``/``ci_high`` (clustered Wilson, percent),
        ``boot_low``/``boot_high`` (percentile bootstrap, percent), ``n_clusters``,
        method, seed.
    """
    out = []
    for keys, group in frame.groupby(by, sort=True, dropna=False):
        keys = keys if isinstance(keys, tuple) else (keys,)
        indicators = np.column_stack([(group[label_col] == lab).to_numpy(float) for lab in labels])
        rng = rng_for(seed, key, *map(str, keys))
        problems = group[cluster].astype(str).to_numpy()
        boot = bootstrap_ratio(
            indicators,
            np.ones_like(indicators),
            clusters=problems,
            n_boot=n_boot,
            rng=rng,
        )
        b_lo, b_hi = percentile_ci(boot.replicates)
        fit = clustered_ratio(indicators, np.ones_like(indicators), clusters=problems)
        lo, hi = rate_wilson(fit, np.ones_like(indicators))
        for j, lab in enumerate(labels):
            count = int(indicators[:, j].sum())
            out.append(
                {
                    **dict(zip(by, keys, strict=True)),
                    "label": lab,
                    "n": len(group),
                    "count": count,
                    "pct": percent(count, len(group)),
                    "ci_low": 100 * lo[j],
                    "ci_high": 100 * hi[j],
                    "boot_low": 100 * b_lo[j],
                    "boot_high": 100 * b_hi[j],
                    "n_clusters": boot.n_clusters,
                    "method": f"{WILSON_METHOD}, clustered by {cluster}, 95%; "
                    "boot_low/boot_high: percentile cluster bootstrap",
                    "n_boot": n_boot,
                    "seed": seed,
                }
            )
    return pd.DataFrame(out)


def round_ci(frame: pd.DataFrame) -> pd.DataFrame:
    """CI bounds at one decimal, as the paper prints them."""
    frame = frame.copy()
    for col in ("ci_low", "ci_high", "boot_low", "boot_high"):
        if col in frame:
            frame[col] = frame[col].round(1)
    return frame


def wide_shares(long: pd.DataFrame, index: list[str]) -> pd.DataFrame:
    """``A_pct, A_lo, A_hi, B_…, C_…`` columns per group (for the paper-style tables).

    ``<label>_lo/_hi`` are the clustered Wilson bounds, ``<label>_boot_lo/_boot_hi``
    the percentile bootstrap bounds (the paper's method).
    """
    pieces = []
    for lab in LABELS:
        columns = ["pct", "ci_low", "ci_high", "boot_low", "boot_high"]
        part = long[long["label"] == lab].set_index(index)[columns]
        part.columns = [f"{lab}_{c}" for c in ("pct", "lo", "hi", "boot_lo", "boot_hi")]
        pieces.append(part)
    wide = pd.concat(pieces, axis=1).reset_index()
    n = long[long["label"] == "A"].set_index(index)["n"].rename("n")
    return wide.merge(n.reset_index(), on=index)


def ci_text(pct, lo, hi) -> str:
    return f"{pct:.1f} [{lo:.1f}, {hi:.1f}]"
