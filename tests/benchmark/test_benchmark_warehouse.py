"""Comparability checks of the benchmark warehouse step (doc_hash, item sets, runs)."""

import pandas as pd
import pytest
from benchmark_formats import chembench_slice, write_inspect, write_lm_eval

from rederive.errors import InputError
from rederive.io import warehouse
from rederive.io.inspect_log import read_eval_log
from rederive.io.lm_eval import read_lm_eval_model_dir
from rederive.studies.benchmark.warehouse import build_tables, read_item_metadata


def _responses(frames_by_run):
    out = []
    for run, frame in frames_by_run.items():
        out.append(frame.assign(run=run, format="test"))
    return pd.concat(out, ignore_index=True)


def _lm_eval_runs(out):
    return {f"lm_eval-{p.name}": read_lm_eval_model_dir(p) for p in sorted(out.iterdir())}


def test_mismatched_doc_hash_is_refused(tmp_path):
    data = chembench_slice(12, ["o1", "GPT-4o"])
    out = write_lm_eval(tmp_path / "out", data, doc_variant={("GPT-4o", "5"): " (v2)"})
    with pytest.raises(InputError) as info:
        build_tables(_responses(_lm_eval_runs(out)), None, "require_equal")
    error = info.value
    assert error.field == "doc_hash" and "doc_id 5" in error.message
    assert "GPT-4o" in error.message and error.file.endswith(".jsonl") and error.line == 6


def test_missing_sample_is_refused_unless_intersection(tmp_path):
    data = chembench_slice(12, ["o1", "GPT-4o", "Galatica-120b"])
    data = data[~((data["model"] == "GPT-4o") & data["item_id"].isin(["3", "4"]))]
    out = write_lm_eval(tmp_path / "out", data)
    responses = _responses(_lm_eval_runs(out))
    with pytest.raises(InputError) as info:
        build_tables(responses, None, "require_equal")
    assert "10 of 12 items are shared" in info.value.message
    assert "GPT-4o: 2 missing" in info.value.message and "GPT-4o" in info.value.file
    tables = build_tables(responses, None, "intersection")
    assert tables["items"]["item_id"].tolist() == ["0", "1", "2", *map(str, range(5, 12))]
    overlap = tables["overlap"].set_index("model")["n_dropped"].to_dict()
    assert overlap == {"GPT-4o": 0, "Galatica-120b": 2, "o1": 2}
    assert tables["scores"].groupby("model").size().eq(10).all()


def test_one_model_in_two_runs_is_refused(tmp_path):
    data = chembench_slice(5, ["o1"])
    a = read_eval_log(write_inspect(tmp_path / "a.eval", data, model="o1"))
    b = read_eval_log(write_inspect(tmp_path / "b.eval", data, model="o1"))
    with pytest.raises(InputError, match="in several runs"):
        build_tables(_responses({"inspect-a": a, "inspect-b": b}), None, "require_equal")


def test_epochs_are_averaged_within_item(tmp_path):
    data = pd.DataFrame(
        {
            "model": ["m"] * 4 + ["n"] * 2,
            "task": "t",
            "item_id": ["1", "1", "1", "2", "1", "2"],
            "correct": [1.0, 0.0, 0.0, 1.0, 1.0, 0.0],
            "epoch": [1, 2, 3, 1, 1, 1],
            "category": None,
        }
    )
    frames = {
        f"inspect-{m}": read_eval_log(
            write_inspect(tmp_path / f"{m}.eval", data, model=m, task="t")
        )
        for m in "mn"
    }
    scores = build_tables(_responses(frames), None, "require_equal")["scores"]
    row = scores[(scores["model"] == "m") & (scores["item_key"] == "t:1")].iloc[0]
    assert row["score"] == pytest.approx(1 / 3) and row["n_epochs"] == 3


def test_item_metadata_sets_category_and_group(tmp_path):
    data = chembench_slice(6, ["o1", "GPT-4o"])
    frames = _lm_eval_runs(write_lm_eval(tmp_path / "out", data))
    meta = tmp_path / "items.csv"
    meta.write_text("item_id,category,group\n0,organic,g1\n1,organic,g1\n2,physical,g2\n")
    items = build_tables(_responses(frames), read_item_metadata(meta), "require_equal")["items"]
    assert items["category"].tolist() == [
        "organic",
        "organic",
        "physical",
        "chembench",
        "chembench",
        "chembench",
    ]
    assert items["group"].fillna("").tolist() == ["g1", "g1", "g2", "", "", ""]
    meta.write_text("item_id,category\n0,a\n0,b\n")
    with pytest.raises(InputError) as info:
        read_item_metadata(meta)
    assert info.value.line == 3


def test_dropped_scores_appear_in_data_quality(tmp_path):
    from rederive.io.accounting import Accounting
    from rederive.studies.benchmark.ingest import content_hash
    from rederive.studies.benchmark.quality import ALIGN_REASON, data_quality

    data = chembench_slice(8, ["o1", "GPT-4o"])
    data = data[~((data["model"] == "o1") & (data["item_id"] == "3"))]
    out = write_lm_eval(tmp_path / "out", data)
    frames, paths = {}, []
    for folder in sorted(out.iterdir()):
        acc = Accounting(
            study="benchmark",
            run=f"lm_eval-{folder.name}",
            file=str(folder),
            sha256=content_hash(sorted(folder.iterdir())),
        )
        frames[acc.run] = read_lm_eval_model_dir(folder, accounting=acc)
        acc.write(tmp_path / f"{acc.run}.json")
        paths.append(tmp_path / f"{acc.run}.json")
    tables = build_tables(_responses(frames), None, "intersection")
    quality = data_quality(paths, tables["dropped"])
    dropped = quality[quality["reason"].str.startswith(ALIGN_REASON)]
    assert dropped[["run", "rows"]].values.tolist() == [["lm_eval-GPT-4o", 1]]
    used = quality[quality["reason"] == "used"].set_index("run")["rows"].to_dict()
    assert used == {"lm_eval-GPT-4o": 7, "lm_eval-o1": 7}


def test_shared_strings_keep_values_and_dtypes(tmp_path):
    frame = pd.DataFrame(
        {
            "run": ["r1", "r1", "r1"],
            "model": pd.array(["m", "m", None], dtype="string"),
            "response": pd.array(["The answer is A.", "The answer is A.", "B"], dtype="string"),
            "doc_hash": pd.array([None, None, None], dtype="string"),
            "mixed": ["x", None, "x"],
            "correct": [1.0, 0.0, 1.0],
        }
    )
    paths = []
    for name in ("b", "a"):
        paths.append(tmp_path / f"{name}.parquet")
        frame.to_parquet(paths[-1])
    plain = warehouse.read_labelled(paths)
    shared = warehouse.read_labelled(paths, share_strings=True)
    pd.testing.assert_frame_equal(shared, plain)
    assert shared["mixed"].tolist() == plain["mixed"].tolist()
    # Equal strings of one file are now one object: the memory saving itself.
    assert shared["response"].iloc[0] is shared["response"].iloc[1]
    assert plain["response"].iloc[0] is not plain["response"].iloc[1]
