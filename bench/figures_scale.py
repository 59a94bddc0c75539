"""Failure clustering, figures and site at leaderboard scale (issue 24).

Each stage runs the function a rule script runs, on synthetic inputs of the
shape a 5,000-model x 30,000-item build gives, and prints wall and CPU seconds;
run one stage per process under ``/usr/bin/time -v`` for its peak RSS::

    flock /tmp/rederive-big.lock /usr/bin/time -v .venv/bin/python bench/figures_scale.py \\
        similarity --models 5000 --items 30000 --out /tmp/figures-bench

Stages: ``similarity`` (``analyse`` of ``cluster_benchmark_failures`` on a
seeded Rasch matrix; writes its tables to ``--out``), ``ordering`` (optimal
leaf ordering at 500 / 1,000 / 2,000 / 5,000 models, the cost behind
``similarity.optimal_ordering_up_to``), ``figures`` (``plot_benchmark_figures``
from the tables ``similarity`` wrote plus synthetic accuracy / pairwise / IRT
tables), ``items`` and ``power`` (their figures on synthetic tables), ``site``
(``build_site`` over every CSV and figure under ``--out``).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd

TOP_K = 50


def rasch_matrix(models: int, items: int, seed: int = 0) -> pd.DataFrame:
    """Items x models 0/1 scores of a Rasch model, float64 as ``load_scores`` returns."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(0, 1, models)
    b = rng.normal(0, 1.5, items)
    out = np.empty((items, models))
    for start in range(0, items, 2000):
        p = 1 / (1 + np.exp(-(theta[None, :] - b[start : start + 2000, None])))
        out[start : start + 2000] = rng.random(p.shape) < p
    names = [f"org-{k % 97:02d}/model-{k:05d}-instruct" for k in range(models)]
    return pd.DataFrame(out, index=[f"item-{k:06d}" for k in range(items)], columns=names)


def stage_similarity(args) -> None:
    from rederive.studies.benchmark import similarity
    from rederive.studies.benchmark.common import write_csv

    t = time.perf_counter()
    matrix = rasch_matrix(args.models, args.items)
    items = pd.DataFrame({"item_key": matrix.index, "category": "c"})
    print(f"generate: {time.perf_counter() - t:.1f} s", flush=True)
    t, c = time.perf_counter(), time.process_time()
    result = similarity.analyse(
        matrix,
        items,
        linkage="average",
        n_extreme_pairs=5,
        top_k=TOP_K,
        optimal_ordering_up_to=1000,
    )
    print(f"analyse: wall {time.perf_counter() - t:.1f} s, cpu {time.process_time() - c:.1f} s")
    out = Path(args.out) / "tables"
    for name in ("jaccard", "co_failure", "linkage", "leaves", "extreme_pairs", "failed_by_all"):
        write_csv(result[name], out / f"{name}.csv")
    accuracy = matrix.mean().rename("accuracy").rename_axis("model").reset_index()
    accuracy.to_csv(out / "mean_score.csv", index=False)
    print(f"total: wall {time.perf_counter() - t:.1f} s")


def stage_ordering(args) -> None:
    from scipy.cluster import hierarchy
    from scipy.spatial import distance

    rng = np.random.default_rng(1)
    for n in (500, 1000, 2000, 5000):
        fail = rng.random((n, 2000)) < 0.4
        condensed = distance.pdist(fail, "jaccard")
        t = time.perf_counter()
        z = hierarchy.linkage(condensed, "average")
        mid = time.perf_counter()
        hierarchy.optimal_leaf_ordering(z, condensed)
        end = time.perf_counter()
        print(f"{n} models: linkage {mid - t:.2f} s, optimal leaf ordering {end - mid:.1f} s")


