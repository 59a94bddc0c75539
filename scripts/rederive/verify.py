"""``python -m rederive.verify PACKAGE``: rebuild a replication package and compare.

Unpacks a package written by ``python -m rederive.package`` in a scratch
folder, checks its raw inputs against the build's manifest (naming every run
whose files differ), says whether the code commit, the kind's library code and
the lock file are this checkout's, rebuilds the analysis with this workflow,
and prints per result file: identical, differs (row key, column, theirs,
rebuilt) or missing.

Exit status: 0 reproduced (every result file identical, inputs as recorded),
1 not reproduced, 2 unusable (an unreadable package, raw inputs not given for
a manifest-only package, a rebuild that failed).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from rederive.changes.package import PackageError, PackageSnapshot, list_raw_files, read_package
from rederive.changes.report import compare_snapshots
from rederive.changes.snapshots import FolderSnapshot
from rederive.changes.tables import key_text
from rederive.code_version import library_version
from rederive.provenance import git_state

#: The program name in usage lines (``rederive <command>`` passes its own).
PROG = "python -m rederive.verify"

REPO = Path(__file__).resolve().parents[2]
REPRODUCED, NOT_REPRODUCED, UNUSABLE = 0, 1, 2
CELLS_SHOWN = 20


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def check_raw(raw_dir: Path, manifest: dict) -> list[str]:
    """Every difference between the raw files and the build's manifest, run by run."""
    files = {p.relative_to(raw_dir).as_posix(): p for p in list_raw_files(raw_dir)}
    problems = []
    claimed = set()
    for run, entry in sorted(manifest.get("runs", {}).items()):
        changed = []
        for rel, sha in sorted(entry.get("files", {}).items()):
            claimed.add(rel)
            if rel not in files:
                changed.append(f"{rel} missing")
            elif _sha256(files[rel]) != sha:
                changed.append(f"{rel} changed")
        if changed:
            problems.append(
                f"run {run}: its inputs differ from the manifest ({'; '.join(changed)})"
            )
    for rel, sha in sorted(manifest.get("inputs", {}).items()):
        claimed.add(rel)
        if rel not in files:
            problems.append(f"input {rel}: missing")
        elif _sha256(files[rel]) != sha:
            problems.append(f"input {rel}: differs from the manifest")
    for rel in sorted(set(files) - claimed):
        problems.append(f"input {rel}: not in the manifest (the build did not read it)")
    return problems


def code_lines(record: dict) -> list[str]:
    """Whether this checkout runs the package's code: commit, library, lock."""
    code = record.get("code", {})
    here = git_state(REPO)
    theirs = f"{str(code.get('commit') or '?')[:12]}{' (uncommitted changes)' if code.get('dirty') else ''}"
    ours = f"{str(here.get('commit') or '?')[:12]}{' (uncommitted changes)' if here.get('dirty') else ''}"
    same_commit = (
        code.get("commit") == here.get("commit") and not code.get("dirty") and not here.get("dirty")
    )
    library = library_version(REPO / "scripts" / "rederive", record.get("kind"))
    lock = REPO / "envs" / "requirements.lock"
    lock_sha = hashlib.sha256(lock.read_bytes()).hexdigest() if lock.is_file() else "missing"
    return [
        f"code: package made at commit {theirs}; this checkout {ours}"
        + (": same commit" if same_commit else ": DIFFERENT commit")
        + (
            " (uncommitted changes: the library hash says whether the kind's code is the same)"
            if code.get("dirty") or here.get("dirty")
            else ""
        ),
        f"library code of kind {record.get('kind')}: "
        + (
            "same"
            if code.get("library") == library
            else f"DIFFERS ({code.get('library')} → {library})"
        ),
        "lock file: "
        + ("same" if code.get("lock") == lock_sha else "DIFFERS (other package versions)"),
    ]


def rebuild(package, raw_dir: Path, work: Path, cores: int) -> Path:
    """Rebuild the package's analysis in ``work`` with this workflow; its results folder."""
    name = package.analysis
    config = yaml.safe_load(package.path("config.yaml").read_text())
    config["analyses"][name]["raw_dir"] = str(raw_dir.resolve())
    config_file = work / "rebuild-config.yaml"
    config_file.write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True))
    # The workflow reads config/config.yaml in its working directory.
    shutil.copytree(REPO / "config", work / "config", dirs_exist_ok=True)
    snakemake = Path(sys.executable).with_name("snakemake")
    command = [
        str(snakemake),
        "-s",
        str(REPO / "Snakefile"),
        "--directory",
        str(work),
        "--configfile",
        str(config_file),
        "--cores",
        str(cores),
        "--quiet",
        "progress",
        "--",
        f"results/{name}/changes/changes.json",
    ]
    proc = subprocess.run(command, capture_output=True, text=True, cwd=work)
    if proc.returncode != 0:
        tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-15:])
        raise PackageError(f"the rebuild failed (snakemake exit {proc.returncode}):\n{tail}")
    return work / "results" / name


