"""The preference readers on real files (fixtures/README.md names each source)."""

import json
import math
import shutil
from pathlib import Path

import pytest

from rederive.errors import InputError
from rederive.io import preference
from rederive.io.accounting import Accounting
from rederive.io.preference import alpaca_eval, arena_hard, battles, long, mt_bench

FIXTURES = Path(__file__).parent / "fixtures"
ALPACA = FIXTURES / "alpaca_eval" / "results"
WEIGHTED = ALPACA / "gpt35_turbo_instruct" / "weighted_alpaca_eval_gpt4_turbo" / "annotations.json"
V1 = ALPACA / "LMCocktail-10.7B-v1" / "alpaca_eval_gpt4" / "annotations.json"
SELF = ALPACA / "gpt4_1106_preview" / "weighted_alpaca_eval_gpt4_turbo" / "annotations.json"
BOARD = FIXTURES / "alpaca_eval" / "published" / "leaderboard.csv"
AH_2024 = FIXTURES / "arena_hard" / "v0.1-2024" / "gpt-4-1106-preview" / "gpt-3.5-turbo-0125.jsonl"
AH_2025 = FIXTURES / "arena_hard" / "v0.1-2025" / "gpt-4-1106-preview" / "gpt-4-0613.jsonl"
MT = FIXTURES / "mt_bench" / "gpt-4_pair.jsonl"
ARENA = FIXTURES / "battles" / "chatbot_arena_conversations_example.json"


def read(module, path, **options):
    accounting = Accounting(study="t", run="r", file=str(path), sha256="")
    frame = module.read(Path(path), params={module.NAME: options}, accounting=accounting)
    accounting.check_balance()
    assert list(frame.columns) == preference.COLUMNS
    assert set(frame["verdict"]) <= set(preference.VERDICTS)
    assert frame["outcome"].between(0, 1).all()
    return frame, accounting


def record_lines(path):
    """Line of each record of an AlpacaEval array (indent 2: a record opens with '  {')."""
    lines = Path(path).read_text().splitlines()
    return [n for n, text in enumerate(lines, start=1) if text.startswith("  {")]


# --- AlpacaEval -------------------------------------------------------------------


def test_alpaca_eval_2_weighted_preferences_are_graded_outcomes():
    raw = json.loads(WEIGHTED.read_text())
    frame, accounting = read(alpaca_eval, WEIGHTED)
    assert len(frame) == len(raw) == 15 and accounting.rows_used == 15
    assert set(frame["model_a"]) == {"gpt4_1106_preview"}  # generator_1, the baseline
    assert set(frame["model_b"]) == {"gpt35_turbo_instruct"}
    first = frame.iloc[0]
    assert first["label"] == "1.0000032378" and first["verdict"] == "graded"
    assert first["outcome"] == 2 - 1.0000032378
    assert (
        first["item_id"]
        == "What are the names of some famous actors that started their careers on Broadway?"
    )
    assert first["category"] == "helpful_base"
    assert first["judge"] == "weighted_alpaca_eval_gpt4_turbo"
    assert (first["game"], first["first"], first["strength"]) == (1, "", 1)
    ties = frame[frame["verdict"] == "tie"]
    assert len(ties) == 3 and set(ties["outcome"]) == {0.5} and set(ties["label"]) == {"1.5"}
    assert frame["len_a"].tolist() == [float(len(r["output_1"])) for r in raw]
    assert frame["len_b"].tolist() == [float(len(r["output_2"])) for r in raw]
    assert frame["item_id"].tolist() == [r["instruction"] for r in raw]
    assert frame["line"].tolist() == record_lines(WEIGHTED)


