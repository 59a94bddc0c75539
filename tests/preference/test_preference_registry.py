"""The preference format registry: interface, detection against every other fixture,
find_runs per format and auto mode on a mixed folder."""

import shutil
from pathlib import Path

import pytest

from rederive.errors import InputError
from rederive.io import formats as benchmark_formats
from rederive.io import preference
from rederive.io.run_files import RunFilesError

HERE = Path(__file__).parent
FIXTURES = HERE / "fixtures"
REPO = HERE.parents[1]
INTERFACE = ("NAME", "DESCRIPTION", "find_runs", "detect", "files", "read", "reported")
OWN = {
    FIXTURES
    / "alpaca_eval/results/gpt35_turbo_instruct/weighted_alpaca_eval_gpt4_turbo/annotations.json": "alpaca_eval",
    FIXTURES
    / "alpaca_eval/results/LMCocktail-10.7B-v1/alpaca_eval_gpt4/annotations.json": "alpaca_eval",
    FIXTURES
    / "alpaca_eval/results/gpt4_1106_preview/weighted_alpaca_eval_gpt4_turbo/annotations.json": "alpaca_eval",
    FIXTURES / "arena_hard/v0.1-2024/gpt-4-1106-preview/gpt-3.5-turbo-0125.jsonl": "arena_hard",
    FIXTURES / "arena_hard/v0.1-2025/gpt-4-1106-preview/gpt-4-0613.jsonl": "arena_hard",
    FIXTURES / "mt_bench/gpt-4_pair.jsonl": "mt_bench",
    FIXTURES / "battles/chatbot_arena_conversations_example.json": "battles",
}


def test_every_format_has_the_interface_and_a_unique_name():
    for module in preference.FORMATS:
        for attribute in INTERFACE:
            assert hasattr(module, attribute), (module.__name__, attribute)
        assert (
            module.reported(Path("absent.json"), params={}).columns.tolist()
            == preference.REPORTED_COLUMNS
        )
    assert len(set(preference.names())) == len(preference.FORMATS)
    with pytest.raises(ValueError, match="known: alpaca_eval"):
        preference.get("chatbot")


def test_each_fixture_is_detected_by_its_own_format_only():
    for path, fmt in OWN.items():
        assert preference.detected(path) == [fmt], path
        assert benchmark_formats.detected(path) == [], path


def test_long_files_are_detected_as_long(tmp_path):
    csv = tmp_path / "games.csv"
    csv.write_text("model_a,model_b,winner\nA,B,a\n")
    jsonl = tmp_path / "games.jsonl"
    jsonl.write_text('{"model_a": "A", "model_b": "B", "outcome": 1}\n')
    battles = tmp_path / "battles.jsonl"
    battles.write_text('{"model_a": "A", "model_b": "B", "winner": "tie"}\n')
    assert preference.detected(csv) == ["long"]
    assert preference.detected(jsonl) == ["long"]
    assert preference.detected(battles) == ["battles"]
    for path in (csv, jsonl, battles):
        assert benchmark_formats.detected(path) == []


def benchmark_fixture_files():
    roots = [REPO / "tests" / "benchmark" / "fixtures", REPO / "raw" / "benchmark"]
    return sorted(p for root in roots for p in root.rglob("*") if not p.name.startswith("."))


def test_no_preference_format_detects_a_benchmark_file_or_folder():
    paths = benchmark_fixture_files()
    assert len(paths) > 50
    wrong = [(str(p), found) for p in paths if (found := preference.detected(p))]
    assert not wrong, wrong


def test_find_runs_of_each_format():
    runs = preference.get("alpaca_eval").find_runs(FIXTURES / "alpaca_eval" / "results")
    assert [name for name, _ in runs] == [
        "LMCocktail-10.7B-v1/alpaca_eval_gpt4",
        "gpt35_turbo_instruct/weighted_alpaca_eval_gpt4_turbo",
        "gpt4_1106_preview/weighted_alpaca_eval_gpt4_turbo",
    ]
    runs = preference.get("arena_hard").find_runs(FIXTURES / "arena_hard")
    assert [name for name, _ in runs] == [
        "v0.1-2024/gpt-4-1106-preview/gpt-3.5-turbo-0125",
        "v0.1-2025/gpt-4-1106-preview/gpt-4-0613",
    ]
    assert [n for n, _ in preference.get("mt_bench").find_runs(FIXTURES / "mt_bench")] == [
        "gpt-4_pair"
    ]
    assert [n for n, _ in preference.get("battles").find_runs(FIXTURES / "battles")] == [
        "chatbot_arena_conversations_example.json"
    ]


