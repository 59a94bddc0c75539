"""Every reader carries the extracted answer where its format logs one (the reader
frame's ``answer``, what maj@k votes with), on real tool outputs; formats without
one say so; the warehouse and ``load_epochs`` carry it through."""

import json
import shutil
from pathlib import Path

import duckdb
import pandas as pd
import pytest

from rederive.io import formats
from rederive.io.accounting import Accounting
from rederive.io.inspect_log import read_eval_log, reported_sampling_scores, sampling_reducer
from rederive.io.tabular import COLUMNS, read_long
from rederive.io.zipread import ZipReader
from rederive.studies.benchmark import ingest
from rederive.studies.benchmark.common import load_epochs

HERE = Path(__file__).parent
FIXTURES = HERE / "fixtures"
INSPECT_LOG = HERE.parent / "stats" / "fixtures" / "sampling" / "inspect_code" / "0.3.285"
INSPECT_LOG = INSPECT_LOG / "tiny_code.eval"
EVALPLUS = FIXTURES / "evalplus" / "0.4.0.dev44" / "tiny-coder_openai_temp_0.8.eval_results.json"
LM_EVAL = FIXTURES / "lm_eval" / "out" / "dummy-a"


def accounting(name="x"):
    return Accounting(study="benchmark", run=name, file=name, sha256="")


def test_the_reader_frame_has_an_answer_column_after_the_response():
    assert COLUMNS[COLUMNS.index("response") + 1] == "answer"


@pytest.mark.parametrize("suffix", [".csv", ".jsonl"])
def test_the_long_formats_answer_column_is_read_stripped_and_blank_is_none(tmp_path, suffix):
    rows = [
        {"model": "m", "item_id": "1", "epoch": 1, "correct": 1, "answer": " 42 "},
        {"model": "m", "item_id": "1", "epoch": 2, "correct": 0, "answer": "41"},
        {"model": "m", "item_id": "2", "epoch": 1, "correct": 0, "answer": ""},
    ]
    path = tmp_path / f"run{suffix}"
    if suffix == ".csv":
        pd.DataFrame(rows).to_csv(path, index=False)
    else:
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    frame = read_long(path, accounting=accounting())
    assert frame["answer"].tolist()[:2] == ["42", "41"]
    assert pd.isna(frame["answer"].iloc[2])
    assert str(frame["answer"].dtype) == "string"


def test_a_long_file_without_an_answer_column_has_none(tmp_path):
    path = tmp_path / "run.csv"
    path.write_text("model,item_id,correct\nm,1,1\n")
    assert read_long(path, accounting=accounting())["answer"].isna().all()


def test_csv_rows_that_send_the_file_to_the_row_reader_keep_the_answer(tmp_path):
    # A quote inside an unquoted field: the columnar path declines, the row reader reads.
    path = tmp_path / "odd.csv"
    path.write_text('model,item_id,correct,answer\nm,1,1,say "hi"\nm,2,0,B\n')
    assert read_long(path, accounting=accounting())["answer"].tolist() == ['say "hi"', "B"]


def test_lm_eval_answer_is_the_filtered_response_of_a_generation_task():
    frame = formats.get("lm_eval").read(LM_EVAL, params={}, accounting=accounting())
    gen = frame[frame["task"] == "tiny_gen"]
    raw = [json.loads(line) for line in next(LM_EVAL.glob("samples_tiny_gen_*")).open()]
    assert gen["answer"].tolist() == [r["filtered_resps"][0] for r in raw]
    # Loglikelihood tasks log [logprob, is_greedy] pairs there: no answer.
    assert frame.loc[frame["task"] == "tiny_mc", "answer"].isna().all()


def test_inspect_answer_is_the_scorers_answer_per_epoch():
    frame = read_eval_log(INSPECT_LOG, scorer="run_asserts", reducer="mean")
    reader = ZipReader(INSPECT_LOG)
    try:
        for row in frame.itertuples(index=False):
            member = row.source_file.split("!", 1)[1]
            sample = json.loads(reader.read(member))
            assert row.answer == sample["scores"]["run_asserts"]["answer"].strip()
    finally:
        reader.close()
    assert frame["answer"].notna().all() and frame["answer"].nunique() > 5


def test_inspect_reduced_epochs_have_no_answer():
    frame = read_eval_log(INSPECT_LOG, scorer="run_asserts", reducer="pass_at_2")
    assert frame["answer"].isna().all()


def test_inspect_reported_pass_at_k_reducers_are_the_headers_values():
    got = reported_sampling_scores(INSPECT_LOG, scorer="run_asserts")
    reader = ZipReader(INSPECT_LOG)
    try:
        header = json.loads(reader.read("header.json"))
    finally:
        reader.close()
    expected = {
        (sampling_reducer(s["reducer"])[0].replace("k", str(sampling_reducer(s["reducer"])[1]))): s[
            "metrics"
        ]["accuracy"]["value"]
        for s in header["results"]["scores"]
        if sampling_reducer(s["reducer"])
    }
    assert len(expected) == 10  # pass_at_{1,2,3,4,6} and pass_k_{1,2,3,4,6}
    assert dict(zip(got["metric"], got["value"], strict=True)) == expected
    assert set(got["filter"].str.split(",").str[0]) == {"run_asserts"}
    # The format's reported(): the accuracy row first, then the sampling rows.
    both = formats.get("inspect").reported(
        INSPECT_LOG, params={"inspect": {"scorer": "run_asserts", "reducer": "mean"}}
    )
    assert both["metric"].tolist() == ["accuracy", *got["metric"]]


