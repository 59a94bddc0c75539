"""The preference kind's job modules (rederive.studies.preference), without Snakemake:
run discovery, the baseline, weights and small-n guard, the warehouse's refusal of a
judgment read twice, win rates and length-control inputs, the judges' tables, the
published check's reading of leaderboards, the models summary."""

import json
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pytest
from preference_inputs import ARENA_HARD_BASELINE, STATS, arena_hard_folder

from rederive.errors import InputError
from rederive.io import preference
from rederive.io.accounting import Accounting
from rederive.studies.preference import check, common, judges, quality, sources, warehouse
from rederive.studies.preference import winrates as wr
from rederive.studies.preference.ingest import ingest

FIXTURES = Path(__file__).parent / "fixtures"


def games(rows, **columns) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=["model_a", "model_b", "outcome"])
    frame["verdict"] = np.select(
        [frame["outcome"] == 1, frame["outcome"] == 0, frame["outcome"] == 0.5],
        ["a", "b", "tie"],
        "graded",
    )
    frame["strength"] = 1
    frame["format"] = "long"
    frame["item_id"] = pd.array([f"q{i}" for i in range(len(frame))], dtype="string")
    frame["judge"] = pd.array(["j"] * len(frame), dtype="string")
    frame["game"] = 1
    frame["first"] = ""
    frame["len_a"] = np.nan
    frame["len_b"] = np.nan
    for name, values in columns.items():
        frame[name] = values
    return frame


# --- sources --------------------------------------------------------------------------


def test_the_readers_fixture_folder_is_a_raw_dir_of_every_format():
    found = sources.discover(FIXTURES)
    assert {s.format for s in found.values()} == set(preference.names()) - {"long"}
    run = "alpaca_eval-results_gpt35_turbo_instruct_weighted_alpaca_eval_gpt4_turbo"
    assert found[run].path.name == "annotations.json"
    assert list(found) == sorted(found)


def test_inputs_point_a_format_elsewhere_and_auto_reads_a_mixed_folder(tmp_path):
    raw = arena_hard_folder(tmp_path / "raw")
    moved = tmp_path / "elsewhere"
    (raw / "arena_hard").rename(moved)
    assert sources.discover(raw) == {}
    found = sources.discover(raw, {"arena_hard": str(moved)})
    assert len(found) == 5 and {s.format for s in found.values()} == {"arena_hard"}
    auto = sources.discover(raw, {"auto": str(moved)})
    assert sorted(s.path for s in auto.values()) == sorted(s.path for s in found.values())


# --- common ---------------------------------------------------------------------------


def test_the_baseline_auto_named_or_none():
    star = games([("base", "m1", 0.0), ("base", "m2", 1.0), ("base", "m1", 0.5)])
    assert common.resolve_baseline(star, "auto") == "base"
    flipped = games([("m1", "base", 0.0), ("base", "m2", 1.0)])
    assert common.resolve_baseline(flipped, "auto") == "base"  # the one model in every game
    assert common.resolve_baseline(games([("m1", "m2", 0.0), ("m2", "m3", 1.0)]), "auto") == "m2"
    arena = games([("m1", "m2", 0.0), ("m3", "m4", 1.0)])
    assert common.resolve_baseline(arena, "auto") is None
    assert common.resolve_baseline(star, None) is None
    assert common.resolve_baseline(arena, "m3") == "m3"
    with pytest.raises(InputError, match="baseline 'gpt-4' has no game"):
        common.resolve_baseline(arena, "gpt-4")


def test_strong_weights_per_format():
    frame = games([("a", "b", 1.0), ("a", "b", 0.0), ("a", "c", 1.0)])
    frame["strength"] = [2, 2, 1]
    frame["format"] = ["arena_hard", "long", "long"]
    assert common.strong_weights(frame, {"arena_hard": 3, "long": 3}) == 3.0
    assert list(common.strong_weights(frame, {"arena_hard": 3})) == [3.0, 1.0, 1.0]
    assert common.strong_weights(frame.assign(strength=1), {"arena_hard": 3}) == 1.0
    with pytest.raises(ValueError, match="unknown input format"):
        common.strong_weights(frame, {"arenahard": 3})


