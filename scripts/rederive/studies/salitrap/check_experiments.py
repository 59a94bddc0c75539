"""Reviewer mode for SaliTrap Tables 5–7: recomputed cells against the paper, and
the identities that tie those tables to Tables 1–3 and to themselves.

Every identity is computed from the published CSVs; when one fails, the note
says which *other* published row would satisfy it (found by search, not
hard-coded), because a table that carries a neighbour's numbers is the most
common transcription slip.

References
----------
SaliTrap (seed paper 000), Tables 1–3 and Appendix Tables 5–7; the published
values are the project's copy in ``raw/salitrap/published/``.
"""

from pathlib import Path

import pandas as pd

from rederive.check import Check, printed_decimals
from rederive.io.source import read_csv_frame
from rederive.printed import DECIMALS, read_printed, read_published
from rederive.stats.rates import percent, rounding_compatible
from rederive.stats.similarity import jaccard_from_co_failure

STUDY = "salitrap"
HALF_UNIT = 0.05  # half of the last printed digit of a one-decimal percentage
HALF_MILLI = 0.0005  # the same for Table 5's three-decimal proportions


def cell(table: str, item: str, quantity: str, published, ours, tolerance, note="", **kw) -> Check:
    """A recomputed value against the printed one (``printed_decimals=`` its precision)."""
    return Check(STUDY, table, "cell", item, quantity, published, ours, tolerance, note, **kw)


def identity(
    table: str, item: str, quantity: str, published, ours, tolerance, note="", **kw
) -> Check:
    """A printed value against what other printed numbers imply."""
    return Check(STUDY, table, "identity", item, quantity, published, ours, tolerance, note, **kw)


def _pair_key(a: str, b: str) -> tuple[str, str]:
    return tuple(sorted((a, b)))


def _published(published_dir: Path) -> dict[str, pd.DataFrame]:
    """The published tables; those with cell checks read as printed
    (:func:`rederive.printed.read_published`: ``<column>__decimals`` beside each number)."""
    d = Path(published_dir)
    tables = {
        "t1": read_csv_frame(d / "salitrap_table1_tar_hfr.csv"),
        "t2": read_csv_frame(d / "salitrap_table2_scr_si.csv"),
        "t3": read_csv_frame(d / "salitrap_table3_dataset.csv"),
        "t5": read_published(d / "salitrap_table5_pairs.csv", ["co_failure_rate", "jaccard"]),
        "t6": read_published(
            d / "salitrap_table6_liberation.csv",
            ["n_sc_main", "n_requeried", "cond_A", "cond_B", "cond_C"],
        ),
        "t7": read_published(
            d / "salitrap_table7_interventions.csv",
            ["TAR", "HFR"],
            text=["TAR_delta_vs_control_as_printed"],
        ),
    }
    all_fail = d / "salitrap_table5_all_fail.csv"
    tables["t5_all"] = (
        read_published(all_fail, ["items_failed_by_all", "share_percent"])
        if all_fail.exists()
        else None
    )
    return tables


def _decimals(row, column: str) -> int | None:
    """The printed decimals :func:`rederive.printed.read_published` put beside ``column``."""
    return printed_decimals(_field(row, column + DECIMALS))


def _field(row, name: str):
    return row[name] if isinstance(row, pd.Series) else getattr(row, name)


# ----------------------------------------------------------------- cell checks


def cell_checks_table5(pub: dict, pairs: pd.DataFrame, table5: pd.DataFrame, all_fail, tol):
    """Published pairs against our full pair table; membership in our top/bottom 5."""
    checks = []
    ours = {
        _pair_key(a, b): r
        for a, b, r in zip(pairs.model_a, pairs.model_b, pairs.itertuples(), strict=True)
    }
    groups = {
        g: {_pair_key(a, b) for a, b in zip(t.model_a, t.model_b, strict=True)}
        for g, t in table5.groupby("group")
    }
    for row in pub["t5"].itertuples():
        key = _pair_key(row.model_a, row.model_b)
        mine = ours.get(key)
        item = f"{row.model_a} / {row.model_b}"
        for quantity in ("co_failure_rate", "jaccard"):
            checks.append(
                cell(
                    "Table 5",
                    item,
                    quantity,
                    float(getattr(row, quantity)),
                    None if mine is None else float(getattr(mine, quantity)),
                    tol / 100.0,
                    printed_decimals=_decimals(row, quantity),
                )
            )
        checks.append(
            cell(
                "Table 5",
                item,
                f"pair is among our {row.group.replace('_', ' ')} pairs",
                1.0,
                1.0 if key in groups.get(row.group, set()) else 0.0,
                0,
            )
        )
    if pub["t5_all"] is not None:
        p = pub["t5_all"].iloc[0]
        o = all_fail.iloc[0]
        for column, quantity, tolerance in (
            ("items_failed_by_all", "items failed by every model", 0),
            ("share_percent", "share failed by every model (%)", tol),
        ):
            checks.append(
                cell(
                    "Table 5",
                    "all models",
                    quantity,
                    float(p[column]),
                    float(o[column]),
                    tolerance,
                    printed_decimals=_decimals(p, column),
                )
            )
    return checks