def test_alpaca_eval_1_nulls_are_counted_and_zero_is_a_tie():
    frame, accounting = read(alpaca_eval, V1)
    assert accounting.rows_read == 9 and accounting.rows_used == 7
    assert accounting.excluded == {alpaca_eval.MISSING: 2}
    starts = record_lines(V1)
    assert accounting.example_lines[alpaca_eval.MISSING] == starts[7:9]
    assert frame["label"].tolist() == ["2.0"] * 6 + ["0.0"]
    assert frame["verdict"].tolist() == ["b"] * 6 + ["tie"]
    assert frame["outcome"].tolist() == [0.0] * 6 + [0.5]
    assert set(frame["model_a"]) == {"text_davinci_003"}
    assert set(frame["judge"]) == {"alpaca_eval_gpt4"}


def test_the_baseline_against_itself_is_counted_not_kept():
    frame, accounting = read(alpaca_eval, SELF)
    assert frame.empty and accounting.excluded == {preference._games.SAME_MODEL: 3}


def test_alpaca_eval_leaderboard_as_printed():
    board = alpaca_eval.read_leaderboard(BOARD)
    assert board["model"].tolist() == [
        "NullModel",
        "gpt4_1106_preview",
        "gpt35_turbo_instruct",
        "text_davinci_001",
    ]
    row = board.set_index("model").loc["gpt35_turbo_instruct"]
    assert row["win_rate"] == "8.462446504415423"
    assert row["standard_error"] == "0.8724086933609648"
    assert row["length_controlled_winrate"] == "17.72780108286588"
    assert (row["n_total"], row["avg_length"]) == ("804", "1018")
    assert board.set_index("model").loc["gpt4_1106_preview", "standard_error"] == "0.0"


def test_alpaca_eval_reported_reads_the_leaderboard_beside_the_annotations(tmp_path):
    assert alpaca_eval.reported(WEIGHTED, params={}).empty
    folder = tmp_path / "gpt35_turbo_instruct" / "weighted_alpaca_eval_gpt4_turbo"
    folder.mkdir(parents=True)
    shutil.copy(WEIGHTED, folder / "annotations.json")
    shutil.copy(BOARD, folder / "leaderboard.csv")
    reported = alpaca_eval.reported(folder / "annotations.json", params={})
    assert list(reported.columns) == preference.REPORTED_COLUMNS
    value = reported.set_index(["model", "metric"]).loc[("text_davinci_001", "win_rate"), "value"]
    assert value == 2.764005231108344
    assert alpaca_eval.files(folder / "annotations.json") == [
        folder / "annotations.json",
        folder / "leaderboard.csv",
    ]


# --- Arena-Hard ---------------------------------------------------------------------

# show_result.py's label_to_score (arena-hard-auto 2025) with weight 3: the model's
# scores of one line are label_to_score[games[1]] + [1 - s for s in label_to_score[games[0]]].
SHOW_RESULT = {
    "A>B": [1],
    "A>>B": [1] * 3,
    "A=B": [0.5],
    "A<<B": [0] * 3,
    "A<B": [0],
    "B>A": [0],
    "B>>A": [0] * 3,
    "B=A": [0.5],
    "B<<A": [1] * 3,
    "B<A": [1],
}


def model_scores(frame):
    """The model's (model_b's) score of each game, repeated by show_result's weight."""
    scores = []
    for _, row in frame.iterrows():
        scores += [1 - row["outcome"]] * (3 if row["strength"] == 2 else 1)
    return sorted(scores)


@pytest.mark.parametrize("path", [AH_2024, AH_2025])
def test_arena_hard_games_score_as_show_result_reads_them(path):
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    frame, accounting = read(arena_hard, path, baseline="gpt-4-0314")
    assert len(frame) == 2 * len(lines) == 8 and accounting.rows_used == 8
    expected = []
    for line in lines:
        games = line["games"]
        expected += SHOW_RESULT[games[1]["score"]]
        expected += [1 - s for s in SHOW_RESULT[games[0]["score"]]]
    assert model_scores(frame) == sorted(expected)
    assert set(frame["model_a"]) == {"gpt-4-0314"}
    assert frame["game"].tolist() == [1, 2] * 4
    assert frame["first"].tolist() == ["a", "b"] * 4
    assert frame["label"].tolist() == [g["score"] for line in lines for g in line["games"]]
    assert frame["line"].tolist() == [1, 1, 2, 2, 3, 3, 4, 4]
    assert frame["len_a"].isna().all()


