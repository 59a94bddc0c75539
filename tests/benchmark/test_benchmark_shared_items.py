"""Under ``item_sets: intersection`` a small or partial run never shapes the other
models' numbers: by default (``shared_items: exclude_partial``)
it is left out of the shared item set, so the complete models' scores, failure
clustering and IRT difficulties are *equal* to those computed without it; its
rows are counted in data_quality.csv and it is named in the notes."""

import csv

import pandas as pd
import pytest
from benchmark_formats import chembench_slice

from rederive.errors import InputError
from rederive.io import warehouse
from rederive.io.shared_quality import REASON
from rederive.stats.shared_items import from_frame
from rederive.studies.benchmark import irt, similarity
from rederive.studies.benchmark.common import left_out_note, load_scores
from rederive.studies.benchmark.ingest import ingest
from rederive.studies.benchmark.quality import data_quality
from rederive.studies.benchmark.sources import discover
from rederive.studies.benchmark.warehouse import build_tables

COMPLETE = ["o1", "GPT-4o", "Claude-3.5 (Sonnet)", "Gemma-1.1-7B-it"]
SHORT = "Galatica-120b"
N_ITEMS = 120
SHARED = {"min_n": 20, "partial_share": 0.9, "mode": "exclude_partial"}
READERS = {"lm_eval": {"filter": None, "metrics": ["acc"]}, "inspect": {}}


def _ingest(tmp_path, data: pd.DataFrame):
    """One long CSV per model (a run each), ingested as the workflow does."""
    raw = tmp_path / "raw"
    for model, rows in data.groupby("model", sort=True):
        path = raw / "long" / f"{model.replace(' ', '_').replace('(', '').replace(')', '')}.csv"
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("w", newline="") as handle:
            writer = csv.writer(handle, lineterminator="\n")
            writer.writerow(["model", "task", "item_id", "correct"])
            for row in rows.itertuples(index=False):
                writer.writerow([row.model, row.task, row.item_id, int(row.correct)])
    frames, paths = [], []
    for run_id, source in discover(raw).items():
        frame, accounting = ingest(run_id, source.format, source.path, source.files(), READERS)
        accounting.write(tmp_path / f"{run_id}.json")
        frames.append(frame)
        paths.append(tmp_path / f"{run_id}.json")
    return pd.concat(frames, ignore_index=True), paths


def _with_short(n_answered: int) -> pd.DataFrame:
    data = chembench_slice(N_ITEMS, [*COMPLETE, SHORT])
    short = (data["model"] == SHORT) & (data["item_id"].astype(int) >= n_answered)
    return data[~short].reset_index(drop=True)


def _db(path, tables) -> str:
    warehouse.build(path, tables)
    return str(path)


@pytest.fixture(scope="module")
def without(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("complete")
    data = chembench_slice(N_ITEMS, COMPLETE)
    responses, _ = _ingest(tmp, data)
    tables = build_tables(responses, None, "intersection", SHARED)
    return tables, _db(tmp / "w.duckdb", tables)


def _same_scores(tables, reference) -> None:
    for name in ("scores", "items", "tasks"):
        pd.testing.assert_frame_equal(tables[name], reference[name], check_exact=True)


@pytest.mark.parametrize("n_answered", [1, 30])
def test_short_run_leaves_the_complete_models_equal(tmp_path, without, n_answered):
    """1 item (small_n) and 30 of 120 (partial): before, every model shrank to them."""
    reference, reference_db = without
    responses, paths = _ingest(tmp_path, _with_short(n_answered))
    tables = build_tables(responses, None, "intersection", SHARED)
    _same_scores(tables, reference)
    db = _db(tmp_path / "w.duckdb", tables)
    ours, base = load_scores(db), load_scores(reference_db)
    pd.testing.assert_frame_equal(ours[0], base[0], check_exact=True)
    a = similarity.analyse(*ours, linkage="average", n_extreme_pairs=3)
    b = similarity.analyse(*base, linkage="average", n_extreme_pairs=3)
    for name in ("jaccard", "co_failure", "linkage", "extreme_pairs", "failed_by_all"):
        pd.testing.assert_frame_equal(a[name], b[name], check_exact=True)
    kwargs = dict(epochs=30, lr=0.1, priors="vague", seed=1, n_boot=20, level=0.95)
    ability_a, diff_a, _ = irt.fit(*ours, cluster_by="none", **kwargs)
    ability_b, diff_b, _ = irt.fit(*base, cluster_by="none", **kwargs)
    pd.testing.assert_frame_equal(diff_a, diff_b, check_exact=True)
    pd.testing.assert_frame_equal(ability_a, ability_b, check_exact=True)
    # Named and counted.
    shared = from_frame(tables["shared_items"]).table.set_index("model")
    assert not shared.loc[SHORT, "shared"] and shared.drop(index=SHORT)["shared"].all()
    assert shared.loc[SHORT, "small_n" if n_answered < 20 else "partial"]
    item = "item" if n_answered == 1 else "items"
    assert left_out_note(db).startswith(
        f"Models left out of the shared item set: {SHORT} ({n_answered} {item}; "
    )
    overlap = tables["overlap"].set_index("model")
    assert overlap.loc[SHORT, "n_dropped"] == n_answered
    assert (overlap["n_items_shared"] == N_ITEMS).all()
    out = shared[~shared["shared"]]
    left = dict(zip(out.index, out["reason"], strict=True))
    quality = data_quality(paths, tables["dropped"], left)
    short_run = quality[quality["reason"].str.endswith(f"[{SHORT}]")]
    assert len(short_run) == 1 and short_run["reason"].iloc[0].startswith(REASON)
    assert short_run["rows"].iloc[0] == n_answered
    runs = quality.groupby("run").agg(read=("rows_read", "first"), rows=("rows", "sum"))
    assert (runs["read"] == runs["rows"]).all()
    own = quality[quality["run"] == short_run["run"].iloc[0]].set_index("reason")["rows"]
    assert own.to_dict() == {short_run["reason"].iloc[0]: n_answered, "used": 0}


def test_old_intersection_shrinks_every_model(tmp_path):
    responses, _ = _ingest(tmp_path, _with_short(30))
    tables = build_tables(responses, None, "intersection", {**SHARED, "mode": "intersection"})
    assert tables["scores"].groupby("model")["item_key"].nunique().eq(30).all()
    assert from_frame(tables["shared_items"]).note() == ""


def test_refuse_names_the_model_and_the_counts(tmp_path):
    responses, _ = _ingest(tmp_path, _with_short(30))
    with pytest.raises(InputError) as err:
        build_tables(responses, None, "intersection", {**SHARED, "mode": "refuse"})
    message = err.value.message
    assert f"{SHORT}: partial: 30 of the 120 reference items, fewer than 90%" in message
    assert "the items every model answered are 30, without them 120" in message


def test_require_equal_still_refuses_first(tmp_path):
    responses, _ = _ingest(tmp_path, _with_short(30))
    with pytest.raises(InputError, match="not graded on the same items"):
        build_tables(responses, None, "require_equal", SHARED)