def cell_checks_table6(pub: dict, table6: pd.DataFrame, tol: float) -> list[Check]:
    checks = []
    names = {"cond_A": "A", "cond_B": "B", "cond_C": "C"}
    ours = table6.set_index(["model", "dimension", "condition"])
    for row in pub["t6"].itertuples():
        for column, condition in names.items():
            key = (row.model, row.dimension, condition)
            checks.append(
                cell(
                    "Table 6",
                    f"{row.model} / {row.dimension}",
                    f"liberation rate, condition {condition}",
                    float(getattr(row, column)),
                    float(ours.loc[key, "percent"]) if key in ours.index else None,
                    tol,
                    printed_decimals=_decimals(row, column),
                )
            )
    for model, group in pub["t6"].groupby("model", sort=False):
        overall = group[group["dimension"] == "overall"].iloc[0]
        key = (model, "overall", "A")
        checks.append(
            cell(
                "Table 6",
                model,
                "# SC cases (control)",
                float(overall["n_sc_main"]),
                float(ours.loc[key, "sc_cases"]) if key in ours.index else None,
                0,
                printed_decimals=_decimals(overall, "n_sc_main"),
            )
        )
        for condition in names.values():
            key = (model, "overall", condition)
            checks.append(
                cell(
                    "Table 6",
                    model,
                    f"valid n, condition {condition}",
                    float(overall["n_requeried"]),
                    float(ours.loc[key, "denominator"]) if key in ours.index else None,
                    0,
                    "the paper prints one n per model",
                    printed_decimals=_decimals(overall, "n_requeried"),
                )
            )
    return checks


def cell_checks_table7(pub: dict, table7: pd.DataFrame, tol: float) -> list[Check]:
    checks = []
    ours = table7.set_index(["model", "condition", "metric"])["percent"]
    for row in pub["t7"].itertuples():
        for metric in ("TAR", "HFR"):
            key = (row.model, row.condition, metric)
            note = "ours = main control run (Table 1)" if row.condition == "control" else ""
            checks.append(
                cell(
                    "Table 7",
                    f"{row.model} / {row.condition}",
                    metric,
                    float(getattr(row, metric)),
                    float(ours[key]) if key in ours.index else None,
                    tol,
                    note,
                    printed_decimals=_decimals(row, metric),
                )
            )
        printed = row.TAR_delta_vs_control_as_printed
        if isinstance(printed, str) and printed.strip():
            key = (row.model, row.condition, "TAR_delta")
            number = read_printed(printed)
            checks.append(
                cell(
                    "Table 7",
                    f"{row.model} / {row.condition}",
                    "TAR change vs control (as printed)",
                    number.value,
                    float(ours[key]) if key in ours.index else None,
                    tol,
                    "ours = intervention TAR minus Table 1 control TAR",
                    printed_decimals=number.decimals,
                )
            )
    return checks


# ------------------------------------------------------------------ identities


def jaccard_bounds(co: float, fail_a: float, fail_b: float, slack_co: float, slack_fail: float):
    """Range of J = co / (fa + fb − co) when each printed input may be off by its slack.

    J increases with ``co`` and decreases with either failure rate, so the ends of
    the range are at the corners (:func:`~rederive.stats.similarity.jaccard_from_co_failure`).
    """
    lo = jaccard_from_co_failure(co - slack_co, fail_a + slack_fail, fail_b + slack_fail)
    hi = jaccard_from_co_failure(co + slack_co, fail_a - slack_fail, fail_b - slack_fail)
    return lo, hi


