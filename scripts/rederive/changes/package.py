"""Replication packages: one analysis's inputs, settings, code state and results.

A package is a deterministic ``.tar.gz`` (sorted members, no timestamps or
owners) holding what a reviewer needs to rebuild one analysis with this
workflow and compare, table by table, with the authors' results:

``package.json``
    the analysis, its resolved settings, the code (commit, dirty flag, the
    hash of the library code its kind imports, the lock file's hash), the
    input manifest of the build (every run with its files' SHA-256, the other
    input files), the SHA-256 of every result file, package versions;
``config.yaml``
    a config file that rebuilds the analysis from ``raw/``;
``requirements.lock``
    the pinned environment it was built with;
``raw/``
    the analysis's input files (left out with ``--manifest-only``: their
    hashes stay in the manifest, and the reviewer supplies the files);
``results/``
    its tables, published checks and audits, as built.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import tarfile
from dataclasses import dataclass
from pathlib import Path

import yaml

__all__ = [
    "FORMAT",
    "PackageError",
    "PackageSnapshot",
    "list_raw_files",
    "read_package",
    "write_package",
]

FORMAT = "rederive-package"
VERSION = 1
ROOT = "rederive-package"


class PackageError(Exception):
    """A package that cannot be made or read; the message says why and what to do."""


def list_raw_files(root: str | Path) -> list[Path]:
    """Every file under an analysis's raw_dir, as the workflow lists them
    (symlinked folders followed; a loop refused)."""
    from rederive.io.raw_tree import RawTreeError, list_files

    try:
        return sorted(list_files(root))
    except RawTreeError as exc:
        raise PackageError(str(exc)) from None


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _member(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(f"{ROOT}/{name}")
    info.size = len(data)
    info.mtime = 0
    info.mode = 0o644
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    tar.addfile(info, io.BytesIO(data))


def write_package(
    out: str | Path,
    *,
    record: dict,
    config: dict,
    lock: bytes,
    raw: dict[str, Path] | None,
    results: dict[str, Path],
) -> None:
    """Write the package (members in a fixed order, byte-identical for the same content).

    Parameters
    ----------
    record : dict
        ``package.json``'s content.
    config : dict
        The config file that rebuilds the analysis from ``raw/``.
    lock : bytes
        The lock file.
    raw : dict of str to Path, or None
        Input files by their path under raw_dir (None: manifest only).
    results : dict of str to Path
        Result files by their path under ``results/<name>/``.
    """
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        text = json.dumps(record, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
        _member(tar, "package.json", text.encode())
        _member(
            tar, "config.yaml", yaml.safe_dump(config, sort_keys=False, allow_unicode=True).encode()
        )
        _member(tar, "requirements.lock", lock)
        for rel, path in sorted((raw or {}).items()):
            _member(tar, f"raw/{rel}", Path(path).read_bytes())
        for rel, path in sorted(results.items()):
            _member(tar, f"results/{rel}", Path(path).read_bytes())
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    with open(out, "wb") as handle:
        with gzip.GzipFile(fileobj=handle, mode="wb", mtime=0, filename="") as zipped:
            zipped.write(buffer.getvalue())


@dataclass
class Package:
    """A package unpacked in a folder."""

    folder: Path
    record: dict

    @property
    def analysis(self) -> str:
        return self.record["analysis"]

    @property
    def raw_included(self) -> bool:
        return bool(self.record.get("raw_included"))

    def path(self, name: str) -> Path:
        return self.folder / name


def read_package(path: str | Path, into: str | Path) -> Package:
    """Unpack a package into ``into`` and read its ``package.json``.

    Members outside the package folder, links and devices are refused
    (tarfile's ``data`` filter), so a hostile package cannot write elsewhere.
    """
    path = Path(path)
    if not path.is_file():
        raise PackageError(f"{path}: no such file")
    try:
        with tarfile.open(path, mode="r:gz") as tar:
            tar.extractall(into, filter="data")
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise PackageError(f"{path}: not a readable .tar.gz package ({exc})") from None
    folder = Path(into) / ROOT
    try:
        record = json.loads((folder / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise PackageError(f"{path}: no readable {ROOT}/package.json ({exc})") from None
    if record.get("format") != FORMAT:
        raise PackageError(
            f"{path}: not a rederive replication package (format {record.get('format')!r})"
        )
    if record.get("version", 0) > VERSION:
        raise PackageError(
            f"{path}: package format version {record['version']} is newer than this "
            f"workflow reads ({VERSION}); update rederive"
        )
    return Package(folder=folder, record=record)


class PackageSnapshot:
    """The results a package holds, as a snapshot for the change report.

    The files are hashed as they are: a table edited after packaging is
    compared as edited, and listed in ``edited``.
    """

    def __init__(self, package: Package):
        self.package = package
        self.manifest = package.record.get("manifest")
        base = package.folder / "results"
        paths = sorted(p for p in base.rglob("*") if p.is_file()) if base.is_dir() else []
        self._paths = {p.relative_to(base).as_posix(): p for p in paths}
        self.files = {rel: _sha256(p.read_bytes()) for rel, p in self._paths.items()}
        recorded = package.record.get("results", {})
        self.edited = sorted(
            rel
            for rel in set(recorded) | set(self.files)
            if recorded.get(rel) != self.files.get(rel)
        )

    def read(self, path: str) -> bytes:
        return self._paths[path].read_bytes()
