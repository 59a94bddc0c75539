"""Corpus of broken input files for every reader of every study, and its walker.

Each case starts from a valid file cut from the bundled ``raw/`` data (so the
reader accepts the unbroken version) and breaks it one way: encoding (invalid
UTF-8 on a known line, BOM, UTF-16, NUL bytes, CRLF), container (gzip, zip,
random bytes, a directory under the file's name, an empty file), syntax
(truncated last line, a line that is not an object, nesting deeper than the JSON
parser's recursion limit, an unbalanced CSV quote, a CSV field over the csv
module's limit, a ragged row) and content (every field of one record set to
null, a number, a list, an object, ``""`` and ``true``; bad matrix cells).

:func:`walk` calls each reader in-process and classifies the outcome:

* ``error``     — :class:`~rederive.errors.InputError` naming the file (and the
  expected line, where the case has one);
* ``vague``     — an InputError without the expected line;
* ``excluded``  — read, with more counted exclusions than the unbroken file;
* ``accepted``  — read like a valid file (BOM, CRLF, a missing final newline);
* ``traceback`` — any other exception: a bug.

Run ``python tests/corpus/make_corpus.py [--out DIR] [--verbose]`` for the summary.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import json
import sys
import tempfile
import traceback
import zipfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
RAW = REPO / "raw"
BENCH_FIXTURES = REPO / "tests" / "benchmark" / "fixtures"
INSPECT_FIXTURES = BENCH_FIXTURES / "inspect"
PREF_FIXTURES = REPO / "tests" / "preference" / "fixtures"
BAD_LINE = 3  # the record each line-level case breaks (1-based)
JUNK_VALUES = {
    "null": None,
    "number": 12345,
    "list": [1],
    "object": {"a": 1},
    "blank": "",
    "bool": True,
}


# Breakages of the file as a whole: none of them may be read as data.
FATAL = {
    "invalid_utf8",
    "invalid_utf8_line100",
    "latin1_text",
    "nul_byte",
    "gzip",
    "zip",
    "utf16",
    "random_bytes",
    "directory",
    "empty",
    "blank_lines",
    "truncated",
    "deep_nesting",
    "not_an_object",
    "broken_json",
    "nan_literal",
    "unbalanced_quote",
    "header_over_field_limit",
    "ragged_row",
    "cr_line_ends",
}


@dataclass
class Case:
    id: str
    reader: str
    path: Path
    line: int | None = None  # the line an error must name, when the case has one
    accept: bool = False  # a valid file after normalisation (BOM, CRLF, …)


def _config(study: str) -> dict:
    return yaml.safe_load((REPO / "config" / "kinds" / f"{study}.yaml").read_text())


def _head(path: Path, n: int) -> bytes:
    with open(path, "rb") as handle:
        return b"".join(handle.readline() for _ in range(n))


# ---------------------------------------------------------------------------
# readers: each takes a path and returns an Accounting (or None when it keeps none)


#: The input formats whose readers the corpus walks (filled by _readers()).
WALKED_FORMATS: set[str] = set()
#: Formats the corpus does not walk, and why (test_every_format_is_walked).
NOT_WALKED = {
    "helm": "a run is a folder of several JSON files; tests/benchmark/test_reader_json_fuzz.py",
    "lighteval": "a run is a folder of Parquet details; tests/benchmark/test_reader_lighteval.py",
}


def _readers() -> dict[str, Callable[[Path], object]]:
    import pandas as pd

    from rederive.io import lm_eval
    from rederive.studies.benchmark import check as bench_check
    from rederive.studies.benchmark import ingest as bench_ingest
    from rederive.studies.benchmark.warehouse import read_item_metadata
    from rederive.studies.bias_awareness import ingest as bias_ingest
    from rederive.studies.bias_awareness import items as bias_items
    from rederive.studies.cot_loadbearing import check as cot_check
    from rederive.studies.cot_loadbearing import ingest as cot_ingest
    from rederive.studies.cot_loadbearing import warehouse as cot_warehouse
    from rederive.studies.salitrap import ingest as sali_ingest
    from rederive.studies.salitrap import items as sali_items
    from rederive.studies.salitrap import warehouse as sali_warehouse
    from rederive.studies.tag_sycophancy import ingest as tag_ingest
    from rederive.studies.tag_sycophancy import inputs as tag_inputs

    sali, tag = _config("salitrap"), _config("tag_sycophancy")
    bias, cot = _config("bias_awareness"), _config("cot_loadbearing")
    cache: dict[str, pd.DataFrame] = {}

    def sali_item_frame():
        if "sali" not in cache:
            cache["sali"] = sali_items.read_items(RAW / "salitrap/items.jsonl", sali["dimensions"])
        return cache["sali"]

    def tag_item_frame():
        if "tag" not in cache:
            cache["tag"] = tag_inputs.read_items(RAW / "tag_sycophancy/items.jsonl")
        return cache["tag"]

    def bias_item_frame():
        if "bias" not in cache:
            cache["bias"] = bias_items.read_items(RAW / "bias_awareness/items.jsonl")
        return cache["bias"]

    def quiet(read):
        def call(path):
            read(path)  # a reader without accounting: returning is "accepted"

        return call

    bench_defaults = _config("benchmark")

    def bench(fmt, **inspect):
        WALKED_FORMATS.add(fmt)
        # Every format's option block at its default, as an analysis passes them.
        params = {k: v for k, v in bench_defaults.items() if isinstance(v, dict)}
        params |= {"lm_eval": {"filter": None, "metrics": ["acc"]}, "inspect": inspect}

        def read(path):
            files = sorted(path.glob("*.json*")) if fmt == "lm_eval" and path.is_dir() else [path]
            # As the ingest rule reads: Arrow tables and verbatim Parquet copies.
            return bench_ingest.ingest("run", fmt, path, files, params, arrow=True, copy=True)[1]

        return read

    def pref(fmt, **options):
        # A preference reader as the coming ingest calls it: counted, balanced.
        WALKED_FORMATS.add(f"preference:{fmt}")
        from rederive.io import preference
        from rederive.io.accounting import Accounting

        def read(path):
            acct = Accounting(study="s", run="run", file=str(path), sha256="")
            preference.get(fmt).read(path, params={fmt: options}, accounting=acct)
            acct.check_balance()
            return acct

        return read

    return {
        "pref_alpaca_eval": pref("alpaca_eval"),
        "pref_arena_hard": pref("arena_hard"),
        "pref_mt_bench": pref("mt_bench"),
        "pref_battles_json": pref("battles"),
        "pref_battles_jsonl": pref("battles"),
        "pref_long_csv": pref("long"),
        "pref_long_jsonl": pref("long"),
        "salitrap_items": quiet(lambda p: sali_items.read_items(p, sali["dimensions"])),
        "salitrap_run": lambda p: sali_ingest.label_run(
            p,
            sali_item_frame(),
            run="run",
            valid_labels=sali["labels"]["valid"],
            invalid_labels=sali["labels"]["invalid"],
            conditions=sali["conditions"],
            dimensions=sali["dimensions"],
        )[1],
        "salitrap_models": quiet(lambda p: sali_warehouse.read_models(p, [])),
        "tag_items": quiet(lambda p: tag_inputs.read_items(p)),
        "tag_models": quiet(lambda p: tag_inputs.read_models(p, [])),
        "tag_run": lambda p: tag_ingest.label_run(
            p,
            tag_item_frame(),
            run="run",
            arms=tag["arms"],
            endorse_words=tag["labelling"]["endorse"],
            reject_words=tag["labelling"]["reject"],
        )[1],
        "bias_items": quiet(lambda p: bias_items.read_items(p)),
        "bias_run": lambda p: bias_ingest.label_run(
            p, bias_item_frame(), run="run", keyword_config=bias["keyword_awareness"]
        )[1],
        "cot_run": lambda p: cot_ingest.ingest(p, "run", cot["cue_words"])[1],
        "cot_baselines": quiet(lambda p: cot_warehouse.read_baselines(p)),
        "cot_published": quiet(lambda p: cot_check.load_published([str(p)])),
        "bench_published": quiet(lambda p: bench_check.read_published(p)),
        "matrix": bench("matrix"),
        "long_csv": bench("long"),
        "long_jsonl": bench("long"),
        "long_parquet": bench("long"),
        "lm_eval_samples": quiet(
            lambda p: lm_eval.read_samples(
                p, model="m", task="t", filter_name=None, metrics=["acc"]
            )
        ),
        "lm_eval_results": quiet(lambda p: lm_eval.read_results_json(p)),
        "lm_eval_dir": bench("lm_eval"),
        "inspect": bench("inspect"),
        "inspect_json": bench("inspect", scorer="match"),
        "bench_items": quiet(lambda p: read_item_metadata(p)),
        "swebench": bench("swebench"),
        "every_eval_ever": bench("every_eval_ever"),
        "eval_arena": bench("eval_arena"),
        "evalplus": bench("evalplus"),
        "opencompass": bench("opencompass"),
    }


# ---------------------------------------------------------------------------
# valid base files, one per reader (name, bytes, kind)


def _bases() -> dict[str, tuple[str, bytes, str]]:
    matrix_lines = _head(RAW / "benchmark/matrix/chembench.csv", 121).decode().splitlines()
    matrix_rows = [line.split(",")[:5] for line in matrix_lines]
    matrix = "".join(",".join(r) + "\n" for r in matrix_rows).encode()
    header = matrix_rows[0]
    long_rows = [
        {"model": header[j], "item_id": row[0], "correct": row[j]}
        for row in matrix_rows[1:40]
        for j in (1, 2)
    ]
    long_csv = (
        "model,item_id,correct\n"
        + "".join(f"{r['model']},{r['item_id']},{r['correct']}\n" for r in long_rows)
    ).encode()
    long_jsonl = "".join(json.dumps(r) + "\n" for r in long_rows).encode()
    samples = "".join(
        json.dumps(
            {
                "doc_id": i,
                "doc": {"q": f"question {i}"},
                "filter": "none",
                "metrics": ["acc"],
                "acc": float(i % 2),
                "doc_hash": hashlib.sha256(f"q{i}".encode()).hexdigest(),
                "filtered_resps": [["-1.0", "False"]],
            }
        )
        + "\n"
        for i in range(8)
    ).encode()
    results = json.dumps(
        {"model_name": "m", "config": {"model_args": "pretrained=m"}, "results": {}}, indent=2
    ).encode()
    bias_lines = [
        line
        for line in _head(RAW / "bias_awareness/runs/GPT-4o.jsonl", 40).splitlines(keepends=True)
        if json.loads(line)["question_id"] in {"simgsm_0001", "simgsm_0002"}
    ]
    battles = [
        {
            "question_id": f"q{i}",
            "model_a": "m1",
            "model_b": "m2",
            "winner": w,
            "judge": "u",
            "anony": True,
        }
        for i, w in enumerate(["model_a", "model_b", "tie", "tie (bothbad)", "model_a"])
    ]
    pref_games = [
        {"model_a": "m1", "model_b": "m2", "outcome": o, "item_id": f"q{i}"}
        for i, o in enumerate([1, 0, 0.5, 0.25, 1])
    ]
    return {
        # Real files of the preference readers (tests/preference/fixtures/README.md).
        "pref_alpaca_eval": (
            "annotations.json",
            (
                PREF_FIXTURES
                / "alpaca_eval/results/LMCocktail-10.7B-v1/alpaca_eval_gpt4/annotations.json"
            ).read_bytes(),
            "json",
        ),
        "pref_arena_hard": (
            "gpt-4-0613.jsonl",
            (
                PREF_FIXTURES / "arena_hard/v0.1-2025/gpt-4-1106-preview/gpt-4-0613.jsonl"
            ).read_bytes(),
            "jsonl",
        ),
        "pref_mt_bench": (
            "gpt-4_pair.jsonl",
            _head(PREF_FIXTURES / "mt_bench/gpt-4_pair.jsonl", 4),
            "jsonl",
        ),
        "pref_battles_json": (
            "battles.json",
            (PREF_FIXTURES / "battles/chatbot_arena_conversations_example.json").read_bytes(),
            "json",
        ),
        "pref_battles_jsonl": (
            "battles.jsonl",
            "".join(json.dumps(r) + "\n" for r in battles).encode(),
            "jsonl",
        ),
        "pref_long_csv": (
            "games.csv",
            (
                "model_a,model_b,outcome,item_id\n"
                + "".join(f"m1,m2,{r['outcome']},{r['item_id']}\n" for r in pref_games)
            ).encode(),
            "csv",
        ),
        "pref_long_jsonl": (
            "games.jsonl",
            "".join(json.dumps(r) + "\n" for r in pref_games).encode(),
            "jsonl",
        ),
        "salitrap_items": ("items.jsonl", _head(RAW / "salitrap/items.jsonl", 6), "jsonl"),
        "salitrap_run": (
            "run.jsonl",
            _head(RAW / "salitrap/runs/Claude-Opus-4.7.jsonl", 8),
            "jsonl",
        ),
        "salitrap_models": ("models.csv", (RAW / "salitrap/models.csv").read_bytes(), "csv"),
        "tag_items": ("items.jsonl", _head(RAW / "tag_sycophancy/items.jsonl", 6), "jsonl"),
        "tag_models": ("models.csv", (RAW / "tag_sycophancy/models.csv").read_bytes(), "csv"),
        "tag_run": ("run.jsonl", _head(RAW / "tag_sycophancy/runs/GPT-4o-mini.jsonl", 8), "jsonl"),
        "bias_items": ("items.jsonl", _head(RAW / "bias_awareness/items.jsonl", 6), "jsonl"),
        "bias_run": ("run.jsonl", b"".join(bias_lines), "jsonl"),
        "cot_run": (
            "run.jsonl",
            _head(RAW / "cot_loadbearing/runs/gemma-2-9b-it.jsonl", 8),
            "jsonl",
        ),
        "cot_baselines": (
            "baselines.csv",
            (RAW / "cot_loadbearing/baselines.csv").read_bytes(),
            "csv",
        ),
        "cot_published": (
            "table1.csv",
            (RAW / "cot_loadbearing/published/table1.csv").read_bytes(),
            "csv",
        ),
        # irt-on-bench's leaderboard, cut to its first 6 models (full-precision fractions).
        "bench_published": (
            "scores.csv",
            _head(RAW / "benchmark/published/chembench_model_score_allcorrect.csv", 7),
            "csv",
        ),
        "matrix": ("chembench.csv", matrix, "csv"),
        "long_csv": ("long.csv", long_csv, "csv"),
        "long_jsonl": ("long.jsonl", long_jsonl, "jsonl"),
        "lm_eval_samples": ("samples_t_2024-06-01T12-00-00.000001.jsonl", samples, "jsonl"),
        "lm_eval_results": ("results_2024-06-01T12-00-00.000001.json", results, "json"),
        "inspect_json": ("log.json", (INSPECT_FIXTURES / "0.3.285/mean.json").read_bytes(), "json"),
        # Real tool outputs (tests/benchmark/fixtures/, each with how it was made).
        "swebench": (
            "kimi.test.json",
            (
                BENCH_FIXTURES / "swebench/public/baseline_no_enhancement.iteration3.json"
            ).read_bytes(),
            "json",
        ),
        "every_eval_ever": (
            "samples.jsonl",
            _head(next((BENCH_FIXTURES / "every_eval_ever/data").rglob("*_samples.jsonl")), 8),
            "jsonl",
        ),
        "eval_arena": (
            "arena.jsonl",
            _head(BENCH_FIXTURES / "eval_arena/cruxeval_input.jsonl", 8),
            "jsonl",
        ),
        "evalplus": (
            "tiny.eval_results.json",
            (
                BENCH_FIXTURES / "evalplus/0.4.0.dev44/tiny-coder_openai_temp_0.8.eval_results.json"
            ).read_bytes(),
            "json",
        ),
        "opencompass": (
            "parity.json",
            next(
                (BENCH_FIXTURES / "opencompass/outputs").rglob("results/guesser-a/parity.json")
            ).read_bytes(),
            "json",
        ),
        "bench_items": (
            "items.csv",
            b"item_id,category\n0,organic\n1,inorganic\n2,organic\n",
            "csv",
        ),
    }


# ---------------------------------------------------------------------------
# breakages


def _set_line(data: bytes, line: int, new: bytes) -> bytes:
    lines = data.splitlines(keepends=True)
    lines[line - 1] = new + (b"\n" if not new.endswith(b"\n") else b"")
    return b"".join(lines)


def _zip(name: str, data: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(zipfile.ZipInfo(name, (2024, 1, 1, 0, 0, 0)), data)
    return buffer.getvalue()


def _generic(name: str, data: bytes, kind: str) -> list[tuple[str, bytes | None, int | None, bool]]:
    """(case, bytes or None for a directory, line an error must name, accepted?)."""
    lines = data.splitlines(keepends=True)
    bad = min(BAD_LINE, len(lines))
    broken = lines[bad - 1].rstrip(b"\r\n")
    cases = [
        ("invalid_utf8", _set_line(data, bad, broken[:5] + b"\xff\xfe" + broken[5:]), bad, False),
        (
            "latin1_text",
            _set_line(data, bad, broken[:5] + "é".encode("latin-1") + broken[5:]),
            bad,
            False,
        ),
        ("nul_byte", _set_line(data, bad, broken[:5] + b"\x00" + broken[5:]), bad, False),
        ("gzip", gzip.compress(data, mtime=0), None, False),
        ("zip", _zip(name, data), None, False),
        ("utf16", data.decode("utf-8").encode("utf-16"), None, False),
        ("random_bytes", bytes((i * 73 + 41) % 256 for i in range(3000)), None, False),
        ("directory", None, None, False),
        ("empty", b"", None, False),
        ("blank_lines", b"\n  \n\n", None, False),
        ("bom", b"\xef\xbb\xbf" + data, None, True),
        ("crlf", data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"), None, True),
        ("no_final_newline", data.rstrip(b"\n"), None, True),
    ]
    if kind in {"jsonl", "json"}:
        last = len(lines)
        cases += [
            ("truncated", data.rstrip(b"\n")[: -len(lines[-1]) // 2], last, False),
            ("deep_nesting", _set_line(data, bad, b"[" * 100_000), bad, False),
        ]
    if kind == "jsonl":
        cases += [
            ("not_an_object", _set_line(data, bad, b"[1, 2, 3]"), bad, False),
            ("broken_json", _set_line(data, bad, broken[: len(broken) // 2]), bad, False),
            ("nan_literal", _set_line(data, bad, b'{"x": NaN}'), bad, False),
        ]
    if kind == "csv":
        width = len(lines[0].split(b","))
        cases += [
            ("unbalanced_quote", _set_line(data, bad, b'"' + broken), bad, False),
            ("header_over_field_limit", b"x" * 140_000 + b"," + lines[0], 1, False),
            ("ragged_row", _set_line(data, bad, broken + b",extra,cells"), bad, False),
            ("header_only", lines[0], None, False),
            ("cr_line_ends", data.replace(b"\n", b"\r"), 1, False),
            (
                "short_row",
                _set_line(data, bad, b",".join(broken.split(b",")[: max(1, width - 2)])),
                bad,
                False,
            ),
        ]
    return cases


def _field_cases(data: bytes) -> list[tuple[str, bytes, int]]:
    """Every field of record ``BAD_LINE`` set to each junk value."""
    lines = data.splitlines(keepends=True)
    record = json.loads(lines[BAD_LINE - 1])
    cases = []
    for field in record:
        for label, value in JUNK_VALUES.items():
            changed = dict(record, **{field: value})
            cases.append(
                (
                    f"{field}={label}",
                    _set_line(data, BAD_LINE, json.dumps(changed).encode()),
                    BAD_LINE,
                )
            )
        dropped = {k: v for k, v in record.items() if k != field}
        cases.append(
            (f"{field}=absent", _set_line(data, BAD_LINE, json.dumps(dropped).encode()), BAD_LINE)
        )
    return cases


def _cell_cases(data: bytes, columns: list[int]) -> list[tuple[str, bytes, int]]:
    """Bad values in chosen cells of CSV row ``BAD_LINE``."""
    lines = data.splitlines(keepends=True)
    cells = lines[BAD_LINE - 1].rstrip(b"\r\n").split(b",")
    cases = []
    for column in columns:
        for label, value in {
            "yes": b"yes",
            "two": b"2",
            "negative": b"-1",
            "text": b"abc",
            "blank": b"",
            "inf": b"inf",
            "quoted_comma": b'"1,0"',
        }.items():
            changed = list(cells)
            changed[column] = value
            # A changed id may clash with a later line's id: that line is then named.
            line = None if column == 0 else BAD_LINE
            cases.append(
                (f"col{column}={label}", _set_line(data, BAD_LINE, b",".join(changed)), line)
            )
    return cases


def _published_scale_cases() -> list[tuple[str, bytes, int | None, bool]]:
    """A published leaderboard in percent, and the scales the check must refuse (issue 37).

    (case, bytes, line an error must name, accepted?): percentages marked by a
    ``%``, a header or their median are read (and divided by 100); one
    percentage in a column of fractions, or a percentage above 100, is refused
    on its line.
    """
    rows = [("m1", "70.5"), ("m2", "0.8"), ("m3", "61.25"), ("m4", "55.0")]

    def table(header: str, cells) -> bytes:
        return (header + "\n" + "".join(f"{m},{v}\n" for m, v in cells)).encode()

    fractions = [("m1", "0.705"), ("m2", "0.5"), ("m3", "70.5"), ("m4", "0.55")]
    return [
        ("percent_median", table(",score", rows), None, True),
        ("percent_sign", table(",score", [(m, v + "%") for m, v in rows]), None, True),
        ("percent_header", table(",score_pct", rows), None, True),
        ("percent_in_fractions", table(",score", fractions), BAD_LINE + 1, False),
        ("percent_above_100", table(",score", [*rows[:2], ("m3", "170.5")]), BAD_LINE + 1, False),
        (
            "two_score_columns",
            table(",score,score_pct", [(m, f"{v},{v}") for m, v in rows]),
            1,
            False,
        ),
        ("three_decimals", table(",score", [("m1", "0.273"), ("m2", "0.25")]), None, True),
    ]


def _parquet_base() -> list[dict]:
    """The long CSV base's rows with numeric scores: a file the ingest copies verbatim."""
    _, data, _ = _bases()["long_csv"]
    lines = data.decode().splitlines()[1:]
    return [
        {"model": m, "item_id": i, "correct": float(c)}
        for m, i, c in (line.split(",") for line in lines)
    ]


