"""The files of an analysis's raw_dir, as provenance hashes them.

Two things keep that list faithful:

* **Symlinked folders are followed.** ``runs/`` may be a link to a folder on
  another disk; its files are inputs like any other, hashed into
  ``provenance.json`` under the link's path (``runs/x.jsonl``). A link that
  leads back to a folder it sits in (a loop) is refused, naming it, instead of
  being walked forever.
* **The workflow's own outputs are never inputs.** A raw_dir inside
  ``results/`` or ``.snakemake/`` (or holding one of them, or a link into one)
  would list the workflow's outputs as its inputs: provenance then records
  them, and each run finds its inputs changed by the previous one and redoes
  jobs. Such a raw_dir is refused before any job.
"""

from __future__ import annotations

import os
from pathlib import Path

#: Folders of the working directory that the workflow writes.
OUTPUT_FOLDERS = ("results", ".snakemake")


class RawTreeError(Exception):
    """A raw_dir whose files cannot be listed faithfully; the message says why and the fix."""


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def output_folder_problem(raw_dir: str | Path, workdir: str | Path | None = None) -> str | None:
    """Why ``raw_dir`` cannot be a raw_dir because of the workflow's outputs, or None.

    Parameters
    ----------
    raw_dir : str or Path
        The configured folder (relative to ``workdir`` when not absolute).
    workdir : str or Path, optional
        The working directory (default: the current one).

    Returns
    -------
    str or None
        A sentence naming the output folder ``raw_dir`` is in, or holds.
    """
    workdir = Path(workdir or os.getcwd()).resolve()
    real = (workdir / raw_dir).resolve()
    for name in OUTPUT_FOLDERS:
        folder = (workdir / name).resolve()
        if _inside(real, folder):
            return (
                f"{raw_dir} is inside {name}/, where the workflow writes its outputs: "
                "its own outputs would become its inputs (and each run would find them "
                "changed). Copy the inputs to a folder of their own and name that"
            )
        if _inside(folder, real):
            return (
                f"{raw_dir} holds {name}/, where the workflow writes its outputs: its own "
                "outputs would become its inputs. Put the inputs in a sub-folder of their "
                "own and name that"
            )
    return None


def list_files(root: str | Path, workdir: str | Path | None = None) -> tuple[Path, ...]:
    """Every file under ``root``, following symlinked folders, sorted.

    Parameters
    ----------
    root : str or Path
        The raw_dir; the paths returned start with it (links are not resolved).
    workdir : str or Path, optional
        The working directory, whose output folders no followed link may enter.

    Returns
    -------
    tuple of Path
        Files (and links to files) under ``root``, in sorted order.

    Raises
    ------
    RawTreeError
        A symlinked folder that leads back into a folder it sits in, or into
        one of the workflow's output folders.
    """
    root = Path(root)
    workdir = Path(workdir or os.getcwd()).resolve()
    outputs = [(workdir / name).resolve() for name in OUTPUT_FOLDERS]
    files: list[Path] = []
    # (folder as listed, the real folders on the way down to it, the last link
    # followed on the way: the one to name when the way leads somewhere wrong)
    stack: list[tuple[Path, tuple[Path, ...], Path | None]] = [(root, (root.resolve(),), None)]
    while stack:
        folder, above, via = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            raise RawTreeError(f"cannot list {folder}: {exc.strerror}") from exc
        for entry in reversed(entries):
            path = folder / entry.name
            try:
                is_dir = entry.is_dir()  # follows links
            except OSError:
                is_dir = False
            if not is_dir:
                if entry.is_file():
                    files.append(path)
                continue
            real = path.resolve()
            link = path if entry.is_symlink() else via
            if real in above:
                raise RawTreeError(
                    f"{link} is a link that leads back to {real}, a folder it sits in: a "
                    "loop. Remove the link (or point it at a folder outside this tree)"
                )
            for output, name in zip(outputs, OUTPUT_FOLDERS, strict=True):
                if _inside(real, output):
                    what = f"{link} is a link into" if link else f"{path} is inside"
                    raise RawTreeError(
                        f"{what} {name}/, where the workflow writes its outputs: its own "
                        "outputs would become its inputs. Keep the inputs in a folder of "
                        "their own"
                    )
            stack.append((path, (*above, real), link))
    return tuple(sorted(files))