def identities_table5(pub: dict) -> list[Check]:
    """Jaccard implied by co-failure and 1 − TAR; bounds of co-failure; ordering."""
    checks = []
    tar = pub["t1"][pub["t1"]["dimension"] == "overall"].set_index("model")["TAR"]
    n_items = int(pub["t3"].set_index("dimension").loc["overall", "items"])
    all_share = None
    if pub["t5_all"] is not None:
        row = pub["t5_all"].iloc[0]
        all_share = row["items_failed_by_all"] / n_items
        checks.append(
            identity(
                "Table 5",
                "all models",
                "share failed by all = count / Table 3 items",
                float(row["share_percent"]),
                percent(int(row["items_failed_by_all"]), n_items),
                0,
            )
        )
        worst_fail = 1 - tar.max() / 100
        checks.append(
            identity(
                "Tables 1+5",
                "all models",
                "share failed by all <= 1 - best TAR (Table 1)",
                round(worst_fail * 100, 4),
                float(row["share_percent"]),
                2 * HALF_UNIT,
                relation="<=",
            )
        )
    for r in pub["t5"].itertuples():
        item = f"{r.model_a} / {r.model_b}"
        if r.model_a not in tar.index or r.model_b not in tar.index:
            continue
        fa, fb = 1 - tar[r.model_a] / 100, 1 - tar[r.model_b] / 100
        implied = jaccard_from_co_failure(r.co_failure_rate, fa, fb)
        lo, hi = jaccard_bounds(r.co_failure_rate, fa, fb, HALF_MILLI, HALF_UNIT / 100)
        slack = max(implied - lo, hi - implied) + HALF_MILLI
        checks.append(
            identity(
                "Tables 1+5",
                item,
                "Jaccard = co-failure / (fail_a + fail_b - co-failure), fail = 1 - TAR",
                float(r.jaccard),
                round(implied, 5),
                round(slack, 5),
                "tolerance propagates the printed rounding of all three inputs",
            )
        )
        checks.append(
            identity(
                "Tables 1+5",
                item,
                "co-failure <= min(fail_a, fail_b)",
                round(min(fa, fb), 4),
                float(r.co_failure_rate),
                HALF_MILLI + HALF_UNIT / 100,
                relation="<=",
            )
        )
        if all_share is not None:
            checks.append(
                identity(
                    "Table 5",
                    item,
                    "share failed by all <= co-failure",
                    float(r.co_failure_rate),
                    round(all_share, 4),
                    HALF_MILLI,
                    relation="<=",
                )
            )
    most = pub["t5"][pub["t5"]["group"] == "most_similar"]["jaccard"]
    least = pub["t5"][pub["t5"]["group"] == "least_similar"]["jaccard"]
    if len(most) and len(least):
        checks.append(
            identity(
                "Table 5",
                "all pairs",
                "every least-similar Jaccard <= every most-similar Jaccard",
                float(most.min()),
                float(least.max()),
                0,
                relation="<=",
            )
        )
    return checks


def implied_sc_split(pub: dict) -> dict[str, dict[str, int]]:
    """SC counts per dimension implied by Table 2 SCR and Table 3 item counts."""
    n = pub["t3"].set_index("dimension")["items"]
    dims = [d for d in n.index if d != "overall"]
    split = {}
    for model, group in pub["t2"].groupby("model", sort=False):
        scr = group.set_index("dimension")["SCR"]
        split[model] = {d: int(round(scr[d] * n[d] / 100)) for d in dims if d in scr.index}
    return split


def dimension_fits(rates: list[float], sc_cases: int, slack: int) -> bool:
    """Whether one n in [sc_cases − slack, sc_cases] makes every rate k/n."""
    return any(
        all(rounding_compatible(r, n) for r in rates)
        for n in range(max(1, sc_cases - slack), sc_cases + 1)
    )


def split_fits(rows: pd.DataFrame, split: dict[str, int], n_requeried: int) -> bool:
    slack = sum(split.values()) - n_requeried
    if slack < 0:
        return False
    return all(
        dimension_fits([r.cond_A, r.cond_B, r.cond_C], split[r.dimension], slack)
        for r in rows.itertuples()
        if r.dimension in split
    )


def identities_table6(pub: dict) -> list[Check]:
    """# SC against Table 2, and whether the rates fit the model's own SC split."""
    checks = []
    n_items = int(pub["t3"].set_index("dimension").loc["overall", "items"])
    scr_overall = pub["t2"][pub["t2"]["dimension"] == "overall"].set_index("model")["SCR"]
    splits = implied_sc_split(pub)
    for model, group in pub["t6"].groupby("model", sort=False):
        overall = group[group["dimension"] == "overall"].iloc[0]
        n_sc = int(overall["n_sc_main"])
        n_req = int(overall["n_requeried"])
        same_scr = [m for m, s in scr_overall.items() if percent(n_sc, n_items) == s]
        if model in scr_overall.index:
            checks.append(
                identity(
                    "Tables 2+6",
                    model,
                    "# SC / Table 3 items = Table 2 overall SCR",
                    float(scr_overall[model]),
                    percent(n_sc, n_items),
                    HALF_UNIT,
                    f"models whose Table 2 SCR fits # SC = {n_sc}: {', '.join(same_scr) or 'none'}",
                )
            )
        if model in splits:
            implied = sum(splits[model].values())
            checks.append(
                identity(
                    "Tables 2+6",
                    model,
                    "sum of Table 2 per-dimension SC counts = # SC",
                    float(n_sc),
                    float(implied),
                    0,
                    "split " + "/".join(str(v) for v in splits[model].values()),
                )
            )
            # Candidate splits: every model whose Table 2 SC total equals the printed # SC.
            fits = [
                m
                for m, s in splits.items()
                if sum(s.values()) == n_sc
                and split_fits(group[group.dimension != "overall"], s, n_req)
            ]
            own = split_fits(group[group.dimension != "overall"], splits[model], n_req)
            checks.append(
                identity(
                    "Tables 2+6",
                    model,
                    "per-dimension rates are k/n with n within the model's Table 2 SC count "
                    "(at most # SC - n errors short)",
                    1.0,
                    1.0 if own else 0.0,
                    0,
                    "splits that fit: "
                    + (
                        ", ".join(
                            f"{m} ({'/'.join(str(v) for v in splits[m].values())})" for m in fits
                        )
                        or "none"
                    ),
                )
            )
        checks.append(
            identity(
                "Table 6",
                model,
                "n re-queried <= # SC",
                float(n_sc),
                float(n_req),
                0,
                relation="<=",
            )
        )
        for column in ("cond_A", "cond_B", "cond_C"):
            ok = rounding_compatible(float(overall[column]), n_req)
            checks.append(
                identity(
                    "Table 6",
                    model,
                    f"overall {column} is k/{n_req} for an integer k",
                    1.0,
                    1.0 if ok else 0.0,
                    0,
                )
            )
    return checks