def synthetic_tables(out: Path, models: list[str], n_items: int):
    rng = np.random.default_rng(2)
    n = len(models)
    mean = pd.read_csv(out / "tables" / "mean_score.csv").set_index("model")["accuracy"]
    acc = mean.reindex(models).to_numpy()
    accuracy = pd.DataFrame(
        {
            "model": models,
            "accuracy": acc,
            "accuracy_pct": (100 * acc).round(1),
            "ci_low_pct": (100 * acc - 0.6).round(1),
            "ci_high_pct": (100 * acc + 0.6).round(1),
        }
    )
    ranked = list(accuracy.sort_values(["accuracy", "model"], ascending=[False, True])["model"])
    ranking = pd.DataFrame({"model": ranked, "rank": [str(k + 1) for k in range(n)]})
    pairs = sorted(
        {(ranked[0], b) for b in ranked[1:]} | set(zip(ranked, ranked[1:], strict=False))
    )
    pairwise = pd.DataFrame(
        {
            "a": [a for a, _ in pairs],
            "b": [b for _, b in pairs],
            "diff_pct": rng.normal(0, 2, len(pairs)).round(1),
            "significant": rng.random(len(pairs)) < 0.3,
        }
    )
    ability = pd.DataFrame(
        {
            "model": models,
            "ability_ml": np.log(acc / (1 - acc)),
            "ability_pyirt": np.log(acc / (1 - acc)) * 0.98,
        }
    )
    ability["ci_low"] = ability["ability_ml"] - 0.03
    ability["ci_high"] = ability["ability_ml"] + 0.03
    difficulty = pd.DataFrame(
        {
            "item_key": [f"item-{k:06d}" for k in range(n_items)],
            "category": [f"category {k % 9}" for k in range(n_items)],
            "difficulty_spread": rng.normal(0, 1.5, n_items),
            "extreme": "",
        }
    )
    return accuracy, ranking, pairwise, ability, difficulty


def stage_figures(args) -> None:
    from rederive.plots.theme import apply_theme
    from rederive.studies.benchmark import figures

    out = Path(args.out)
    tables = out / "tables"
    leaves = pd.read_csv(tables / "leaves.csv")
    accuracy, ranking, pairwise, ability, difficulty = synthetic_tables(
        out, list(leaves["model"]), args.items
    )
    for name, frame in [
        ("accuracy", accuracy),
        ("ranking", ranking),
        ("pairwise", pairwise),
        ("irt_ability", ability),
        ("irt_difficulty", difficulty),
    ]:
        frame.to_csv(tables / f"{name}.csv", index=False)
    apply_theme()
    fig = out / "figures"

    def paths(name):
        return fig / f"{name}.png", fig / f"{name}.pdf"

    note = "Simulated data (bench/figures_scale.py)"
    steps = [
        (
            "accuracy",
            lambda: figures.plot_accuracy(accuracy, ranking, note, *paths("accuracy"), TOP_K),
        ),
        (
            "pairwise_q",
            lambda: figures.plot_pairwise(
                accuracy, pairwise, 0.05, note, *paths("pairwise_q"), TOP_K
            ),
        ),
        (
            "irt_difficulty",
            lambda: figures.plot_difficulty(difficulty, note, *paths("irt_difficulty")),
        ),
        (
            "irt_ability",
            lambda: figures.plot_ability(ability, accuracy, note, *paths("irt_ability"), TOP_K),
        ),
        (
            "failure_dendrogram",
            lambda: figures.plot_dendrogram(
                pd.read_csv(tables / "jaccard.csv"),
                pd.read_csv(tables / "linkage.csv"),
                note,
                *paths("failure_dendrogram"),
                leaves=leaves,
            ),
        ),
    ]
    for name, step in steps:
        t = time.perf_counter()
        step()
        png, pdf = paths(name)
        print(
            f"{name}: {time.perf_counter() - t:.1f} s, PNG {png.stat().st_size / 1e6:.2f} MB,"
            f" PDF {pdf.stat().st_size / 1e6:.2f} MB"
        )


