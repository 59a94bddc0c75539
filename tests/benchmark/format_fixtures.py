"""Shared by the reader tests: paths of every format's real-tool fixtures."""

from __future__ import annotations

from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures"


def other_formats_paths(own: str) -> list[Path]:
    """Every file and folder of the fixtures of the formats other than ``own``.

    ``detect`` of a format must say no to each of them, so ``inputs: {auto: …}``
    never hands another tool's output to the wrong reader.
    """
    paths = []
    for folder in sorted(p for p in FIXTURES.iterdir() if p.is_dir() and p.name != own):
        paths.append(folder)
        paths.extend(sorted(folder.rglob("*")))
    return paths


def truncated_copy(source: Path, target: Path, fraction: float = 0.5) -> Path:
    """``source``'s first bytes written to ``target`` (a file cut off mid-write)."""
    data = source.read_bytes()
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data[: int(len(data) * fraction)])
    return target
