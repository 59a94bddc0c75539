"""``python -m rederive.package NAME OUT.tar.gz``: a replication package of one analysis.

Writes what a reviewer needs to rebuild the analysis with this workflow and
check it table by table (``python -m rederive.verify OUT.tar.gz``): its raw
inputs (or, with ``--manifest-only``, their hashes), the resolved settings, the
lock file, the code state, the results tables, checks and audits, and the
build's input manifest (docs/changes.md). The analysis must have been built,
and its inputs must be the ones that build read.

Exit status: 0 written, 2 unusable input (the message says what to do).
"""

from __future__ import annotations

import argparse
import platform
import sys
from pathlib import Path

import yaml

from rederive.analyses import ConfigError, kind_names, resolve
from rederive.changes.package import FORMAT, VERSION, PackageError, list_raw_files, write_package
from rederive.changes.snapshots import FolderSnapshot
from rederive.io.content_keys import CACHE_FILE, ContentKeys
from rederive.provenance import versions

#: The program name in usage lines (``rederive <command>`` passes its own).
PROG = "python -m rederive.package"

REPO = Path(__file__).resolve().parents[2]
SCHEMA_DIR = REPO / "config" / "schemas"
LOCK = REPO / "envs" / "requirements.lock"


def merge(base: dict, extra: dict) -> dict:
    """``extra`` laid over ``base``, nested mappings merged (as Snakemake merges
    config files)."""
    out = dict(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out


def load_config(configfiles) -> dict:
    """The workflow's config/config.yaml with each ``--configfile`` laid over it."""
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text()) or {}
    for path in configfiles:
        try:
            extra = yaml.safe_load(Path(path).read_text()) or {}
        except (OSError, yaml.YAMLError) as exc:
            raise PackageError(f"{path}: cannot read the config file ({exc})") from None
        config = merge(config, extra)
    return config


def resolve_analysis(name: str, configfiles) -> dict:
    try:
        analyses, _ = resolve(load_config(configfiles), SCHEMA_DIR, kind_names(SCHEMA_DIR))
    except ConfigError as exc:
        raise PackageError(f"config: {exc}") from None
    if name not in analyses:
        raise PackageError(
            f"{name!r} is not an analysis of the config (analyses: {', '.join(analyses)}); "
            "pass the config file that declares it with --configfile"
        )
    return analyses[name]


def raw_against_manifest(raw_dir: Path, manifest: dict) -> tuple[dict[str, Path], list[str]]:
    """The raw files by relative path, and every difference from the manifest."""
    keys = ContentKeys(CACHE_FILE)
    files = {p.relative_to(raw_dir).as_posix(): p for p in list_raw_files(raw_dir)}
    recorded = dict(manifest.get("inputs", {}))
    owner = {}
    for run, entry in manifest.get("runs", {}).items():
        for rel, sha in entry.get("files", {}).items():
            recorded[rel] = sha
            owner[rel] = run
    problems = []
    for rel in sorted(set(recorded) | set(files)):
        where = f"run {owner[rel]}: " if rel in owner else ""
        if rel not in files:
            problems.append(f"{where}{rel} is missing (the build read it)")
        elif rel not in recorded:
            problems.append(f"{rel} is new (the build did not read it)")
        elif keys.file(files[rel]) != recorded[rel]:
            problems.append(f"{where}{rel} changed since the build")
    return files, problems


def build_record(name: str, entry: dict, snapshot: FolderSnapshot, raw_included: bool) -> dict:
    manifest = snapshot.manifest
    return {
        "format": FORMAT,
        "version": VERSION,
        "analysis": name,
        "kind": entry["kind"],
        "label": entry["label"],
        "build": snapshot.entry.number,
        "built_at": snapshot.entry.built_at,
        "code": manifest.get("code", {}),
        "manifest": manifest,
        "results": snapshot.files,
        "raw_included": raw_included,
        "python": platform.python_version(),
        "packages": versions(),
    }


def rebuild_config(name: str, manifest: dict) -> dict:
    """The config that rebuilds the analysis from the package's raw/ folder."""
    settings = {k: v for k, v in manifest["settings"].items() if v is not None}
    return {"analyses": {name: {**settings, "raw_dir": "raw"}}, "build": [name]}


def make_package(name: str, out: str, *, configfiles=(), results=None, manifest_only=False):
    entry = resolve_analysis(name, configfiles)
    folder = Path(results or Path("results") / name)
    if not folder.is_dir():
        raise PackageError(
            f"{folder}: not built; build the analysis first "
            f"(snakemake --cores 8 --config 'build=[{name}]')"
        )
    snapshot = FolderSnapshot(folder)
    if snapshot.entry is None:
        raise PackageError(
            f"{folder}: its tables are not those of a build recorded in {folder}/history/ "
            "(built by an older rederive, or edited since): rebuild it, then package"
        )
    raw_files, problems = raw_against_manifest(Path(entry["raw_dir"]), snapshot.manifest)
    if problems:
        shown = "; ".join(problems[:10]) + (
            f"; … {len(problems) - 10} more" if len(problems) > 10 else ""
        )
        raise PackageError(
            f"the inputs in {entry['raw_dir']} are not the ones build {snapshot.entry.number} "
            f"read ({shown}); rebuild the analysis, then package"
        )
    write_package(
        out,
        record=build_record(name, entry, snapshot, not manifest_only),
        config=rebuild_config(name, snapshot.manifest),
        lock=LOCK.read_bytes(),
        raw=None if manifest_only else raw_files,
        results={rel: folder / rel for rel in snapshot.files},
    )
    return snapshot, raw_files


def parser(prog: str = PROG) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=prog,
        description=(
            "Write a replication package of one built analysis: raw inputs (or their "
            "hashes), resolved settings, lock file, code state, results and the build's "
            "input manifest. Check it with python -m rederive.verify."
        ),
        epilog="Exit status: 0 written, 2 not written (a 'rederive: package:' message).",
    )
    p.add_argument("name", help="the analysis (its results are in results/<name>)")
    p.add_argument("out", help="the package to write (.tar.gz)")
    p.add_argument(
        "--configfile",
        action="append",
        default=[],
        help="config file(s) that declare the analysis, as given to snakemake",
    )
    p.add_argument("--results", help="its results folder (default results/<name>)")
    p.add_argument(
        "--manifest-only",
        action="store_true",
        help="leave the raw inputs out (their hashes stay); the reviewer passes "
        "them to rederive.verify with --raw",
    )
    return p


def main(argv=None, prog: str = PROG) -> int:
    args = parser(prog).parse_args(argv)
    try:
        snapshot, raw_files = make_package(
            args.name,
            args.out,
            configfiles=args.configfile,
            results=args.results,
            manifest_only=args.manifest_only,
        )
    except PackageError as exc:
        print(f"rederive: package: {exc}", file=sys.stderr)
        return 2
    runs = len(snapshot.manifest.get("runs", {}))
    raw = "hashes only" if args.manifest_only else f"{len(raw_files)} files"
    print(
        f"rederive: package: {args.out}: analysis {args.name}, build {snapshot.entry.number}, "
        f"{runs} runs (raw inputs: {raw}), {len(snapshot.files)} result files; check it "
        f"with python -m rederive.verify {args.out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