def test_small_n_leaves_the_baseline_alone():
    frame = games([("base", "m1", 1.0)] * 5 + [("base", "m2", 0.0)] * 25)
    assert common.small_n_models(frame, 20, "base") == {"m1": "small_n"}
    assert common.small_n_models(frame, 40, "base") == {"m1": "small_n", "m2": "small_n"}


# --- ingest and warehouse -------------------------------------------------------------


def test_ingest_labels_every_game_with_its_run_and_format(tmp_path):
    raw = arena_hard_folder(tmp_path / "raw", published=False)
    source = next(iter(sources.discover(raw).values()))
    record = {
        "run": source.run,
        "format": source.format,
        "path": str(source.path),
        "files": [str(p) for p in source.files()],
    }
    labelled, accounting = ingest(record, {"arena_hard": {"baseline": ARENA_HARD_BASELINE}})
    assert list(labelled.columns) == ["run", "format", *preference.COLUMNS]
    assert (labelled["run"] == source.run).all() and len(labelled) == 1000
    assert accounting.rows_read == 1000 and accounting.format == "arena_hard"


def test_a_judgment_read_twice_is_refused():
    con = duckdb.connect()
    frame = games([("base", "m1", 1.0), ("base", "m2", 0.0)])
    frame["run"] = ["r1", "r1"]
    twice = pd.concat([frame, frame.assign(run="r2").iloc[:1]], ignore_index=True)
    con.register("source", twice)
    con.execute("CREATE TABLE games AS SELECT * FROM source")
    with pytest.raises(InputError, match=r"item 'q0', base vs m1, game 1\) is in runs r1, r2"):
        warehouse.refuse_repeated_judgments(con)
    con.execute("DELETE FROM games WHERE run = 'r2'")
    warehouse.refuse_repeated_judgments(con)


# --- win rates ------------------------------------------------------------------------


def test_win_rates_per_judge_with_the_baseline_last():
    frame = games(
        [("base", "m1", 0.25), ("base", "m1", 1.0), ("m2", "base", 1.0), ("base", "m2", 0.5)],
        judge=pd.array(["j1", "j1", "j1", "j2"], dtype="string"),
    )
    params = {
        "baseline": "auto",
        "min_n": 2,
        "length_control": {"instruction_difficulty": None, "gamed": None},
    }
    table = wr.win_rates(frame, params)
    assert list(zip(table["judge"], table["model"], table["role"], strict=True)) == [
        ("j1", "m2", "contestant"),
        ("j1", "m1", "contestant"),
        ("j1", "base", "baseline"),
        ("j2", "m2", "contestant"),
        ("j2", "base", "baseline"),
    ]
    m1 = table[table["model"] == "m1"].iloc[0]
    assert m1["win_rate"] == pytest.approx(100 * (0.75 + 0.0) / 2)
    assert bool(table[table["judge"] == "j2"].iloc[0]["small_n"])
    assert set(table["lc_glm"]) == {wr.NO_LENGTHS}
    assert wr.win_rates(games([("m1", "m2", 1.0), ("m3", "m4", 0.0)]), params).empty


