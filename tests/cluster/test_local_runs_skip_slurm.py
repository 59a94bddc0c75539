"""Local runs never wait on cluster tooling (issue 26 item 5): the SLURM executor
plugin, which runs `scontrol show config` when imported, is importable only
when the command line names SLURM, so a local `snakemake` never calls scontrol
whatever SLURM client tools are installed. Checked by structure (a fake
scontrol records each call), not by timing."""

import os
import subprocess
from pathlib import Path

from workflow_utils import REPO, SNAKEMAKE

FAKE = """#!/bin/sh
echo "$0 $*" >> "{log}"
exit 1
"""


def fake_slurm_tools(folder: Path) -> Path:
    log = folder / "calls.log"
    for tool in ("scontrol", "sinfo", "sacct", "squeue", "sbatch"):
        path = folder / tool
        path.write_text(FAKE.format(log=log))
        path.chmod(0o755)
    return log


def snakemake_help(tmp_path, *args):
    log = fake_slurm_tools(tmp_path)
    env = {**os.environ, "PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}"}
    proc = subprocess.run(
        [str(SNAKEMAKE), *args, "--help"], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return log.read_text() if log.exists() else "", proc.stdout


def test_a_local_snakemake_never_calls_scontrol(tmp_path):
    calls, help_text = snakemake_help(tmp_path, "--cores", "2")
    assert "scontrol" not in calls
    assert "--slurm-" not in help_text  # the plugin was not even imported


def test_a_slurm_command_line_still_loads_the_plugin(tmp_path):
    _, help_text = snakemake_help(tmp_path, "--executor", "slurm")
    assert "--slurm-partition" in help_text or "--slurm-" in help_text


def test_the_plugins_are_pinned_apart_from_the_main_lock():
    main = (REPO / "envs" / "requirements.lock").read_text()
    slurm = (REPO / "envs" / "requirements-slurm.lock").read_text()
    assert "snakemake-executor-plugin-slurm" not in main
    assert "snakemake-executor-plugin-slurm==2.8.0" in slurm
    setup = (REPO / "envs" / "setup.sh").read_text()
    assert "--target .venv/slurm-plugins -r envs/requirements-slurm.lock" in setup
