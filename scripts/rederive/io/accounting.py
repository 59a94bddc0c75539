"""Per-run accounting: rows read, used, and excluded by reason.

Nothing is dropped silently: every row a step does not use is counted under a
reason, with the first few line numbers kept so a reviewer can find them.
"""

from __future__ import annotations

import json
import logging
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from rederive.errors import InputError, under_root
from rederive.io import batches
from rederive.io.batches import in_run_order
from rederive.lazy import pandas as pd

log = logging.getLogger(__name__)

EXAMPLE_LINES = 10
RUN_FIELDS = ("run", "file", "sha256", "rows_read", "rows_used", "rows_excluded")


@dataclass
class Accounting:
    """Counts for one input file."""

    study: str
    run: str
    file: str
    sha256: str
    rows_read: int = 0
    rows_used: int = 0
    excluded: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    example_lines: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    notes: list[str] = field(default_factory=list)
    #: Where the file is, for messages (``file`` is what tables print).
    path: str = ""
    #: The input format the run was read as (kinds with several formats set it).
    format: str = ""
    #: When the run's labelled file is the raw file's bytes: what the warehouse
    #: adds while reading it (:class:`rederive.io.verbatim.Copy`).
    verbatim: dict | None = None

    def exclude(self, reason: str, line: int | None = None) -> None:
        self.excluded[reason] += 1
        if line is not None and len(self.example_lines[reason]) < EXAMPLE_LINES:
            self.example_lines[reason].append(line)

    def exclude_rows(self, reason: str, lines) -> None:
        """:meth:`exclude` of every row in ``lines`` (their line numbers, in file
        order) at once, for readers that find them as an array."""
        self.excluded[reason] += len(lines)
        examples = self.example_lines[reason]
        examples.extend(int(line) for line in lines[: max(EXAMPLE_LINES - len(examples), 0)])

    @property
    def rows_excluded(self) -> int:
        return sum(self.excluded.values())

    def check_balance(self) -> None:
        """Every row read is either used or excluded: fail loudly otherwise."""
        if self.rows_used + self.rows_excluded != self.rows_read:
            raise AssertionError(
                f"{self.file}: accounting does not balance: read {self.rows_read}, "
                f"used {self.rows_used}, excluded {self.rows_excluded}"
            )

    def to_dict(self) -> dict:
        return (
            {
                "study": self.study,
                "run": self.run,
                "file": self.file,
                "sha256": self.sha256,
                "rows_read": self.rows_read,
                "rows_used": self.rows_used,
                "rows_excluded": self.rows_excluded,
                "excluded": dict(sorted(self.excluded.items())),
                "example_lines": {k: v for k, v in sorted(self.example_lines.items())},
                "notes": self.notes,
                "path": self.path or self.file,
            }
            | ({"format": self.format} if self.format else {})
            | ({"verbatim": self.verbatim} if self.verbatim is not None else {})
        )

    def write(self, path: str | Path) -> None:
        self.check_balance()
        Path(path).write_text(json.dumps(self.to_dict(), indent=2, sort_keys=True) + "\n")


def load_accounting(paths) -> pd.DataFrame:
    """Long data-quality table: one row per (run, reason), plus a ``used`` row.

    Columns: ``study, run, file, sha256, rows_read, reason, rows, example_lines``.
    """
    rows = []
    for record in _records(paths):
        base = {k: record[k] for k in ("study", "run", "file", "sha256", "rows_read")}
        rows.append({**base, "reason": "used", "rows": record["rows_used"], "example_lines": ""})
        for reason, count in record["excluded"].items():
            lines = record["example_lines"].get(reason, [])
            rows.append(
                {
                    **base,
                    "reason": reason,
                    "rows": count,
                    "example_lines": " ".join(map(str, lines)),
                }
            )
    columns = ["study", "run", "file", "sha256", "rows_read", "reason", "rows", "example_lines"]
    return pd.DataFrame(rows, columns=columns)


def load_formats(paths) -> dict[str, str]:
    """The input format of each run, from accounting JSONs that record one."""
    return {record["run"]: record.get("format", "") for record in _records(paths)}


def load_copies(paths) -> dict[str, dict]:
    """The verbatim copies' info by run (:class:`rederive.io.verbatim.Copy`), from
    the accounting JSONs of the runs that have one."""
    return {r["run"]: r["verbatim"] for r in _records(paths) if r.get("verbatim") is not None}


def load_runs(paths) -> pd.DataFrame:
    """One row per run file from its accounting JSON: :data:`RUN_FIELDS`, in run order."""
    rows = [{k: record[k] for k in RUN_FIELDS} for record in _records(paths)]
    return pd.DataFrame(rows, columns=list(RUN_FIELDS))


def _records(paths) -> list[dict]:
    # Run order (file name), not path order: the files sit in several batch folders.
    records = [json.loads(Path(p).read_text()) for p in in_run_order(paths)]
    refuse_identical_files(records)
    return records


def refuse_identical_files(records: list[dict]) -> None:
    """Refuse two input files with the same content (same SHA-256).

    A copy of a run file under another name would otherwise be read as a second
    run: a benchmark matrix becomes a second task (every model answers each item
    twice), a SaliTrap run a second copy of the model. Nothing in the data tells
    a deliberate replicate from an accidental copy when the bytes are identical,
    so the safe outcome is to stop and name both files.

    Parameters
    ----------
    records : list of dict
        Accounting records with ``file`` and ``sha256``.

    Raises
    ------
    InputError
        Naming the second file and the first file with the same content.
    """
    first: dict[str, str] = {}
    for record in records:
        digest, name = record["sha256"], record.get("path", record["file"])
        if digest in first and first[digest] != name:
            raise InputError(
                f"same content as {first[digest]} (sha256 {digest[:12]}…): the results "
                "would be counted twice; remove one of the two copies",
                file=name,
            )
        first.setdefault(digest, name)


