"""The per-study power table and MDE-against-n curve (tidy CSVs) from comparisons
whose differences, intervals and BH decisions the study already computed.

Only the power columns are computed here (:func:`rederive.stats.power.comparison_power`);
every observed number is copied from the study's own table.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from rederive.stats.power import (
    MIN_UNITS,
    POWER_METHOD,
    T_TEST,
    Z_TEST,
    comparison_power,
    mde_curve,
    n_grid,
    no_sd_reason,
    power_df,
)

#: Columns after the study's own identifying columns, in order.
POWER_COLUMNS = [
    "unit",
    "n_units",
    "diff_pp",
    "ci_low_pp",
    "ci_high_pp",
    "ci_source",
    "significant",
    "sd_unit_pp",
    "sd_source",
    "power_method",
    "df",
    "mde_pp",
    "mde_bh_pp",
    "mde_bonferroni_pp",
    "n_needed",
    "n_needed_bh",
    "power_observed_bh",
    "relevant_pp",
    "underpowered",
    "verdict",
    "alpha",
    "alpha_bh",
    "fdr_q",
    "power",
]


def power_frame(
    ids: pd.DataFrame,
    *,
    unit: str,
    n_units,
    diff_pp,
    ci_low_pp,
    ci_high_pp,
    ci_source: str,
    significant,
    sd_pp,
    sd_source: str,
    alpha: float,
    power: float,
    fdr_q: float,
    relevant_pp: float,
    excluded=None,
    test=Z_TEST,
) -> pd.DataFrame:
    """One row per comparison: ``ids`` columns, then :data:`POWER_COLUMNS`.

    Parameters
    ----------
    ids : DataFrame
        The study's identifying columns (model pair, quantity, …), one row per
        comparison, in the order of the other arguments.
    unit : str
        What ``n_units`` counts ("item", "seed cluster", "question", "problem").
    ci_source, sd_source : str
        Where the interval and the per-unit sd come from (provenance columns).
    test : {"z", "t"} or array_like of them
        Form of each comparison's test: ``"t"`` for a paired or clustered t test
        (noncentral t power with ``n_units − 1`` df, ``df`` column), ``"z"`` for a
        z or exact McNemar test. ``power_method`` names it.
    Other parameters
        See :func:`rederive.stats.power.comparison_power`.
    """
    cols = comparison_power(
        diff_pp,
        sd_pp,
        n_units,
        significant,
        alpha=alpha,
        power=power,
        fdr_q=fdr_q,
        relevant_pp=relevant_pp,
        excluded=excluded,
        test=test,
    )
    kinds = np.broadcast_to(np.asarray(test, dtype=object), np.shape(np.asarray(diff_pp)))
    out = ids.reset_index(drop=True).copy()
    out["unit"] = unit
    out["n_units"] = np.asarray(n_units, dtype=int)
    out["diff_pp"] = np.asarray(diff_pp, dtype=float)
    out["ci_low_pp"] = np.asarray(ci_low_pp, dtype=float)
    out["ci_high_pp"] = np.asarray(ci_high_pp, dtype=float)
    out["ci_source"] = ci_source
    out["significant"] = np.asarray(significant, dtype=bool)
    out["sd_unit_pp"] = np.asarray(sd_pp, dtype=float)
    out["sd_source"] = sd_sources(sd_source, out["sd_unit_pp"], out["n_units"])
    out["power_method"] = [POWER_METHOD[k] for k in kinds]
    out["df"] = pd.array(power_df(out["n_units"], kinds), dtype="Int64")
    for key in (
        "mde_pp",
        "mde_bh_pp",
        "mde_bonferroni_pp",
        "n_needed",
        "n_needed_bh",
        "power_observed_bh",
    ):
        out[key] = cols[key]
    out["relevant_pp"] = relevant_pp
    out["underpowered"] = cols["underpowered"]
    out["verdict"] = cols["verdict"]
    out["alpha"] = alpha
    out["alpha_bh"] = cols["alpha_bh"]
    out["fdr_q"] = fdr_q
    out["power"] = power
    return out


def sd_sources(sd_source: str, sd_pp: pd.Series, n_units: pd.Series) -> pd.Series | str:
    """``sd_source`` per row: where the sd comes from, or why there is none.

    A comparison over fewer than two units has no variance (NaN sd, verdict "not
    assessable"); its row names the unit count instead of a source it does not
    have. Tables without such a row keep the one source text.
    """
    few = sd_pp.isna() & (n_units < MIN_UNITS)
    if not few.any():
        return sd_source
    return pd.Series(
        [no_sd_reason(n) if f else sd_source for f, n in zip(few, n_units, strict=True)],
        index=sd_pp.index,
    )


#: Columns of the MDE-against-n curve CSV.
CURVE_COLUMNS = [
    "n",
    "study_n",
    "sd_median_pp",
    "mde_pp",
    "mde_bh_pp",
    "mde_bh_low_pp",
    "mde_bh_high_pp",
    "unit",
    "relevant_pp",
    "alpha",
    "alpha_bh",
    "power",
    "power_method",
]


def row_test(row) -> str:
    """The form of one power-table row's test: t when it has degrees of freedom.

    A row without a ``df`` column (a table written before it existed) is z, the
    only form then.
    """
    df = row.get("df") if hasattr(row, "get") else None
    return T_TEST if df is not None and pd.notna(df) else Z_TEST


def table_test(table: pd.DataFrame) -> str:
    """The form of a power table's tests: t when any comparison is a t test.

    A table mixing both (benchmark: exact McNemar for complete 0/1 pairs, paired t
    for the others) draws its one curve with the t form, the larger MDE.
    """
    if "df" not in table or table.empty:
        return Z_TEST
    return T_TEST if table["df"].notna().any() else Z_TEST


def curve_frame(table: pd.DataFrame) -> pd.DataFrame:
    """MDE against n (median, min and max per-unit sd of the table's comparisons).

    ``study_n`` (the median ``n_units``) is repeated on every row so the figure
    can mark it without reading another file.
    """
    if table.empty:
        return pd.DataFrame(columns=CURVE_COLUMNS)
    first = table.iloc[0]
    study_n = float(np.median(table["n_units"]))
    test = table_test(table)
    curve = mde_curve(
        table["sd_unit_pp"],
        n_grid(study_n),
        alpha=float(first["alpha"]),
        alpha_bh=float(first["alpha_bh"]),
        power=float(first["power"]),
        test=test,
    )
    out = pd.DataFrame(curve)
    out["n"] = out["n"].astype(int)
    out.insert(1, "study_n", int(round(study_n)))
    out["unit"] = first["unit"]
    out["relevant_pp"] = first["relevant_pp"]
    out["alpha"] = first["alpha"]
    out["alpha_bh"] = first["alpha_bh"]
    out["power"] = first["power"]
    out["power_method"] = POWER_METHOD[test]
    return out[CURVE_COLUMNS]


def write_power(table: pd.DataFrame, power_csv, curve_csv) -> None:
    """Both CSVs, deterministic (fixed float format, ``\\n`` line ends)."""
    for frame, path in ((table, power_csv), (curve_frame(table), curve_csv)):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        frame.to_csv(path, index=False, float_format="%.6g", lineterminator="\n")


def power_settings(power_config: dict, *, fdr_q: float) -> dict:
    """The keyword arguments every study's ``power_table`` takes, from its ``power`` config."""
    return {
        "alpha": power_config["alpha"],
        "power": power_config["target"],
        "fdr_q": fdr_q,
        "relevant_pp": power_config["relevant_pp"],
    }


def design_of(row) -> dict:
    """One power-table row's per-unit sd, n, unit and test, as :func:`headline_check` takes them."""
    return {
        "sd_pp": row["sd_unit_pp"],
        "n_units": row["n_units"],
        "unit": row["unit"],
        "test": row_test(row),
    }


def headline_check(
    study: str,
    item: str,
    reported_pp: float,
    *,
    sd_pp: float,
    n_units: int,
    unit: str,
    alpha: float,
    power: float,
    note: str = "",
    test: str = Z_TEST,
):
    """Reviewer-mode row: could the paper's sample detect the difference it reports?

    A :class:`rederive.check.Check` of kind ``power`` with ``published`` = the
    reported |difference| and ``ours`` = the MDE at ``n_units`` (``power``, two-sided
    ``alpha``), relation ``<=``: it passes when the reported difference is at least
    the MDE. The note gives the power at the reported difference and the units a
    design would need. ``sd_pp`` is the per-unit sd of the paired difference from
    the data this workflow holds (simulated for the paper studies: the design's sd
    as calibrated, not the authors' own). ``test`` is the form of the comparison's
    test (the t form with ``n_units − 1`` df for a paired or clustered t test).
    """
    from rederive.check import Check
    from rederive.stats.power import mde, n_needed, power_two_sided

    m = float(mde(sd_pp, n_units, alpha, power, test=test))
    if not math.isfinite(float(sd_pp)):
        # One unit (or none): no variance, so no MDE; the row is n/a and says why.
        text = f"not assessable: sd {no_sd_reason(n_units)} ({unit}s)"
    else:
        at = float(power_two_sided(reported_pp, sd_pp, n_units, alpha, test=test))
        need = float(n_needed(reported_pp, sd_pp, alpha, power, test=test))
        need_text = "never (zero difference)" if math.isinf(need) else f"{int(need):,} {unit}s"
        text = (
            f"power {at:.0%} at the reported difference with {int(n_units):,} {unit}s "
            f"(sd {sd_pp:.1f} pp per {unit}; {POWER_METHOD[test]}); "
            f"{power:.0%} power needs {need_text}"
        )
    return Check(
        study,
        "power",
        "power",
        item,
        f"MDE at {power:.0%} power, alpha {alpha:g} (pp) <= reported |difference|",
        abs(float(reported_pp)),
        m,
        0.0,
        f"{text}. {note}".strip(),
        relation="<=",
    )