def _parquet(rows: list[dict], **types) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    columns = {k: [r[k] for r in rows] for k in rows[0]}
    table = pa.table({k: pa.array(v, types.get(k)) for k, v in columns.items()})
    buffer = io.BytesIO()
    pq.write_table(table, buffer)
    return buffer.getvalue()


def _parquet_cases() -> list[tuple[str, bytes | None, int | None, bool]]:
    """(case, bytes or None for a directory, line an error must name, accepted?) of
    a long Parquet file: the file broken, a cell of row ``BAD_LINE`` set to a bad
    value, or a column of a type the reader must refuse (named at row 1)."""
    import pyarrow as pa

    rows = _parquet_base()
    data = _parquet(rows)

    def cell(field, value, **types):
        changed = [dict(r) for r in rows]
        changed[BAD_LINE - 1][field] = value
        return _parquet(changed, **types)

    def column(field, convert, kind=None):
        return _parquet([dict(r, **{field: convert(r[field])}) for r in rows], **{field: kind})

    text_scores = [dict(r, correct=str(r["correct"])) for r in rows]
    text_scores[BAD_LINE - 1]["correct"] = "yes"
    cases = [
        ("gzip", gzip.compress(data, mtime=0), None, False),
        ("zip", _zip("long.parquet", data), None, False),
        ("random_bytes", bytes((i * 73 + 41) % 256 for i in range(3000)), None, False),
        ("directory", None, None, False),
        ("empty", b"", None, False),
        ("truncated", data[: len(data) // 2], None, False),
        ("correct=nan", cell("correct", float("nan")), None, False),
        ("correct=null", cell("correct", None), None, False),
        ("correct=two", cell("correct", 2.0), BAD_LINE, False),
        ("correct=negative", cell("correct", -1.0), BAD_LINE, False),
        ("correct=inf", cell("correct", float("inf")), BAD_LINE, False),
        ("correct=strings", column("correct", str), None, True),
        ("correct=yes", _parquet(text_scores, correct=pa.string()), BAD_LINE, False),
        ("correct=bool", column("correct", bool), None, True),
        ("correct=list", column("correct", lambda c: [c]), 1, False),
        ("category=padded", _parquet([dict(r, category=" c ") for r in rows]), None, True),
    ]
    for field in ("model", "item_id"):
        cases += [
            (f"{field}=null", cell(field, None), BAD_LINE, False),
            (f"{field}=blank", cell(field, ""), BAD_LINE, False),
            (f"{field}=padded", cell(field, " x \u00a0"), None, True),
            (f"{field}=float", column(field, lambda v: float(len(v)) + 0.5), 1, False),
            (f"{field}=bool", column(field, lambda v: len(v) % 2 == 0), 1, False),
            (f"{field}=list", column(field, lambda v: [v]), 1, False),
            (f"{field}=struct", column(field, lambda v: {"name": v}), 1, False),
        ]
    cases.append(("model=integer", column("model", len), None, True))
    return cases


def make_corpus(root: Path) -> list[Case]:
    """Write every case under ``root`` (one folder per case) and list them."""
    cases = []

    def write(reader: str, case: str, name: str, data: bytes | None, line, accept=False) -> None:
        folder = root / reader / case.replace("/", "_")
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / name
        if data is None:
            path.mkdir(exist_ok=True)
        else:
            path.write_bytes(data)
        cases.append(Case(f"{reader}/{case}", reader, path, line, accept))

    for reader, (name, data, kind) in _bases().items():
        write(reader, "valid", name, data, None, True)
        for case, broken, line, accept in _generic(name, data, kind):
            write(reader, case, name, broken, line, accept)
        if kind == "jsonl":
            for case, broken, line in _field_cases(data):
                write(reader, case, name, broken, line)
        if reader in {"matrix", "long_csv", "cot_baselines", "bench_published", "pref_long_csv"}:
            columns = {
                "matrix": [0, 1, 2],
                "long_csv": [0, 1, 2],
                "cot_baselines": [2, 3],
                "bench_published": [1],
                "pref_long_csv": [0, 1, 2],
            }[reader]
            for case, broken, line in _cell_cases(data, columns):
                write(reader, case, name, broken, line)
    for case, broken, line, accept in _published_scale_cases():
        write("bench_published", case, "scores.csv", broken, line, accept)
    # Long Parquet: its own breakages (a binary file has no lines to re-encode).
    write("long_parquet", "valid", "long.parquet", _parquet(_parquet_base()), None, True)
    for case, broken, line, accept in _parquet_cases():
        write("long_parquet", case, "long.parquet", broken, line, accept)
    # Issue 37: real AlpacaEval preferences (correct = preference - 1): draws at 0.5,
    # weighted preferences anywhere in [0, 1], a baseline at 0.5 everywhere - read
    # as they are - and a missing grade (blank), a counted exclusion.
    write("long_csv", "alpaca_preferences", "long.csv", _alpaca_rows(), None, True)
    write("long_csv", "alpaca_missing_grade", "long.csv", _alpaca_rows(missing=True), None)
    # The CSV case: a bad byte on line 100 must be reported as line 100.
    name, data, _ = _bases()["matrix"]
    lines = data.splitlines(keepends=True)
    write(
        "matrix", "invalid_utf8_line100", name, _set_line(data, 100, lines[99][:-1] + b"\xff"), 100
    )
    # An lm-eval model folder whose samples file is broken (the folder reader).
    for case, broken in (
        ("valid", _bases()["lm_eval_samples"][1]),
        ("invalid_utf8", b'{"doc_id": 0, "filter": "\xff"}\n'),
        ("gzip", gzip.compress(b"{}\n", mtime=0)),
        ("directory", None),
    ):
        folder = root / "lm_eval_dir" / case / "m"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "results_2024-06-01T12-00-00.000001.json").write_bytes(
            _bases()["lm_eval_results"][1]
        )
        samples = folder / "samples_t_2024-06-01T12-00-00.000001.jsonl"
        if broken is None:
            samples.mkdir(exist_ok=True)
        else:
            samples.write_bytes(broken)
        cases.append(
            Case(
                f"lm_eval_dir/{case}", "lm_eval_dir", folder, 1 if case == "invalid_utf8" else None
            )
        )
    # Inspect .eval zips: only breakages of the file itself (members are the
    # Inspect reader's own checks, tested with it).
    log = _inspect_log(root / "inspect" / "valid" / "log.eval")
    cases.append(Case("inspect/valid", "inspect", log, None, True))
    data = log.read_bytes()
    for case, broken in (
        ("truncated", data[: len(data) // 2]),
        ("gzip", gzip.compress(data, mtime=0)),
        ("random_bytes", bytes((i * 73 + 41) % 256 for i in range(3000))),
        ("empty", b""),
        ("directory", None),
    ):
        write("inspect", case, "log.eval", broken, None)
    return cases


ALPACA = BENCH_FIXTURES / "alpaca_eval"


def _alpaca_rows(missing: bool = False) -> bytes:
    """Lines of the AlpacaEval fixture's long files (README there): AlpacaEval 2's
    baseline (0.5 on every item) and a weighted model, AlpacaEval 1 draws, and with
    ``missing`` the first of ghost-7b-alpha's missing grades (a blank ``correct``)."""
    parts = [
        (ALPACA / "ae2/long/gpt4_1106_preview.csv", 6),
        (ALPACA / "ae2/long/phi-2.csv", 6),
        (ALPACA / "ae1/long/phi-2.csv", 40),
    ]
    if missing:
        parts.append((ALPACA / "ae1/long/ghost-7b-alpha.csv", 16))
    out = [b"model,task,item_id,correct\n"]
    for path, n in parts:
        out += path.read_bytes().splitlines(keepends=True)[1 : n + 1]
    return b"".join(out)


def _inspect_log(path: Path) -> Path:
    sys.path.insert(0, str(REPO / "tests" / "benchmark"))
    from benchmark_formats import chembench_slice, write_inspect

    path.parent.mkdir(parents=True, exist_ok=True)
    return write_inspect(path, chembench_slice(6, ["o1"]), model="o1")


# ---------------------------------------------------------------------------
# walking


@dataclass
class Outcome:
    case: Case
    kind: str  # error | vague | excluded | accepted | traceback
    message: str


def walk(cases: list[Case]) -> list[Outcome]:
    from rederive.errors import InputError

    readers = _readers()
    baseline: dict[str, int] = {}
    outcomes = []
    for case in cases:
        try:
            acct = readers[case.reader](case.path)
        except InputError as exc:
            where_ok = exc.file is not None and (case.line is None or exc.line == case.line)
            outcomes.append(
                Outcome(case, "error" if where_ok else "vague", f"rederive: input error {exc}")
            )
            continue
        except Exception as exc:
            last = traceback.extract_tb(exc.__traceback__)[-1]
            outcomes.append(
                Outcome(
                    case,
                    "traceback",
                    f"{type(exc).__name__}: {exc} ({Path(last.filename).name}:{last.lineno})",
                )
            )
            continue
        excluded = getattr(acct, "rows_excluded", 0)
        if case.id.endswith("/valid"):
            baseline[case.reader] = excluded
        if excluded > baseline.get(case.reader, 0):
            outcomes.append(Outcome(case, "excluded", f"{dict(acct.excluded)}"))
        else:
            outcomes.append(Outcome(case, "accepted", ""))
    return outcomes


def summary(outcomes: list[Outcome]) -> str:
    counts = Counter(o.kind for o in outcomes)
    broken_read = sum(1 for o in outcomes if o.kind != "error" and o.case.id.split("/")[1] in FATAL)
    return (
        f"cases tried: {len(outcomes)} | clear error: {counts['error']} | "
        f"counted exclusion: {counts['excluded']} | accepted: {counts['accepted']} | "
        f"error without expected line: {counts['vague']} | traceback: {counts['traceback']} | "
        f"broken file not refused: {broken_read}"
    )


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="corpus folder (default: a temporary one)")
    parser.add_argument("--verbose", action="store_true", help="one line per case")
    parser.add_argument("--only", help="only cases whose id contains this text")
    args = parser.parse_args(argv)
    root = args.out or Path(tempfile.mkdtemp(prefix="bad-input-corpus-"))
    import os

    root.mkdir(parents=True, exist_ok=True)
    os.chdir(root)  # messages name files relative to the corpus
    cases = [c for c in make_corpus(root) if not args.only or args.only in c.id]
    outcomes = walk(cases)
    for o in outcomes:
        if args.verbose or o.kind in {"traceback", "vague"}:
            print(f"{o.kind:9s} {o.case.id}: {o.message}")
    print(summary(outcomes))
    sys.exit(1 if any(o.kind in {"traceback", "vague"} for o in outcomes) else 0)


if __name__ == "__main__":
    main()
