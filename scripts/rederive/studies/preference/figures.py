"""Rule ``plot_preference_figures``: the kind's figures, drawn only from the CSVs the
analysis steps wrote (nothing is computed here).

* ``elo``: a forest of the Elo ratings with their bootstrap intervals, the rank
  range beside each contestant; the baseline (a hollow diamond) and small-n models
  (grey) are drawn but not ranked.
* ``win_rates``: each model's win rate against the baseline with its 95 % normal
  interval (± 1.96 SE), per judge, and the length-controlled win rate beside it
  when it was computed; a line at 50 % (the baseline's own entry).
"""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from rederive.io.names import read_csv
from rederive.plots.theme import SIMULATED_NOTE, apply_theme, save_figure
from rederive.runner import run
from rederive.stats.preference.ranking import BASELINE, CONTESTANT

ROW_IN = 0.24
TEXT = ("judge", "role", "rank", "tied_with", "lc_glm")


def _height(rows: int) -> float:
    return max(2.4, ROW_IN * rows + 1.2)


def plot_elo(scores: pd.DataFrame, ranking: pd.DataFrame, *, level: float, note, png, pdf):
    """The Elo forest (module docstring); rows by rating, best on top."""
    apply_theme()
    frame = scores.iloc[::-1].reset_index(drop=True)
    rank = ranking.set_index("model")["rank"].astype(str)
    y = np.arange(len(frame))
    fig, ax = plt.subplots(figsize=(7.5, _height(len(frame))))
    styles = {
        CONTESTANT: {"fmt": "o", "color": "C0", "mfc": "C0"},
        BASELINE: {"fmt": "D", "color": "C3", "mfc": "white"},
    }
    for role, group in frame.groupby("role", sort=False):
        style = styles.get(role, {"fmt": "o", "color": "0.6", "mfc": "0.6"})
        rows = group.index.to_numpy()
        ax.errorbar(
            group["rating"],
            y[rows],
            xerr=[group["rating"] - group["ci_low"], group["ci_high"] - group["rating"]],
            fmt=style["fmt"],
            color=style["color"],
            mfc=style["mfc"],
            ecolor="0.45",
            capsize=2,
            markersize=4,
            label=role,
        )
    labels = [f"{m}  [{rank.get(m, '')}]" for m in frame["model"]]
    ax.set_yticks(y, labels)
    ax.set_ylim(-0.7, len(frame) - 0.3)
    ax.set_xlabel(f"Elo rating with {level:.0%} bootstrap interval  [rank range]")
    ax.set_title("Bradley–Terry ratings")
    if frame["role"].nunique() > 1:
        ax.legend(loc="lower right", fontsize=7, frameon=False)
    save_figure(fig, png, pdf, note=note)


def plot_win_rates(table: pd.DataFrame, *, note, png, pdf):
    """Win rate ± 1.96 SE per model against the baseline (module docstring)."""
    apply_theme()
    if table.empty:
        fig, ax = plt.subplots(figsize=(6, 1.6))
        ax.text(0.5, 0.5, "no baseline: no win rate against one", ha="center", va="center")
        ax.set_axis_off()
        save_figure(fig, png, pdf, note=note)
        return
    judges = list(dict.fromkeys(table["judge"]))
    rows = [r for _, r in table.iloc[::-1].iterrows()]
    fig, ax = plt.subplots(figsize=(7.5, _height(len(rows))))
    y = np.arange(len(rows))
    frame = pd.DataFrame(rows).reset_index(drop=True)
    base = (frame["role"] == BASELINE).to_numpy()
    half = 1.96 * frame["standard_error"].to_numpy(dtype=float)
    ax.errorbar(
        frame["win_rate"][~base],
        y[~base],
        xerr=half[~base],
        fmt="o",
        color="C0",
        ecolor="0.45",
        capsize=2,
        markersize=4,
        label="win rate ± 1.96 SE",
    )
    ax.plot(frame["win_rate"][base], y[base], "D", color="C3", mfc="white", label="baseline")
    lc = frame["length_controlled_winrate"].to_numpy(dtype=float)
    if np.isfinite(lc[~base]).any():
        ax.plot(lc[~base], y[~base], "x", color="C1", label="length-controlled")
    ax.axvline(50, color="0.5", lw=0.8, ls="--")
    prefix = len(judges) > 1
    ax.set_yticks(y, [f"{r['judge']}: {r['model']}" if prefix else r["model"] for r in rows])
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.set_xlabel("Win rate against the baseline (%)")
    ax.set_title("Win rate against the baseline")
    ax.legend(loc="lower right", fontsize=7, frameon=False)
    save_figure(fig, png, pdf, note=note)


def main(snakemake):
    scores = read_csv(snakemake.input.scores, text=TEXT)
    ranking = read_csv(snakemake.input.ranking, text=TEXT)
    table = read_csv(snakemake.input.win_rates, text=TEXT)
    table["judge"] = table["judge"].fillna("")
    note = SIMULATED_NOTE if snakemake.params.simulated else snakemake.params.data_note
    out = snakemake.output
    level = float(snakemake.params.level)
    plot_elo(scores, ranking, level=level, note=note, png=out.elo_png, pdf=out.elo_pdf)
    plot_win_rates(table, note=note, png=out.win_rates_png, pdf=out.win_rates_pdf)


if __name__ == "__main__" and "snakemake" in globals():
    run(main, snakemake)  # noqa: F821
