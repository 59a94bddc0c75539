"""Recall and precision of the item-analysis flags on planted faulty items.

Each draw is a seeded Rasch matrix of the ChemBench shape (22 models, ability SD
1.0, difficulty SD 1.3 logits) with 3% mis-keyed items (outcome inverted for 80%
of the models) and 3% random items (pass probability unrelated to ability), from
``rederive.simulate.faulty_items``; the flags are those of
``rederive.stats.items.item_analysis`` at the default thresholds
(``config/kinds/benchmark.yaml``, ``item_analysis``). Prints, per flag, the mean
and range over the draws of the recall of each planted kind and the precision
(share of flagged items that were planted). ``tests/stats/test_items.py`` asserts
minimums on one draw.

Usage::

    .venv/bin/python bench/item_analysis.py [--draws 20] [--items 2000] [--models 22]
"""

import argparse

import pandas as pd

from rederive.simulate.faulty_items import detection, faulty_matrix
from rederive.stats.items import item_analysis

SEED = 20250107


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=20)
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--models", type=int, default=22)
    parser.add_argument("--invert-share", type=float, default=0.8)
    args = parser.parse_args(argv)
    rows = []
    for draw in range(args.draws):
        y, truth = faulty_matrix(
            n_models=args.models,
            n_items=args.items,
            invert_share=args.invert_share,
            seed=SEED + draw,
        )
        rows.append(detection(item_analysis(y), truth).assign(draw=draw))
    table = pd.concat(rows, ignore_index=True)
    summary = table.groupby("flag", sort=False)[
        ["n_flagged", "precision", "recall_miskeyed", "recall_random"]
    ].agg(["mean", "min", "max"])
    print(
        f"{args.draws} draws, {args.models} models x {args.items} items, 3% mis-keyed "
        f"(inverted for {args.invert_share:.0%} of models) + 3% random, default thresholds"
    )
    summary.columns = [f"{a}_{b}" for a, b in summary.columns]
    print(summary.T.round(3).to_string())


if __name__ == "__main__":
    main()
