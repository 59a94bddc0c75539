"""Where the study's runs come from: one run per file (or lm-eval model folder).

Each input format has its own folder, by default under ``raw/benchmark/``, and
each can be pointed elsewhere in config (``benchmark.inputs.<format>``):

=========  ======================================  =================================
format     layout                                  one run is
=========  ======================================  =================================
matrix     ``matrix/<name>.csv``                   the file (items × models)
long       ``long/<name>.csv`` / ``.jsonl``        the file
lm_eval    ``lm_eval/<model>/samples_*.jsonl``     one model folder of ``--output_path``
inspect    ``inspect/<name>.eval`` or ``.json``    one log (one task × model), any depth
=========  ======================================  =================================

The run id is ``<format>-<name>`` with characters other than letters, digits,
``.``, ``_`` and ``-`` replaced, so it is a safe file name and wildcard value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

FORMATS = ("matrix", "long", "lm_eval", "inspect")
# Files Inspect writes into a log folder that are not logs (inspect_ai/log/_file.py,
# _eval/evalset.py).
INSPECT_MANIFESTS = {"logs.json", "eval-set.json", "listing.json"}


@dataclass(frozen=True)
class Source:
    run: str
    format: str
    path: Path

    def files(self) -> list[Path]:
        """Files the run is read from (Snakemake inputs: a change re-runs the ingest)."""
        if self.format == "lm_eval":
            return sorted(
                p for p in self.path.iterdir() if p.is_file() and p.suffix in {".json", ".jsonl"}
            )
        return [self.path]


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("_") or "run"


def input_dirs(raw_dir: str | Path, inputs: dict | None) -> dict[str, Path]:
    """Folder of each format: ``inputs[<format>]`` when set, else ``<raw_dir>/<format>``."""
    inputs = inputs or {}
    return {fmt: Path(inputs.get(fmt) or Path(raw_dir) / fmt) for fmt in FORMATS}


def discover(raw_dir: str | Path, inputs: dict | None = None) -> dict[str, Source]:
    """All runs found in the input folders, keyed by run id (sorted).

    Raises
    ------
    ValueError
        When two inputs would get the same run id (e.g. ``a b.csv`` and ``a_b.csv``).
    """
    found: dict[str, Source] = {}

    def add(fmt: str, name: str, path: Path) -> None:
        run = f"{fmt}-{_safe(name)}"
        if run in found:
            raise ValueError(
                f"inputs {found[run].path} and {path} both map to run id {run}; rename one"
            )
        found[run] = Source(run, fmt, path)

    dirs = input_dirs(raw_dir, inputs)
    if dirs["matrix"].is_dir():
        for path in sorted(dirs["matrix"].glob("*.csv")):
            add("matrix", path.stem, path)
    if dirs["long"].is_dir():
        for path in sorted([*dirs["long"].glob("*.csv"), *dirs["long"].glob("*.jsonl")]):
            add("long", path.name, path)
    if dirs["lm_eval"].is_dir():
        # A model folder is any folder holding samples_*.jsonl, at any depth, so both
        # <out>/ and a single <out>/<model>/ can be pointed at.
        folders = sorted({p.parent for p in dirs["lm_eval"].rglob("samples_*.jsonl")})
        for folder in folders:
            rel = folder.relative_to(dirs["lm_eval"])
            add("lm_eval", str(rel) if str(rel) != "." else folder.name, folder)
    if dirs["inspect"].is_dir():
        # .json logs too (log_format="json"), but not the manifests Inspect writes
        # beside them; any other .json that is not a log is an error, never skipped.
        logs = [*dirs["inspect"].rglob("*.eval"), *dirs["inspect"].rglob("*.json")]
        for path in sorted(p for p in logs if p.name not in INSPECT_MANIFESTS):
            add("inspect", str(path.relative_to(dirs["inspect"]).with_suffix("")), path)
    return dict(sorted(found.items()))