def identities_table7(pub: dict) -> list[Check]:
    """Control rows against Table 1; printed deltas against their own rows."""
    checks = []
    t1 = pub["t1"][pub["t1"]["dimension"] == "overall"].set_index("model")
    t7 = pub["t7"]
    for model, group in t7.groupby("model", sort=False):
        g = group.set_index("condition")
        if "control" not in g.index:
            continue
        control = g.loc["control"]
        if model in t1.index:
            distance = (
                (t1["TAR"] - control["TAR"]).abs().combine((t1["HFR"] - control["HFR"]).abs(), max)
            )
            closest = distance.idxmin()
            note = (
                ""
                if closest == model
                else f"closest Table 1 overall row is {closest}'s "
                f"(TAR/HFR {t1.loc[closest, 'TAR']}/{t1.loc[closest, 'HFR']}, "
                f"max difference {distance[closest]:.1f})"
            )
            for metric in ("TAR", "HFR"):
                checks.append(
                    identity(
                        "Tables 1+7",
                        model,
                        f"control {metric} = Table 1 overall {metric}",
                        float(control[metric]),
                        float(t1.loc[model, metric]),
                        0,
                        note,
                    )
                )
        for condition, row in g.iterrows():
            checks.append(
                identity(
                    "Table 7",
                    f"{model} / {condition}",
                    "TAR + HFR <= 100",
                    100.0,
                    float(row["TAR"] + row["HFR"]),
                    2 * HALF_UNIT,
                    relation="<=",
                )
            )
            printed = row["TAR_delta_vs_control_as_printed"]
            if condition == "control" or not isinstance(printed, str) or not printed.strip():
                continue
            value = float(printed)
            computed = round(float(row["TAR"] - control["TAR"]), 4)
            signed = printed.strip()[0] in "+-"
            checks.append(
                identity(
                    "Table 7",
                    f"{model} / {condition}",
                    "printed TAR change = TAR - own control TAR",
                    value,
                    computed,
                    2 * HALF_UNIT,
                    "" if signed else "printed without a sign (read as positive)",
                )
            )
            checks.append(
                identity(
                    "Table 7",
                    f"{model} / {condition}",
                    "|printed TAR change| = |TAR - own control TAR|",
                    abs(value),
                    abs(computed),
                    2 * HALF_UNIT,
                )
            )
            if not signed and value != 0:
                checks.append(
                    identity(
                        "Table 7",
                        f"{model} / {condition}",
                        "TAR change printed with its sign",
                        1.0,
                        0.0,
                        0,
                        f"printed '{printed}'; own rows give {computed:+.1f}",
                    )
                )
    return checks


def experiment_checks(published_dir, ours: dict, tolerance: float) -> list[Check]:
    """Cells and identities of Tables 5–7.

    ``ours`` holds our ``failure_pairs``, ``table5``, ``failed_by_all``,
    ``table6`` and ``table7`` frames; a missing key skips that table's cells
    (its identities are still checked).
    """
    pub = _published(Path(published_dir))
    checks = []
    if {"failure_pairs", "table5", "failed_by_all"} <= ours.keys():
        checks += cell_checks_table5(
            pub, ours["failure_pairs"], ours["table5"], ours["failed_by_all"], tolerance
        )
    if "table6" in ours:
        checks += cell_checks_table6(pub, ours["table6"], tolerance)
    if "table7" in ours:
        checks += cell_checks_table7(pub, ours["table7"], tolerance)
    checks += identities_table5(pub)
    checks += identities_table6(pub)
    checks += identities_table7(pub)
    return checks