def test_length_control_inputs_are_checked(tmp_path):
    good = tmp_path / "difficulty.csv"
    good.write_text("item_id,instruction_difficulty\nq0,0.5\nq1,-1.25\n")
    assert wr.read_difficulty(str(good)).to_dict() == {"q0": 0.5, "q1": -1.25}
    twice = tmp_path / "twice.csv"
    twice.write_text("item_id,instruction_difficulty\nq0,0.5\nq0,1\n")
    with pytest.raises(InputError, match="given twice") as err:
        wr.read_difficulty(str(twice))
    assert err.value.line == 3
    text = tmp_path / "text.csv"
    text.write_text("item_id,instruction_difficulty\nq0,hard\n")
    with pytest.raises(InputError, match="not a number"):
        wr.read_difficulty(str(text))
    frame = games([("base", "m1", 1.0)], len_a=[10.0], len_b=[20.0])
    rows = wr.against_baseline(frame, "base")
    assert rows[["value", "len_model", "len_base"]].iloc[0].tolist() == [0.0, 20.0, 10.0]
    settings = {"instruction_difficulty": str(good), "regularize_lambda": 0.2, "n_splits": 5}
    missing = pd.Series({"q9": 0.1})
    with pytest.raises(InputError, match="no instruction difficulty for item 'q0'"):
        wr.length_control(rows, missing, None, settings)
    assert wr.length_control(rows, None, None, settings) == {"lc_glm": wr.NO_DIFFICULTY}
    gamed = wr.read_gamed(str(STATS / "alpaca_eval" / "lc_standin_gamed.csv"))
    assert list(gamed.columns) == ["preference", "std_delta_len", "instruction_difficulty"]


# --- judges ---------------------------------------------------------------------------


def test_a_judge_with_two_verdicts_on_a_unit_is_left_out_of_agreement_and_counted():
    frame = games(
        [("a", "b", 1.0), ("a", "b", 1.0), ("a", "b", 0.0), ("a", "b", 1.0), ("a", "b", 0.0)],
        item_id=pd.array(["q1", "q1", "q1", "q2", "q2"], dtype="string"),
        judge=pd.array(["j1", "j2", "j2", "j1", "j2"], dtype="string"),
    )
    table = judges.agreement(frame, 0.95)
    assert set(table["verdicts_left_out"]) == {2}
    cohen = table[table["coefficient"] == "cohen_kappa"].iloc[0]
    assert cohen["units"] == 1  # q2 only: j2 judged q1 twice
    one = judges.agreement(frame.assign(judge="j1"), 0.95)
    assert one.empty and list(one.columns) == judges.AGREEMENT_COLUMNS


def test_games_without_an_item_never_pair_for_position_bias():
    frame = games(
        [("a", "b", 1.0), ("a", "b", 0.0)], item_id=pd.array([None, None], dtype="string")
    )
    frame["first"] = ["a", "b"]
    own = judges.own_items(frame)
    assert own["item_id"].nunique() == 2 and own["item_id"].notna().all()


# --- quality --------------------------------------------------------------------------


def test_models_summary_counts_verdicts_from_each_side():
    frame = games(
        [("base", "m1", 1.0), ("m1", "base", 1.0), ("base", "m1", 0.5), ("base", "m1", 0.3)]
    )
    summary = quality.model_summary(frame, "base", 4).set_index("model")
    assert summary.loc["m1", ["games", "wins", "losses", "ties", "graded"]].tolist() == [
        4,
        1,
        1,
        1,
        1,
    ]
    assert summary.loc["base", "role"] == "baseline" and summary.loc["m1", "role"] == "contestant"
    assert quality.model_summary(frame, "base", 5).set_index("model").loc["m1", "role"] == "small_n"


def test_reader_notes_become_data_quality_notes(tmp_path):
    accounting = Accounting(study="s", run="r1", file="f.json", sha256="x", format="alpaca_eval")
    accounting.rows_read = accounting.rows_used = 3
    accounting.notes.append("model named X by its results folder")
    path = tmp_path / "r1.json"
    accounting.write(path)
    table = quality.data_quality([path])
    assert list(table["reason"]) == [
        "used",
        "note (nothing excluded): model named X by its results folder",
    ]
    assert list(table["rows"]) == [3, 0] and set(table["format"]) == {"alpaca_eval"}


# --- published check ------------------------------------------------------------------


