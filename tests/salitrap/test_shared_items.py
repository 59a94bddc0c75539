"""Small or partial runs never shape other models' numbers.

The two cases of the audit, in process: a model with one row, and one partial
run (300 of 1,145 items) beside complete ones. By default (``shared_items:
exclude_partial``) the complete models' failure sets, Table 5 and IRT
difficulties are *equal* to those computed without the short run, which is
named in the Table 5 note, listed in ``shared_items.csv`` and counted in
``data_quality.csv``; ``intersection`` is the old shrink, ``refuse`` an error
with the counts.
"""

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from rederive.errors import InputError
from rederive.io import warehouse
from rederive.io.shared_quality import REASON
from rederive.stats.shared_items import decide
from rederive.studies.salitrap import failure_sets, irt_fit
from rederive.studies.salitrap.metrics import METRICS
from rederive.studies.salitrap.tables import shared_items_quality

N_ITEMS = 1145
LABELS = ["Strict Pass", "Hard Fail", "Sycophantic Compliance", "CoT Hijacked"]
FAILURE_OUTPUTS = ["pairs", "table5", "failed_by_all", "linkage", "order"]


def items_frame(n_items: int) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "item_id": [f"i{k:04d}" for k in range(n_items)],
            "seed_id": [f"s{k // 3:04d}" for k in range(n_items)],
            "dimension": np.where(np.arange(n_items) % 2, "d1", "d2"),
            "n_injected": np.arange(n_items) % 12 + 1,
            "naturalness": np.arange(n_items) % 5 + 1.0,
        }
    )


def label_rows(n_models: int, n_items: int, seed: int = 7) -> pd.DataFrame:
    """Control labels of ``n_models`` complete models, each with its own pass rate."""
    rng = np.random.default_rng(seed)
    items = items_frame(n_items)
    rows = []
    for k in range(n_models):
        p_pass = 0.25 + 0.5 * k / max(n_models - 1, 1)
        passed = rng.random(n_items) < p_pass
        fail = rng.choice(LABELS[1:], n_items)
        for item, ok, f in zip(items.itertuples(index=False), passed, fail, strict=True):
            rows.append((f"M{k:02d}", f"M{k:02d}", item.item_id, item.seed_id, item.dimension,
                         "Strict Pass" if ok else f))  # fmt: skip
    return pd.DataFrame(rows, columns=["run", "model", "item_id", "seed_id", "dimension", "label"])


def with_short_run(labels: pd.DataFrame, model: str, n_answered: int) -> pd.DataFrame:
    """``labels`` plus ``model`` answering only the first ``n_answered`` items."""
    first = labels[labels["model"] == labels["model"].iloc[0]].head(n_answered)
    short = first.assign(run=model, model=model, label="Strict Pass")
    return pd.concat([labels, short], ignore_index=True)


def write_warehouse(path: Path, labels: pd.DataFrame, n_items: int) -> str:
    labels = labels.assign(condition="control", model_id=labels["model"])
    warehouse.build(path, {"items": items_frame(n_items), "labels": labels})
    return str(path)


def params(**extra) -> dict:
    return {
        "simulated": False,
        "min_n": 20,
        "shared_items": "exclude_partial",
        "partial_share": 0.9,
        "metrics": {
            k: {"numerator": list(m.numerator), "denominator": m.denominator}
            for k, m in METRICS.items()
        },
        **extra,
    }


def run_failure_sets(db: str, out: Path, **extra) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    names = [*FAILURE_OUTPUTS, "shared_items"]
    files = {k: out / f"{k}.csv" for k in names} | {"table5_tex": out / "table5.tex"}
    failure_sets.main(
        SimpleNamespace(
            params=SimpleNamespace(**params(linkage="average", n_pairs=5, **extra)),
            input=SimpleNamespace(db=db),
            output=SimpleNamespace(**{k: str(v) for k, v in files.items()}),
        )
    )
    return files


