"""Accounting reconciles, item-set problems are named early, and the published
check says what it compares and rounds like the tables.

Identity checked on every fixture and format, under both ``item_sets`` settings:
for each run, rows read = rows used by the analysis + rows of each excluded reason
(including the scores ``intersection`` drops), and the used rows are exactly the
rows behind the analysed scores.
"""

import csv
import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from benchmark_formats import chembench_slice, write_inspect, write_lm_eval, write_matrix

from rederive.errors import InputError
from rederive.studies.benchmark.check import checks, comparison_statement, own_item_accuracy
from rederive.studies.benchmark.ingest import ingest
from rederive.studies.benchmark.quality import data_quality
from rederive.studies.benchmark.sources import discover
from rederive.studies.benchmark.warehouse import build_tables

MODELS = ["o1", "GPT-4o", "Claude-3.5 (Sonnet)", "Gemma-1.1-7B-it"]
READERS = {"lm_eval": {"filter": None, "metrics": ["acc", "exact_match"]}, "inspect": {}}
REAL_LM_EVAL = Path(__file__).parent / "fixtures" / "lm_eval" / "out"


def _long_csv(path: Path, frame: pd.DataFrame, *, blank: tuple[str, str] | None = None):
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["model", "task", "item_id", "correct"])
        for row in frame.itertuples(index=False):
            value = "" if blank == (row.model, row.item_id) else int(row.correct)
            writer.writerow([row.model, row.task, row.item_id, value])


def _fixture(kind: str, raw: Path) -> None:
    """One raw folder per case; ``*_gap`` cases leave a model without some items."""
    data = chembench_slice(12, MODELS)
    if kind == "matrix":
        write_matrix(raw / "matrix" / "slice.csv", data)
    elif kind == "matrix_gap":
        gap = data[~((data["model"] == "o1") & data["item_id"].isin(["2", "7"]))]
        write_matrix(raw / "matrix" / "slice.csv", gap)  # blank cells
    elif kind == "long":
        _long_csv(raw / "long" / "a.csv", data[data["model"].isin(MODELS[:2])])
        _long_csv(raw / "long" / "b.csv", data[data["model"].isin(MODELS[2:])])
    elif kind == "long_gap":
        _long_csv(raw / "long" / "a.csv", data, blank=("GPT-4o", "3"))  # missing score
    elif kind == "lm_eval_gap":
        write_lm_eval(raw / "lm_eval", data[~((data["model"] == "o1") & (data["item_id"] == "5"))])
    elif kind == "inspect_gap":
        for model in MODELS[:2]:
            errors = (("4", 1),) if model == "o1" else ()
            write_inspect(raw / "inspect" / f"{model}.eval", data, model=model, errors=errors)
    elif kind == "mixed":
        write_lm_eval(raw / "lm_eval", data[data["model"].isin(MODELS[:2])])
        for model in MODELS[2:]:
            write_inspect(raw / "inspect" / f"{model}.eval", data, model=model)
    elif kind == "real_lm_eval":
        shutil.copytree(REAL_LM_EVAL, raw / "lm_eval")
    else:
        raise ValueError(kind)


def _ingest_all(raw: Path, tmp: Path):
    frames, paths = [], []
    for run_id, source in discover(raw).items():
        frame, accounting = ingest(run_id, source.format, source.path, source.files(), READERS)
        path = tmp / f"{run_id}.json"
        accounting.write(path)
        frames.append(frame)
        paths.append(path)
    return pd.concat(frames, ignore_index=True), paths


CASES = ["matrix", "matrix_gap", "long", "long_gap", "lm_eval_gap", "inspect_gap", "mixed"]


@pytest.mark.parametrize("policy", ["require_equal", "intersection"])
@pytest.mark.parametrize("kind", [*CASES, "real_lm_eval"])
def test_rows_read_equal_used_plus_each_exclusion(tmp_path, kind, policy):
    raw = tmp_path / "raw"
    _fixture(kind, raw)
    responses, paths = _ingest_all(raw, tmp_path)
    try:
        tables = build_tables(responses, None, policy)
    except InputError as error:
        # Different item sets are refused unless intersection; nothing else may fail.
        assert policy == "require_equal" and "not graded on the same items" in error.message
        return
    quality = data_quality(paths, tables["dropped"])
    for run_id, rows in quality.groupby("run"):
        read = json.loads((tmp_path / f"{run_id}.json").read_text())["rows_read"]
        assert rows["rows_read"].eq(read).all()
        assert rows["rows"].sum() == read, f"{kind}/{policy}/{run_id}: {rows.to_dict('records')}"
    used = quality.loc[quality["reason"] == "used", "rows"].sum()
    kept = tables["responses"]["item_key"].isin(set(tables["scores"]["item_key"]))
    assert used == kept.sum() == tables["scores"]["n_rows"].sum()
    if kind.endswith("_gap") and policy == "intersection":
        assert quality["reason"].str.startswith("item not graded for every model").any()


