"""``rederive``: one command for the workflow and its tools.

``rederive init FOLDER`` writes a config for a folder of results, ``rederive run``
builds it with this workflow's Snakemake, and ``rederive audit|power|diff|gate|
package|verify`` are the ``python -m rederive.<module>`` tools under one name:
the rest of the command line goes to that module's own ``main`` unchanged, so
its options, its ``--help`` and its exit statuses are the module's.

Start-up stays small: this module imports nothing but the standard library,
and a subcommand imports its module only when it runs.
"""

from __future__ import annotations

import importlib
import sys

__all__ = ["COMMANDS", "main"]

#: Each subcommand: the module whose ``main(argv, prog)`` runs it, and one line of help.
COMMANDS = {
    "init": ("rederive.cli.init", "write a commented config for a folder of results"),
    "run": ("rederive.cli.run", "build the configured analyses (this workflow's Snakemake)"),
    "audit": ("rederive.audit.__main__", "check a results table from the table alone"),
    "power": ("rederive.power", "items needed / minimum detectable difference"),
    "diff": ("rederive.diff", "what differs between two builds of one analysis"),
    "gate": ("rederive.gate.__main__", "is a candidate model worse than the baseline (CI)"),
    "package": ("rederive.package", "write a replication package of one analysis"),
    "verify": ("rederive.verify", "rebuild a replication package and compare"),
}

USAGE = "usage: rederive [-h] COMMAND [ARGS ...]"


def help_text() -> str:
    width = max(map(len, COMMANDS))
    lines = [
        USAGE,
        "",
        "Rebuild tables and figures of LLM evaluations from raw model outputs.",
        "",
        "commands:",
        *(f"  {name:<{width}}  {summary}" for name, (_, summary) in COMMANDS.items()),
        "",
        "`rederive COMMAND --help` describes each command. A typical session:",
        "  rederive init /data/my_evals --out my_evals.yaml",
        "  rederive run --cores 8 --configfile my_evals.yaml",
        "",
        "Exit status: the command's own (its --help lists it); 2 for a usage error.",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run ``rederive COMMAND ARGS``; return the command's exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv:
        print(help_text(), file=sys.stderr)
        return 2
    name, rest = argv[0], argv[1:]
    if name in ("-h", "--help"):
        print(help_text())
        return 0
    if name not in COMMANDS:
        print(USAGE, file=sys.stderr)
        print(
            f"rederive: {name!r} is not a command; the commands are {', '.join(COMMANDS)}",
            file=sys.stderr,
        )
        return 2
    module = importlib.import_module(COMMANDS[name][0])
    try:
        status = module.main(rest, prog=f"rederive {name}")
    except SystemExit as stop:  # argparse's --help (0) and usage errors: a status
        status = stop.code
    if status is None:
        return 0
    if isinstance(status, int):
        return status
    print(status, file=sys.stderr)  # sys.exit("message") means status 1
    return 1