def test_arena_hard_2024_strong_labels_and_item_ids():
    frame, _ = read(arena_hard, AH_2024, baseline="gpt-4-0314")
    strong = frame[frame["strength"] == 2]
    # Line 3: A>>B with the baseline as A, then B>>A with the baseline as B.
    assert strong["line"].tolist() == [3, 3]
    assert strong["outcome"].tolist() == [1.0, 1.0] and set(strong["verdict"]) == {"a"}
    assert frame["item_id"].iloc[0] == "08d2f41143ff411c83c02a521eb01948"
    assert set(frame["model_b"]) == {"gpt-3.5-turbo-0125"} and set(frame["category"]) == {""}
    # Line 2, game 2: B>A with the model as A is a win for the baseline.
    assert frame[(frame["line"] == 2) & (frame["game"] == 2)]["outcome"].item() == 1.0
    # Line 4, game 2: B>A again a baseline win; game 1 A=B a tie.
    assert frame[frame["line"] == 4]["verdict"].tolist() == ["tie", "a"]


def test_arena_hard_2025_layout_names_its_baseline_and_category():
    frame, _ = read(arena_hard, AH_2025)
    assert set(frame["model_a"]) == {"gpt-4-0314"} and set(frame["model_b"]) == {"gpt-4-0613"}
    assert set(frame["category"]) == {"arena-hard-v0.1"}
    assert set(frame["judge"]) == {"gpt-4-1106-preview"}


def test_arena_hard_2024_layout_needs_the_baseline_option():
    with pytest.raises(InputError) as info:
        read(arena_hard, AH_2024)
    assert (info.value.line, info.value.field) == (1, "baseline")


def _with_game(path, line, index, game):
    records = [json.loads(text) for text in path.read_text().splitlines()]
    records[line - 1]["games"][index] = game
    return records


def _write(tmp_path, records, name="judgment.jsonl"):
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


@pytest.mark.parametrize(
    ("source", "game", "option", "used", "excluded"),
    [
        # 2024 show_result gives the game without a verdict weight 0, keeps the other.
        (
            AH_2024,
            {"user_prompt": "", "judgment": "", "score": None},
            "source",
            7,
            {arena_hard.NO_VERDICT: 1},
        ),
        (
            AH_2024,
            {"user_prompt": "", "judgment": "", "score": None},
            "drop",
            6,
            {arena_hard.NO_VERDICT: 1, arena_hard.PARTNER: 1},
        ),
        # 2025 show_result drops the question when a game is null.
        (AH_2025, None, "source", 6, {arena_hard.NO_JUDGMENT: 1, arena_hard.PARTNER: 1}),
        (AH_2025, None, "keep", 7, {arena_hard.NO_JUDGMENT: 1}),
        (AH_2025, {"score": "A>B>C"}, "keep", 7, {arena_hard.UNKNOWN: 1}),
    ],
)
def test_arena_hard_games_without_verdict_are_counted(
    tmp_path, source, game, option, used, excluded
):
    path = _write(tmp_path, _with_game(source, 2, 1, game))
    frame, accounting = read(arena_hard, path, baseline="gpt-4-0314", incomplete_pairs=option)
    assert accounting.rows_used == used == len(frame)
    assert accounting.excluded == excluded
    assert all(lines == [2] for lines in accounting.example_lines.values())


# --- MT-bench ---------------------------------------------------------------------------


