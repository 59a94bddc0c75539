"""The scale generator: same arguments, same bytes; output the study readers accept."""

import hashlib

import numpy as np
import pandas as pd
import yaml
from workflow_utils import REPO

from rederive.io.tabular import read_long
from rederive.simulate import scale
from rederive.studies.salitrap.ingest import label_run
from rederive.studies.salitrap.items import read_items


def digest(folder):
    h = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        h.update(path.relative_to(folder).as_posix().encode() + path.read_bytes())
    return h.hexdigest()


def test_benchmark_shape_is_seeded_and_readable(tmp_path):
    scale.main(
        ["--study", "benchmark", "--models", "3", "--items", "40", "--out", str(tmp_path / "a")]
    )
    scale.main(
        ["--study", "benchmark", "--models", "3", "--items", "40", "--out", str(tmp_path / "b")]
    )
    assert digest(tmp_path / "a") == digest(tmp_path / "b")
    files = sorted((tmp_path / "a" / "long").glob("*.csv"))
    assert [f.stem for f in files] == ["sim-model-1", "sim-model-2", "sim-model-3"]
    frame = read_long(files[0])
    assert len(frame) == 40 and set(np.unique(frame["correct"])) <= {0.0, 1.0}


def test_rasch_outcomes_follow_ability():
    outcomes = scale.rasch_outcomes(5, 4000, seed=1)
    theta = scale.rng_for(1, "theta").normal(0.0, 1.0, 5)
    assert list(np.argsort(outcomes.mean(axis=1))) == list(np.argsort(theta))


def test_salitrap_shape_passes_the_reader(tmp_path):
    scale.main(["--study", "salitrap", "--models", "2", "--items", "23", "--out", str(tmp_path)])
    cfg = yaml.safe_load((REPO / "config" / "kinds" / "salitrap.yaml").read_text())
    items = read_items(tmp_path / "items.jsonl", cfg["dimensions"])
    assert len(items) == 23 and items["seed_id"].nunique() == 5  # clusters of five
    labelled, acct = label_run(
        tmp_path / "runs" / "sim-model-1.jsonl",
        items,
        run="sim-model-1",
        valid_labels=cfg["labels"]["valid"],
        invalid_labels=cfg["labels"]["invalid"],
        conditions=cfg["conditions"],
        dimensions=cfg["dimensions"],
    )
    assert len(labelled) == 23 and acct.rows_used == 23


def test_parquet_files_read_as_the_csv_files(tmp_path):
    for fmt in ("csv", "parquet"):
        scale.main(
            ["--study", "benchmark", "--models", "2", "--items", "30"]
            + ["--out", str(tmp_path / fmt), "--file-format", fmt]
        )
    csv_frame = read_long(tmp_path / "csv" / "long" / "sim-model-2.csv")
    parquet_frame = read_long(tmp_path / "parquet" / "long" / "sim-model-2.parquet")
    columns = ["model", "task", "item_id", "category", "correct", "epoch", "response"]
    pd.testing.assert_frame_equal(csv_frame[columns], parquet_frame[columns])
    # A CSV row's line is its physical line, a Parquet row's its row number.
    assert list(csv_frame["line"]) == [n + 1 for n in parquet_frame["line"]]
