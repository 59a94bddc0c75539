"""Label distribution per model and condition (data of the overview figure).

References
----------
SaliTrap (seed paper 000), §4 "Judge labels" (the six behaviour labels).
"""

import pandas as pd

from rederive.stats.rates import percent
from rederive.studies.salitrap.common import control_order, load, model_rank, write_csv
from rederive.studies.salitrap.metrics import metrics_from_config


def label_distribution(labels: pd.DataFrame, valid_labels: list[str]) -> pd.DataFrame:
    """Count and share of every valid label per model × condition (zeros kept).

    Returns
    -------
    DataFrame
        ``model, condition, label, count, denominator, percent``; shares of one
        model × condition sum to 100 up to rounding.
    """
    counts = labels.groupby(["model", "condition", "label"]).size()
    totals = labels.groupby(["model", "condition"]).size()
    index = pd.MultiIndex.from_tuples(
        [(m, c, lbl) for (m, c) in totals.index for lbl in valid_labels],
        names=["model", "condition", "label"],
    )
    frame = counts.reindex(index, fill_value=0).rename("count").reset_index()
    frame["denominator"] = [
        totals[(m, c)] for m, c in zip(frame.model, frame.condition, strict=True)
    ]
    frame["percent"] = [
        percent(k, n) for k, n in zip(frame["count"], frame["denominator"], strict=True)
    ]
    return frame


def main(snakemake):
    p = snakemake.params
    _, labels = load(snakemake.input.db)
    frame = label_distribution(labels, list(p.valid_labels))
    order = control_order(labels, metrics_from_config(p.metrics)["TAR"].numerator)
    label_rank = {lbl: i for i, lbl in enumerate(p.valid_labels)}
    frame = (
        frame.assign(_m=model_rank(order, frame), _l=frame["label"].map(label_rank))
        .sort_values(["_m", "model", "condition", "_l"], kind="stable")
        .drop(columns=["_m", "_l"])
    )
    write_csv(frame, snakemake.output.csv)


if __name__ == "__main__" and "snakemake" in globals():
    from rederive.runner import run

    run(main, snakemake)  # noqa: F821
