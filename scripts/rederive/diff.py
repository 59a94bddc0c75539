"""``python -m rederive.diff``: what differs between two builds of one analysis.

Two results folders of one analysis (``results/<name>`` here and a copy from
another machine, say), or two builds kept in a folder's history: the same
table-aware report the workflow writes after every build (runs, settings and
code that differ, decisions that flipped, every changed cell by row key).

Exit status: 0 identical, 1 different, 2 unusable input (a folder that is not
a results folder, a build not in the history, two different analyses).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

from rederive.changes.history import History
from rederive.changes.report import CSV_COLUMNS, compare_snapshots
from rederive.changes.snapshots import KEPT_FOLDERS, FolderSnapshot

#: The program name in usage lines (``rederive <command>`` passes its own).
PROG = "python -m rederive.diff"

IDENTICAL, DIFFERENT, UNUSABLE = 0, 1, 2


class Unusable(Exception):
    """An input the comparison cannot use; the message says why and what to do."""


def _results_folder(path: str) -> FolderSnapshot:
    folder = Path(path)
    if not folder.is_dir():
        raise Unusable(f"{path}: no such folder (give results/<name> of a built analysis)")
    if not any((folder / sub).is_dir() for sub in KEPT_FOLDERS):
        raise Unusable(
            f"{path}: not the results folder of an analysis (it has none of "
            f"{', '.join(f'{s}/' for s in KEPT_FOLDERS)}); give results/<name>"
        )
    return FolderSnapshot(folder)


def _identity(snapshot, fallback: str) -> tuple[str, str, str]:
    """Analysis name, kind and label of a snapshot (from its manifest or history)."""
    manifest = snapshot.manifest
    if manifest is None and isinstance(snapshot, FolderSnapshot):
        latest = History(snapshot.folder / "history").latest()
        manifest = latest.manifest if latest else None
    if manifest is None:
        return fallback, "", fallback
    label = manifest.get("settings", {}).get("label") or manifest.get("analysis", fallback)
    return manifest.get("analysis", fallback), manifest.get("kind", ""), label


def _entry(history: History, number: int):
    try:
        return history.entry(number)
    except KeyError:
        kept = ", ".join(str(e.number) for e in history.entries()) or "none"
        raise Unusable(
            f"{history.folder}: build {number} is not kept (kept builds: {kept}; "
            "-1 is the newest, -2 the one before)"
        ) from None


def compare(args) -> tuple:
    """The report the command line asks for, and the label to print it under."""
    if args.history is not None:
        if len(args.folders) != 1:
            raise Unusable("--history compares builds kept in one results folder: give one folder")
        folder = _results_folder(args.folders[0])
        history = History(folder.folder / "history")
        if not history.entries():
            raise Unusable(
                f"{folder.folder}: no builds kept in history/ (built before rederive kept history, "
                "or history/ was removed)"
            )
        numbers = list(args.history) + ([-1] if len(args.history) == 1 else [])
        old, new = (_entry(history, n) for n in numbers)
        names = (f"build {old.number}", f"build {new.number}")
        name, kind, label = _identity(new, folder.folder.name)
    else:
        if len(args.folders) != 2:
            raise Unusable("give two results folders (or one with --history N)")
        old, new = (_results_folder(f) for f in args.folders)
        names = tuple(args.folders)
        kind_a = _identity(old, old.folder.name)[1]
        name, kind, label = _identity(new, new.folder.name)
        if kind_a and kind and kind_a != kind:
            raise Unusable(
                f"{args.folders[0]} is an analysis of kind {kind_a}, {args.folders[1]} of kind "
                f"{kind}: compare two builds of one analysis"
            )
    report = compare_snapshots(
        name, kind, old, new, old_name=names[0], new_name=names[1], tolerance=args.tolerance
    )
    return report, label


def list_builds(folder: str) -> str:
    history = History(_results_folder(folder).folder / "history")
    lines = ["build  built (UTC)           runs  files  commit"]
    for entry in history.entries():
        commit = str(entry.manifest.get("code", {}).get("commit") or "")[:12]
        lines.append(
            f"{entry.number:>5}  {entry.built_at:<20}  {len(entry.manifest.get('runs', {})):>4}  "
            f"{len(entry.files):>5}  {commit}"
        )
    return "\n".join(lines)


def parser(prog: str = PROG) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=prog,
        description=(
            "What differs between two builds of one analysis: two results folders "
            "(results/<name> and a copy), or two builds kept in a folder's history/. "
            "Exit 0 identical, 1 different, 2 unusable input."
        ),
    )
    p.add_argument("folders", nargs="+", help="results/<name> folder(s)")
    p.add_argument(
        "--history",
        type=int,
        nargs="+",
        metavar="N",
        help="compare kept builds N and M of one folder (M: the newest); negative "
        "numbers count back from the newest (-1)",
    )
    p.add_argument(
        "--tolerance",
        type=float,
        default=0.0,
        help="numbers within this absolute difference agree (results from another "
        "machine); default 0: cells must print the same",
    )
    p.add_argument("--csv", metavar="FILE", help="also write every change as CSV")
    p.add_argument("--json", action="store_true", help="print the JSON summary instead")
    p.add_argument("--brief", action="store_true", help="print the one-line summary only")
    p.add_argument("--list", action="store_true", help="list the builds kept in the folder")
    return p


def main(argv=None, prog: str = PROG) -> int:
    args = parser(prog).parse_args(argv)
    try:
        if args.list:
            print(list_builds(args.folders[0]))
            return IDENTICAL
        if args.history is not None and len(args.history) > 2:
            raise Unusable("--history takes one or two build numbers")
        if args.tolerance < 0:
            raise Unusable("--tolerance must be 0 or more")
        report, label = compare(args)
    except Unusable as exc:
        print(f"rederive: diff: {exc}", file=sys.stderr)
        return UNUSABLE
    if args.csv:
        with open(args.csv, "w", encoding="utf-8", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=CSV_COLUMNS, lineterminator="\n")
            writer.writeheader()
            writer.writerows(report.rows(max_cells=sys.maxsize))
    if args.json:
        print(json.dumps(report.summary(), indent=1, ensure_ascii=False))
    elif args.brief:
        print(report.line())
    else:
        print(report.markdown(label, max_cells=sys.maxsize if args.csv is None else 40))
    return DIFFERENT if report.changed else IDENTICAL


if __name__ == "__main__":
    sys.exit(main())
