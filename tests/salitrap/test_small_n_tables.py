"""Every SaliTrap table that reports a per-model number carries the small-n flag
(Tables 5-7, density, failure sets), from the one rule of Tables 1-2."""

from types import SimpleNamespace

import numpy as np
import pandas as pd

from rederive.io import warehouse
from rederive.studies.salitrap import density, failure_sets, interventions, liberation
from rederive.studies.salitrap.common import small_n_by_model
from rederive.studies.salitrap.metrics import METRICS

N_ITEMS = 60


def _warehouse(path):
    rng = np.random.default_rng(4)
    items = pd.DataFrame(
        {
            "item_id": [f"i{k:03d}" for k in range(N_ITEMS)],
            "seed_id": [f"s{k // 3}" for k in range(N_ITEMS)],
            "dimension": np.where(np.arange(N_ITEMS) % 2, "d1", "d2"),
            "n_injected": rng.integers(1, 13, N_ITEMS),
        }
    )
    choices = ["Strict Pass", "Hard Fail", "Sycophantic Compliance", "CoT Hijacked"]
    rows = []
    for model in ("Big", "Other"):
        for condition in ("control", "P1", "lib_A"):
            for item in items.itertuples(index=False):
                label = choices[rng.integers(len(choices))]
                rows.append((model, item.item_id, item.seed_id, item.dimension, condition, label))
    # Tiny: one control row (SC, so it enters Table 6) and its re-queries.
    first = items.iloc[0]
    for condition, label in (
        ("control", "Sycophantic Compliance"),
        ("P1", "Strict Pass"),
        ("lib_A", "Strict Pass"),
    ):
        rows.append(("Tiny", first.item_id, first.seed_id, first.dimension, condition, label))
    labels = pd.DataFrame(
        rows, columns=["model", "item_id", "seed_id", "dimension", "condition", "label"]
    )
    warehouse.build(path, {"items": items, "labels": labels})
    return items, labels


def _run(module, tmp_path, outputs, **params):
    out = {
        k: tmp_path / f"{module.__name__.rsplit('.', 1)[1]}_{k}.{'tex' if 'tex' in k else 'csv'}"
        for k in outputs
    }
    params = {
        "simulated": False,
        "min_n": 20,
        "bootstrap": {"n_boot": 50, "level": 0.95, "seed": 1},
        "dimensions": {"D1": "d1", "D2": "d2"},
        "metrics": {
            k: {"numerator": list(m.numerator), "denominator": m.denominator}
            for k, m in METRICS.items()
        },
        **params,
    }
    snakemake = SimpleNamespace(
        params=SimpleNamespace(**params),
        input=SimpleNamespace(db=str(tmp_path / "w.duckdb")),
        output=SimpleNamespace(**{k: str(v) for k, v in out.items()}),
    )
    module.main(snakemake)
    return {k: pd.read_csv(v) for k, v in out.items() if not k.endswith("tex")}


def test_small_n_by_model_counts_valid_control_rows():
    items = pd.DataFrame({"item_id": ["a", "b", "c"]})
    labels = pd.DataFrame(
        {
            "model": ["M", "M", "M", "T", "T", "U"],
            "item_id": ["a", "b", "c", "a", "zz", "a"],
            "condition": ["control"] * 5 + ["P1"],
            "label": ["Strict Pass", "Hard Fail", None, "Strict Pass", "Strict Pass", "x"],
        }
    )
    # M: 2 valid rows; T: 1 (zz is not an item); U: none under control.
    assert small_n_by_model(labels, items, 2) == {"M": False, "T": True, "U": True}


def test_tables_5_to_7_density_and_failure_sets_flag_the_one_row_model(tmp_path):
    _warehouse(tmp_path / "w.duckdb")
    t6 = _run(
        liberation,
        tmp_path,
        ["csv", "tex"],
        conditions={"lib_A": "A"},
        sc_label="Sycophantic Compliance",
        pass_labels=["Strict Pass"],
    )["csv"]
    t7 = _run(interventions, tmp_path, ["csv", "tex"], conditions=["P1"])["csv"]
    for table in (t6, t7):
        flags = table.groupby("model")["small_n"].agg(["all", "any"])
        assert flags.loc["Tiny", "all"] and not flags.loc[["Big", "Other"], "any"].any()
    dens = _run(density, tmp_path, ["rates", "slopes"], metric_names=["TAR"], low=3, high=10)
    overall = dens["slopes"].set_index("dimension").loc["overall"]
    assert overall["small_n_models"] == 1  # Tiny's one row is in the pooled slope
    assert dens["rates"]["small_n_models"].max() == 1
    assert dens["rates"]["small_n_models"].min() == 0  # bins Tiny has no row in
    fs = _run(
        failure_sets,
        tmp_path,
        ["pairs", "table5", "table5_tex", "failed_by_all", "linkage", "order", "shared_items"],
        linkage="average",
        n_pairs=1,
        # The old intersection keeps Tiny in (flagged); by default it is left out
        # of the shared item set (tests/salitrap/test_shared_items.py).
        shared_items="intersection",
        partial_share=0.9,
    )
    order = fs["order"].set_index("model")["small_n"]
    assert order.to_dict() == {"Big": False, "Other": False, "Tiny": True}
    pairs = fs["pairs"]
    tiny = (pairs["model_a"] == "Tiny") | (pairs["model_b"] == "Tiny")
    assert (pairs.loc[tiny, "small_n_a"] | pairs.loc[tiny, "small_n_b"]).all()
    assert not (pairs.loc[~tiny, "small_n_a"] | pairs.loc[~tiny, "small_n_b"]).any()
    assert {"small_n_a", "small_n_b"} <= set(fs["table5"].columns)
