"""Run the real workflow on small data in a temporary working directory.

The workflow code stays in the repository (``-s Snakefile``); the temporary
directory gets its own ``config/`` (a copy of the repository's, plus overrides)
and ``raw/``, the way a user deploys the workflow onto their own data. The copy
is not needed (the workflow reads the config beside its Snakefile when the
working directory has none); ``copy_config=False`` runs without it.

``REDERIVE_SNAKEFILE`` may name another Snakefile (e.g. one including a single
study's rules) while a study is being developed; CI always uses the real one.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
SNAKEMAKE = Path(sys.executable).with_name("snakemake")


def prepare_workdir(workdir: Path, overrides: dict, *, copy_config: bool = True) -> Path:
    """Copy config/ into ``workdir`` (with ``copy_config``) and write ``overrides``
    as an extra config file."""
    if copy_config:
        shutil.copytree(REPO / "config", workdir / "config", dirs_exist_ok=True)
    override_file = workdir / "test-overrides.yaml"
    override_file.write_text(yaml.safe_dump(overrides, sort_keys=True))
    return override_file


def workflow_command(
    workdir: Path,
    overrides: dict,
    *,
    targets: list[str] | None = None,
    extra_args: list[str] | None = None,
    cores: int = 2,
    copy_config: bool = True,
) -> list[str]:
    """The ``snakemake`` command line :func:`run_workflow` runs (config written to ``workdir``)."""
    override_file = prepare_workdir(workdir, overrides, copy_config=copy_config)
    cmd = [
        str(SNAKEMAKE),
        "-s",
        os.environ.get("REDERIVE_SNAKEFILE", str(REPO / "Snakefile")),
        "--directory",
        str(workdir),
        "--configfile",
        str(override_file),
        "--cores",
        str(cores),
        # The profile hides each job's description; tests read them (dry runs).
        # Before extra_args, which may end with "--" and targets.
        *([] if any(a.startswith("--quiet") for a in extra_args or []) else ["--quiet", "host"]),
        *(extra_args or []),
    ]
    if targets:
        # "--" ends option lists such as --forcerun, so targets are never read as rule names.
        cmd += ([] if "--" in cmd else ["--"]) + list(targets)
    return cmd


def run_workflow(
    workdir: Path, overrides: dict, *, check: bool = True, **command
) -> subprocess.CompletedProcess:
    """Run ``snakemake`` on ``workdir`` with ``overrides``; return the completed process.

    ``command`` takes the ``targets``, ``extra_args``, ``cores`` and
    ``copy_config`` of :func:`workflow_command`. With ``check=True`` a failing run raises
    AssertionError carrying Snakemake's output, so the test report shows why.
    """
    cmd = workflow_command(workdir, overrides, **command)
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=workdir)
    if check and proc.returncode != 0:
        raise AssertionError(
            f"snakemake failed ({proc.returncode}):\nSTDOUT:\n{proc.stdout[-4000:]}\nSTDERR:\n{proc.stderr[-6000:]}"
        )
    return proc


def build_bundled(work: Path) -> Path:
    """A cold build of the bundled analyses with the bundled config (what README's
    first command builds), in ``work``: raw/ is linked, the closing lines are kept
    in ``work/build.stderr``."""
    work.mkdir(parents=True, exist_ok=True)
    if not (work / "raw").exists():
        (work / "raw").symlink_to(REPO / "raw", target_is_directory=True)
    # Docs commands run in it name .venv/bin/python, as in the repository.
    if not (work / ".venv").exists():
        (work / ".venv").symlink_to(Path(sys.executable).parents[1], target_is_directory=True)
    proc = run_workflow(work, {}, cores=2)
    (work / "build.stderr").write_text(proc.stderr)
    return work


def copy_build(source: Path, target: Path, *, own_raw: bool = False) -> Path:
    """A copy of a built working folder that a test may change: results, the
    workflow's metadata (so nothing is rebuilt that is up to date) and, with
    ``own_raw``, a copy of the inputs instead of the link to the repository's."""
    shutil.copytree(source, target, symlinks=True)
    if own_raw:
        (target / "raw").unlink()
        shutil.copytree(REPO / "raw", target / "raw")
    return target