def test_mt_bench_pairwise_games_in_both_orders():
    lines = [json.loads(line) for line in MT.read_text().splitlines()]
    frame, accounting = read(mt_bench, MT)
    assert accounting.rows_read == 20 and accounting.rows_used == 16 == len(frame)
    assert accounting.excluded == {mt_bench.ERROR: 3, mt_bench.PARTNER: 1}
    assert accounting.example_lines[mt_bench.ERROR] == [9, 10, 10]
    first = frame[frame["line"] == 1]
    assert first["outcome"].tolist() == [1.0, 0.0]  # g1 model_1, g2 model_2: inconsistent
    assert first["first"].tolist() == ["a", "b"] and first["game"].tolist() == [1, 2]
    assert set(first["item_id"]) == {"81/turn1"} and set(frame["judge"]) == {"gpt-4"}
    assert set(frame["model_a"]) == {lines[0]["model_1"]} == {"phi-3"}
    assert frame[frame["line"] == 7]["verdict"].tolist() == ["tie", "tie"]
    kept, accounting = read(mt_bench, MT, incomplete_pairs="keep")
    assert len(kept) == 17 and accounting.excluded == {mt_bench.ERROR: 3}


# --- battles -------------------------------------------------------------------------------


def test_chatbot_arena_record():
    raw = json.loads(ARENA.read_text())[0]
    frame, _ = read(battles, ARENA)
    row = frame.iloc[0]
    assert (row["model_a"], row["model_b"], row["outcome"], row["verdict"]) == (
        "vicuna-13b",
        "koala-13b",
        1.0,
        "a",
    )
    assert (row["item_id"], row["judge"], row["label"], row["line"]) == (
        "c0fc42c6f5f14f2aa5a89f71f8553730",
        "arena_user_973",
        "model_a",
        2,
    )
    assert row["len_a"] == len(raw["conversation_a"][1]["content"]) and row["len_b"] == 11


BATTLES = [
    {
        "model_a": "m1",
        "model_b": "m2",
        "winner": "model_a",
        "anony": True,
        "question_id": "q1",
        "turn": 1,
    },
    {
        "model_a": "m1",
        "model_b": "m2",
        "winner": "model_b",
        "anony": True,
        "question_id": "q1",
        "turn": 2,
    },
    {"model_a": "m2", "model_b": "m3", "winner": "tie", "anony": True},
    {"model_a": "m2", "model_b": "m3", "winner": "tie (bothbad)", "anony": True},
    {"model_a": "m3", "model_b": "m1", "winner": "both_bad"},
    {"model_a": "m3", "model_b": "m1", "winner": "model_a", "anony": False},
]


def test_battles_winners_and_named_battles(tmp_path):
    path = _write(tmp_path, BATTLES, "battles.jsonl")
    frame, accounting = read(battles, path)
    assert frame["verdict"].tolist() == ["a", "b", "tie", "both_bad", "both_bad"]
    assert frame["outcome"].tolist() == [1.0, 0.0, 0.5, 0.5, 0.5]
    assert accounting.excluded == {battles.NAMED: 1} and accounting.example_lines[
        battles.NAMED
    ] == [6]
    assert (
        frame["item_id"].iloc[:2].tolist() == ["q1", "q1"]
        and frame["item_id"].iloc[2:].isna().all()
    )
    frame, accounting = read(battles, path, anonymous_only=False, turn_in_item=True)
    assert len(frame) == 6 and frame["item_id"].tolist()[:2] == ["q1/turn1", "q1/turn2"]


# --- long ----------------------------------------------------------------------------------


def test_long_csv_outcome_and_winner(tmp_path):
    path = tmp_path / "games.csv"
    path.write_text(
        "model_a,model_b,outcome,winner,item_id,judge,game,first,strength,len_a,len_b\n"
        "A,B,1,,q1,j,1,a,2,10,20\n"
        "A,B,,b,q1,j,2,b,,,\n"
        "A,B,0.25,,q2,,,,,,\n"
        "A,B,,B,q3,,,,,,\n"
        "A,B,0.5,tie (bothbad),q4,,,,,,\n"
        "A,B,,,q5,,,,,,\n"
    )
    frame, accounting = read(long, path)
    assert frame["outcome"].tolist() == [1.0, 0.0, 0.25, 0.0, 0.5]
    assert frame["verdict"].tolist() == ["a", "b", "graded", "b", "both_bad"]
    assert frame["label"].tolist() == ["1", "b", "0.25", "B", "tie (bothbad)"]
    assert frame["strength"].tolist() == [2, 1, 1, 1, 1]
    assert frame["game"].tolist() == [1, 2, 1, 1, 1] and frame["first"].tolist()[:3] == [
        "a",
        "b",
        "",
    ]
    assert frame["len_a"].iloc[0] == 10 and math.isnan(frame["len_a"].iloc[1])
    assert accounting.excluded == {long.MISSING: 1} and accounting.example_lines[long.MISSING] == [
        7
    ]