def run_irt(db: str, out: Path, **extra) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    files = {k: out / f"{k}.csv" for k in ("item_params", "model_params", "by_dimension", "stats")}
    irt_fit.main(
        SimpleNamespace(
            params=SimpleNamespace(
                **params(
                    dimensions={"D1": "d1", "D2": "d2"},
                    epochs=30,
                    lr=0.1,
                    lr_decay=0.99,
                    tol=0.01,
                    priors="hierarchical",
                    seed=11,
                    n_boot=0,
                    warm_start=False,
                    warm_start_file=str(out / "warm.csv"),
                    level=0.95,
                    **extra,
                )
            ),
            input=SimpleNamespace(db=db),
            output=SimpleNamespace(**{k: str(v) for k, v in files.items()}),
        )
    )
    return files


def same_failure_sets(with_short: dict, without: dict) -> None:
    """Every failure-set CSV byte-equal to the one computed without the short run."""
    for name in FAILURE_OUTPUTS:
        assert with_short[name].read_bytes() == without[name].read_bytes(), name


@pytest.fixture(scope="module")
def complete():
    return label_rows(12, N_ITEMS)


def test_one_row_model_does_not_shrink_the_failure_sets_of_the_others(complete, tmp_path):
    """Before: all 13 models' failure sets and Table 5 over the one shared item."""
    db = write_warehouse(tmp_path / "w.duckdb", with_short_run(complete, "Tiny", 1), N_ITEMS)
    base = write_warehouse(tmp_path / "base.duckdb", complete, N_ITEMS)
    ours = run_failure_sets(db, tmp_path / "ours")
    same_failure_sets(ours, run_failure_sets(base, tmp_path / "base"))
    assert pd.read_csv(ours["failed_by_all"])["n_items"].item() == N_ITEMS
    assert "Tiny" not in set(pd.read_csv(ours["order"])["model"])
    shared = pd.read_csv(ours["shared_items"]).set_index("model")
    assert not shared.loc["Tiny", "shared"] and shared.loc["Tiny", "small_n"]
    assert shared.drop(index="Tiny")["shared"].all()
    tex = ours["table5_tex"].read_text()
    assert "Models left out of the shared item set: Tiny (1 item; small" in tex
    # The old behaviour, on request: 13 models over the one shared item.
    old = run_failure_sets(db, tmp_path / "old", shared_items="intersection")
    assert pd.read_csv(old["failed_by_all"])["n_items"].item() == 1
    assert "left out" not in old["table5_tex"].read_text()


def test_partial_run_does_not_shrink_the_failure_sets_or_irt_of_the_others(tmp_path):
    """Before: 300 of 1,145 items for every model's failure set and Table 5."""
    complete = label_rows(12, N_ITEMS)
    labels = with_short_run(complete, "Partial", 300)
    db = write_warehouse(tmp_path / "w.duckdb", labels, N_ITEMS)
    base = write_warehouse(tmp_path / "base.duckdb", complete, N_ITEMS)
    ours = run_failure_sets(db, tmp_path / "ours")
    same_failure_sets(ours, run_failure_sets(base, tmp_path / "base"))
    shared = pd.read_csv(ours["shared_items"]).set_index("model")
    assert shared.loc["Partial", "partial"] and not shared.loc["Partial", "small_n"]
    assert shared.loc["Partial", "coverage_percent"] == 26.2  # 300 / 1145
    assert (
        "Models left out of the shared item set: Partial (300 items; partial: 300 of the "
        "1,145 reference items, fewer than 90\\%)."
    ) in ours["table5_tex"].read_text()
    old = run_failure_sets(db, tmp_path / "old", shared_items="intersection")
    assert pd.read_csv(old["failed_by_all"])["n_items"].item() == 300


