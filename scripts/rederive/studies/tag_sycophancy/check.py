"""Published check: every number the paper states that the data determines.

Cells: per-model effects, CIs, BH classes and baselines the paper names
(``published/model_effects.csv``), floor flags, lineage endpoints, the two
singled-out resisters' compositions, and every panel-level number
(``published/panel.csv``, each with its own tolerance). Identities: relations
the paper's own numbers must satisfy (span = max − min; 17 resisters = 15 who
say no more + 2 who refuse; field means vs mean `maybe` effect).
"""

import pandas as pd

from rederive.check import (
    Check,
    printed_decimals,
    published_available,
    write_no_published_check,
    write_published_check,
)
from rederive.io.names import read_csv
from rederive.printed import DECIMALS
from rederive.studies.tag_sycophancy.published import PUBLISHED_FILES, load_printed

STUDY = "tag_sycophancy"
SIMULATED_NOTE = (
    "The bundled replies are SIMULATED (calibrated to these very numbers), so passing shows "
    "the pipeline re-derives them, not that the paper is right."
)


def _cell(table, item, quantity, published, ours, tolerance, note="", decimals=None) -> Check:
    return Check(
        STUDY,
        table,
        "cell",
        item,
        quantity,
        published,
        ours,
        tolerance,
        note,
        printed_decimals=printed_decimals(decimals),
    )


def _decimals(row, column: str):
    """The printed decimals beside ``column`` (absent when read without them)."""
    return row.get(column + DECIMALS)


def _identity(table, item, quantity, published, ours, tolerance, note="") -> Check:
    return Check(STUDY, table, "identity", item, quantity, published, ours, tolerance, note)


def _panel_cell(row, item, quantity, ours) -> Check:
    """Check of one row of ``published/panel.csv``, with the tolerance it states."""
    return _cell(
        "panel",
        item,
        quantity,
        float(row["value"]),
        ours,
        float(row["tolerance"]),
        row["source"],
        _decimals(row, "value"),
    )


def _row_cells(table, row, item, key, ours, columns, tol) -> list[Check]:
    """Cell checks of ``columns`` of one published row against ``ours.loc[key]``."""
    return [
        _cell(
            table, item, c, float(row[c]), _get(ours, key, c), tol, row["source"], _decimals(row, c)
        )
        for c in columns
    ]


def _get(frame, key, column):
    try:
        value = frame.loc[key, column]
    except KeyError:
        return None
    return None if pd.isna(value) else float(value)


def model_checks(published, table, tol_effect, tol_ci) -> list[Check]:
    ours = table.set_index("model")
    checks = []
    for _, row in published["model_effects"].iterrows():
        m = row["model"]
        for column, ours_col, tol in (
            ("tag_effect", "effect", tol_effect),
            ("ci_low", "ci_low", tol_ci),
            ("ci_high", "ci_high", tol_ci),
            ("ask_baseline", "ask_rate", tol_effect),
        ):
            if pd.notna(row[column]):
                checks.append(
                    _cell(
                        "model_effects",
                        m,
                        column,
                        float(row[column]),
                        _get(ours, m, ours_col),
                        tol,
                        row["source"],
                        _decimals(row, column),
                    )
                )
        if pd.notna(row["class"]):
            same = None if m not in ours.index else float(ours.loc[m, "class"] == row["class"])
            checks.append(
                _cell("model_effects", m, f"class is {row['class']}", 1.0, same, 0.0, row["source"])
            )
    for _, row in published["floor_models"].iterrows():
        m = row["model"]
        flag = None if m not in ours.index else float(bool(ours.loc[m, "floor_limited"]))
        checks.append(_cell("floor_models", m, "floor_limited", 1.0, flag, 0.0, row["source"]))
    if {"GPT-4o", "GPT-4o-mini"} <= set(ours.index):
        diff = abs(ours.loc["GPT-4o", "effect"] - ours.loc["GPT-4o-mini", "effect"])
    else:
        diff = None
    pub = published["panel"].set_index("quantity")
    if "gpt4o_vs_mini_abs_diff" in pub.index:
        r = pub.loc["gpt4o_vs_mini_abs_diff"]
        checks.append(_panel_cell(r, "GPT-4o vs GPT-4o-mini", "|effect difference|", diff))
    return checks


def lineage_checks(published, lineages, tol) -> list[Check]:
    ours = lineages.set_index("lineage")
    checks = []
    for _, row in published["lineages"].iterrows():
        key = row["lineage"]
        checks += _row_cells("lineages", row, key, key, ours, ("first_effect", "last_effect"), tol)
    return checks