def stage_items(args) -> None:
    from rederive.plots.items import plot_suspect_items
    from rederive.plots.theme import apply_theme

    rng = np.random.default_rng(3)
    n = args.items
    analysis = pd.DataFrame(
        {
            "item_key": [f"item-{k:06d}" for k in range(n)],
            "item_rest_r": rng.normal(0.3, 0.15, n),
            "outfit_mnsq": np.exp(rng.normal(0, 0.3, n)),
            "negative_discrimination": rng.random(n) < 0.03,
            "misfit": rng.random(n) < 0.05,
            "flips_across_epochs": False,
            "solved_by_none": False,
            "solved_by_all": False,
        }
    )
    suspects = analysis[analysis["misfit"]].head(300).assign(rank=lambda f: range(1, len(f) + 1))
    apply_theme()
    out = Path(args.out) / "figures"
    t = time.perf_counter()
    plot_suspect_items(
        analysis,
        suspects,
        item_column="item_key",
        thresholds={"discrimination_below": 0.0, "mnsq_above": 1.5},
        n_listed=25,
        note="Simulated",
        png=out / "suspect_items.png",
        pdf=out / "suspect_items.pdf",
    )
    pdf = out / "suspect_items.pdf"
    print(f"suspect_items: {time.perf_counter() - t:.1f} s, PDF {pdf.stat().st_size / 1e6:.2f} MB")


def stage_power(args) -> None:
    from rederive.plots.power import draw
    from rederive.plots.theme import save_figure

    rng = np.random.default_rng(4)
    n_cmp = 2 * args.models
    verdicts = np.array(["significant", "tie, adequately powered", "tie, underpowered"])
    power = pd.DataFrame(
        {
            "n_units": rng.integers(args.items // 2, args.items, n_cmp),
            "diff_pp": rng.normal(0, 3, n_cmp),
            "verdict": verdicts[rng.integers(0, 3, n_cmp)],
        }
    )
    grid = np.unique(np.geomspace(10, 10 * args.items, 40).astype(int))
    curve = pd.DataFrame(
        {
            "n": grid,
            "mde_bh_pp": 300 / np.sqrt(grid),
            "mde_bh_low_pp": 200 / np.sqrt(grid),
            "mde_bh_high_pp": 400 / np.sqrt(grid),
            "mde_pp": 250 / np.sqrt(grid),
            "study_n": args.items,
            "unit": "item",
            "relevant_pp": 2.0,
            "power": 0.8,
        }
    )
    out = Path(args.out) / "figures"
    t = time.perf_counter()
    save_figure(draw(power, curve, title="bench"), out / "power_mde.png", out / "power_mde.pdf")
    pdf = out / "power_mde.pdf"
    print(f"power_mde: {time.perf_counter() - t:.1f} s, PDF {pdf.stat().st_size / 1e6:.2f} MB")


def stage_site(args) -> None:
    from rederive.site.build import build_site

    root = Path(args.out)
    work = root / "site-input"
    results = work / "results" / "big"
    results.mkdir(parents=True, exist_ok=True)
    outputs = []
    for sub in ("tables", "figures"):
        (results / sub).mkdir(exist_ok=True)
        for path in sorted((root / sub).iterdir()):
            target = results / sub / path.name
            target.write_bytes(path.read_bytes())
            outputs.append(target.as_posix())
    prov = work / "provenance.json"
    prov.write_text(json.dumps({"python": "3.11", "code": {"commit": "bench", "dirty": False}}))
    summary = work / "published_check.md"
    summary.write_text("# bench\n")
    reports = {p: {"caption": None, "subcategory": "Tables", "params": {}} for p in outputs}
    entry = {
        "name": "big",
        "kind": "benchmark",
        "label": "Big",
        "simulated": True,
        "data_note": "Simulated.",
        "outputs": outputs,
        "reports": reports,
    }
    site = root / "site"
    t = time.perf_counter()
    build_site(site, [entry], prov.as_posix(), [summary.as_posix()])
    size = sum(p.stat().st_size for p in site.rglob("*") if p.is_file())
    page = (site / "big" / "index.html").stat().st_size
    print(
        f"site: {time.perf_counter() - t:.1f} s, {size / 2**20:.1f} MiB in all,"
        f" page {page / 2**20:.2f} MiB"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "stage", choices=["similarity", "ordering", "figures", "items", "power", "site"]
    )
    parser.add_argument("--models", type=int, default=5000)
    parser.add_argument("--items", type=int, default=30000)
    parser.add_argument("--out", default="/tmp/figures-bench")
    args = parser.parse_args()
    Path(args.out, "tables").mkdir(parents=True, exist_ok=True)
    Path(args.out, "figures").mkdir(parents=True, exist_ok=True)
    globals()[f"stage_{args.stage}"](args)


if __name__ == "__main__":
    main()
