"""Every broken input file, through every reader: a clear error or a counted
exclusion, never another exception (issue 11, items 1, 3 and 7)."""

import json
import os

import pandas as pd
import pytest
from corpus.make_corpus import BAD_LINE, FATAL, make_corpus, summary, walk
from test_docs import DOCS, parse_blocks
from workflow_utils import run_workflow

from rederive.errors import InputError
from rederive.io.batches import batch_of


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    root = tmp_path_factory.mktemp("corpus")
    cwd = os.getcwd()
    os.chdir(root)  # messages name files relative to the working directory
    try:
        results = walk(make_corpus(root))
    finally:
        os.chdir(cwd)
    print("\n" + summary(results))
    return {o.case.id: o for o in results}


def test_the_summary_line_is_the_documented_one(outcomes):
    """docs/guarantees.md quotes the corpus's summary line: a new reader or case updates it."""
    (shown,) = [
        b.text for b in parse_blocks(DOCS / "guarantees.md") if b.text.startswith("cases tried:")
    ]
    line = summary(list(outcomes.values()))
    assert line == shown, f"docs/guarantees.md shows {shown!r}; the corpus gives {line!r}"


def test_no_traceback_and_every_error_names_its_line(outcomes):
    bad = [
        f"{o.case.id}: {o.message}" for o in outcomes.values() if o.kind in {"traceback", "vague"}
    ]
    assert not bad, "\n".join(bad)


def test_valid_bases_are_read_and_whole_file_breakages_are_errors(outcomes):
    readers = {o.case.reader for o in outcomes.values()}
    for reader in readers:
        assert outcomes[f"{reader}/valid"].kind == "accepted", reader
        for variant in ("bom", "crlf", "no_final_newline"):
            if f"{reader}/{variant}" in outcomes:  # not for the lm-eval folder reader
                assert outcomes[f"{reader}/{variant}"].kind == "accepted", (reader, variant)
    fatal = [o for o in outcomes.values() if o.case.id.split("/")[1] in FATAL]
    assert {o.case.reader for o in fatal} == readers
    wrong = [f"{o.case.id}: {o.kind}" for o in fatal if o.kind != "error"]
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize(
    "case, text, line, field",
    [
        ("salitrap_run/invalid_utf8", "not valid UTF-8 (byte 0xff", BAD_LINE, None),
        ("tag_run/invalid_utf8", "not valid UTF-8", BAD_LINE, None),
        ("bias_run/invalid_utf8", "not valid UTF-8", BAD_LINE, None),
        ("cot_run/invalid_utf8", "not valid UTF-8", BAD_LINE, None),
        ("long_jsonl/invalid_utf8", "not valid UTF-8", BAD_LINE, None),
        ("lm_eval_samples/invalid_utf8", "not valid UTF-8", BAD_LINE, None),
        ("matrix/invalid_utf8_line100", "not valid UTF-8", 100, None),
        ("salitrap_run/gzip", "gzip-compressed", None, None),
        ("lm_eval_dir/gzip", "gzip-compressed", None, None),
        ("salitrap_run/directory", "is a directory", None, None),
        ("matrix/directory", "is a directory", None, None),
        ("long_csv/directory", "is a directory", None, None),
        ("matrix/header_over_field_limit", "longer than 131,072 characters", 1, None),
        ("matrix/col1=yes", "'yes' is not a number in [0, 1], true/false", BAD_LINE, "*"),
        ("salitrap_run/model_id=null", "expected the model name, got None", BAD_LINE, "model_id"),
        ("bias_run/model=null", "expected the model name, got None", BAD_LINE, "model"),
        ("tag_items/item_id=list", "expected a name or id", BAD_LINE, "item_id"),
        ("long_jsonl/deep_nesting", "nested too deeply", BAD_LINE, None),
        ("salitrap_run/nan_literal", "NaN is not valid JSON", BAD_LINE, None),
        ("long_parquet/truncated", "not a readable Parquet file", None, None),
        ("long_parquet/correct=two", "score 2 is outside [0, 1]", BAD_LINE, "correct"),
        ("long_parquet/item_id=float", "expected a name or id", 1, "item_id"),
        ("long_parquet/model=list", "expected a name or id", 1, "model"),
        (
            "bench_published/col1=two",
            "'2' is above 1, but the column reads as fractions",
            3,
            "score",
        ),
        ("bench_published/col1=negative", "'-1' is negative", 3, "score"),
        ("bench_published/col1=text", "not a single number: 'abc'", 3, "score"),
        (
            "bench_published/percent_in_fractions",
            "check.published_scale: percent",
            BAD_LINE + 1,
            "score",
        ),
        ("bench_published/percent_above_100", "'170.5' is above 100", BAD_LINE + 1, "score"),
        ("bench_published/two_score_columns", "more than one score column", 1, None),
    ],
)
def test_issue_cases_have_their_message(outcomes, case, text, line, field):
    outcome = outcomes[case]
    assert outcome.kind == "error", outcome.message
    assert outcome.message.startswith("rederive: input error ")
    assert text in outcome.message
    if line is not None:
        assert f":{line}" in outcome.message
    if field == "*":
        assert ", field '" in outcome.message
    elif field is not None:
        assert f"field '{field}'" in outcome.message


