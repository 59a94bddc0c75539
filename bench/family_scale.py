"""Time one benchmark analysis step on a synthetic leaderboard-sized score matrix.

A seeded Rasch draw (abilities N(0, 1.5²), difficulties N(0, 1)) of ``--items`` ×
``--models`` 0/1 scores in float64, split into ``--tasks`` equal tasks, then one
step of issue 24's item 3 timed on it (wall and CPU of the step alone; run it
under ``/usr/bin/time -v`` for the peak RSS of the process):

* ``accuracy``: :func:`rederive.studies.benchmark.accuracy.accuracy_frame`, all items;
* ``by_task``: :func:`rederive.studies.benchmark.accuracy.by_task`;
* ``pairwise``: :func:`rederive.studies.benchmark.pairwise.pairwise` over the
  comparison family (``--all-pairs-up-to``, ``--neighbours``) and the ranking;
* ``power``: :func:`rederive.studies.benchmark.power.power_table` on that family;
* ``noise``: the per-model and per-pair parts of
  :func:`rederive.stats.noise.noise_table` from the item matrices (one epoch),
  pairs = the family.

Example (bench/README.md, issue 24)::

    flock /tmp/rederive-big.lock /usr/bin/time -v \\
        .venv/bin/python bench/family_scale.py pairwise --items 30000 --models 5000
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np
import pandas as pd

STEPS = ("accuracy", "by_task", "pairwise", "power", "noise")


def rasch(n_items: int, n_models: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    ability = rng.normal(0, 1.5, n_models)
    difficulty = rng.normal(0, 1, n_items)
    scores = np.empty((n_items, n_models))
    for start in range(0, n_items, 1000):  # row blocks keep the draw at one matrix
        d = difficulty[start : start + 1000, None]
        p = 1 / (1 + np.exp(d - ability[None, :]))
        scores[start : start + 1000] = rng.random(p.shape) < p
    return pd.DataFrame(
        scores,
        index=[f"i{i:05d}" for i in range(n_items)],
        columns=[f"m{j:04d}" for j in range(n_models)],
    )


def family_pairs(matrix: pd.DataFrame, args):
    from rederive.studies.benchmark.pairwise import pairwise

    return pairwise(
        matrix,
        None,
        n_boot=args.n_boot,
        seed=1,
        fdr_q=0.05,
        all_pairs_up_to=args.all_pairs_up_to,
        neighbours=args.neighbours,
    )


def run_step(step: str, matrix: pd.DataFrame, items: pd.DataFrame, args) -> str:
    from rederive.studies.benchmark import accuracy

    kwargs = dict(n_boot=args.n_boot, seed=1, level=0.95, cluster_by="none")
    if step == "accuracy":
        frame = accuracy.accuracy_frame(matrix, None, key="accuracy", **kwargs)
        return f"{len(frame)} rows"
    if step == "by_task":
        tasks = pd.DataFrame({"task": sorted(items["task"].unique()), "metric": "acc"})
        frame = accuracy.by_task(matrix, items, tasks, **kwargs)
        return f"{len(frame)} rows"
    if step == "pairwise":
        from rederive.studies.benchmark.pairwise import ranking

        pairs = family_pairs(matrix, args)
        acc = matrix.mean()
        table = pd.DataFrame(
            {"model": acc.index, "accuracy": acc.to_numpy(), "accuracy_pct": 100 * acc.to_numpy()}
        ).assign(ci_low_pct=0.0, ci_high_pct=0.0)
        table = table.sort_values(["accuracy", "model"], ascending=[False, True])
        rank = ranking(table.reset_index(drop=True), pairs)
        return (
            f"{len(pairs)} pairs, {int(pairs['significant'].sum())} significant, {len(rank)} ranked"
        )
    raise ValueError(step)


def timed_after_pairs(step: str, matrix: pd.DataFrame, items: pd.DataFrame, args) -> str:
    """``power`` and ``noise`` read the family from pairwise.csv: made first, not timed."""
    pairs = family_pairs(matrix, args)
    start, cpu = time.perf_counter(), time.process_time()
    if step == "power":
        from rederive.studies.benchmark.power import power_table

        table = power_table(
            matrix,
            items,
            pairs,
            cluster_by="none",
            alpha=0.05,
            power=0.8,
            fdr_q=0.05,
            relevant_pp=2.0,
        )
        what = f"{len(table)} rows"
    else:
        from rederive.stats.noise import ItemMatrices, _model_components, _pair_components

        names = [str(m) for m in matrix.columns]
        values = matrix.to_numpy().T.copy()
        del matrix
        mats = ItemMatrices(
            names,
            values,
            np.full(values.shape, np.nan),
            np.ones(values.shape, dtype=np.int64),
            np.ones(values.shape, dtype=bool),
        )
        index = {m: j for j, m in enumerate(mats.models)}
        models = [_model_components(mats, j) for j in range(values.shape[0])]
        pair_rows = [
            _pair_components(mats, index[a], index[b])
            for a, b in zip(pairs["a"], pairs["b"], strict=True)
        ]
        what = f"{len(models)} model rows, {len(pair_rows)} pair rows"
    return what, time.perf_counter() - start, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("step", choices=STEPS)
    parser.add_argument("--items", type=int, default=30000)
    parser.add_argument("--models", type=int, default=5000)
    parser.add_argument("--tasks", type=int, default=6)
    parser.add_argument("--n-boot", type=int, default=2000)
    parser.add_argument("--all-pairs-up-to", type=int, default=200)
    parser.add_argument("--neighbours", type=int, default=2)
    parser.add_argument("--seed", type=int, default=24)
    args = parser.parse_args()
    matrix = rasch(args.items, args.models, args.seed)
    items = pd.DataFrame(
        {
            "item_key": matrix.index,
            "task": [f"t{i * args.tasks // args.items}" for i in range(args.items)],
        }
    )
    if args.step in ("power", "noise"):
        what, wall, cpu = timed_after_pairs(args.step, matrix, items, args)
    else:
        start, cpu0 = time.perf_counter(), time.process_time()
        what = run_step(args.step, matrix, items, args)
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    print(
        f"{args.step}: {args.items} x {args.models}, B = {args.n_boot}: {what}; "
        f"wall {wall:.1f} s, CPU {cpu:.1f} s, peak RSS so far {peak:.2f} GiB"
    )


if __name__ == "__main__":
    main()
