"""Panel-level analyses: resistance composition, lineage trend, ablations, `maybe`, categories.

References
----------
Tag questions and the generational reversal of sycophancy across 45 language
models (arXiv 2607.23976): §3 (composition of resistance, category split in the
Fig. 2 caption), §4 (generational reversal, −5.9 pp/year, out-of-sample
releases), §5 (synonym and stance ablations), §6 (`maybe?` and rubber-stamping).
"""

import numpy as np
import pandas as pd
import statsmodels.formula.api as smf
from scipy import stats

from rederive.io.names import read_csv
from rederive.stats.rates import percent
from rederive.stats.small_n import SMALL_N
from rederive.studies.tag_sycophancy import OPTIONS
from rederive.studies.tag_sycophancy.effects import item_differences

RESISTING = "resisting"


def composition(cells: pd.DataFrame, table: pd.DataFrame, arms=("ask", "tag")) -> pd.DataFrame:
    """Endorse / reject / evade shares (percent of valid replies) per model and arm."""
    sums = (
        cells[cells["arm"].isin(arms)]
        .groupby(["model", "arm"])[["n_endorse", "n_reject", "n_evade", "n_valid"]]
        .sum()
        .reset_index()
    )
    for label in ("endorse", "reject", "evade"):
        sums[f"{label}_share"] = [
            percent(k, n) for k, n in zip(sums[f"n_{label}"], sums["n_valid"], strict=True)
        ]
    sums = sums.merge(table[["model", "class"]], on="model", how="left")
    return sums.sort_values(["model", "arm"], kind="stable").reset_index(drop=True)


def resister_composition(comp: pd.DataFrame) -> dict[str, float]:
    """Mean shares over significant resisters, and how many reject more under tag."""
    res = comp[comp["class"] == RESISTING]
    wide = res.pivot(index="model", columns="arm", values=["reject_share", "evade_share"])
    if wide.empty:
        return {k: np.nan for k in ("reject_ask", "reject_tag", "evade_ask", "evade_tag")} | {
            "more_reject": 0
        }
    return {
        "reject_ask": wide[("reject_share", "ask")].mean(),
        "reject_tag": wide[("reject_share", "tag")].mean(),
        "evade_ask": wide[("evade_share", "ask")].mean(),
        "evade_tag": wide[("evade_share", "tag")].mean(),
        "more_reject": int((wide[("reject_share", "tag")] > wide[("reject_share", "ask")]).sum()),
    }


def decimal_year(dates) -> pd.Series:
    d = pd.to_datetime(pd.Series(dates), format="%Y-%m-%d", errors="coerce")
    return d.dt.year + (d.dt.dayofyear - 1) / 365.25


def trend_frame(
    table: pd.DataFrame, meta: pd.DataFrame, *, min_models: int, exclude_floor: bool
) -> pd.DataFrame:
    """Per-model rows of the lineage trend with whether each enters the fit."""
    frame = table[["model", "effect", "floor_limited", "class"]].merge(
        meta[["model", "lineage", "release_date", "out_of_sample"]], on="model", how="left"
    )
    frame["out_of_sample"] = frame["out_of_sample"].eq(True)
    frame["year"] = decimal_year(frame["release_date"]).to_numpy()
    usable = (
        frame["lineage"].notna()
        & frame["year"].notna()
        & frame["effect"].notna()
        & ~frame["out_of_sample"]
    )
    if exclude_floor:
        usable &= ~frame["floor_limited"].astype(bool)
    counts = frame[usable].groupby("lineage")["model"].transform("count")
    frame["in_fit"] = False
    frame.loc[counts.index, "in_fit"] = counts >= min_models
    return frame.sort_values(
        ["lineage", "year", "model"], kind="stable", na_position="last"
    ).reset_index(drop=True)


def fit_trend(frame: pd.DataFrame) -> dict:
    """OLS of effect on decimal year with lineage fixed effects (pp per year, 95% CI).

    Returns NaN numbers when fewer than two lineages-worth of within-lineage
    variation exist. ``predict`` gives the fitted line for any (lineage, year).
    """
    fit_rows = frame[frame["in_fit"]]
    out = {
        "slope": np.nan,
        "ci_low": np.nan,
        "ci_high": np.nan,
        "n_models": len(fit_rows),
        "n_lineages": fit_rows["lineage"].nunique(),
        "model": None,
    }
    if len(fit_rows) < fit_rows["lineage"].nunique() + 2:
        return out
    model = smf.ols("effect ~ year + C(lineage)", data=fit_rows).fit()
    lo, hi = model.conf_int(alpha=0.05).loc["year"]
    out.update(slope=float(model.params["year"]), ci_low=float(lo), ci_high=float(hi), model=model)
    return out


