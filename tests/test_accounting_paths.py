"""The accounting names each input relative to its analysis's raw_dir.

``data_quality.csv`` is a table readers and reviewers see: it must not carry
the folder where the data sat on the machine that built it (issue 20, labels
not paths), while a refusal message still names a path the user can open.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

from rederive.errors import InputError, under_root
from rederive.io import batches
from rederive.io.accounting import Accounting, ingest_batch, load_accounting, load_runs


def label(run, path):
    accounting = Accounting(study="benchmark", run=run, file=str(path), sha256=f"sha-{run}")
    accounting.rows_read = accounting.rows_used = 1
    return pd.DataFrame({"x": [1]}), accounting


def test_files_are_named_relative_to_the_raw_dir(tmp_path):
    root = tmp_path / "somewhere" / "my_eval"
    (root / "long").mkdir(parents=True)
    files = [root / "long" / "a.csv", root / "long" / "b.csv"]
    for f in files:
        f.write_text("model,item_id,correct\n")
    batch = tmp_path / "ingested" / "0"
    ingest_batch(batch, ["a", "b"], files, label, root=root, analysis="mine")
    paths = batches.per_run_files([batch], "accounting")
    runs = load_runs(paths)
    assert list(runs["file"]) == ["long/a.csv", "long/b.csv"]
    quality = load_accounting(paths)
    assert set(quality["study"]) == {"mine"}
    assert str(tmp_path) not in quality.to_csv()
    # The JSON still knows where the file was, for messages.
    record = json.loads(open(paths[0]).read())
    assert record["path"] == str(files[0])


def test_a_duplicate_is_refused_naming_the_openable_path(tmp_path):
    root = tmp_path / "raw"
    root.mkdir()
    files = [root / "a.csv", root / "b.csv"]
    for f in files:
        f.write_text("same\n")

    def same_content(run, path):
        frame, accounting = label(run, path)
        accounting.sha256 = "identical"
        return frame, accounting

    batch = tmp_path / "ingested" / "0"
    ingest_batch(batch, ["a", "b"], files, same_content, root=root)
    with pytest.raises(InputError) as caught:
        load_runs(batches.per_run_files([batch], "accounting"))
    assert caught.value.file == str(files[1])
    assert str(files[0]) in caught.value.message


def test_outside_the_root_only_the_file_name_is_printed(tmp_path):
    assert under_root(tmp_path / "x" / "y.csv", tmp_path) == "x/y.csv"
    assert under_root(tmp_path / "x" / "y.csv", tmp_path / "other") == "y.csv"