def test_sampling_reducer_names():
    assert sampling_reducer("pass_at_12") == ("pass@k", 12)
    assert sampling_reducer("pass_k_3") == ("pass^k", 3)
    assert sampling_reducer("at_least_2") is None and sampling_reducer("mean") is None


def test_evalplus_answer_is_the_completions_test_outcome():
    frame = formats.get("evalplus").read(EVALPLUS, params={}, accounting=accounting())
    raw = json.loads(EVALPLUS.read_text())["eval"]
    base = frame[frame["task"] == "humaneval"]
    plus = frame[frame["task"] == "humaneval+"]
    for task_id, samples in raw.items():
        got_base = base.loc[base["item_id"] == task_id, "answer"].tolist()
        got_plus = plus.loc[plus["item_id"] == task_id, "answer"].tolist()
        for sample, a, b in zip(samples, got_base, got_plus, strict=True):
            if sample["base_status"] == "pass":
                assert a == "pass"
            else:
                assert a == f"{sample['base_status']} on {json.dumps(sample['base_fail_tests'])}"
            both_pass = sample["base_status"] == sample["plus_status"] == "pass"
            assert (b == "pass") == both_pass
            if not both_pass:
                assert b.startswith(f"base {a}; plus ")
    # The grade follows from the outcome: one outcome, one grade, in every item.
    for part in (base, plus):
        spread = part.groupby(["item_id", "answer"])["correct"].nunique()
        assert (spread == 1).all()
        assert ((part["answer"] == "pass") == (part["correct"] == 1)).all()


def test_evalplus_long_failing_inputs_are_named_by_their_hash():
    from rederive.io.formats.evalplus import OUTCOME_CHARS, _outcome

    long = [list(range(200))]
    text = _outcome({"base_status": "fail", "base_fail_tests": long}, "base")
    assert text.startswith("fail on sha256:") and len(text) < OUTCOME_CHARS
    assert _outcome({"base_status": "fail"}, "base") is None  # no failing-test list


def test_evalplus_reports_every_pass_at_k_it_wrote(tmp_path):
    record = json.loads(EVALPLUS.read_text())
    record["pass_at_k"]["base"]["pass@10"] = 0.9
    path = tmp_path / EVALPLUS.name
    path.write_text(json.dumps(record))
    got = formats.get("evalplus").reported(path, params={})
    assert got[got["filter"] == "base"]["metric"].tolist() == ["pass@1", "pass@10"]
    assert got[got["filter"] == "plus"]["metric"].tolist() == ["pass@1"]


def test_formats_say_whether_they_log_answers():
    with_answers = {m.NAME for m in formats.FORMATS if getattr(m, "ANSWERS", None)}
    assert with_answers == {"long", "lm_eval", "inspect", "evalplus"}
    assert formats.answers_note("long") == ""
    assert formats.answers_note("matrix") == (
        "no extracted answers: the matrix format logs none (docs/input-formats.md)"
    )


def test_answers_reach_the_warehouse_and_load_epochs(tmp_path):
    from rederive.io import warehouse
    from rederive.io.accounting import write_ingested
    from rederive.studies.benchmark import warehouse as wh

    raw = tmp_path / "raw"
    raw.mkdir()
    shutil.copy(INSPECT_LOG, raw / INSPECT_LOG.name)
    path = raw / INSPECT_LOG.name
    params = {"inspect": {"scorer": "run_asserts", "reducer": "mean"}}
    labelled, acc = ingest.ingest("code", "inspect", path, [path], params)
    out = tmp_path / "labelled"
    out.mkdir()
    write_ingested(labelled, acc, out / "code.parquet", tmp_path / "code.json")
    db = tmp_path / "w.duckdb"
    with warehouse.building(db) as con:
        warehouse.create_stacked(con, "responses", wh.responses_sql([str(out / "code.parquet")]))
        warehouse.write_frames(con, wh.build_in(con, None, "require_equal"))
    con = duckdb.connect(str(db), read_only=True)
    try:
        columns = [r[0] for r in con.execute("DESCRIBE responses").fetchall()]
        stored = con.execute("SELECT answer FROM responses ORDER BY rowid").df()["answer"]
    finally:
        con.close()
    assert columns[columns.index("response") + 1] == "answer"
    epochs = load_epochs(db, answers=True)
    frame = epochs.frame()
    assert frame["answer"].tolist() == stored.tolist()
    assert list(epochs.answers) == sorted(set(stored.dropna()))
    assert "answer" not in load_epochs(db).frame()
    scored = load_epochs(db, scored_only=True, zeros=False, answers=True).frame()
    assert scored["answer"].tolist() == stored.tolist()
