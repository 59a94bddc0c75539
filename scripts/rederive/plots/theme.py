"""The one figure theme, and deterministic saving to PNG + PDF.

Figures only draw numbers that analysis steps already wrote to CSV; nothing in
``rederive.plots`` computes a statistic.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # headless: the workflow runs on machines without a display

import matplotlib.pyplot as plt
import seaborn as sns

SIMULATED_NOTE = "Simulated data (seeded generator calibrated to published aggregates)"

PALETTE = "colorblind"


def apply_theme() -> None:
    """Set the project's seaborn theme (call once per figure script)."""
    sns.set_theme(context="paper", style="whitegrid", palette=PALETTE, font_scale=1.1)
    plt.rcParams.update(
        {
            "figure.dpi": 100,
            "savefig.dpi": 200,
            "savefig.bbox": "tight",
            "axes.titleweight": "bold",
            # Embed TrueType, not Type 3, so PDFs are journal-friendly.
            "pdf.fonttype": 42,
            "svg.hashsalt": "rederive",
        }
    )


def save_figure(fig, png: str | Path, pdf: str | Path, *, note: str | None = None) -> None:
    """Save ``fig`` as PNG and PDF with no timestamps in the files.

    Parameters
    ----------
    note : str, optional
        Small provenance text under the figure (e.g. :data:`SIMULATED_NOTE`), so a
        figure lifted out of the report still says where its data came from.
    """
    if note:
        fig.text(0.99, 0.005, note, ha="right", va="bottom", fontsize=6, color="0.4")
    for path in (png, pdf):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(png, metadata={"Software": None})
    fig.savefig(
        pdf, metadata={"CreationDate": None, "ModDate": None, "Producer": None, "Creator": None}
    )
    plt.close(fig)