def composition_checks(published, comp, tol) -> list[Check]:
    ours = comp.set_index(["model", "arm"])
    checks = []
    for _, row in published["composition"].iterrows():
        key = (row["model"], row["arm"])
        item = f"{key[0]} / {key[1]}"
        checks += _row_cells(
            "composition", row, item, key, ours, ("reject_share", "evade_share"), tol
        )
    return checks


def panel_checks(published, summary, lineages, table) -> list[Check]:
    ours = summary.set_index("quantity")["value"]
    lin = lineages.set_index("lineage") if len(lineages) else pd.DataFrame()
    derived = {
        "deepseek_all_positive": _get(lin, "DeepSeek", "all_positive"),
        "grok_first_positive_last_negative": _get(lin, "Grok", "first_positive_last_negative"),
        "gpt4_turbo_ask_baseline": _get(table.set_index("model"), "GPT-4-Turbo", "ask_rate"),
    }
    checks = []
    for _, row in published["panel"].iterrows():
        q = row["quantity"]
        if q == "gpt4o_vs_mini_abs_diff":
            continue
        value = (
            derived[q]
            if q in derived
            else (None if q not in ours.index or pd.isna(ours[q]) else float(ours[q]))
        )
        checks.append(_panel_cell(row, "panel", q, value))
    return checks


def identity_checks(published) -> list[Check]:
    """Relations among the paper's own numbers (a failure is a finding about the paper)."""
    pub = published["panel"].set_index("quantity")["value"]
    comp = published["composition"].set_index(["model", "arm"])
    checks = [
        _identity(
            "identities",
            "panel",
            "effect_max − effect_min = span",
            float(pub["effect_span"]),
            float(pub["effect_max"] - pub["effect_min"]),
            0.0,
        ),
        _identity(
            "identities",
            "panel",
            "field maybe − field ask ≈ mean maybe effect",
            float(pub["maybe_mean_effect"]),
            float(pub["field_maybe_mean"] - pub["field_ask_mean"]),
            1.0,
            "field means printed as integers",
        ),
        _identity(
            "identities",
            "panel",
            "resisters = 15 saying no more + 2 refusers",
            float(pub["n_resisting"]),
            float(pub["resisters_more_reject"] + 2),
            0.0,
            "§3: Fable 5 and Gemini 3.6 Flash refuse",
        ),
    ]
    effects = published["model_effects"].set_index("model")["tag_effect"]
    for model in ("Claude-Fable-5", "Gemini-3.6-Flash"):
        if (model, "ask") in comp.index and model in effects.index:
            ask = 100 - comp.loc[(model, "ask"), ["reject_share", "evade_share"]].sum()
            tag = 100 - comp.loc[(model, "tag"), ["reject_share", "evade_share"]].sum()
            checks.append(
                _identity(
                    "identities",
                    model,
                    "endorse(tag) − endorse(ask) from shares = effect",
                    float(effects[model]),
                    float(tag - ask),
                    1.0,
                    "shares and effects printed as integers",
                )
            )
    return checks


TITLE = "tag_sycophancy: published check"


def main(snakemake):
    p = snakemake.params
    if not published_available(p.published_dir, PUBLISHED_FILES.values()):
        write_no_published_check(
            snakemake.output.csv,
            snakemake.output.md,
            title=TITLE,
            folder=p.published_dir,
            analysis=snakemake.wildcards.analysis,
        )
        return
    published = load_printed(p.published_dir)
    table = read_csv(snakemake.input.table)
    comp = read_csv(snakemake.input.composition)
    lineages = read_csv(snakemake.input.lineages)
    summary = read_csv(snakemake.input.summary)
    checks = (
        model_checks(published, table, p.effect_tolerance, p.ci_tolerance)
        + lineage_checks(published, lineages, p.effect_tolerance)
        + composition_checks(published, comp, p.effect_tolerance)
        + panel_checks(published, summary, lineages, table)
        + identity_checks(published)
    )
    # Power of the paper's headline effects (rederive.studies.tag_sycophancy.power).
    from rederive.studies.tag_sycophancy.power import headline_checks

    checks += headline_checks(
        read_csv(snakemake.input.power),
        p.published_dir,
        alpha=p.power["alpha"],
        power=p.power["target"],
    )
    write_published_check(
        checks,
        snakemake.output.csv,
        snakemake.output.md,
        analysis=snakemake.wildcards.analysis,
        title=TITLE,
        preamble="Recomputed from the raw replies against the numbers the paper prints (the analysis's published/ folder).",
        data_note=SIMULATED_NOTE if p.simulated else "",
    )


if __name__ == "__main__" and "snakemake" in globals():
    from rederive.runner import run

    run(main, snakemake)  # noqa: F821
