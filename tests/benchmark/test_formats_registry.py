"""The format registry and ``inputs: {auto: <folder>}`` on a folder of mixed real outputs."""

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from rederive.errors import InputError
from rederive.io import formats
from rederive.studies.benchmark.sources import discover

FIXTURES = Path(__file__).parent / "fixtures"
REPO = Path(__file__).resolve().parents[2]
INTERFACE = ("NAME", "DESCRIPTION", "find_runs", "detect", "files", "read", "reported")


def test_every_format_has_the_interface_and_a_unique_name():
    for module in formats.FORMATS:
        for attribute in INTERFACE:
            assert hasattr(module, attribute), (module.__name__, attribute)
    assert len(set(formats.names())) == len(formats.FORMATS)
    assert formats.get("swebench").NAME == "swebench"
    with pytest.raises(ValueError, match="known: matrix"):
        formats.get("helmet")


def test_a_format_without_aggregates_writes_no_reported_file(tmp_path):
    """``REPORTS = False`` skips ``reported``: the run has no reported file, the batch's
    manifest lists it as without one, and the warehouse's ``reported`` table is the
    one the empty frames give (a format that gains aggregates must drop the flag)."""
    from rederive.io.accounting import ingest_batch
    from rederive.io.batches import per_run_files
    from rederive.studies.benchmark import ingest
    from rederive.studies.benchmark.warehouse import empty_reported_frame

    silent = [m for m in formats.FORMATS if not getattr(m, "REPORTS", True)]
    assert {m.NAME for m in silent} == {"long", "matrix", "eval_arena"}
    for module in silent:
        frame = module.reported(tmp_path / "any", params={})
        assert frame.empty and list(frame.columns) == formats.REPORTED_COLUMNS
    run = tmp_path / "run.csv"
    run.write_text("model,item_id,correct\nm,1,1\n")
    batch = tmp_path / "batch"
    source = {"run": "r1", "format": "long", "path": str(run), "files": [str(run)]}
    ingest_batch(
        batch,
        ["r1"],
        [str(run)],
        lambda _run, _path: ingest.ingest_with_reported(source, {}, batch),
        kinds=("labelled", "accounting", "reported"),
    )
    assert not (batch / "reported" / "r1.csv").exists()
    assert json.loads((batch / "manifest.json").read_text())["absent"] == {"reported": ["r1"]}
    assert per_run_files([batch], "reported") == []
    empty = ingest.reported("long", run, params={})
    empty.insert(0, "run", "r1")
    pd.testing.assert_frame_equal(empty_reported_frame(), empty.astype(object))


def test_every_format_is_an_inputs_key_of_the_loaded_schema():
    # The formats' pieces (inputs, OPTIONS) are laid into the kind's schema when
    # it is loaded (x-formats); the YAML file lists none of them.
    from rederive.analyses import load_schema

    schema = load_schema(REPO / "config/schemas/benchmark.schema.yaml")
    assert set(schema["properties"]["inputs"]["properties"]) == {*formats.names(), formats.AUTO}
    for module in formats.FORMATS:
        if hasattr(module, "OPTIONS"):
            assert schema["properties"][module.NAME] == module.OPTIONS


def mixed_folder(root: Path) -> Path:
    """One real run of each format, some in sub-folders, with their companion files."""
    mixed = root / "mixed"
    mixed.mkdir()
    shutil.copytree(FIXTURES / "lm_eval" / "out" / "dummy-a", mixed / "lm" / "dummy-a")
    shutil.copy(REPO / "raw" / "benchmark" / "matrix" / "chembench.csv", mixed / "chembench.csv")
    (mixed / "logs").mkdir()
    shutil.copy(FIXTURES / "inspect" / "0.3.285" / "mean.eval", mixed / "logs" / "mean.eval")
    shutil.copy(FIXTURES / "inspect" / "0.3.285" / "mean.json", mixed / "logs" / "mean.json")
    shutil.copy(FIXTURES / "swebench" / "public" / "nebius__moonshotai__Kimi-K2.6.test.json", mixed)
    eee = sorted((FIXTURES / "every_eval_ever" / "data").rglob("*_samples.jsonl"))[0]
    shutil.copy(eee, mixed / eee.name)
    shutil.copy(eee.with_name(eee.name.removesuffix("_samples.jsonl") + ".json"), mixed)
    shutil.copy(FIXTURES / "eval_arena" / "cruxeval_input.jsonl", mixed)
    helm_run = FIXTURES / "helm" / "benchmark_output" / "runs" / "fixture"
    shutil.copytree(helm_run / "simple_mcqa:model=helmfix_guesser-b", mixed / "helm" / "run-b")
    (mixed / "code").mkdir()
    for name in (
        "tiny-coder_openai_temp_0.8.eval_results.json",
        "tiny-coder_openai_temp_0.8.jsonl",
    ):
        shutil.copy(FIXTURES / "evalplus" / "0.4.0.dev44" / name, mixed / "code" / name)
    shutil.copytree(FIXTURES / "lighteval" / "out", mixed / "lighteval")
    oc_results = next((FIXTURES / "opencompass" / "outputs").iterdir()) / "results"
    shutil.copytree(oc_results / "guesser-a", mixed / "oc" / "results" / "guesser-a")
    (mixed / "long.csv").write_text("model,item_id,correct\nm1,i1,1\n")
    (mixed / ".DS_Store").write_bytes(b"\x00\x01")
    return mixed