def test_find_runs_refuses_a_stray_file(tmp_path):
    shutil.copytree(FIXTURES / "alpaca_eval" / "results", tmp_path / "results")
    (tmp_path / "results" / "notes.txt").write_text("x\n")
    with pytest.raises(RunFilesError, match="notes.txt"):
        preference.get("alpaca_eval").find_runs(tmp_path / "results")
    (tmp_path / "mt").mkdir()
    shutil.copy(FIXTURES / "mt_bench" / "gpt-4_pair.jsonl", tmp_path / "mt")
    (tmp_path / "mt" / "gpt-4_single.jsonl").write_text("{}\n")  # FastChat's single grading
    assert [n for n, _ in preference.get("mt_bench").find_runs(tmp_path / "mt")] == ["gpt-4_pair"]


def mixed_folder(root: Path) -> Path:
    mixed = root / "mixed"
    shutil.copytree(FIXTURES / "alpaca_eval" / "results", mixed / "results")
    model = mixed / "results" / "gpt35_turbo_instruct"
    shutil.copy(
        FIXTURES / "alpaca_eval" / "published" / "leaderboard.csv",
        model / "weighted_alpaca_eval_gpt4_turbo",
    )
    (model / "model_outputs.json").write_text(
        '[{"instruction": "i", "output": "o", "generator": "g"}]\n'
    )
    shutil.copytree(FIXTURES / "arena_hard", mixed / "arena_hard")
    shutil.copy(FIXTURES / "mt_bench" / "gpt-4_pair.jsonl", mixed)
    shutil.copy(FIXTURES / "battles" / "chatbot_arena_conversations_example.json", mixed)
    (mixed / "games.csv").write_text("model_a,model_b,outcome\nA,B,1\n")
    (mixed / ".DS_Store").write_bytes(b"\x00")
    return mixed


def test_auto_detects_each_run_and_claims_companion_files(tmp_path):
    found = preference.find_auto_runs(mixed_folder(tmp_path))
    assert [(fmt, name) for fmt, name, _ in found] == [
        ("alpaca_eval", "results/LMCocktail-10.7B-v1/alpaca_eval_gpt4/annotations.json"),
        (
            "alpaca_eval",
            "results/gpt35_turbo_instruct/weighted_alpaca_eval_gpt4_turbo/annotations.json",
        ),
        (
            "alpaca_eval",
            "results/gpt4_1106_preview/weighted_alpaca_eval_gpt4_turbo/annotations.json",
        ),
        ("arena_hard", "arena_hard/v0.1-2024/gpt-4-1106-preview/gpt-3.5-turbo-0125.jsonl"),
        ("arena_hard", "arena_hard/v0.1-2025/gpt-4-1106-preview/gpt-4-0613.jsonl"),
        ("battles", "chatbot_arena_conversations_example.json"),
        ("long", "games.csv"),
        ("mt_bench", "gpt-4_pair.jsonl"),
    ]


def test_auto_refuses_a_file_no_format_recognises(tmp_path):
    mixed = mixed_folder(tmp_path)
    (mixed / "notes.txt").write_text("what these are\n")
    with pytest.raises(InputError) as info:
        preference.find_auto_runs(mixed)
    assert info.value.file.endswith("mixed/notes.txt")
    assert "docs/kinds/preference-inputs.md" in info.value.message
    assert all(name in info.value.message for name in preference.names())


def test_the_formats_options_are_the_kinds_schema():
    """Each format's OPTIONS is laid into config/schemas/preference.schema.yaml, with
    the inputs block (x-formats: rederive.io.preference)."""
    from rederive.analyses import load_schema

    schema = load_schema(REPO / "config" / "schemas" / "preference.schema.yaml")
    properties = schema["properties"]
    assert set(properties["inputs"]["properties"]) == {*preference.names(), preference.AUTO}
    for module in preference.FORMATS:
        if hasattr(module, "OPTIONS"):
            assert properties[module.NAME] == module.OPTIONS
            for name, option in module.OPTIONS["properties"].items():
                assert option.get("description"), (module.NAME, name)
    assert {"alpaca_eval", "arena_hard", "mt_bench", "battles"} <= set(properties)