def test_an_alpaca_eval_leaderboard_is_read_with_its_unnamed_model_column():
    path = FIXTURES / "alpaca_eval" / "published" / "leaderboard.csv"
    table, compared, others = check.read_leaderboard(path)
    assert list(table["model"]) == [
        "NullModel",
        "gpt4_1106_preview",
        "gpt35_turbo_instruct",
        "text_davinci_001",
    ]
    assert "win_rate" in compared and "lc_standard_error" in compared
    assert others == ["mode", "avg_length"]
    # A column's precision is its finest cell's (8.462446504415423: 15 decimals).
    assert table.loc[0, "win_rate__decimals"] == 15


def test_an_arena_hard_leaderboard_compares_score_and_elo():
    path = STATS / "arena_hard" / "published_no_control.csv"
    table, compared, others = check.read_leaderboard(path)
    assert compared == ["score", "elo_score"]
    assert "rating_q025" in others and "elo_rating_q975" in others
    scores = pd.DataFrame(
        {
            "model": ["deepseek-r1", "other"],
            "rating": [1046.2614985, 900.0],
            "win_rate_pct": [56.6185, 30.0],
        }
    )
    found = check.score_checks(
        path, table, compared, scores, {"win_rate_pct": 1e-9, "rating": 1e-3}, path.parent
    )
    statuses = {(c.item, c.quantity): c.status for c in found}
    assert statuses[("deepseek-r1", "score")] == "pass"
    assert statuses[("deepseek-r1", "elo_score")] == "pass"
    assert statuses[("gpt-4o-2024-11-20", "score")] == "n/a"  # published, no games here
    assert ("gpt-4o-2024-11-20", "elo_score") not in statuses  # one row for a missing model
    assert statuses[("other", "rating")] == "n/a"  # ours, not published


def test_a_leaderboard_the_check_cannot_read_is_named(tmp_path):
    path = tmp_path / "board.csv"
    path.write_text("model,accuracy\na,0.5\n")
    with pytest.raises(InputError, match="no column the preference check compares"):
        check.read_leaderboard(path)
    path.write_text("model,win_rate\na,50\na,40\n")
    with pytest.raises(InputError, match="listed twice"):
        check.read_leaderboard(path)


def test_the_judge_a_leaderboard_is_compared_with():
    path = Path("published/weighted_alpaca_eval_gpt4_turbo_leaderboard.csv")
    assert check.judge_for(path, ["only"]) == ("only", "")
    judges_ = ["alpaca_eval_gpt4", "weighted_alpaca_eval_gpt4_turbo"]
    assert check.judge_for(path, judges_)[0] == "weighted_alpaca_eval_gpt4_turbo"
    judge, why = check.judge_for(Path("published/board.csv"), judges_)
    assert judge is None and "name it <judge>_leaderboard.csv" in why


def test_internal_checks_relate_our_own_columns():
    rates = pd.DataFrame(
        {
            "judge": [""],
            "model": ["m"],
            "role": ["contestant"],
            "n_wins": [3],
            "n_wins_base": [1],
            "n_draws": [2],
            "n_total": [6],
            "discrete_win_rate": [100 * 4 / 6],
        }
    )
    found = check.internal_checks(rates)
    assert [c.status for c in found] == ["pass", "pass"]
    assert [c.kind for c in found] == ["internal", "internal"]


def test_the_alpaca_eval_reader_notes_reach_the_accounting_json(tmp_path):
    folder = tmp_path / "results" / "NullModel" / "weighted_alpaca_eval_gpt4_turbo"
    folder.mkdir(parents=True)
    annotations = FIXTURES / "alpaca_eval" / "results" / "gpt35_turbo_instruct"
    source = annotations / "weighted_alpaca_eval_gpt4_turbo" / "annotations.json"
    (folder / "annotations.json").write_text(source.read_text())
    record = {"run": "r", "format": "alpaca_eval", "path": str(folder / "annotations.json")}
    record["files"] = [record["path"]]
    _, accounting = ingest(record, {"alpaca_eval": {"model_name": "folder"}})
    accounting.write(tmp_path / "r.json")
    notes = json.loads((tmp_path / "r.json").read_text())["notes"]
    assert notes and "NullModel" in notes[0]
