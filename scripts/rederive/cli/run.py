"""``rederive run``: this workflow's Snakemake, in the current folder, with its profile.

``rederive run --cores 8 --configfile my_evals.yaml`` is
``snakemake -s <repo>/Snakefile --workflow-profile <repo>/profiles/default
--cores 8 --configfile my_evals.yaml`` run in the current folder: results/ and
.snakemake/ are written here, relative paths in the config are taken from here,
and the bundled config/config.yaml is read from beside the Snakefile unless this
folder has a config/config.yaml of its own (``Snakefile``).
"""

from __future__ import annotations

import signal
import subprocess
import sys

from rederive.cli.workflow import PROFILE, NoWorkflow, require_workflow

PROG = "rederive run"

HELP = """\
usage: {prog} [-h] [SNAKEMAKE OPTIONS ...] [TARGETS ...]

Build the configured analyses with this workflow's Snakemake, in the current
folder: results/ and .snakemake/ are written here, and relative paths in a
config file are taken from here. The command run is

  {python} -m snakemake -s {snakefile} \\
      --workflow-profile {profile} [SNAKEMAKE OPTIONS ...]

Every argument goes to Snakemake unchanged (`snakemake --help` lists them); the
usual ones:

  --cores N            run at most N jobs at once (required unless -n)
  --configfile F ...   your analyses (`rederive init` writes one)
  --config KEY=VALUE   override one setting, e.g. 'build=[my_eval]'
  -n                   dry run: list the jobs, run none
  --workflow-profile P another profile instead of profiles/default

examples:
  {prog} --cores 8 --configfile my_evals.yaml
  {prog} --cores 8 --config 'build=[benchmark]'
  {prog} -n --configfile my_evals.yaml

Exit status: Snakemake's (0 built, 1 failed); 2 when the workflow is not found.
"""


def command(argv: list[str]) -> list[str]:
    """The Snakemake command line of ``rederive run ARGV``."""
    snakefile = require_workflow()
    profile = [] if _given(argv, "--workflow-profile") else ["--workflow-profile", str(PROFILE)]
    return [sys.executable, "-m", "snakemake", "-s", str(snakefile), *profile, *argv]


def _given(argv: list[str], option: str) -> bool:
    return any(arg == option or arg.startswith(option + "=") for arg in _options(argv))


def _options(argv: list[str]) -> list[str]:
    """The arguments before a ``--`` (after it come targets)."""
    return argv[: argv.index("--")] if "--" in argv else argv


def main(argv: list[str] | None = None, prog: str = PROG) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if any(arg in ("-h", "--help") for arg in _options(argv)):
        print(_help(prog))
        return 0
    if _given(argv, "-s") or _given(argv, "--snakefile"):
        print(
            f"rederive: run: {prog} runs this workflow's Snakefile; for another one "
            "run snakemake -s yourself",
            file=sys.stderr,
        )
        return 2
    try:
        cmd = command(argv)
    except NoWorkflow as exc:
        print(f"rederive: run: {exc}", file=sys.stderr)
        return 2
    process = subprocess.Popen(cmd)
    while True:
        try:
            status = process.wait()
            break
        except KeyboardInterrupt:
            # Snakemake got the same Ctrl-C and is stopping its jobs: wait for it.
            continue
    # Killed by a signal: the shell's convention, 128 + its number.
    return 128 + signal.Signals(-status).value if status < 0 else status


def _help(prog: str) -> str:
    return HELP.format(
        prog=prog,
        python=sys.executable,
        snakefile=require_workflow_or_path(),
        profile=PROFILE,
    )


def require_workflow_or_path() -> str:
    try:
        return str(require_workflow())
    except NoWorkflow:
        return "<repo>/Snakefile (not found: install the repository editable)"
