"""Reviewer mode: recomputed rates vs the paper's stated numbers, and identities.

The project copy of the paper states only pooled results per model (Abstract,
§1) and the design sizes (§3–§4); every one of them is a ``cell`` check, read
as printed (a rate printed 1.3 passes for ours in [1.25, 1.35]). The
``identity`` checks tie the published numbers together: per-model N = sum of
its bias cells, total N = sum of models, and each published rate is k/N for an
integer k. ``internal`` checks test our own cells: TG = Pr[S]·(1 − Pr[A | S])
(eq. 4) in every recomputed cell. ``claim`` checks test
the paper's qualitative conclusion (similar susceptibility, different awareness)
with the paired, BH-adjusted comparisons.

References
----------
Gao, W., et al. (2026). arXiv:2606.15127, Abstract, §1, §3 eq. (4), §4.
"""

from pathlib import Path

import numpy as np
import pandas as pd

from rederive.check import (
    Check,
    printed_decimals,
    published_available,
    write_no_published_check,
    write_published_check,
)
from rederive.io.names import read_csv
from rederive.printed import DECIMALS, read_published
from rederive.report.markdown import row as md_row
from rederive.stats.rates import rounding_compatible
from rederive.studies.bias_awareness import BIASES, POOLED, STUDY
from rederive.studies.bias_awareness.output import SIMULATED_TEXT

SIMULATED_NOTE = (
    SIMULATED_TEXT + " Cell checks therefore test the simulator and the labelling path."
)

TABLE = "Abstract/§3-4"


def _exact_percent(rates: pd.DataFrame) -> pd.Series:
    """Unrounded 100·k/n per (model, bias, quantity), the value the paper rounded."""
    key = pd.MultiIndex.from_frame(rates[["model", "bias", "quantity"]])
    num = rates["numerator"].to_numpy(dtype=float)
    den = rates["denominator"].to_numpy(dtype=float)
    # A zero denominator (a run without judge labels) is "not computable", not an error.
    exact = np.divide(100 * num, den, out=np.full(num.shape, np.nan), where=den > 0)
    return pd.Series(exact, index=key)


def cell_checks(published: pd.DataFrame, rates: pd.DataFrame, tolerance: float) -> list[Check]:
    exact = _exact_percent(rates)
    n_cell = rates[rates["quantity"] == "susceptibility"].set_index(["model", "bias"])[
        "denominator"
    ]
    checks = []
    for row in published.itertuples(index=False):
        item = f"{row.model} / {row.bias}"
        if row.quantity == "n_trials":
            if row.model == "all":
                ours = float(n_cell.xs(POOLED, level="bias").sum()) if len(n_cell) else None
            else:
                ours = (
                    float(n_cell[(row.model, row.bias)])
                    if (row.model, row.bias) in n_cell.index
                    else None
                )
            checks.append(
                Check(
                    STUDY,
                    TABLE,
                    "cell",
                    item,
                    "n_trials",
                    float(row.value),
                    ours,
                    0,
                    row.source,
                    printed_decimals=_printed(row),
                )
            )
            continue
        key = (row.model, row.bias, row.quantity)
        ours = float(exact[key]) if key in exact.index else None
        checks.append(
            Check(
                STUDY,
                TABLE,
                "cell",
                item,
                row.quantity,
                float(row.value),
                ours,
                tolerance,
                row.source,
                printed_decimals=_printed(row),
            )
        )
    return checks


def _printed(row) -> int | None:
    """Decimals the value was printed with, when ``published`` was read as printed."""
    return printed_decimals(getattr(row, "value" + DECIMALS, None))