def with_predictions(frame: pd.DataFrame, fit: dict) -> pd.DataFrame:
    """Add the fitted / out-of-sample predicted effect for lineages in the fit."""
    out = frame.copy()
    out["predicted"] = np.nan
    if fit["model"] is None:
        return out
    known = set(frame.loc[frame["in_fit"], "lineage"])
    mask = out["lineage"].isin(known) & out["year"].notna()
    out.loc[mask, "predicted"] = fit["model"].predict(out.loc[mask, ["lineage", "year"]]).to_numpy()
    return out


LINEAGE_COLUMNS = [
    "lineage",
    "n_models",
    "first_model",
    "first_effect",
    "last_model",
    "last_effect",
    "all_positive",
    "first_positive_last_negative",
]


def lineage_endpoints(frame: pd.DataFrame) -> pd.DataFrame:
    """First → last effect per lineage over its readable in-sample models.

    Readable = not floor-limited (paper §4: floor effects are floors, not
    findings); out-of-sample releases are kept apart (they test the trend).
    """
    readable = frame[
        ~frame["floor_limited"].astype(bool)
        & ~frame["out_of_sample"]
        & frame["year"].notna()
        & frame["lineage"].notna()
        & frame["effect"].notna()
    ]
    rows = []
    for lineage, g in readable.groupby("lineage", sort=True):
        g = g.sort_values(["year", "model"], kind="stable")
        rows.append(
            {
                "lineage": lineage,
                "n_models": len(g),
                "first_model": g["model"].iloc[0],
                "first_effect": g["effect"].iloc[0],
                "last_model": g["model"].iloc[-1],
                "last_effect": g["effect"].iloc[-1],
                "all_positive": bool((g["effect"] > 0).all()),
                "first_positive_last_negative": bool(
                    g["effect"].iloc[0] > 0 and g["effect"].iloc[-1] < 0
                ),
            }
        )
    # Header-only when no lineage has a readable model (e.g. all floor-limited).
    return pd.DataFrame(rows, columns=LINEAGE_COLUMNS)


