"""No title, axis label, legend, panel note or provenance note overlaps a tick
label (or another of those), at 2, 25 and 200 models (and at 5,000 for the
benchmark kind, whose figures show the top_k models plus a summary of all):
bounding boxes measured with matplotlib's renderer on the figures of the
benchmark kind and the SaliTrap dendrogram and difficulty figures, drawn from
synthetic tables."""

from __future__ import annotations

import itertools

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.text import Annotation
from scipy.cluster.hierarchy import leaves_list
from scipy.cluster.hierarchy import linkage as scipy_linkage

from rederive.plots import theme
from rederive.studies.benchmark import figures as bench
from rederive.studies.salitrap import figures_failure_sets as sali_sets
from rederive.studies.salitrap import figures_irt as sali_irt

SIZES = [2, 25, 200]
# (models, similarity.top_k): the bundled default 50 below and above it, 200
# models all shown (the square path at its largest), and leaderboard scale.
BENCHMARK_SIZES = [(2, 50), (25, 50), (200, 200), (200, 50), (5000, 50)]
NOTE = "Real data: ChemBench per-item results (irt-on-bench, MIT licence), not simulated."
CATEGORIES = [
    "analytical chemistry",
    "chemical preference",
    "general chemistry",
    "inorganic chemistry",
    "materials science",
    "organic chemistry",
    "physical chemistry",
    "technical chemistry",
    "toxicity and safety",
]
DIMENSIONS = [
    "missing_prerequisite",
    "environment_mismatch",
    "temporal_physiological",
    "rule_mismatch",
]


def model_names(n: int) -> list[str]:
    """Names of the lengths real ones have (6 to 40 characters), all distinct."""
    stems = [
        "o1",
        "GPT-4o",
        "Claude-3.5 (Sonnet)",
        "Llama-3.1-405B-Instruct-Turbo",
        "Gemma-2-9B-it",
    ]
    return [
        f"{stems[k % len(stems)]}-v{k}" + ("-extended-context" if k % 7 == 3 else "")
        for k in range(n)
    ]


# ------------------------------------------------------------------ measuring
def _boxes(artists, renderer):
    out = []
    for artist in artists:
        if not artist.get_visible() or not artist.get_text().strip():
            continue
        box = artist.get_window_extent(renderer)
        if box.width > 0 and box.height > 0:
            out.append((artist, box))
    return out


