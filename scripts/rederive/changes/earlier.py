"""Analyses built by an earlier run, and whether their inputs changed since.

A run builds the analyses its config names (``build:``); the results of others
stay in ``results/<name>/`` (a second ``--configfile``, a ``build: [x]`` of one
of several). The site and the summary list them too, each with the settings
it was built with (its newest history entry's manifest) and a state: up to
date, stale (an input changed, was added or removed since that build, run by
run) or inputs not found.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from rederive.changes.history import History, HistoryEntry

__all__ = ["Earlier", "find_earlier", "staleness"]

UP_TO_DATE = "up to date"
STALE = "stale"
NOT_FOUND = "inputs not found"


@dataclass
class Earlier:
    """An analysis on disk that this run did not build."""

    name: str
    entry: HistoryEntry
    state: str = UP_TO_DATE
    problems: list[str] = field(default_factory=list)

    @property
    def settings(self) -> dict:
        return dict(self.entry.manifest.get("settings", {}))

    @property
    def kind(self) -> str:
        return self.entry.manifest.get("kind", "")

    @property
    def raw_dir(self) -> str | None:
        return self.entry.manifest.get("location", {}).get("raw_dir")

    def note(self) -> str:
        """One sentence for the index, the page and the summary."""
        built = f"build {self.entry.number} of {self.entry.built_at}, not rebuilt in this run"
        if self.state == UP_TO_DATE:
            return f"{built}; its inputs are unchanged since"
        shown = "; ".join(self.problems[:5]) + (
            f"; … {len(self.problems) - 5} more" if len(self.problems) > 5 else ""
        )
        if self.state == NOT_FOUND:
            return f"{built}; its inputs are not where it read them ({shown})"
        return f"{built}; STALE: its inputs changed since ({shown})"


def staleness(manifest: dict, files: dict[str, str] | None) -> tuple[str, list[str]]:
    """Compare a build's manifest with the files under its raw_dir now.

    Parameters
    ----------
    manifest : dict
        The build's input manifest (:mod:`rederive.changes.manifest`).
    files : dict of str to str, or None
        SHA-256 of every file under the raw_dir now, by path relative to it;
        None when the raw_dir is not there.
    """
    if files is None:
        return NOT_FOUND, [f"no folder {manifest.get('location', {}).get('raw_dir', '?')}"]
    problems = []
    claimed = set()
    for run, entry in sorted(manifest.get("runs", {}).items()):
        changed = [
            rel for rel, sha in sorted(entry.get("files", {}).items()) if files.get(rel) != sha
        ]
        claimed.update(entry.get("files", {}))
        if changed:
            problems.append(f"run {run} changed ({', '.join(changed)})")
    for rel, sha in sorted(manifest.get("inputs", {}).items()):
        claimed.add(rel)
        if files.get(rel) != sha:
            problems.append(f"{rel} {'changed' if rel in files else 'removed'}")
    added = sorted(set(files) - claimed)
    if added:
        problems.append(f"{len(added)} new file(s) ({', '.join(added[:3])})")
    return (STALE if problems else UP_TO_DATE), problems


def find_earlier(results: str | Path, skip, file_hashes) -> list[Earlier]:
    """The analyses under ``results`` with a kept build, other than ``skip``.

    Parameters
    ----------
    results : path
        The workflow's ``results/`` folder.
    skip : iterable of str
        Names not to list: this run's analyses and the workflow's own folders.
    file_hashes : callable
        ``file_hashes(raw_dir) -> {relative path: sha256}`` or None when the
        folder is missing (the caller hashes through its content-key cache).
    """
    out = []
    root = Path(results)
    if not root.is_dir():
        return out
    skip = set(skip)
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and p.name not in skip):
        latest = History(folder / "history").latest()
        if latest is None:
            continue
        earlier = Earlier(name=folder.name, entry=latest)
        raw = earlier.raw_dir
        earlier.state, earlier.problems = staleness(
            latest.manifest, file_hashes(raw) if raw else None
        )
        out.append(earlier)
    return out
