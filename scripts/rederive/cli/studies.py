"""Paper kinds: is a folder one of their study folders, and of which kind?

A paper kind's raw_dir holds its side file (``items.jsonl`` or
``baselines.csv``, the ``layout`` each ``rules/<kind>.smk`` registers) and a
``runs/`` folder of ``<run>.jsonl`` files. Three kinds share the layout
``items.jsonl`` + ``runs/``; their records do not share fields, so the fields
each kind requires (its reader's own lists, imported here) tell them apart:
the first record of ``items.jsonl`` (or the header of ``baselines.csv``) and
the first record of the first run file must both hold them.
"""

from __future__ import annotations

import csv
import importlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from rederive.io.run_files import RunFilesError, discover_runs, missing_layout

__all__ = ["PAPER_KINDS", "PaperKind", "StudyFolder", "study_folder"]


@dataclass(frozen=True)
class PaperKind:
    """What a paper kind's raw_dir holds.

    ``files`` are required beside ``runs/`` (its registered layout), ``optional``
    are read when present; ``side_fields`` and ``run_fields`` name
    ``module:ATTRIBUTE`` lists of the fields its readers require.
    """

    name: str
    files: tuple[str, ...]
    optional: tuple[str, ...]
    side_fields: str
    run_fields: str

    def fields(self, which: str) -> set[str]:
        module, attribute = getattr(self, which).split(":")
        return set(getattr(importlib.import_module(module), attribute))


PAPER_KINDS = (
    PaperKind(
        "salitrap",
        ("items.jsonl",),
        ("models.csv", "published"),
        "rederive.studies.salitrap.items:ITEM_FIELDS",
        "rederive.studies.salitrap.ingest:RUN_FIELDS",
    ),
    PaperKind(
        "tag_sycophancy",
        ("items.jsonl",),
        ("models.csv", "published"),
        "rederive.studies.tag_sycophancy.inputs:ITEM_FIELDS",
        "rederive.studies.tag_sycophancy.ingest:RUN_FIELDS",
    ),
    PaperKind(
        "bias_awareness",
        ("items.jsonl",),
        ("published",),
        "rederive.studies.bias_awareness.items:ITEM_FIELDS",
        "rederive.studies.bias_awareness.ingest:RUN_FIELDS",
    ),
    PaperKind(
        "cot_loadbearing",
        ("baselines.csv",),
        ("published",),
        "rederive.studies.cot_loadbearing.warehouse:BASELINE_COLUMNS",
        "rederive.studies.cot_loadbearing.ingest:REQUIRED",
    ),
)


@dataclass(frozen=True)
class StudyFolder:
    """A folder laid out as a paper kind's raw_dir.

    Attributes
    ----------
    path : Path
        The folder.
    layouts : tuple of str
        The kinds whose layout it has (their files and ``runs/``).
    kind : str or None
        The one kind whose fields its records hold, else None.
    runs : tuple of Path
        Its run files.
    problems : tuple of str
        What the kind's run discovery refuses in ``runs/`` (the build stops there).
    unread : tuple of Path
        Its other entries, which no kind reads.
    """

    path: Path
    layouts: tuple[str, ...]
    kind: str | None
    #: Optional files the chosen kind reads when present.
    optional: tuple[str, ...] = ()
    runs: tuple[Path, ...] = ()
    problems: tuple[str, ...] = ()
    unread: tuple[Path, ...] = field(default=())

    def why_not(self) -> str:
        """Why no kind was chosen (empty when one was)."""
        if self.kind:
            return ""
        if not self.runs:
            return "its runs/ holds no <run>.jsonl file"
        return (
            f"laid out for {' or '.join(self.layouts)}, but its records lack the fields "
            "each of these kinds requires (docs/input-formats.md#paper-kinds)"
        )


def _first_record(path: Path) -> set[str]:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if line.strip():
                    record = json.loads(line)
                    return set(record) if isinstance(record, dict) else set()
    except (OSError, ValueError):
        pass
    return set()


def _header(path: Path) -> set[str]:
    try:
        with open(path, encoding="utf-8-sig", errors="replace", newline="") as handle:
            return {name.strip() for name in next(csv.reader(handle), [])}
    except (OSError, csv.Error):
        return set()


def _side_keys(path: Path) -> set[str]:
    return _header(path) if path.suffix == ".csv" else _first_record(path)


def study_folder(path: Path) -> StudyFolder | None:
    """The paper-kind reading of ``path``, or None when it has no paper kind's layout."""
    path = Path(path)
    layouts = [k for k in PAPER_KINDS if not missing_layout(path, list(k.files))]
    if not layouts:
        return None
    try:
        runs, problems = tuple(discover_runs(path / "runs").values()), ()
    except RunFilesError as exc:
        runs = tuple(sorted(p for p in (path / "runs").iterdir() if p.suffix == ".jsonl"))
        problems = tuple(exc.problems)
    run_keys = _first_record(runs[0]) if runs else set()
    matches = [
        k
        for k in layouts
        if run_keys
        and k.fields("run_fields") <= run_keys
        and all(k.fields("side_fields") <= _side_keys(path / name) for name in k.files)
    ]
    kind = matches[0] if len(matches) == 1 else None
    known = {"runs"} | {n for k in (matches or layouts) for n in (*k.files, *k.optional)}
    unread = tuple(
        p for p in sorted(path.iterdir()) if p.name not in known and not p.name.startswith(".")
    )
    return StudyFolder(
        path,
        tuple(k.name for k in layouts),
        kind.name if kind else None,
        kind.optional if kind else (),
        runs,
        problems,
        unread,
    )