def identity_checks(published: pd.DataFrame, rates: pd.DataFrame) -> list[Check]:
    checks = []
    by = rates.set_index(["model", "bias", "quantity"])
    for (model, bias), _ in rates.groupby(["model", "bias"], sort=False):
        s, a_s, tg = (
            by.loc[(model, bias, q)]
            for q in ("susceptibility", "aware_given_S_strict", "TG_strict")
        )
        if s["denominator"] != tg["denominator"]:
            # Without a judge label on every trial the two sides have different denominators.
            continue
        pr_s = s["numerator"] / s["denominator"]
        pr_a_s = a_s["numerator"] / a_s["denominator"] if a_s["denominator"] else 0.0
        # Our own TG against our own Pr[S] and Pr[A | S]: a self-test, not the paper.
        checks.append(
            Check(
                STUDY,
                "recomputed cells",
                "internal",
                f"{model} / {bias}",
                "TG = Pr[S]·(1 − Pr[A|S]) (eq. 4), %",
                100 * pr_s * (1 - pr_a_s),
                100 * tg["numerator"] / tg["denominator"],
                1e-9,
            )
        )
    pub_n = published[published["quantity"] == "n_trials"]
    for model, group in pub_n[pub_n["model"] != "all"].groupby("model", sort=False):
        g = group.set_index("bias")["value"]
        if POOLED in g.index and set(BIASES) <= set(g.index):
            checks.append(
                Check(
                    STUDY,
                    TABLE,
                    "identity",
                    model,
                    "N pooled = sum of bias cells",
                    float(g[POOLED]),
                    float(g[list(BIASES)].sum()),
                    0,
                )
            )
    total = pub_n[pub_n["model"] == "all"]["value"]
    per_model = pub_n[(pub_n["model"] != "all") & (pub_n["bias"] == POOLED)]["value"]
    if len(total):
        checks.append(
            Check(
                STUDY,
                TABLE,
                "identity",
                "all",
                "N total = sum of models",
                float(total.iloc[0]),
                float(per_model.sum()),
                0,
            )
        )
    n_model = pub_n[pub_n["bias"] == POOLED].set_index("model")["value"]
    for row in published[published["unit"] == "percent"].itertuples(index=False):
        if row.model in n_model.index:
            n = int(n_model[row.model])
            ok = rounding_compatible(float(row.value), n)
            checks.append(
                Check(
                    STUDY,
                    TABLE,
                    "identity",
                    f"{row.model} / {row.bias}",
                    f"{row.quantity} = k/{n} for an integer k",
                    1.0,
                    1.0 if ok else 0.0,
                    0,
                )
            )
    return checks


def claim_checks(comparisons: pd.DataFrame) -> list[Check]:
    """The paper's conclusion on pooled rates, tested with the BH-adjusted comparisons."""
    pooled = comparisons[comparisons["bias"] == POOLED].set_index("quantity")
    claims = [
        (
            "susceptibility",
            False,
            "models nearly indistinguishable in susceptibility (Abstract, §1)",
        ),
        (
            "awareness_strict",
            True,
            "unconditional strict awareness differs markedly (Abstract, §1)",
        ),
    ]
    checks = []
    for quantity, significant, note in claims:
        ours = float(bool(pooled.loc[quantity, "reject"])) if quantity in pooled.index else None
        checks.append(
            Check(
                STUDY,
                TABLE,
                "claim",
                "pooled model difference",
                f"{quantity}: BH-significant",
                float(significant),
                ours,
                0,
                note,
            )
        )
    return checks


PUBLISHED_FILE = "bias_awareness_headline.csv"
TITLE = "bias_awareness: published check"


def main(snakemake):
    p = snakemake.params
    if not published_available(p.published_dir, [PUBLISHED_FILE]):
        write_no_published_check(
            snakemake.output.csv,
            snakemake.output.md,
            title=TITLE,
            folder=p.published_dir,
            analysis=snakemake.wildcards.analysis,
        )
        return
    # Each quantity's precision is the finest its printed values show (13.0: one decimal).
    published = read_published(Path(p.published_dir) / PUBLISHED_FILE, ["value"], by=["quantity"])
    rates = read_csv(snakemake.input.rates)
    comparisons = read_csv(snakemake.input.comparisons)
    checks = (
        cell_checks(published, rates, p.tolerance)
        + identity_checks(published, rates)
        + claim_checks(comparisons)
    )
    # Power of the abstract's contrasts (rederive.studies.bias_awareness.power).
    from rederive.studies.bias_awareness.power import headline_checks

    checks += headline_checks(
        read_csv(snakemake.input.power),
        Path(p.published_dir) / PUBLISHED_FILE,
        alpha=p.power["alpha"],
        power=p.power["target"],
    )
    frame = write_published_check(
        checks,
        snakemake.output.csv,
        snakemake.output.md,
        analysis=snakemake.wildcards.analysis,
        title=TITLE,
        preamble="Bias awareness (seed 001): every result number the paper states, recomputed from "
        "the raw runs; a cell passes when ours (unrounded) rounds to the printed value at its "
        f"printed decimals, with {p.tolerance:g} percentage points of tolerance on top.",
        data_note=SIMULATED_NOTE if p.simulated else "",
    )
    side_by_side = frame[frame["kind"] == "cell"][
        ["item", "quantity", "published", "ours", "status"]
    ]
    lines = [
        "",
        "## The paper's numbers beside ours",
        "",
        "| item | quantity | paper | ours | status |",
        "|---|---|---:|---:|---|",
    ]
    lines += [
        md_row(
            r.item,
            r.quantity,
            f"{r.published:g}",
            "--" if pd.isna(r.ours) else f"{r.ours:.2f}",
            r.status,
        )
        for r in side_by_side.itertuples(index=False)
    ]
    with open(snakemake.output.md, "a") as handle:
        handle.write("\n".join(lines) + "\n")


if __name__ == "__main__" and "snakemake" in globals():
    from rederive.runner import run

    run(main, snakemake)  # noqa: F821
