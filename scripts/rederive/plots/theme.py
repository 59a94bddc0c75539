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

# Names are drawn as they are: a model called "$\undefinedmacro$" or "a$b$c" is
# text, not mathtext (which would raise on the first and typeset the second).
# No project label uses mathtext, so switching it off everywhere loses nothing.
LITERAL_TEXT = {"text.parse_math": False}
plt.rcParams.update(LITERAL_TEXT)  # also for figures drawn without apply_theme()


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
            **LITERAL_TEXT,
        }
    )


# Square model x model figures: a fixed cell size up to a point, then the side
# stays at 16 in (200 dpi: 3,200 px plus margins) and cells, labels and grid lines
# shrink with the model count, instead of a 20,000 px, multi-GB canvas at 200
# models.
CELL_IN, MAX_SIDE_IN = 0.32, 16.0


def cell_inches(n_models: int, cell_in: float = CELL_IN) -> float:
    """Side of one cell of an ``n_models`` square figure, in inches."""
    return min(cell_in, MAX_SIDE_IN / max(n_models, 1))


def shrink_labels(ax, n_models: int, cell_in: float = CELL_IN) -> None:
    """Tick labels that fit their cells once cells are below ``cell_in``."""
    cell = cell_inches(n_models, cell_in)
    if cell < cell_in:
        ax.tick_params(labelsize=max(2.5, 72 * cell * 0.8))


# Scatter layers with more points than this are drawn as one image in the PDF
# (rasterized): 30,000 vector markers make a PDF of megabytes that viewers crawl
# through; the PNG is the same either way.
DENSE_POINTS = 5000


# Space between the lowest text of a figure and its provenance note.
NOTE_GAP_PT = 4


def add_note(fig, note: str | None) -> None:
    """Write ``note`` small under everything ``fig`` draws, right-aligned.

    The note goes below the figure's tight bounding box (tick labels, axis labels
    and legends included, measured by the renderer), so it never sits on a
    rotated tick label or an axis label, whatever the number of models; the
    tight bbox of the saved file then takes it in.
    """
    if not note:
        return
    box = fig.get_tightbbox(fig.canvas.get_renderer())  # inches
    width, height = fig.get_size_inches()
    y = box.y0 / height - NOTE_GAP_PT / 72 / height
    fig.text(box.x1 / width, y, note, ha="right", va="top", fontsize=6, color="0.4")


def save_figure(fig, png: str | Path, pdf: str | Path, *, note: str | None = None) -> None:
    """Save ``fig`` as PNG and PDF with no timestamps in the files.

    Parameters
    ----------
    note : str, optional
        Small provenance text under the figure (e.g. :data:`SIMULATED_NOTE`), so a
        figure lifted out of the report still says where its data came from.
    """
    add_note(fig, note)
    for path in (png, pdf):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(png, metadata={"Software": None})
    fig.savefig(
        pdf, metadata={"CreationDate": None, "ModDate": None, "Producer": None, "Creator": None}
    )
    plt.close(fig)
