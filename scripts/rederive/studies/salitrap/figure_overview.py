"""Overview figure: stacked distribution of judge labels per model (control).

References
----------
SaliTrap (seed paper 000), §4 (judge labels) and Fig 1 (overview of failures).
"""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from rederive.studies.salitrap.common import CONTROL
from rederive.studies.salitrap.figures import draw_figures


def fig_overview(distribution: pd.DataFrame):
    control = distribution[distribution["condition"] == CONTROL]
    models = list(dict.fromkeys(control["model"]))
    labels = list(dict.fromkeys(control["label"]))
    shares = (
        control.pivot(index="model", columns="label", values="count")
        .reindex(index=models, columns=labels)
        .fillna(0)
    )
    shares = shares.div(shares.sum(axis=1).replace(0, np.nan), axis=0) * 100
    fig, ax = plt.subplots(figsize=(7.5, 0.35 * max(len(models), 3) + 1.4))
    left = np.zeros(len(models))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, label in enumerate(labels):
        values = shares[label].fillna(0).to_numpy()
        ax.barh(models, values, left=left, label=label, color=colors[i % len(colors)])
        left += values
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel("Share of valid rows (%)")
    ax.set_title("Judge labels per model, control condition")
    ax.legend(ncols=3, fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.18))
    fig.tight_layout()
    return fig


def main(snakemake):
    draw_figures(snakemake, lambda distribution: {"overview": fig_overview(distribution)})
