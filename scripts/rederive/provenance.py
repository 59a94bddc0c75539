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


def build(raw_files, config: dict, repo: Path) -> dict:
    return {
        "python": platform.python_version(),
        "packages": versions(),
        "code": git_state(repo),
        "config": config,
        "inputs": {str(p): sha256_file(p) for p in sorted(map(str, raw_files))},
    }


def main(snakemake):
    repo = Path(__file__).resolve().parents[2]
    record = build(snakemake.input.raw, dict(snakemake.params.config), repo)
    Path(snakemake.output.json).write_text(
        json.dumps(record, indent=2, sort_keys=True, default=str) + "\n"
    )


if __name__ == "__main__" and "snakemake" in globals():
    from rederive.runner import run

    run(main, snakemake)  # noqa: F821
