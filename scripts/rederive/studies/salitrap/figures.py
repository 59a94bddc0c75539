"""What every SaliTrap figure shares: read the CSVs, draw, save PNG + PDF with
the simulated-data note; and the annotated square heatmap of Figs 10 and 11.

Figures only draw numbers the analysis jobs already wrote to CSV.

References
----------
SaliTrap (seed paper 000), Figs 4–12.
"""

import inspect

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns

from rederive.io.names import read_csv
from rederive.plots.theme import (
    SIMULATED_NOTE,
    apply_theme,
    cell_inches,
    save_figure,
    shrink_labels,
)

# Heatmaps with more rows than this are left unannotated (the numbers get unreadable).
ANNOTATE_UP_TO = 16
# Half an inch per model leaves room for the annotations; past 32 models the side
# stops growing (rederive.plots.theme.cell_inches).
HEATMAP_CELL_IN = 0.5


def draw_figures(snakemake, draw) -> None:
    """Draw one group of figures of a figure job.

    The inputs of the rule that ``draw`` takes (by parameter name) are read as
    CSVs and passed to it; ``draw`` returns ``{name: figure}`` and each figure is
    saved to the outputs ``<name>_png`` and ``<name>_pdf`` (with
    :data:`SIMULATED_NOTE` when the rule's ``simulated`` param says so). One rule
    draws every figure of the analysis (figures_all.py), so ``draw`` names what
    it reads.
    """
    apply_theme()
    note = SIMULATED_NOTE if snakemake.params.simulated else None
    frames = {
        name: read_csv(getattr(snakemake.input, name))
        for name in inspect.signature(draw).parameters
    }
    for name, fig in draw(**frames).items():
        out = snakemake.output
        save_figure(fig, getattr(out, f"{name}_png"), getattr(out, f"{name}_pdf"), note=note)


def heatmap(square: pd.DataFrame, *, title: str, label: str, fmt: str = ".2f"):
    """Square model × model heatmap, annotated when small enough; returns the figure."""
    n = len(square)
    cell = cell_inches(n, HEATMAP_CELL_IN)
    size = cell * n + 2.5
    fig, ax = plt.subplots(figsize=(size + 1.2, size))
    sns.heatmap(
        square,
        ax=ax,
        cmap="viridis",
        annot=n <= ANNOTATE_UP_TO,
        fmt=fmt,
        annot_kws={"fontsize": 6},
        square=True,
        cbar_kws={"label": label, "shrink": 0.7},
        # Every model named (seaborn would thin crowded labels), in a font that
        # fits the cell (shrink_labels below).
        xticklabels=True,
        yticklabels=True,
        # Tens of thousands of vector cells make a slow, huge PDF.
        rasterized=cell < HEATMAP_CELL_IN,
    )
    shrink_labels(ax, n, HEATMAP_CELL_IN)
    ax.set_xlabel("")
    ax.set_ylabel("")
    ax.set_title(title)
    fig.tight_layout()
    return fig
