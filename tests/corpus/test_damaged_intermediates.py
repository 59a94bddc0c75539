"""Damaged intermediates (issue 37, item 6): every kind of file a job reads from
``results/`` — a DuckDB warehouse, an ingest batch folder with its labelled
Parquet, accounting JSON and reported CSV files, ``items.parquet``, a table CSV —
damaged the ways a full disk, an interrupted copy or an editor damage it, is
found by its output stamp before a job reads it; and the ways that leave the
bytes as they were (a touch, ``cp -p``, a copy of the folder) are not taken for
damage. Files written before stamps existed are judged by their structure
(Parquet footer, DuckDB open, JSON parse), and a job failing on one names it.

The files are written by the workflow's own writers (``warehouse.build``,
``write_ingested``, ``batches.prepare/finish``, ``write_csv``)."""

import os
import shutil
from pathlib import Path

import duckdb
import pandas as pd
import pytest
from test_docs import DOCS, parse_blocks

from rederive.io import intact, warehouse
from rederive.io.accounting import Accounting, write_ingested
from rederive.io.batches import finish, prepare, run_file
from rederive.io.names import write_csv

FRAME = pd.DataFrame(
    {
        "model": [f"m{i % 7}" for i in range(3000)],
        "item_id": [f"q{i}" for i in range(3000)],
        "correct": [float(i % 3 == 0) for i in range(3000)],
    }
)


def write_batch(folder: Path) -> None:
    """An ingest batch folder of two runs, as an ingest job writes it."""
    prepare(folder, ["labelled", "accounting", "reported"], ["run-a", "run-b"])
    for run in ("run-a", "run-b"):
        account = Accounting(study="benchmark", run=run, file=f"long/{run}.csv", sha256="0" * 64)
        account.rows_read = account.rows_used = len(FRAME)
        write_ingested(
            FRAME.assign(run=run),
            account,
            run_file(folder, "labelled", run),
            run_file(folder, "accounting", run),
        )
    write_csv(FRAME.head(3), run_file(folder, "reported", "run-a"))
    finish(folder, ["labelled", "accounting", "reported"])


# Each output kind: (its path under results/, a writer).
OUTPUTS = {
    "warehouse": (
        "results/a/a.duckdb",
        lambda path: warehouse.build(path, {"responses": FRAME, "models": FRAME[["model"]]}),
    ),
    "ingest_batch": ("results/a/ingested/b03", write_batch),
    "items_parquet": ("results/a/items.parquet", lambda path: FRAME.to_parquet(path)),
    "table_csv": ("results/a/tables/accuracy.csv", lambda path: write_csv(FRAME, path)),
}
# The file of a directory output each damage hits.
HIT = {"ingest_batch": "labelled/run-a.parquet"}


def _file(output: str, kind: str) -> Path:
    return Path(output) / HIT[kind] if kind in HIT else Path(output)


def _keep_times(path: Path, change) -> None:
    """Apply ``change`` and set the modification time back, as `cp -p` would."""
    stat = path.stat()
    change(path)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def _flip(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))