def ensure_accounting(accounting: Accounting | None, *, file: str) -> Accounting:
    """``accounting``, or a throw-away one for a caller that keeps none.

    Lets a reader count every row unconditionally instead of testing for an
    accounting object at each count.
    """
    if accounting is not None:
        return accounting
    return Accounting(study="", run="", file=file, sha256="")


def write_ingested(labelled, accounting: Accounting, labelled_path, accounting_path) -> None:
    """One run's outputs of an ``ingest_<study>_batch`` job: labelled parquet, accounting JSON.

    ``labelled`` may be the bytes of a verbatim copy of the raw file
    (:mod:`rederive.io.verbatim`), written as they are, or an Arrow table
    carrying a frame's pandas metadata
    (:func:`rederive.studies.benchmark.ingest.label_table`). Its dictionary
    columns are written as the dictionaries they are and no column statistics
    are kept (nothing reads them; hashing the columns again and the statistics
    were 7 of the 11 ms the write took per 30,000-row run), and the Arrow schema
    is not stored (only the pandas metadata), so the file reads back with the
    types and values of the frame ``to_parquet`` writes.
    """
    if isinstance(labelled, bytes):
        Path(labelled_path).write_bytes(labelled)
    elif isinstance(labelled, pd.DataFrame):
        labelled.to_parquet(labelled_path, index=False)
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        schema = labelled.schema
        dictionary = [f.name for f in schema if pa.types.is_dictionary(f.type)]
        with pq.ParquetWriter(
            labelled_path,
            schema,
            use_dictionary=dictionary,
            write_statistics=False,
            store_schema=False,
        ) as writer:
            writer.write_table(labelled)
            # The pandas metadata (nullable dtypes) without the Arrow schema,
            # which would read the dictionary columns back as dictionaries.
            writer.add_key_value_metadata(schema.metadata or {})
    accounting.write(accounting_path)


def ingest_batch(
    batch_dir,
    runs,
    paths,
    label_run,
    kinds=("labelled", "accounting"),
    *,
    root=None,
    analysis: str | None = None,
) -> None:
    """An ``ingest_<study>_batch`` job: label each run file, write its per-run files.

    Parameters
    ----------
    batch_dir : str or Path
        The job's ``results/<study>/ingested/<batch>`` folder.
    runs, paths : sequence of str
        The batch's run ids and their raw files, in the same order.
    label_run : callable
        ``label_run(run, path) -> (labelled DataFrame, Accounting)``, the
        study's own reader; a bad file raises its ``InputError`` naming the file.
    kinds : tuple of str
        The per-run sub-folders to create (:data:`rederive.io.batches.SUFFIXES`);
        ``label_run`` writes any beyond the labelled and accounting files itself.
    root : str or Path, optional
        The analysis's raw_dir: the accounting (and so ``data_quality.csv``)
        names each file relative to it, not by where it sits on this machine.
    analysis : str, optional
        The analysis's name, recorded as ``study`` (two analyses of one kind
        stay apart in the warehouse's accounting).
    """
    batches.prepare(batch_dir, kinds, runs)
    for run, path in zip(runs, paths, strict=True):
        log.info("run %s: %s", run, path)
        labelled, accounting = label_run(run, path)
        if root is not None:
            accounting.path = accounting.path or accounting.file
            accounting.file = under_root(path, root)
        if analysis is not None:
            accounting.study = analysis
        write_ingested(
            labelled,
            accounting,
            batches.run_file(batch_dir, "labelled", run),
            batches.run_file(batch_dir, "accounting", run),
        )
        log.info(
            "run %s: %d rows used, %d excluded",
            run,
            accounting.rows_used,
            accounting.rows_excluded,
        )
    batches.finish(batch_dir, kinds)


def ingest_sources(snakemake, ingest_one) -> None:
    """An ingest job of a kind whose runs are format sources: ``params.sources``
    (run, format, path, ...), ``params.readers`` and ``params.raw_dir``;
    ``ingest_one(source, readers, batch)`` labels one run and writes its extra
    per-run files (the source's reported numbers) into the batch folder."""
    batch = snakemake.output.ingested
    sources = {source["run"]: dict(source) for source in snakemake.params.sources}
    readers = dict(snakemake.params.readers)
    ingest_batch(
        batch,
        list(sources),
        [source["path"] for source in sources.values()],
        lambda run, _path: ingest_one(sources[run], readers, batch),
        kinds=("labelled", "accounting", "reported"),
        root=snakemake.params.raw_dir,
        analysis=snakemake.wildcards.analysis,
    )


def require_usable_rows(accounting: pd.DataFrame, *, what: str = "row") -> None:
    """Stop with one clear message when the accounting shows no usable row at all.

    With every row excluded (every reply unparseable, every judge call failed)
    no table can be computed; the message gives the exclusion counts that the
    data-quality table would have shown, instead of a traceback in some later
    job.
    """
    used = accounting.loc[accounting["reason"] == "used", "rows"].sum()
    if used > 0:
        return
    excluded = (
        accounting[accounting["reason"] != "used"].groupby("reason")["rows"].sum().sort_index()
    )
    counts = ", ".join(f"{reason}: {int(n)}" for reason, n in excluded.items()) or "no rows"
    raise InputError(
        f"no usable {what} in any run: every one was excluded ({counts}); nothing to analyse",
        file=", ".join(sorted(set(accounting["file"]))) or None,
    )
