"""Rule ``estimate_tag_sycophancy_power``: could 20 items show each model's tag effect?

The per-model tag effect (tag arm − ask arm, balanced over options) is a mean of
per-item paired differences; its estimate, interval and BH decision (across
models, q of the study) are read from ``tag_effects.csv``. The per-item sd comes
from the study's own per-item differences
(:func:`rederive.studies.tag_sycophancy.effects.item_differences`, from
``cell_counts.csv``). A "tie" here is a model whose tag effect is not significant.
The tag effect is tested with the paired t test on the item differences, so power,
MDE and items needed take the noncentral-t form with ``n_items − 1`` df.

References
----------
Miller, E. (2024). Adding error bars to evals. arXiv:2411.00640, §3.2.
"""

from pathlib import Path

import numpy as np
import pandas as pd

from rederive.io.names import read_csv
from rederive.io.warehouse import query
from rederive.report.power import (
    design_of,
    headline_check,
    power_frame,
    power_settings,
    write_power,
)
from rederive.stats.power import T_TEST, unit_sd
from rederive.stats.small_n import small_n_mask
from rederive.studies.tag_sycophancy.effects import item_differences

ARM = "tag"


def power_table(cells, item_ids, effects, *, alpha, power, fdr_q, relevant_pp):
    models = list(effects["model"])
    diffs = item_differences(cells, item_ids, models, ARM)
    sds = []
    for j in range(len(models)):
        d = diffs[:, j]
        d = d[~np.isnan(d)]
        sds.append(100 * unit_sd(d) if d.size >= 2 else np.nan)
    return power_frame(
        effects[["model"]].assign(arm=ARM),
        unit="item",
        n_units=effects["n_items"],
        diff_pp=effects["effect"],
        ci_low_pp=effects["ci_low"],
        ci_high_pp=effects["ci_high"],
        ci_source="tag_effects.csv (item bootstrap)",
        significant=effects["bh_significant"].fillna(False).astype(bool),
        sd_pp=np.array(sds),
        sd_source="per-item balanced differences (cell_counts.csv)",
        alpha=alpha,
        power=power,
        fdr_q=fdr_q,
        relevant_pp=relevant_pp,
        test=T_TEST,
        excluded=small_n_mask(effects),
    )


#: The paper's largest and smallest significant positive tag effects (§3).
HEADLINE_MODELS = ("MythoMax-L2-13B", "Grok-4.3")


def headline_checks(table: pd.DataFrame, published_dir, *, alpha: float, power: float) -> list:
    """Published check: could 20 items detect the tag effects the paper reports?

    For the largest and the smallest significant positive effect the paper lists
    (``model_effects.csv``), with that model's per-item sd from ``power.csv``.
    """
    path = Path(published_dir) / "model_effects.csv"
    if not path.exists():
        return []
    pub = read_csv(path).set_index("model")
    mine = table.set_index("model")
    out = []
    for model in HEADLINE_MODELS:
        if model not in pub.index or model not in mine.index:
            continue
        row = mine.loc[model]
        out.append(
            headline_check(
                "tag_sycophancy",
                f"{model} tag effect",
                float(pub.loc[model, "tag_effect"]),
                **design_of(row),
                alpha=alpha,
                power=power,
                note="Tag arm against ask arm, balanced per item.",
            )
        )
    return out


def main(snakemake):
    p = snakemake.params
    cells = read_csv(snakemake.input.cells)
    item_ids = query(snakemake.input.db, "SELECT item_id FROM items ORDER BY item_id")["item_id"]
    effects = read_csv(snakemake.input.effects)
    table = power_table(
        cells,
        item_ids.tolist(),
        effects,
        **power_settings(p.power, fdr_q=p.fdr_q),
    )
    write_power(table, snakemake.output.power, snakemake.output.curve)


if __name__ == "__main__" and "snakemake" in globals():
    from rederive.runner import run

    run(main, snakemake)  # noqa: F821