def _mmlu_pro_like(folder: Path, *, with_task: bool, n_items: int = 120) -> list[str]:
    """MMLU-Pro's public outputs, scaled down: one file per model, the same question ids."""
    models = ["gpt-4o", "llama-3-8b", "qwen2-7b", "phi-3"]
    folder.mkdir(parents=True)
    for k, model in enumerate(models):
        with (folder / f"{model}.csv").open("w", newline="") as handle:
            writer = csv.writer(handle, lineterminator="\n")
            writer.writerow(["model", "item_id", "correct", "category"] + (["task"] * with_task))
            for i in range(n_items):
                if model == "phi-3" and i % 10 == 0:
                    continue  # a model that skipped some questions
                row = [model, i, int((i * 7 + k) % 5 < 3), ["math", "law"][i % 2]]
                writer.writerow(row + (["mmlu_pro"] * with_task))
    return models


def test_long_files_without_task_are_refused_with_the_cause(tmp_path):
    models = _mmlu_pro_like(tmp_path / "raw" / "long", with_task=False)
    responses, _ = _ingest_all(tmp_path / "raw", tmp_path)
    for policy in ("require_equal", "intersection"):
        with pytest.raises(InputError) as info:
            build_tables(responses, None, policy)
        message = info.value.message
        assert info.value.field == "task"
        assert "4 long files have no 'task' column" in message
        assert all(f"{m}.csv: {m} (" in message for m in models)
        assert "phi-3 (108 items, task 'phi-3')" in message and "120 items" in message
        assert "Add a 'task' column" in message


def test_long_files_with_task_align_and_name_the_gap(tmp_path):
    _mmlu_pro_like(tmp_path / "raw" / "long", with_task=True)
    responses, paths = _ingest_all(tmp_path / "raw", tmp_path)
    with pytest.raises(InputError) as info:
        build_tables(responses, None, "require_equal")
    assert "108 of 120 items are shared" in info.value.message
    assert "phi-3: 12 missing" in info.value.message
    tables = build_tables(responses, None, "intersection")
    quality = data_quality(paths, tables["dropped"])
    used = quality[quality["reason"] == "used"].set_index("run")["rows"]
    assert used.to_dict() == {
        f"long-{m}.csv": 108 for m in ["gpt-4o", "llama-3-8b", "phi-3", "qwen2-7b"]
    }


def test_separate_benchmarks_in_files_without_task_are_not_refused(tmp_path):
    # The same models in each file: two benchmarks, one per file, is legitimate.
    data = chembench_slice(6, MODELS[:2])
    for name in ("bench_a", "bench_b"):
        path = tmp_path / "raw" / "long" / f"{name}.csv"
        path.parent.mkdir(parents=True, exist_ok=True)
        data[["model", "item_id", "correct"]].to_csv(path, index=False)
    responses, _ = _ingest_all(tmp_path / "raw", tmp_path)
    assert set(build_tables(responses, None, "require_equal")["items"]["task"]) == {
        "bench_a",
        "bench_b",
    }


def _accuracy_table(tables) -> pd.DataFrame:
    from rederive.studies.benchmark.accuracy import overall

    items = tables["items"]
    matrix = tables["scores"].pivot(index="item_key", columns="model", values="score")
    matrix = matrix.reindex(index=items["item_key"], columns=sorted(matrix.columns))
    return overall(matrix, items, n_boot=200, seed=1, level=0.95, cluster_by="none")


def _quiz(tmp_path, with_c: bool):
    rows = []
    for i in range(80):
        rows += [("A", i, int(i < 23)), ("B", i, int(i % 2 == 0))]
        if with_c and i < 50:
            rows.append(("C", i, int(i % 3 == 0)))
    frame = pd.DataFrame(rows, columns=["model", "item_id", "correct"]).assign(task="quiz")
    frame["item_id"] = frame["item_id"].astype(str)
    _long_csv(tmp_path / "raw" / "long" / "quiz.csv", frame)
    responses, _ = _ingest_all(tmp_path / "raw", tmp_path)
    return responses


def test_23_of_80_rounds_to_28_8_in_table_and_check(tmp_path):
    tables = build_tables(_quiz(tmp_path, with_c=False), None, "require_equal")
    accuracy = _accuracy_table(tables)
    row = accuracy.set_index("model").loc["A"]
    assert (row["n_correct"], row["n_items"], row["accuracy_pct"]) == (23, 80, 28.8)
    # Our percent column against our fraction column: an internal check, not a reproduction.
    identities = [c for c in checks({}, accuracy, 1e-9) if c.kind == "internal"]
    assert {c.item: (c.published, c.ours, c.status) for c in identities}["A"] == (
        28.8,
        28.8,
        "pass",
    )


def test_intersection_checks_own_items_and_lists_unpublished_models(tmp_path):
    responses = _quiz(tmp_path, with_c=True)
    tables = build_tables(responses, None, "intersection")
    accuracy = _accuracy_table(tables)
    assert accuracy.set_index("model")["n_items"].eq(50).all()
    own = own_item_accuracy(tables["responses"])
    published = {"harness": pd.DataFrame({"model": ["A", "B"], "accuracy": [23 / 80, 40 / 80]})}
    found = {c.item: c for c in checks(published, accuracy, 1e-9, own) if c.kind == "cell"}
    assert found["A"].status == "pass" and found["A"].ours == pytest.approx(23 / 80)
    assert "all 80 items the model answered" in found["A"].note and "50 shared" in found["A"].note
    assert found["B"].status == "pass"
    assert (found["C"].published, found["C"].status) == (None, "n/a")
    assert found["C"].note == "no published value for this model"
    text = comparison_statement(accuracy, own, [tmp_path / "harness.csv"])
    assert "only the 50 items every model answered; 2 model(s) answered more" in text