def text_boxes(fig):
    """(labels, ticks): bounding boxes of every caption-like text and every tick label."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    labels, ticks = list(fig.texts), []
    if fig._suptitle is not None:
        labels.append(fig._suptitle)
    for ax in fig.axes:
        labels += [ax.title, ax._left_title, ax._right_title, ax.xaxis.label, ax.yaxis.label]
        # Panel notes (axes coordinates), not labels attached to data points.
        labels += [
            t
            for t in ax.texts
            if not isinstance(t, Annotation) and t.get_transform() is not ax.transData
        ]
        legend = ax.get_legend()
        if legend is not None:
            labels += list(legend.get_texts())
            if legend.get_title() is not None:
                labels.append(legend.get_title())
        ticks += drawn_tick_labels(ax.xaxis) + drawn_tick_labels(ax.yaxis)
    return _boxes(labels, renderer), _boxes(ticks, renderer)


def drawn_tick_labels(axis):
    """The tick labels matplotlib draws: those of ticks inside the view interval
    (the locator also returns one just beyond each end, which is not drawn)."""
    low, high = sorted(axis.get_view_interval())
    slack = (high - low) * 1e-10
    out = []
    for tick in axis.get_major_ticks():
        if low - slack <= tick.get_loc() <= high + slack:
            out += [label for label in (tick.label1, tick.label2) if label.get_visible()]
    return out


def overlaps(fig, tolerance_px: float = 0.5) -> list[str]:
    labels, ticks = text_boxes(fig)
    found = []

    def hit(a, b):
        w = min(a.x1, b.x1) - max(a.x0, b.x0)
        h = min(a.y1, b.y1) - max(a.y0, b.y0)
        return w > tolerance_px and h > tolerance_px

    for (label, lbox), (tick, tbox) in itertools.product(labels, ticks):
        if hit(lbox, tbox):
            found.append(f"{label.get_text()[:50]!r} overlaps tick label {tick.get_text()[:30]!r}")
    for (a, abox), (b, bbox) in itertools.combinations(labels, 2):
        if hit(abox, bbox):
            found.append(f"{a.get_text()[:50]!r} overlaps {b.get_text()[:50]!r}")
    return found


@pytest.fixture
def captured(monkeypatch):
    """The figures the benchmark functions save, noted as save_figure notes them
    but not written or closed."""
    figs = []

    def keep(fig, png, pdf, *, note=None):
        theme.add_note(fig, note)
        figs.append(fig)

    monkeypatch.setattr(bench, "save_figure", keep)
    theme.apply_theme()
    yield figs
    plt.close("all")


# ------------------------------------------------------------ synthetic tables
def accuracy_table(models):
    rng = np.random.default_rng(len(models))
    acc = np.sort(rng.uniform(20, 80, len(models)))[::-1]
    return pd.DataFrame(
        {
            "model": models,
            "accuracy": acc / 100,
            "accuracy_pct": acc.round(1),
            "ci_low_pct": (acc - 2).round(1),
            "ci_high_pct": (acc + 2).round(1),
        }
    )


def neighbour_pairs(models, n_neighbours=2):
    """Each model against its next rank neighbours and the top, as pairwise.csv
    holds them beyond comparisons.all_pairs_up_to models."""
    pairs = {(models[0], b) for b in models[1:]}
    for i, a in enumerate(models):
        pairs |= {(a, b) for b in models[i + 1 : i + 1 + n_neighbours]}
    return sorted(pairs, key=lambda p: (models.index(p[0]), models.index(p[1])))


def benchmark_tables(n, top_k=50):
    models = model_names(n)
    rng = np.random.default_rng(n)
    accuracy = accuracy_table(models)
    ranking = pd.DataFrame(
        {"model": models, "rank": [f"{k + 1}-{min(n, k + 3)}" for k in range(n)]}
    )
    if n <= 200:
        pairs = [(a, b) for i, a in enumerate(models) for b in models[i + 1 :]]
    else:
        pairs = neighbour_pairs(models)
    pairwise = pd.DataFrame(
        {
            "a": [a for a, _ in pairs],
            "b": [b for _, b in pairs],
            "diff_pct": rng.normal(0, 5, len(pairs)).round(1),
            "significant": rng.random(len(pairs)) < 0.5,
        }
    )
    n_items = 30_000 if n > 1000 else 400
    difficulty = pd.DataFrame(
        {
            "category": [CATEGORIES[k % len(CATEGORIES)] for k in range(n_items)],
            "difficulty_spread": rng.normal(0, 1.5, n_items),
            "extreme": ["all wrong" if k % 50 == 0 else "" for k in range(n_items)],
        }
    )
    ability = pd.DataFrame(
        {
            "model": models,
            "ability_ml": np.linspace(2, -2, n),
            "ci_low": np.linspace(2, -2, n) - 0.2,
            "ci_high": np.linspace(2, -2, n) + 0.2,
            "ability_pyirt": np.linspace(1.8, -1.8, n),
        }
    )
    failures = rng.random((n, 60)) < 0.4
    z = scipy_linkage(failures, method="average", metric="jaccard") if n > 1 else np.empty((0, 4))
    shown = sorted(models[:top_k])  # accuracy_table sorts models by accuracy, best first
    keep = [models.index(m) for m in shown]
    inter = failures.astype(int) @ failures.T.astype(int)
    union = failures.sum(1)[:, None] + failures.sum(1)[None, :] - inter
    jaccard = pd.DataFrame((inter / np.maximum(union, 1))[np.ix_(keep, keep)], columns=shown)
    jaccard.insert(0, "model", shown)
    linkage = pd.DataFrame(z, columns=["left", "right", "distance", "size"])
    order = leaves_list(z) if n > 1 else np.zeros(1, dtype=int)
    position = np.empty(n, dtype=int)
    position[order] = np.arange(n)
    leaves = pd.DataFrame(
        {
            "model": models,
            "linkage_index": range(n),
            "leaf_position": position,
            "in_top_k": [m in set(shown) for m in models],
        }
    )
    return accuracy, ranking, pairwise, difficulty, ability, jaccard, linkage, leaves


@pytest.mark.parametrize(("n", "top_k"), BENCHMARK_SIZES)
def test_benchmark_figures_have_no_overlapping_text(captured, n, top_k, tmp_path):
    tables = benchmark_tables(n, top_k)
    accuracy, ranking, pairwise, difficulty, ability, jaccard, linkage, leaves = tables
    png, pdf = tmp_path / "x.png", tmp_path / "x.pdf"
    bench.plot_accuracy(accuracy, ranking, NOTE, png, pdf, top_k)
    bench.plot_pairwise(accuracy, pairwise, 0.05, NOTE, png, pdf, top_k)
    bench.plot_difficulty(difficulty, NOTE, png, pdf)
    bench.plot_ability(ability, accuracy, NOTE, png, pdf, top_k)
    bench.plot_dendrogram(jaccard, linkage, NOTE, png, pdf, leaves=leaves)
    names = ["accuracy", "pairwise_q", "irt_difficulty", "irt_ability", "failure_dendrogram"]
    problems = {name: overlaps(fig) for name, fig in zip(names, captured, strict=True)}
    assert problems == dict.fromkeys(names, []), problems
    # At most top_k model rows / heatmap cells, whatever the model count.
    shown = min(n, top_k)
    accuracy_fig, pairwise_fig = captured[0], captured[1]
    assert len(accuracy_fig.axes[0].get_yticklabels()) == shown
    assert pairwise_fig.axes[0].collections[0].get_array().size == shown**2  # the heatmap mesh
    if n > top_k:
        tree = captured[4].axes[0]
        drawn = [t.get_text() for t in tree.get_xticklabels()]
        assert len(drawn) == min(bench.DENDROGRAM_BRANCHES, n)
        # Branch labels count every model once, and every top_k model once.
        sizes = [int(t.split(" ")[0].replace(",", "")) for t in drawn]
        tops = [int(t.split("(")[1].split(" ")[0]) for t in drawn if "top" in t]
        assert sum(sizes) == n and sum(tops) == top_k


def salitrap_tables(n):
    models = model_names(n)
    rng = np.random.default_rng(n + 1)
    failures = rng.random((n, 60)) < 0.4
    z = scipy_linkage(failures, method="average", metric="jaccard") if n > 1 else np.empty((0, 4))
    linkage = pd.DataFrame(z, columns=["left", "right", "distance", "size"]).assign(
        method="average"
    )
    leaves = pd.DataFrame({"model": models, "linkage_index": range(n), "leaf_position": range(n)})
    n_items = 400
    difficulty = rng.normal(0, 1.2, n_items)
    items = pd.DataFrame(
        {
            "dimension": [DIMENSIONS[k % 4] for k in range(n_items)],
            "naturalness": rng.integers(1, 6, n_items),
            "difficulty": difficulty,
            "difficulty_spread": difficulty * 1.1,
            "extreme": ["all fail" if k % 80 == 0 else "" for k in range(n_items)],
        }
    )
    ability = np.linspace(1, -1, n)
    model_table = pd.DataFrame(
        {
            "model": models,
            "ability": ability,
            "ci_low": ability - 0.15,
            "ci_high": ability + 0.15,
            "tar": np.linspace(60, 20, n),
            "ability_note": "",
        }
    )
    stats = pd.DataFrame(
        {
            "statistic": [
                "spearman_rho_ability_tar",
                "pearson_r_naturalness_difficulty",
                "trend_slope_difficulty_per_naturalness_point",
                "trend_intercept",
            ],
            "value": [1.0, -0.01, -0.02, 0.1],
            "p_value": [0.0, 0.8, 0.8, np.nan],
        }
    )
    pairs = pd.DataFrame(
        [(a, b, rng.random()) for a in models for b in models],
        columns=["model_a", "model_b", "jaccard"],
    )
    return linkage, leaves, items, model_table, stats, pairs


@pytest.mark.parametrize("n", SIZES)
def test_salitrap_dendrogram_and_difficulty_figures_have_no_overlapping_text(n):
    theme.apply_theme()
    linkage, leaves, items, models, stats, pairs = salitrap_tables(n)
    figs = {
        "fig5_dendrogram": sali_sets.fig_dendrogram(linkage, leaves),
        "fig11_jaccard": sali_sets.fig_heatmap(
            pairs, list(leaves["model"]), "jaccard", "Jaccard", "J"
        ),
        "fig4_irt": sali_irt.fig4(items, models, stats),
        "fig9_naturalness_difficulty": sali_irt.fig9(items, stats),
    }
    try:
        for fig in figs.values():
            theme.add_note(fig, theme.SIMULATED_NOTE)
        problems = {name: overlaps(fig) for name, fig in figs.items()}
    finally:
        plt.close("all")
    assert problems == dict.fromkeys(figs, []), problems


def test_overlap_measure_sees_an_overlap():
    """The measure itself: a panel note written onto a tick label is reported,
    the same figure without it is clean."""
    theme.apply_theme()
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.set_xticks([0, 1], ["left", "right"])
    try:
        assert overlaps(fig) == []
        fig.canvas.draw()
        box = ax.get_xticklabels()[0].get_window_extent(fig.canvas.get_renderer())
        x, y = ax.transAxes.inverted().transform(((box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2))
        ax.text(x, y, "a note on a tick", transform=ax.transAxes, ha="center", va="center")
        assert overlaps(fig) == ["'a note on a tick' overlaps tick label 'left'"]
    finally:
        plt.close(fig)
