"""Input manifests: runs by content, settings by key, code by its library hash."""

from rederive.changes.manifest import build_manifest, compare_manifests, flatten_settings


def make(files: dict, settings=None, library="lib", raw="raw/x"):
    hashes = {f"{raw}/{p}": sha for p, sha in files.items()}
    runs = {p.split("/")[-1].split(".")[0]: [f"{raw}/{p}"] for p in files if p.startswith("runs/")}
    return build_manifest(
        analysis="x",
        kind="tag_sycophancy",
        settings=settings or {"label": "X", "raw_dir": raw, "fdr_q": 0.1},
        raw_dir=raw,
        run_files=runs,
        file_hashes=hashes,
        code={"commit": "c", "dirty": False, "library": library, "lock": "l"},
    )


def test_runs_and_other_inputs_are_recorded_relative_to_raw_dir():
    m = make({"runs/GPT-4o.jsonl": "a", "items.jsonl": "i"})
    assert m["runs"]["GPT-4o"]["files"] == {"runs/GPT-4o.jsonl": "a"}
    assert m["inputs"] == {"items.jsonl": "i"}
    assert "raw_dir" not in m["settings"]


def test_runs_added_removed_and_changed_by_content():
    old = make({"runs/A.jsonl": "a", "runs/B.jsonl": "b", "items.jsonl": "i"})
    new = make({"runs/A.jsonl": "a2", "runs/C.jsonl": "c", "items.jsonl": "i2"})
    changes = compare_manifests(old, new)
    assert changes.runs_changed == {"A": ["runs/A.jsonl"]}
    assert changes.runs_added == ["C"] and changes.runs_removed == ["B"]
    assert changes.inputs_changed == ["items.jsonl"]
    assert changes.any


def test_a_moved_raw_dir_with_the_same_files_is_no_change():
    old = make({"runs/A.jsonl": "a"}, raw="raw/x")
    new = make(
        {"runs/A.jsonl": "a"},
        settings={"label": "X", "raw_dir": "/data/x", "fdr_q": 0.1},
        raw="/data/x",
    )
    assert not compare_manifests(old, new).any


def test_settings_by_key_and_code_by_library_hash():
    old = make({"runs/A.jsonl": "a"})
    new = make(
        {"runs/A.jsonl": "a"},
        settings={"label": "X", "raw_dir": "raw/x", "fdr_q": 0.05, "bootstrap": {"n_boot": 10}},
        library="lib2",
    )
    changes = compare_manifests(old, new)
    assert changes.settings == [("bootstrap.n_boot", "(not set)", "10"), ("fdr_q", "0.1", "0.05")]
    assert changes.code == [("library", "lib", "lib2")]


def test_flatten_settings_keeps_lists_and_empty_maps_as_values():
    assert flatten_settings({"a": {"b": [1, 2], "c": {}}, "d": None}) == {
        "a.b": "[1, 2]",
        "a.c": "{}",
        "d": "null",
    }