def test_partial_run_leaves_the_irt_difficulties_equal(tmp_path):
    n_items = 120
    complete = label_rows(6, n_items, seed=3)
    db = write_warehouse(tmp_path / "w.duckdb", with_short_run(complete, "Partial", 30), n_items)
    base = write_warehouse(tmp_path / "base.duckdb", complete, n_items)
    ours, without = run_irt(db, tmp_path / "ours"), run_irt(base, tmp_path / "base")
    assert ours["item_params"].read_bytes() == without["item_params"].read_bytes()
    models = pd.read_csv(ours["model_params"]).set_index("model")
    reference = pd.read_csv(without["model_params"]).set_index("model")
    # Equal values (rank reads back as float beside the partial model's empty one).
    pd.testing.assert_frame_equal(
        models.drop(index="Partial"), reference, check_dtype=False, check_exact=True
    )
    partial = models.loc["Partial"]
    assert np.isnan(partial["ability"]) and pd.isna(partial["rank"])
    assert partial["answered"] == 30 and partial["passes"] == 30
    assert partial["ability_note"].startswith("left out of the shared item set, not in the fit")
    # With the old intersection the partial model is in the fit and moves the difficulties.
    old = run_irt(db, tmp_path / "old", shared_items="intersection")
    assert old["item_params"].read_bytes() != without["item_params"].read_bytes()


def test_data_quality_counts_the_rows_of_the_model_left_out(complete, tmp_path):
    labels = with_short_run(complete, "Partial", 300)
    db = write_warehouse(tmp_path / "w.duckdb", labels, N_ITEMS)
    quality = pd.DataFrame(
        {
            "study": "salitrap",
            "run": ["M00", "Partial", "Partial"],
            "file": ["runs/M00.jsonl", "runs/Partial.jsonl", "runs/Partial.jsonl"],
            "sha256": "x",
            "rows_read": [N_ITEMS, 302, 302],
            "reason": ["used", "judge_error", "used"],
            "rows": [N_ITEMS, 2, 300],
            "example_lines": ["", "4", ""],
        }
    )
    matrix = labels.pivot(index="item_id", columns="model", values="label")
    out = shared_items_quality(
        db, quality, matrix, min_n=20, partial_share=0.9, mode="exclude_partial"
    )
    rows = out[out["run"] == "Partial"].set_index("reason")["rows"]
    left = [r for r in rows.index if r.startswith(REASON)]
    assert len(left) == 1 and left[0].endswith("[Partial]") and "300 of the 1,145" in left[0]
    assert rows[left[0]] == 300 and rows["used"] == 0 and rows["judge_error"] == 2
    assert out.groupby("run")["rows"].sum().to_dict() == {"M00": N_ITEMS, "Partial": 302}
    # Nothing left out: the very same table.
    same = shared_items_quality(
        db, quality, matrix, min_n=20, partial_share=0.9, mode="intersection"
    )
    assert same is quality


def test_refuse_is_an_input_error_with_the_counts(complete, tmp_path):
    db = write_warehouse(tmp_path / "w.duckdb", with_short_run(complete, "Partial", 300), N_ITEMS)
    with pytest.raises(InputError) as err:
        run_failure_sets(db, tmp_path / "r", shared_items="refuse")
    message = str(err.value)  # the runner prints it as "rederive: input error in rule ..."
    assert "Partial: partial: 300 of the 1,145 reference items" in message
    assert "the items every model answered are 300, without them 1,145" in message
    assert "shared_items: exclude_partial" in message


@pytest.mark.parametrize(
    ("counts", "kept"),
    [
        # twelve complete runs and two cut off at the same item: both are partial
        ({**{f"M{k}": 100 for k in range(12)}, "P1": 30, "P2": 30}, [f"M{k}" for k in range(12)]),
        # scattered invalid rows (95 of 100) are not a partial run
        ({"A": 100, "B": 95, "C": 97}, ["A", "B", "C"]),
        # two models: no majority but the pair, nobody is singled out
        ({"A": 100, "B": 30}, ["A", "B"]),
        # every model small: they stay in, equally small
        ({"A": 5, "B": 5}, ["A", "B"]),
    ],
)
def test_partial_definition(counts, kept):
    answered = pd.DataFrame({m: np.arange(100) < n for m, n in counts.items()})
    assert decide(answered, min_n=20, partial_share=0.9).kept == kept


def test_an_over_complete_model_does_not_make_the_others_partial():
    # One model ran 50 extra items nobody else has: the others are still complete.
    answered = pd.DataFrame(
        {"Big": np.ones(150, bool), **{m: np.arange(150) < 100 for m in ("A", "B", "C")}}
    )
    decision = decide(answered, min_n=20, partial_share=0.9)
    assert decision.kept == ["Big", "A", "B", "C"] and decision.note() == ""