def test_long_jsonl(tmp_path):
    path = _write(
        tmp_path, [{"model_a": "A", "model_b": "B", "outcome": 0.75, "category": "math"}], "g.jsonl"
    )
    frame, _ = read(long, path)
    assert (frame["outcome"].item(), frame["verdict"].item(), frame["category"].item()) == (
        0.75,
        "graded",
        "math",
    )


# --- bad input: file, line and field -------------------------------------------------------


def _alpaca(tmp_path, **change):
    records = json.loads(V1.read_text())[:3]
    records[1] = {k: v for k, v in {**records[1], **change}.items() if v is not ...}
    path = tmp_path / "annotations.json"
    path.write_text(json.dumps(records, indent=2))
    return path


@pytest.mark.parametrize(
    ("change", "field", "text"),
    [
        ({"preference": ...}, "preference", "required field is missing"),
        ({"preference": 2.5}, "preference", "outside 1..2"),
        ({"preference": -1}, "preference", "outside 1..2"),
        ({"preference": "2"}, "preference", "expected a preference"),
        ({"generator_2": "  "}, "generator_2", "expected a name"),
        ({"generator_1": None}, "generator_1", "expected a name"),
        ({"output_1": 3}, "output_1", "expected the output text"),
        ({"instruction": ""}, "instruction", "expected the instruction text"),
    ],
)
def test_alpaca_eval_bad_records(tmp_path, change, field, text):
    path = _alpaca(tmp_path, **change)
    with pytest.raises(InputError) as info:
        read(alpaca_eval, path)
    assert (info.value.line, info.value.field) == (record_lines(path)[1], field)
    assert text in info.value.message and info.value.file.endswith("annotations.json")


def _line_records(path, line, **change):
    records = [json.loads(text) for text in path.read_text().splitlines()]
    records[line - 1] = {k: v for k, v in {**records[line - 1], **change}.items() if v is not ...}
    return records


@pytest.mark.parametrize(
    ("module", "source", "change", "field"),
    [
        (arena_hard, AH_2025, {"model": ""}, "model"),
        (arena_hard, AH_2025, {"uid": ...}, "uid"),
        (arena_hard, AH_2025, {"games": [{"score": "A>B"}]}, "games"),
        (arena_hard, AH_2025, {"games": [{"score": 1}, {"score": "A>B"}]}, "games[0].score"),
        (arena_hard, AH_2025, {"baseline": None}, "baseline"),
        (mt_bench, MT, {"g1_winner": "model_3"}, "g1_winner"),
        (mt_bench, MT, {"model_2": None}, "model_2"),
        (mt_bench, MT, {"judge": ...}, "judge"),
        (mt_bench, MT, {"turn": "two"}, "turn"),
    ],
)
def test_jsonl_bad_records(tmp_path, module, source, change, field):
    path = _write(tmp_path, _line_records(source, 2, **change))
    with pytest.raises(InputError) as info:
        read(module, path)
    assert (info.value.line, info.value.field) == (2, field)


@pytest.mark.parametrize(
    ("row", "field"),
    [
        ({"winner": "model_c"}, "winner"),
        ({"model_b": " "}, "model_b"),
        ({"winner": None, "model_a": ...}, "model_a"),
        ({"anony": "yes"}, "anony"),
        ({"judge": ["u"]}, "judge"),
        ({"conversation_a": "hi"}, "conversation_a"),
    ],
)
def test_battles_bad_records(tmp_path, row, field):
    records = [dict(BATTLES[0]), {k: v for k, v in {**BATTLES[0], **row}.items() if v is not ...}]
    path = _write(tmp_path, records, "b.jsonl")
    with pytest.raises(InputError) as info:
        read(battles, path)
    assert (info.value.line, info.value.field) == (2, field)


