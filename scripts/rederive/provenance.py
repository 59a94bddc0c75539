"""Provenance record: what went in (sha256 of every raw file), with which code
(git commit, dirty flag) and which packages, under which configuration.

Deliberately free of timestamps so that two runs on the same inputs write the
same file.
"""

import json
import platform
import subprocess
from importlib import metadata
from pathlib import Path

from rederive.io.hashing import sha256_file

PACKAGES = [
    "snakemake",
    "pandas",
    "numpy",
    "scipy",
    "statsmodels",
    "py-irt",
    "pyro-ppl",
    "torch",
    "seaborn",
    "matplotlib",
    "duckdb",
    "pyarrow",
]


def git_state(repo: Path) -> dict:
    def git(*args):
        out = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True)
        return out.stdout.strip() if out.returncode == 0 else None

    commit = git("rev-parse", "HEAD")
    dirty = git("status", "--porcelain", "--untracked-files=no")
    return {"commit": commit, "dirty": bool(dirty) if dirty is not None else None}


def versions() -> dict:
    found = {}
    for name in PACKAGES:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = None
    return found


def analysis_inputs(raw_files, analyses: dict) -> dict:
    """Per analysis: its kind, label, ``root`` (the configured raw_dir, once) and
    the sha256 of every file under it, keyed by the path relative to the root."""
    files = sorted(map(Path, map(str, raw_files)))
    out = {}
    for name, entry in analyses.items():
        root = Path(entry["raw_dir"])
        inside = {}
        for path in files:
            try:
                relative = path.relative_to(root)
            except ValueError:
                continue
            inside[relative.as_posix()] = sha256_file(path)
        out[name] = {
            "kind": entry["kind"],
            "label": entry["label"],
            "root": str(entry["raw_dir"]),
            "files": inside,
        }
    return out


def build(raw_files, analyses: dict, settings: dict, repo: Path) -> dict:
    """The provenance record: Python, packages, code state, the global settings,
    and each analysis's resolved options and input hashes."""
    options = {
        name: {k: v for k, v in entry.items() if k not in ("kind", "label", "raw_dir")}
        for name, entry in analyses.items()
    }
    return {
        "python": platform.python_version(),
        "packages": versions(),
        "code": git_state(repo),
        "settings": settings,
        "analyses": {
            name: {**record, "options": options[name]}
            for name, record in analysis_inputs(raw_files, analyses).items()
        },
    }


def main(snakemake):
    repo = Path(__file__).resolve().parents[2]
    record = build(
        snakemake.input.raw,
        dict(snakemake.params.analyses),
        dict(snakemake.params.settings),
        repo,
    )
    Path(snakemake.output.json).write_text(
        json.dumps(record, indent=2, sort_keys=True, default=str) + "\n"
    )


if __name__ == "__main__" and "snakemake" in globals():
    from rederive.runner import run

    run(main, snakemake)  # noqa: F821