def table_lines(report, theirs: PackageSnapshot, rebuilt: FolderSnapshot) -> tuple[list[str], int]:
    """Per result file: identical / differs (its cells) / missing; and the number that differ."""
    lines, bad = [], 0
    for path in sorted(set(theirs.files) | set(rebuilt.files)):
        if path not in rebuilt.files:
            lines.append(f"  missing    {path} (in the package, not rebuilt)")
            bad += 1
        elif path not in theirs.files:
            lines.append(f"  extra      {path} (rebuilt, not in the package)")
            bad += 1
        elif path in report.diffs:
            diff = report.diffs[path]
            bad += 1
            parts = []
            if diff.rows_added or diff.rows_removed:
                parts.append(
                    f"{len(diff.rows_removed)} rows only in the package, {len(diff.rows_added)} only rebuilt"
                )
            if diff.cells:
                parts.append(f"{len(diff.cells)} cells in {diff.rows_changed} rows")
            lines.append(f"  differs    {path}: {', '.join(parts) or 'columns differ'}")
            for c in diff.cells[:CELLS_SHOWN]:
                lines.append(
                    f"               row {key_text(c.key)}, column {c.column}: theirs {c.old}, rebuilt {c.new}"
                )
            if len(diff.cells) > CELLS_SHOWN:
                lines.append(f"               … {len(diff.cells) - CELLS_SHOWN} more cells")
            for k in diff.rows_removed[:CELLS_SHOWN]:
                lines.append(f"               row {key_text(k)}: only in the package")
            for k in diff.rows_added[:CELLS_SHOWN]:
                lines.append(f"               row {key_text(k)}: only rebuilt")
        elif path in report.other_changed:
            lines.append(f"  differs    {path}")
            bad += 1
        else:
            lines.append(f"  identical  {path}")
    return lines, bad


def verify(args) -> int:
    work = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="rederive-verify-"))
    work.mkdir(parents=True, exist_ok=True)
    package = read_package(args.package, work / "package")
    record = package.record
    name = package.analysis
    print(
        f"rederive: verify: {args.package}: analysis {name} ({record.get('label', name)}), "
        f"build {record.get('build')} of {record.get('built_at', '?')}"
    )
    for line in code_lines(record):
        print(f"  {line}")
    if package.raw_included:
        raw_dir = package.path("raw")
    elif args.raw:
        raw_dir = Path(args.raw)
    else:
        raise PackageError(
            "the package holds no raw inputs (made with --manifest-only): pass them with --raw DIR"
        )
    if not raw_dir.is_dir():
        raise PackageError(f"{raw_dir}: no such folder")
    problems = check_raw(raw_dir, record.get("manifest", {}))
    runs = len(record.get("manifest", {}).get("runs", {}))
    if problems:
        print(f"  raw inputs: {len(problems)} difference(s) from the build's manifest:")
        for p in problems:
            print(f"    {p}")
    else:
        print(f"  raw inputs: all {runs} runs and other inputs match the build's manifest")
    theirs = PackageSnapshot(package)
    for path in theirs.edited:
        print(
            f"  note: results/{path} in the package differs from the hash recorded when it was made (edited afterwards)"
        )
    started = time.monotonic()
    print(f"  rebuilding with this workflow in {work} ({args.cores} cores) …", flush=True)
    results = rebuild(package, raw_dir, work, args.cores)
    print(f"  rebuilt in {time.monotonic() - started:.0f} s")
    rebuilt = FolderSnapshot(results)
    report = compare_snapshots(
        name,
        record.get("kind", ""),
        theirs,
        rebuilt,
        old_name="package",
        new_name="rebuild",
        tolerance=args.tolerance,
    )
    lines, bad = table_lines(report, theirs, rebuilt)
    print("result files (theirs = the package, rebuilt = this workflow):")
    print("\n".join(lines))
    for d in report.decisions:
        print(
            f"  decision {d.decision} differs in {d.table} {d.key}: theirs {d.old}, rebuilt {d.new}"
        )
    total = len(set(theirs.files) | set(rebuilt.files))
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "analysis": name,
                    "reproduced": not bad and not problems,
                    "raw_problems": problems,
                    "files": total,
                    "files_differing": bad,
                    "report": report.summary(),
                },
                indent=1,
                ensure_ascii=False,
            )
            + "\n"
        )
    if not args.keep and not args.workdir:
        shutil.rmtree(work, ignore_errors=True)
    if bad or problems:
        what = []
        if bad:
            what.append(f"{bad} of {total} result files differ")
        if problems:
            what.append(f"{len(problems)} input difference(s)")
        print(f"rederive: verify: NOT REPRODUCED: {'; '.join(what)}")
        return NOT_REPRODUCED
    print(
        f"rederive: verify: REPRODUCED: all {total} result files identical"
        + (f" (tolerance {args.tolerance:g})" if args.tolerance else "")
    )
    return REPRODUCED


def parser(prog: str = PROG) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=prog,
        description=(
            "Rebuild a replication package (python -m rederive.package) with this workflow "
            "and compare every result file. Exit 0 reproduced, 1 not reproduced, 2 unusable."
        ),
    )
    p.add_argument("package", help="the .tar.gz package")
    p.add_argument("--raw", help="the raw inputs, for a package made with --manifest-only")
    p.add_argument("--workdir", help="rebuild here (kept; reused by a later verify)")
    p.add_argument("--keep", action="store_true", help="keep the scratch folder")
    p.add_argument("--cores", type=int, default=2, help="cores for the rebuild (default 2)")
    p.add_argument(
        "--tolerance",
        type=float,
        default=0.0,
        help="numbers within this absolute difference agree (another machine)",
    )
    p.add_argument("--json", metavar="FILE", help="also write the verdict as JSON")
    return p


def main(argv=None, prog: str = PROG) -> int:
    args = parser(prog).parse_args(argv)
    try:
        return verify(args)
    except PackageError as exc:
        print(f"rederive: verify: {exc}", file=sys.stderr)
        return UNUSABLE


if __name__ == "__main__":
    sys.exit(main())