DAMAGES = {
    "emptied": lambda p: p.write_bytes(b""),
    "truncated_half": lambda p: os.truncate(p, p.stat().st_size // 2),
    "truncated_last_byte": lambda p: os.truncate(p, p.stat().st_size - 1),
    "byte_flipped": _flip,
    "byte_flipped_mtime_kept": lambda p: _keep_times(p, _flip),
    "appended": lambda p: p.write_bytes(p.read_bytes() + b"\n"),
}
# Damage to a directory output's membership.
FOLDER_DAMAGES = {
    "file_deleted": lambda d: (d / HIT["ingest_batch"]).unlink(),
    "file_added": lambda d: (d / "labelled" / "stray.parquet").write_bytes(b"PAR1"),
    "file_replaced_by_folder": lambda d: (
        (d / HIT["ingest_batch"]).unlink(),
        (d / HIT["ingest_batch"]).mkdir(),
    ),
}
# What leaves the bytes as they were: never damage.
HARMLESS = {
    "touched": lambda p: os.utime(p),
    "copied_back_with_cp_p": lambda p: (
        shutil.copy2(p, p.with_name(p.name + ".bak")),
        os.replace(p.with_name(p.name + ".bak"), p),
    ),
    "rewritten_same_bytes": lambda p: p.write_bytes(p.read_bytes()),
}


@pytest.fixture
def built(tmp_path, monkeypatch):
    """Every output kind written and stamped, in a working directory of its own."""
    monkeypatch.chdir(tmp_path)

    def build(kind):
        output, write = OUTPUTS[kind]
        Path(output).parent.mkdir(parents=True, exist_ok=True)
        write(output)
        intact.record([output], f"rule_of_{kind}")
        return output

    return build


CASES = [(k, d) for k in OUTPUTS for d in DAMAGES] + [("ingest_batch", d) for d in FOLDER_DAMAGES]


@pytest.mark.parametrize("kind, damage", CASES, ids=[f"{k}/{d}" for k, d in CASES])
def test_every_damage_is_found_and_named(built, kind, damage):
    output = built(kind)
    if damage in FOLDER_DAMAGES:
        FOLDER_DAMAGES[damage](Path(output))
    else:
        DAMAGES[damage](_file(output, kind))
    found = intact.check(output)
    assert found is not None, f"{kind}/{damage} not found"
    assert found.output == output
    assert found.file.startswith(output)
    if damage not in ("file_added",):
        assert found.file == _file(output, kind).as_posix()
    if damage.startswith("truncated") or damage == "emptied":
        assert "truncated to" in found.reason
    intact.remove(found)
    assert not Path(output).exists() and not intact.stamp_path(output).exists()


@pytest.mark.parametrize("kind", list(OUTPUTS))
@pytest.mark.parametrize("harmless", list(HARMLESS))
def test_the_same_bytes_are_never_damage(built, kind, harmless):
    output = built(kind)
    HARMLESS[harmless](_file(output, kind))
    assert intact.check(output) is None
    # The new stat was recorded: the next check reads nothing.
    stamp = intact.stamp_path(output)
    assert intact.check(output) is None and stamp.is_file()


def test_a_copied_results_folder_is_rehashed_once_not_rebuilt(built, tmp_path):
    """`cp -a results elsewhere` changes every inode: same bytes, no damage."""
    outputs = [built(kind) for kind in OUTPUTS]
    shutil.copytree("results", "copy")
    shutil.rmtree("results")
    shutil.move("copy", "results")
    assert all(intact.check(o) is None for o in outputs)


def test_a_file_without_a_stamp_is_not_judged_by_its_stamp(built):
    output = built("table_csv")
    intact.forget([output])
    os.truncate(output, 10)
    assert intact.check(output) is None  # no stamp: Snakemake's own rules apply


# Without a stamp (written before stamps existed): the structure tells.
STRUCTURAL = [
    ("warehouse", "emptied"),
    ("warehouse", "truncated_half"),
    ("items_parquet", "emptied"),
    ("items_parquet", "truncated_half"),
    ("items_parquet", "truncated_last_byte"),
    ("ingest_batch", "truncated_half"),
    ("ingest_batch", "truncated_last_byte"),
]


@pytest.mark.parametrize("kind, damage", STRUCTURAL, ids=[f"{k}/{d}" for k, d in STRUCTURAL])
def test_without_a_stamp_a_failed_job_names_the_damaged_input(built, kind, damage):
    output = built(kind)
    intact.forget([output])
    DAMAGES[damage](_file(output, kind))
    error = None
    try:
        if kind == "warehouse":
            warehouse.query(output, "SELECT sum(correct), min(item_id) FROM responses")
        else:
            path = _file(output, kind)
            duckdb.sql(f"SELECT sum(correct) FROM read_parquet('{path}')").fetchall()
    except Exception as exc:  # the reader's own error, whatever it is
        error = exc
    assert error is not None
    found = intact.damaged_input([output], error)
    assert found is not None and found.file == _file(output, kind).as_posix()
    assert intact.advice(found).startswith(f"delete {output}")


def test_an_accounting_json_cut_short_is_named_without_a_stamp(built):
    output = built("ingest_batch")
    intact.forget([output])
    path = Path(output) / "accounting" / "run-b.json"
    os.truncate(path, path.stat().st_size - 2)
    found = intact.damaged_input([output])
    assert found.file == path.as_posix() and "not valid JSON" in found.reason
    assert intact.advice(found) == (
        f"delete {output}/ and run the same command again: it is rebuilt, with what depends on it"
    )


def test_undamaged_inputs_are_not_blamed_for_another_error(built):
    outputs = [built(kind) for kind in OUTPUTS]
    assert intact.damaged_input(outputs, ValueError("a bug elsewhere")) is None
    for output in outputs:
        intact.forget([output])
    assert intact.damaged_input(outputs, ValueError("a bug elsewhere")) is None


def test_refresh_records_snakemakes_touch(built):
    """Snakemake touches each output after its job: the end of the run records it,
    and a file changed meanwhile keeps its stamp (the next check finds it)."""
    import time

    start = time.time() - 1
    output = built("warehouse")
    table = built("table_csv")
    os.utime(output)
    os.truncate(table, 10)
    assert intact.refresh(start) == 1
    stamp = intact._load(intact.stamp_path(output))
    stat = Path(output).stat()
    assert stamp["files"][""]["stat"] == [
        stat.st_size,
        stat.st_mtime_ns,
        stat.st_ctime_ns,
        stat.st_ino,
    ]
    assert intact.check(output) is None
    assert "truncated to 10" in intact.check(table).reason
    assert intact.refresh(time.time() + 60) == 0  # stamps older than the run: untouched


def test_every_damage_is_found_and_every_harmless_change_left_alone(built, capsys):
    """One line for docs/guarantees.md: every case, how it ended."""
    found = harmless_ok = 0
    for kind, damage in CASES:
        output = built(kind)
        if damage in FOLDER_DAMAGES:
            FOLDER_DAMAGES[damage](Path(output))
        else:
            DAMAGES[damage](_file(output, kind))
        damage_found = intact.check(output)
        found += damage_found is not None
        if damage_found:
            intact.remove(damage_found)
        else:
            shutil.rmtree(output) if Path(output).is_dir() else Path(output).unlink()
    for kind in OUTPUTS:
        for change in HARMLESS.values():
            output = built(kind)
            change(_file(output, kind))
            harmless_ok += intact.check(output) is None
    n_harmless = len(OUTPUTS) * len(HARMLESS)
    line = (
        f"damaged intermediates: {len(CASES)} damaged, {found} found | "
        f"{n_harmless} unchanged bytes, {harmless_ok} left alone"
    )
    with capsys.disabled():
        print("\n" + line)
    assert found == len(CASES) and harmless_ok == n_harmless
    # docs/guarantees.md quotes this line: a new case updates it there.
    (shown,) = [
        b.text
        for b in parse_blocks(DOCS / "guarantees.md")
        if b.text.startswith("damaged intermediates:")
    ]
    assert line == shown, f"docs/guarantees.md shows {shown!r}; the corpus gives {line!r}"


@pytest.mark.parametrize("kind", ["warehouse", "items_parquet", "ingest_batch"])
@pytest.mark.parametrize("damage", ["emptied", "truncated_half", "truncated_last_byte"])
def test_structure_tells_a_file_cut_short(built, kind, damage):
    output = built(kind)
    file = _file(output, kind)
    assert intact.structural_problem(file) is None
    DAMAGES[damage](file)
    assert intact.structural_problem(file) is not None
