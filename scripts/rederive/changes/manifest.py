"""What a build of one analysis was made from: its input manifest.

The manifest names each run with the SHA-256 of its files, every other input
file with its own, the analysis's resolved settings, and the code (git commit,
the hash of the library code the kind imports, the lock file). Comparing two
manifests says which runs were added, removed or changed *by content* (a file
copied with an old mtime, or touched without a change, is judged by its bytes),
which settings changed, and whether the code did.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "InputChanges",
    "build_manifest",
    "compare_manifests",
    "flatten_settings",
    "identity",
    "run_digest",
]

#: Settings that say where the inputs are on this machine, not what they are:
#: a moved raw_dir with the same files is not a change.
LOCATION_SETTINGS = ("raw_dir",)
#: Manifest fields that describe a build but are not part of what it was made
#: from: a new commit whose library code is unchanged adds no history entry.
RECORD_ONLY = ("commit", "dirty")


def run_digest(files: dict[str, str]) -> str:
    """One SHA-256 over a run's files (relative path and content hash of each)."""
    digest = hashlib.sha256()
    for path, sha in sorted(files.items()):
        digest.update(f"{path}\0{sha}\n".encode("utf-8", "surrogateescape"))
    return digest.hexdigest()


def build_manifest(
    *,
    analysis: str,
    kind: str,
    settings: dict,
    raw_dir: str | Path,
    run_files: dict[str, list[str]],
    file_hashes: dict[str, str],
    code: dict,
    headline: dict | None = None,
) -> dict:
    """The manifest of one build.

    Parameters
    ----------
    analysis, kind : str
    settings : dict
        The analysis's resolved entry (kind options, label, source); the
        location settings (``raw_dir``) are left out.
    raw_dir : path
        The analysis's input folder: file paths are recorded relative to it.
    run_files : dict of str to list of str
        Each run id's input files (absolute or relative to the working directory).
    file_hashes : dict of str to str
        SHA-256 of every input file under ``raw_dir``, by the same paths.
    code : dict
        ``commit``, ``dirty``, ``library`` (hash of the kind's library code) and
        ``lock`` (SHA-256 of the lock file).
    headline : dict, optional
        The kind's headline table (``HeadlineSpec`` as a dict), so that a later
        comparison reads the top model from the right table.
    """
    root = Path(raw_dir)

    def relative(path: str) -> str:
        try:
            return Path(path).relative_to(root).as_posix()
        except ValueError:
            return Path(path).as_posix()

    hashes = {relative(p): sha for p, sha in file_hashes.items()}
    runs = {}
    in_runs = set()
    for run, paths in sorted(run_files.items()):
        files = {relative(p): hashes.get(relative(p), "missing") for p in paths}
        in_runs.update(files)
        runs[run] = {"sha256": run_digest(files), "files": files}
    return {
        "analysis": analysis,
        "kind": kind,
        "settings": {k: v for k, v in settings.items() if k not in LOCATION_SETTINGS},
        "runs": runs,
        "inputs": {p: sha for p, sha in sorted(hashes.items()) if p not in in_runs},
        "code": dict(code),
        "headline": dict(headline) if headline else None,
        # Where the inputs were on the machine that built it: how a later run
        # finds them to say whether this build is stale (never compared).
        "location": {"raw_dir": str(raw_dir)},
    }


def identity(manifest: dict) -> dict:
    """The part of a manifest that decides whether two builds differ."""
    code = {k: v for k, v in manifest.get("code", {}).items() if k not in RECORD_ONLY}
    kept = {k: v for k, v in manifest.items() if k != "location"}
    return {**kept, "code": code}


def flatten_settings(settings, prefix: str = "") -> dict[str, str]:
    """Nested settings as ``{"bootstrap.n_boot": "2000", …}`` (values as JSON)."""
    if isinstance(settings, dict) and settings:
        out = {}
        for key in settings:
            out.update(flatten_settings(settings[key], f"{prefix}{key}."))
        return out
    return {prefix.rstrip("."): json.dumps(settings, ensure_ascii=False, sort_keys=True)}


@dataclass
class InputChanges:
    """Runs, other inputs, settings and code that differ between two manifests."""

    runs_added: list[str] = field(default_factory=list)
    runs_removed: list[str] = field(default_factory=list)
    runs_changed: dict[str, list[str]] = field(default_factory=dict)  # run -> files changed
    inputs_added: list[str] = field(default_factory=list)
    inputs_removed: list[str] = field(default_factory=list)
    inputs_changed: list[str] = field(default_factory=list)
    settings: list[tuple[str, str, str]] = field(default_factory=list)  # key, old, new
    code: list[tuple[str, str, str]] = field(default_factory=list)  # library/lock, old, new

    @property
    def any(self) -> bool:
        return any(
            (
                self.runs_added,
                self.runs_removed,
                self.runs_changed,
                self.inputs_added,
                self.inputs_removed,
                self.inputs_changed,
                self.settings,
                self.code,
            )
        )


def _changed_files(old: dict[str, str], new: dict[str, str]) -> list[str]:
    return sorted(p for p in set(old) | set(new) if old.get(p) != new.get(p))


def compare_manifests(old: dict, new: dict) -> InputChanges:
    """What differs between the manifests of two builds of one analysis."""
    out = InputChanges()
    runs_old, runs_new = old.get("runs", {}), new.get("runs", {})
    out.runs_added = sorted(set(runs_new) - set(runs_old))
    out.runs_removed = sorted(set(runs_old) - set(runs_new))
    for run in sorted(set(runs_old) & set(runs_new)):
        if runs_old[run]["sha256"] != runs_new[run]["sha256"]:
            out.runs_changed[run] = _changed_files(
                runs_old[run].get("files", {}), runs_new[run].get("files", {})
            )
    inputs_old, inputs_new = old.get("inputs", {}), new.get("inputs", {})
    out.inputs_added = sorted(set(inputs_new) - set(inputs_old))
    out.inputs_removed = sorted(set(inputs_old) - set(inputs_new))
    out.inputs_changed = sorted(
        p for p in set(inputs_old) & set(inputs_new) if inputs_old[p] != inputs_new[p]
    )
    before = flatten_settings(old.get("settings", {}))
    after = flatten_settings(new.get("settings", {}))
    out.settings = [
        (key, before.get(key, "(not set)"), after.get(key, "(not set)"))
        for key in sorted(set(before) | set(after))
        if before.get(key) != after.get(key)
    ]
    code_old, code_new = old.get("code", {}), new.get("code", {})
    # The commit alone is context (the report's header names both): a commit
    # that leaves the kind's library code and the lock file as they were
    # changes nothing this analysis computes.
    for part in ("library", "lock"):
        was, now = code_old.get(part), code_new.get(part)
        if was != now:
            out.code.append((part, str(was), str(now)))
    return out