def test_published_leaderboards_in_percent_are_read(outcomes):
    """Issue 37: a leaderboard in percent (by its sign, header or median) is read."""
    for case in ("percent_median", "percent_sign", "percent_header", "three_decimals"):
        assert outcomes[f"bench_published/{case}"].kind == "accepted", case


def test_alpaca_preferences_are_read_as_they_are(outcomes):
    """Issue 37: fractional scores are data (nothing cut at 0.5 on the way in); a
    missing grade is a counted exclusion, not a 0."""
    from rederive.io.tabular import read_long

    assert outcomes["long_csv/alpaca_preferences"].kind == "accepted"
    frame = read_long(outcomes["long_csv/alpaca_preferences"].case.path)
    scores = frame["correct"].to_numpy()
    assert (scores == 0.5).sum() >= 6 and ((scores > 0) & (scores < 1) & (scores != 0.5)).any()
    missing = outcomes["long_csv/alpaca_missing_grade"]
    assert missing.kind == "excluded" and "missing score" in missing.message


def test_bom_at_the_start_of_a_long_csv_is_dropped(tmp_path):
    from rederive.io.tabular import read_long

    path = tmp_path / "long.csv"
    path.write_bytes(b"\xef\xbb\xbfmodel,item_id,correct\nA,q1,1\nA,q2,0\n")
    frame = read_long(path)
    assert frame["model"].tolist() == ["A", "A"]
    assert frame["correct"].tolist() == [1.0, 0.0]


def test_mixed_integer_and_text_item_ids_sort_numbers_first(tmp_path):
    from rederive.studies.benchmark.warehouse import build_tables

    ids = [f"q{i}" for i in range(10)] + [str(i) for i in range(10, -1, -1)]
    responses = pd.DataFrame(
        {
            "run": "r",
            "format": "test",
            "model": "m",
            "task": "t",
            "item_id": pd.array(ids, dtype="string"),
            "category": pd.NA,
            "correct": 1.0,
            "epoch": 0,
            "source_file": "runs/r.csv",
        }
    )
    items = build_tables(responses, None, "require_equal")["items"]
    assert items["item_id"].tolist() == [str(i) for i in range(11)] + [f"q{i}" for i in range(10)]


def _accounting(path, run, file, sha256):
    record = {
        "study": "s",
        "run": run,
        "file": file,
        "sha256": sha256,
        "rows_read": 1,
        "rows_used": 1,
        "rows_excluded": 0,
        "excluded": {},
        "example_lines": {},
        "notes": [],
    }
    path.write_text(json.dumps(record))
    return path


def test_identical_files_under_two_names_are_refused(tmp_path):
    from rederive.io.accounting import load_accounting, load_runs

    paths = [
        _accounting(tmp_path / "a.json", "a", "raw/matrix/chembench.csv", "ab" * 32),
        _accounting(tmp_path / "b.json", "b", "raw/matrix/chembench_copy.csv", "ab" * 32),
    ]
    for load in (load_runs, load_accounting):
        with pytest.raises(InputError) as info:
            load(paths)
        assert info.value.file == "raw/matrix/chembench_copy.csv"
        assert "same content as raw/matrix/chembench.csv" in str(info.value)
    paths[1] = _accounting(tmp_path / "b.json", "b", "raw/matrix/other.csv", "cd" * 32)
    assert load_runs(paths)["run"].tolist() == ["a", "b"]


def test_cot_model_in_two_run_files_is_refused():
    from rederive.io.warehouse import check_one_run_per_model

    frame = pd.DataFrame({"model": ["m", "m"], "run": ["m", "m_copy"]})
    with pytest.raises(InputError, match="several run files"):
        check_one_run_per_model(frame, advice="keep one", field="model")


@pytest.mark.slow
def test_workflow_reports_a_bad_byte_without_traceback(tmp_path):
    """One study run end to end on one bad file: the message reaches the user, no traceback."""
    matrix = tmp_path / "raw" / "matrix"
    matrix.mkdir(parents=True)
    rows = ["item,A,B"] + [f"{i},1,0" for i in range(150)]
    text = ("\n".join(rows) + "\n").encode()
    lines = text.splitlines(keepends=True)
    lines[99] = lines[99].replace(b",1,", b",\xff,")
    (matrix / "scores.csv").write_bytes(b"".join(lines))
    proc = run_workflow(
        tmp_path,
        {"build": ["benchmark"], "analyses": {"benchmark": {"raw_dir": str(tmp_path / "raw")}}},
        targets=[f"results/benchmark/ingested/{batch_of('matrix-scores', 8)}"],
        check=False,
        cores=1,
    )
    assert proc.returncode != 0
    assert "rederive: input error" in proc.stderr
    assert "scores.csv:100: not valid UTF-8 (byte 0xff" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_named_pipe_is_refused_without_blocking(tmp_path):
    from rederive.io.jsonl import iter_jsonl

    fifo = tmp_path / "run.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="not a regular file"):
        list(iter_jsonl(fifo))


def test_every_format_is_walked():
    # A new input format gives the corpus a base file (or says here why not):
    # CONTRIBUTING.md counts this as one of the two existing files it changes.
    from corpus.make_corpus import NOT_WALKED, WALKED_FORMATS, _readers

    from rederive.io import formats, preference

    _readers()
    registered = set(formats.names()) | {f"preference:{n}" for n in preference.names()}
    missing = registered - WALKED_FORMATS - set(NOT_WALKED)
    assert not missing, f"formats the bad-input corpus does not walk: {sorted(missing)}"