@pytest.mark.parametrize(
    ("line", "field", "text"),
    [
        ("A,B,1.5,", "outcome", "outside [0, 1]"),
        ("A,B,yes,", "outcome", "expected an outcome"),
        ("A,B,1,b", "outcome", "disagrees with winner"),
        ("A,B,,c", "winner", "unknown winner"),
        (",B,1,", "model_a", "blank"),
    ],
)
def test_long_bad_rows(tmp_path, line, field, text):
    path = tmp_path / "games.csv"
    path.write_text(f"model_a,model_b,outcome,winner\nA,B,1,\n{line}\n")
    with pytest.raises(InputError) as info:
        read(long, path)
    assert (info.value.line, info.value.field) == (3, field) and text in info.value.message


def test_a_repeated_question_is_refused(tmp_path):
    lines = AH_2025.read_text().splitlines()
    path = tmp_path / "j.jsonl"
    path.write_text("\n".join([*lines, lines[0]]) + "\n")
    with pytest.raises(InputError, match="already judged on line 1") as info:
        read(arena_hard, path)
    assert info.value.line == 5


@pytest.mark.parametrize(
    ("module", "other"),
    [
        (alpaca_eval, ARENA),
        (arena_hard, MT),
        (mt_bench, AH_2025),
        (battles, V1),
        (long, MT),
    ],
)
def test_a_file_of_another_format_is_refused_naming_file_line_and_field(tmp_path, module, other):
    path = tmp_path / ("other" + (".csv" if module is long else other.suffix))
    shutil.copy(other, path)
    if module is long:  # a CSV with another format's header
        path.write_text("model,item_id,correct\nm,1,1\n")
    with pytest.raises(InputError) as info:
        read(module, path, baseline="b")
    assert info.value.file.endswith(path.name) and info.value.field is not None


def test_the_long_example_of_the_docs_is_read_as_they_say(tmp_path):
    """The ``csv`` block of docs/kinds/preference-inputs.md: a win, a loss by ``winner``,
    a graded preference."""
    from test_docs import DOCS, parse_blocks

    (block,) = [b for b in parse_blocks(DOCS / "kinds" / "preference-inputs.md") if b.lang == "csv"]
    path = tmp_path / "games.csv"
    path.write_text(block.text + "\n")
    assert long.detect(path)
    frame, accounting = read(long, path)
    assert frame["outcome"].tolist() == [1.0, 0.0, 0.25]
    assert frame["verdict"].tolist() == ["a", "b", "graded"]
    assert frame["game"].tolist() == [1, 2, 1] and accounting.rows_used == 3


def test_alpaca_eval_model_named_by_its_results_folder(tmp_path):
    # AlpacaEval names a leaderboard row and its results folder by --name, which may
    # differ from the outputs' generator (its NullModel's annotations say "example").
    folder = tmp_path / "results" / "NullModel" / "weighted_alpaca_eval_gpt4_turbo"
    folder.mkdir(parents=True)
    raw = json.loads(WEIGHTED.read_text())
    (folder / "annotations.json").write_text(json.dumps(raw, indent=2))
    by_generator, _ = read(alpaca_eval, folder / "annotations.json")
    assert set(by_generator["model_b"]) == {"gpt35_turbo_instruct"}
    by_folder, accounting = read(alpaca_eval, folder / "annotations.json", model_name="folder")
    assert set(by_folder["model_b"]) == {"NullModel"}
    assert set(by_folder["model_a"]) == {"gpt4_1106_preview"}  # the baseline is not renamed
    assert accounting.notes == [
        "model named NullModel by its results folder (model_name: folder); its annotations' "
        "generator_2 is gpt35_turbo_instruct"
    ]
    # The baseline's own folder: the baseline against itself, every row excluded.
    _, own = read(alpaca_eval, SELF, model_name="folder")
    assert own.rows_used == 0 and not own.notes
