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
``.``, ``_`` and ``-`` replaced and a long name shortened
(:func:`rederive.io.run_files.run_id`), so it is a safe file name and wildcard
value.

``matrix/`` and ``long/`` are flat: an entry there that is not read (a
sub-folder, a compressed or ``.json`` file, anything else) is refused, naming
it. ``lm_eval/`` and ``inspect/`` are the tools' own output folders, searched at
any depth; files there that are neither logs nor samples (lm-eval's
``results_*.json`` aside) are the tools' and are not read, except that a
compressed file is refused (a compressed log or samples file would otherwise be
lost). A path holding ``{`` or ``}`` is refused (Snakemake cannot carry it).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rederive.io.run_files import COMPRESSED, RunFilesError, brace_problem, run_id, unread_problem

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
    RunFilesError
        Listing every entry of ``matrix/`` or ``long/`` that is not read, every
        compressed file in ``lm_eval/`` or ``inspect/`` and every path with braces.
    """
    found: dict[str, Source] = {}
    problems: list[str] = []

    def add(fmt: str, name: str, path: Path) -> None:
        problem = brace_problem(path)
        if problem:
            problems.append(problem)
            return
        run = f"{fmt}-{run_id(name)}"
        if run in found:
            raise ValueError(
                f"inputs {found[run].path} and {path} both map to run id {run}; rename one"
            )
        found[run] = Source(run, fmt, path)

    dirs = input_dirs(raw_dir, inputs)
    for fmt, suffixes in (("matrix", (".csv",)), ("long", (".csv", ".jsonl"))):
        if not dirs[fmt].is_dir():
            continue
        for path in sorted(dirs[fmt].iterdir()):
            if path.is_file() and path.suffix.lower() in suffixes and path.stem:
                # A matrix run is named by its stem, a long run by its file name
                # (x.csv and x.jsonl are two runs).
                add(fmt, path.stem if fmt == "matrix" else path.name, path)
            else:
                problems.append(unread_problem(path, "|".join(suffixes), f"{fmt}/"))
    for fmt in ("lm_eval", "inspect"):
        if dirs[fmt].is_dir():
            problems += [
                unread_problem(path, "", f"{fmt}/")
                for path in sorted(dirs[fmt].rglob("*"))
                if path.is_file() and any(path.name.lower().endswith(e) for e in COMPRESSED)
            ]
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
    if problems:
        raise RunFilesError(", ".join(str(dirs[f]) for f in FORMATS if dirs[f].is_dir()), problems)
    return dict(sorted(found.items()))