def test_auto_detects_each_run_and_claims_companion_files(tmp_path):
    mixed = mixed_folder(tmp_path)
    found = formats.find_auto_runs(mixed)
    names = sorted((fmt, name) for fmt, name, _ in found)
    eee = next(name for fmt, name in names if fmt == "every_eval_ever")
    assert eee.endswith("_samples.jsonl")
    assert names == [
        ("eval_arena", "cruxeval_input.jsonl"),
        ("evalplus", "code/tiny-coder_openai_temp_0.8.eval_results.json"),
        ("every_eval_ever", eee),
        ("helm", "helm/run-b"),
        ("inspect", "logs/mean.eval"),
        ("inspect", "logs/mean.json"),
        ("lighteval", "lighteval/details/dummy-a/2026-12-03T11-27-25.803614"),
        ("lighteval", "lighteval/details/dummy-b/2026-12-03T11-27-26.211713"),
        ("lm_eval", "lm/dummy-a"),
        ("long", "long.csv"),
        ("matrix", "chembench.csv"),
        ("opencompass", "oc/results/guesser-a/parity.json"),
        ("opencompass", "oc/results/guesser-a/parity_rep.json"),
        ("swebench", "nebius__moonshotai__Kimi-K2.6.test.json"),
    ]
    # The lm-eval results file, the Every Eval Ever aggregate, the evalplus
    # samples and the lighteval results files are parts of runs.
    assert len(found) == 14
    sources = discover(tmp_path, {"auto": str(mixed)})
    assert "lm_eval-lm_dummy-a" in sources and "matrix-chembench.csv" in sources
    assert {s.format for s in sources.values()} == set(formats.names())


def test_auto_refuses_a_file_no_format_recognises(tmp_path):
    mixed = mixed_folder(tmp_path)
    (mixed / "notes.txt").write_text("what these runs are\n")
    with pytest.raises(InputError) as info:
        formats.find_auto_runs(mixed)
    assert info.value.file.endswith("mixed/notes.txt")
    assert "no input format recognises" in info.value.message
    assert all(name in info.value.message for name in formats.names())


def test_auto_refuses_a_file_several_formats_recognise(tmp_path):
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    row = {
        "benchmark_id": "b",
        "model": "m",
        "example_id": "e",
        "pass1": 1,
        "item_id": "e",
        "correct": 1,
    }
    (mixed / "both.jsonl").write_text(json.dumps(row) + "\n")
    with pytest.raises(InputError) as info:
        formats.find_auto_runs(mixed)
    assert info.value.file.endswith("both.jsonl")
    assert "several formats (long, eval_arena)" in info.value.message


def test_auto_skips_the_raw_dirs_items_and_published(tmp_path):
    raw = tmp_path / "raw"
    (raw / "published").mkdir(parents=True)
    (raw / "published" / "scores.csv").write_text("model,score\nm1,1\n")
    (raw / "items.csv").write_text("item_id,category\ni1,a\n")
    (raw / "run.csv").write_text("model,item_id,correct\nm1,i1,1\n")
    assert list(discover(raw, {"auto": str(raw)})) == ["long-run.csv"]


def test_an_explicit_format_folder_is_searched_beside_auto(tmp_path):
    mixed = mixed_folder(tmp_path)
    extra = tmp_path / "arena"
    extra.mkdir()
    shutil.copy(FIXTURES / "eval_arena" / "cruxeval_input.jsonl", extra / "second.jsonl")
    sources = discover(tmp_path / "nothing", {"auto": str(mixed), "eval_arena": str(extra)})
    assert {"eval_arena-second.jsonl", "eval_arena-cruxeval_input.jsonl"} <= set(sources)


def test_bundled_run_ids_are_unchanged():
    assert list(discover(REPO / "raw" / "benchmark")) == ["matrix-chembench"]
    lm = discover(FIXTURES / "lm_eval", {"lm_eval": str(FIXTURES / "lm_eval" / "out")})
    assert sorted(lm) == ["lm_eval-dummy-a", "lm_eval-dummy-b"]


def test_every_format_has_its_row_in_the_docs():
    # CONTRIBUTING.md: a new format changes docs/input-formats.md (its row) and the corpus.
    table = (Path(__file__).resolve().parents[2] / "docs" / "input-formats.md").read_text()
    for name in formats.names():
        assert f"| `{name}/" in table, name