def correlation(x, y) -> dict:
    """Pearson r with its Fisher-z 95% CI (scipy)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    ok = ~np.isnan(x) & ~np.isnan(y)
    if ok.sum() < 4:
        return {
            "r": np.nan,
            "ci_low": np.nan,
            "ci_high": np.nan,
            "p_value": np.nan,
            "n_models": int(ok.sum()),
        }
    res = stats.pearsonr(x[ok], y[ok])
    ci = res.confidence_interval(0.95)
    return {
        "r": float(res.statistic),
        "ci_low": float(ci.low),
        "ci_high": float(ci.high),
        "p_value": float(res.pvalue),
        "n_models": int(ok.sum()),
    }


def rubber_stamp_scores(cells: pd.DataFrame, models, arm: str = "tag_maybe") -> pd.Series:
    """Mean over items of min(endorse rate option x, option y) under ``arm``.

    A model with a stable preference can endorse at most one option more than
    half the time, so its score is ≤ 0.5; a score near 1 means it endorses
    whatever is asserted (paper §6).
    """
    sub = cells[cells["arm"] == arm].assign(
        rate=lambda d: d["n_endorse"] / d["n_valid"].where(d["n_valid"] > 0)
    )
    wide = sub.pivot_table(
        index=["model", "item_id"], columns="option", values="rate", aggfunc="first"
    ).reindex(columns=OPTIONS)
    score = wide.min(axis=1, skipna=False).groupby(level="model").mean()
    return score.reindex(list(models))


def maybe_table(
    cells: pd.DataFrame, effects: pd.DataFrame, table: pd.DataFrame, threshold: float
) -> pd.DataFrame:
    models = table["model"].tolist()
    pooled = cells.groupby(["model", "arm"])[["n_endorse", "n_valid"]].sum()
    maybe = effects[effects["arm"] == "tag_maybe"].set_index("model")
    score = rubber_stamp_scores(cells, models)
    rows = []
    for model in models:
        ask = (
            pooled.loc[(model, "ask")]
            if (model, "ask") in pooled.index
            else pd.Series({"n_endorse": 0, "n_valid": 0})
        )
        mb = (
            pooled.loc[(model, "tag_maybe")]
            if (model, "tag_maybe") in pooled.index
            else pd.Series({"n_endorse": 0, "n_valid": 0})
        )
        rows.append(
            {
                "model": model,
                "maybe_effect": maybe["effect"].get(model, np.nan),
                "maybe_ci_low": maybe["ci_low"].get(model, np.nan),
                "maybe_ci_high": maybe["ci_high"].get(model, np.nan),
                "ask_rate": percent(ask["n_endorse"], ask["n_valid"]),
                "maybe_endorse": int(mb["n_endorse"]),
                "maybe_valid": int(mb["n_valid"]),
                "maybe_rate": percent(mb["n_endorse"], mb["n_valid"]),
                "rubber_stamp_score": round(float(score.get(model, np.nan)), 4),
                "rubber_stamper": bool(score.get(model, np.nan) >= threshold),
            }
        )
    return (
        pd.DataFrame(rows)
        .sort_values(["maybe_effect", "model"], ascending=[False, True], kind="stable")
        .reset_index(drop=True)
    )


def category_split(cells: pd.DataFrame, items: pd.DataFrame, models) -> pd.DataFrame:
    """Per-model tag effect (pp) on consequential vs taste items."""
    ids = items["item_id"].tolist()
    diffs = item_differences(cells, ids, models, "tag")
    rows = []
    for category in ("consequential", "taste"):
        mask = (items["category"] == category).to_numpy()
        with np.errstate(invalid="ignore"):
            means = (
                np.nanmean(np.where(mask[:, None], diffs, np.nan), axis=0)
                if mask.any()
                else np.full(len(models), np.nan)
            )
        for model, value in zip(models, means, strict=True):
            rows.append(
                {
                    "model": model,
                    "category": category,
                    "effect": 100 * value,
                    "n_items": int((~np.isnan(diffs[mask, models.index(model)])).sum()),
                }
            )
    return pd.DataFrame(rows)


def summary_rows(
    table, comp, trend_all, trend_readable, ablation, maybe, category, n_floor_significant
) -> pd.DataFrame:
    """Every panel-level number the paper states, recomputed (``panel_summary.csv``)."""
    res = resister_composition(comp)
    resisters = table[table["class"] == RESISTING]["model"]
    stance = (
        ablation["per_model"].set_index("model")["stance"]
        if "stance" in ablation["per_model"]
        else pd.Series(dtype=float)
    )
    st = stance.reindex(resisters)
    eff = table["effect"]
    cat = category.groupby("category")["effect"].mean()
    gem = table["model"].str.contains("Gemini", case=False) & table["model"].str.contains(
        "Flash", case=False
    )
    values = {
        "n_models": (len(table), "models with at least one valid reply"),
        "n_sycophantic": (
            int((table["class"] == "sycophantic").sum()),
            "BH survivors, effect > 0, not floor-limited",
        ),
        "n_resisting": (
            int((table["class"] == RESISTING).sum()),
            "BH survivors, effect < 0, not floor-limited",
        ),
        "n_floor_limited": (
            int(table["floor_limited"].sum()),
            "ask-arm endorsement below the floor threshold",
        ),
        "n_floor_gemini_flash": (
            int((table["floor_limited"] & gem).sum()),
            "floor-limited models named Gemini ... Flash",
        ),
        "n_floor_significant": (n_floor_significant, "floor-limited models that pass BH"),
        "effect_max": (eff.max(), "pp"),
        "effect_min": (eff.min(), "pp"),
        "effect_span": (eff.max() - eff.min(), "pp"),
        "ask_baseline_max": (table["ask_rate"].max(), "percent"),
        "ask_baseline_min": (table["ask_rate"].min(), "percent"),
        "resister_reject_share_ask": (res["reject_ask"], "mean over resisters, percent"),
        "resister_reject_share_tag": (res["reject_tag"], "mean over resisters, percent"),
        "resister_evade_share_ask": (res["evade_ask"], "mean over resisters, percent"),
        "resister_evade_share_tag": (res["evade_tag"], "mean over resisters, percent"),
        "resisters_more_reject": (
            res["more_reject"],
            "resisters whose reject share rises under tag",
        ),
        "trend_pp_per_year": (
            trend_all["slope"],
            f"lineage fixed effects, {trend_all['n_models']} models / {trend_all['n_lineages']} lineages",
        ),
        "trend_ci_low": (trend_all["ci_low"], "95% OLS"),
        "trend_ci_high": (trend_all["ci_high"], "95% OLS"),
        "trend_readable_pp_per_year": (
            trend_readable["slope"],
            f"without floor-limited models, {trend_readable['n_models']} models",
        ),
        "trend_readable_ci_low": (trend_readable["ci_low"], "95% OLS"),
        "trend_readable_ci_high": (trend_readable["ci_high"], "95% OLS"),
        "r_synonym_tag": (
            ablation["synonym"]["r"],
            f"Pearson over {ablation['synonym']['n_models']} models",
        ),
        "r_stance_tag": (
            ablation["stance"]["r"],
            f"Pearson over {ablation['stance']['n_models']} models",
        ),
        "resisters_stance_nonnegative": (int((st >= 0).sum()), "resisters with stance effect >= 0"),
        "resister_stance_min": (st.min(), "pp"),
        "resister_stance_max": (st.max(), "pp"),
        "maybe_positive": (int((maybe["maybe_effect"] > 0).sum()), "models with maybe effect > 0"),
        "maybe_mean_effect": (maybe["maybe_effect"].mean(), "pp, mean over models"),
        "field_ask_mean": (maybe["ask_rate"].mean(), "percent, mean over models"),
        "field_maybe_mean": (maybe["maybe_rate"].mean(), "percent, mean over models"),
        "rubber_stampers": (
            int(maybe["rubber_stamper"].sum()),
            "models at or above the rubber-stamp threshold",
        ),
        "consequential_mean_effect": (cat.get("consequential", np.nan), "pp, mean over models"),
        "taste_mean_effect": (cat.get("taste", np.nan), "pp, mean over models"),
    }
    return pd.DataFrame(
        [{"quantity": k, "value": float(v), "note": n} for k, (v, n) in values.items()]
    )


def with_small_n(frame: pd.DataFrame, table: pd.DataFrame) -> pd.DataFrame:
    """``frame`` plus the per-model ``small_n`` flag of ``tag_effects.csv``.

    One definition for every per-model table (:mod:`rederive.stats.small_n`,
    fewer than ``min_n`` balanced items); rows that are not a model of the
    table (the field mean) are False.
    """
    if SMALL_N not in table:
        return frame
    flags = dict(zip(table["model"], table[SMALL_N].fillna(False).astype(bool), strict=True))
    return frame.assign(**{SMALL_N: [bool(flags.get(m, False)) for m in frame["model"]]})


def main(snakemake):
    from rederive.io.warehouse import query

    p = snakemake.params
    out = snakemake.output
    table = read_csv(snakemake.input.table)
    effects = read_csv(snakemake.input.effects)
    cells = read_csv(snakemake.input.cells, dtype={"item_id": str})
    meta = query(snakemake.input.db, "SELECT * FROM models ORDER BY model")
    items = query(snakemake.input.db, "SELECT item_id, category FROM items ORDER BY item_id")
    models = sorted(table["model"])
    csv = {"index": False, "float_format": "%.6g", "lineterminator": "\n"}

    comp = composition(cells, table)
    with_small_n(comp, table).to_csv(out.composition, **csv)

    frames = {}
    fits = {}
    for key, exclude in (("all", p.exclude_floor_limited), ("readable", True)):
        frames[key] = trend_frame(
            table, meta, min_models=p.min_models_per_lineage, exclude_floor=exclude
        )
        fits[key] = fit_trend(frames[key])
    with_small_n(with_predictions(frames["all"], fits["all"]), table).to_csv(out.trend, **csv)
    lineage_endpoints(frames["all"]).to_csv(out.lineages, **csv)

    wide = effects.pivot(index="model", columns="arm", values="effect").reindex(models)
    ablation = {"per_model": wide.reset_index()}
    rows = []
    for arm, key in (("tag_synonym", "synonym"), ("stance", "stance")):
        r = (
            correlation(wide.get("tag"), wide.get(arm))
            if arm in wide and "tag" in wide
            else correlation([], [])
        )
        ablation[key] = r
        rows.append(
            {
                "x": "tag",
                "y": arm,
                **r,
                "method": "Pearson r, Fisher-z 95% CI (scipy.stats.pearsonr)",
            }
        )
    pd.DataFrame(rows).to_csv(out.ablations, **csv)

    maybe = maybe_table(cells, effects, table, p.rubber_stamp_threshold)
    with_small_n(maybe, table).to_csv(out.maybe, **csv)

    category = category_split(cells, items, models)
    field = (
        category.groupby("category")["effect"]
        .mean()
        .rename("effect")
        .reset_index()
        .assign(model="(field mean)")
    )
    with_small_n(pd.concat([category, field], ignore_index=True), table).to_csv(out.category, **csv)

    n_floor_sig = int((table["floor_limited"] & table["bh_significant"]).sum())
    summary_rows(
        table, comp, fits["all"], fits["readable"], ablation, maybe, category, n_floor_sig
    ).to_csv(out.summary, **csv)


if __name__ == "__main__" and "snakemake" in globals():
    from rederive.runner import run

    run(main, snakemake)  # noqa: F821
