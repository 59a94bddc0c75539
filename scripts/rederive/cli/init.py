"""``rederive init FOLDER``: write a commented config for a folder of results.

It walks the folder (:mod:`rederive.cli.scan`), reads each benchmark run once
(:mod:`rederive.cli.grouping`), plans one analysis per kind of data found
(:mod:`rederive.cli.plan`), writes the config with comments on everything
found (:mod:`rederive.cli.render`), checks that the workflow accepts it as
written (:func:`rederive.analyses.resolve` on the bundled config merged with it,
as Snakemake merges a ``--configfile``) and prints the command that builds it.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path

PROG = "rederive init"
DESCRIPTION = """\
Detect the formats of the results in FOLDER and write a commented config for
them: one benchmark analysis per group of runs sharing a task (lm-eval,
Inspect, HELM, lighteval, OpenCompass, evalplus, SWE-bench, Every Eval Ever,
eval-arena, matrix and long CSV/JSONL files; items are matched on (task,
item_id), so runs with no task in common cannot be compared in one), one
analysis per paper-kind study folder (items.jsonl or baselines.csv + runs/,
its kind told by its records' fields), and `build:` naming them. Every file
found is named in the config's comments: runs per format with their models
and tasks, files nobody reads with the reason. Paths in the config are
absolute, so it builds from any folder. The config is checked against the
workflow's schemas before it is written."""

EPILOG = """\
exit status:
  0  written
  1  written, but something found will stop the build or is not analysed
     (printed, and listed in the config under PROBLEMS)
  2  nothing written: no such folder, an empty folder, nothing readable,
     --out exists (without --force), or a folder holding the current one

examples:
  rederive init /data/my_evals
  rederive init /data/my_evals --out evals.yaml --name mmlu --label "MMLU, three checkpoints"
"""


class Refusal(Exception):
    """Nothing is written; the message says why."""


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=prog,
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("folder", metavar="FOLDER", help="the folder of results (walked recursively)")
    p.add_argument(
        "--out",
        default="my_evals.yaml",
        metavar="FILE",
        help="the config file to write (default my_evals.yaml)",
    )
    p.add_argument(
        "--name",
        help="the analysis name (its results go to results/<NAME>/); with several analyses, "
        "the start of each name, NAME-<folder> (default: FOLDER's name)",
    )
    p.add_argument(
        "--label",
        help="how captions and the report name the analysis; with several, each label is "
        "LABEL: <folder> (default: FOLDER's name)",
    )
    p.add_argument("--force", action="store_true", help="overwrite --out if it exists")
    return p


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def check_places(folder: Path, out: Path, force: bool) -> None:
    """Refuse a folder that is not one, holds the working directory or --out; an
    existing --out without --force."""
    if not folder.exists():
        raise Refusal(f"{folder}: no such folder")
    if not folder.is_dir():
        raise Refusal(f"{folder}: not a folder (give the folder holding your results)")
    real = folder.resolve()
    if _inside(Path.cwd().resolve(), real):
        raise Refusal(
            f"{folder} holds the current folder, where the build writes results/ and "
            ".snakemake/ (its outputs would become its inputs); run rederive init and the "
            "build from a folder outside it"
        )
    if _inside(out.absolute().resolve(), real):
        raise Refusal(
            f"--out {out} is inside {folder}: the config would become a file of the folder "
            "it reads; write it elsewhere"
        )
    if out.exists() and not force:
        raise Refusal(f"--out {out} exists; give another --out, or --force to overwrite it")
    if not any(folder.iterdir()):
        raise Refusal(f"{folder} is empty")


def choose_name(folder: Path, given: str | None, bundled: set[str]) -> str:
    """The analysis name: ``given`` (checked), else the folder's name made valid."""
    from rederive.analyses import NAME_PATTERN, RESERVED_NAMES
    from rederive.cli.plan import slug

    if given is None:
        name = slug(folder.name)
        return f"{name}_own" if name in bundled or name in RESERVED_NAMES else name
    if not NAME_PATTERN.match(given):
        raise Refusal(
            f"--name {given!r}: an analysis name becomes the folder results/<name>/: use "
            "letters, digits, '_', '-' and '.', starting with a letter or digit (at most 80)"
        )
    if given in RESERVED_NAMES or given in bundled:
        owner = "its own results folder" if given in RESERVED_NAMES else "a bundled analysis"
        raise Refusal(f"--name {given!r} is taken by the workflow ({owner}); choose another")
    return given


def _merged(base: dict, extra: dict) -> dict:
    """``extra`` laid over ``base`` key by key, as Snakemake merges a ``--configfile``."""
    out = dict(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merged(out[key], value)
        else:
            out[key] = value
    return out


def init_config(
    folder: Path,
    *,
    name: str | None = None,
    label: str | None = None,
    command: str = "rederive run --cores 8 --configfile my_evals.yaml",
    schema_dir: Path | None = None,
    bundled_path: Path | None = None,
):
    """The config text for ``folder``, its plan and its scan.

    Raises
    ------
    Refusal
        When nothing in the folder can be configured.
    """
    import yaml

    from rederive.analyses import ConfigError, resolve, resolve_analysis
    from rederive.cli import workflow
    from rederive.cli.grouping import read_content
    from rederive.cli.plan import make_plan
    from rederive.cli.render import config_of, render
    from rederive.cli.scan import scan as scan_folder
    from rederive.io import formats
    from rederive.io.raw_tree import output_folder_problem

    schema_dir = schema_dir or workflow.SCHEMA_DIR
    bundled = workflow.bundled_config(bundled_path or workflow.CONFIG)
    kinds = workflow.kinds(schema_dir)
    folder = Path(os.path.abspath(folder))
    name = choose_name(folder, name, set(bundled.get("analyses") or {}))
    scan = scan_folder(folder)
    defaults = resolve_analysis("init", {"kind": "benchmark", "raw_dir": "."}, schema_dir, kinds)
    params = {k: defaults[k] for k in (*formats.names(), "zip_limits") if k in defaults}
    items: dict[str, set[str]] = {}
    contents = {run.path: read_content(run, params, items) for run in scan.of("benchmark")}
    plan = make_plan(
        scan,
        contents,
        items,
        kinds,
        schema_dir,
        name=name,
        label=label or folder.name,
        taken=set(bundled.get("analyses") or {}),
    )
    if not plan.analyses:
        raise Refusal(_nothing(scan, plan))
    text = render(plan, scan, command=command)
    config = config_of(plan)
    if yaml.safe_load(text) != config:
        raise AssertionError("rederive init: the config text does not load back to its plan")
    try:
        resolve(_merged(bundled, config), schema_dir, kinds)
    except ConfigError as exc:
        raise AssertionError(f"rederive init: the config written is not valid: {exc}") from exc
    for analysis in plan.analyses:
        problem = output_folder_problem(analysis.entry["raw_dir"])
        if problem:
            raise Refusal(f"analyses.{analysis.name}.raw_dir: {problem}")
    return text, plan, scan


def _nothing(scan, plan) -> str:
    """Why no analysis could be written."""
    found = []
    if plan.preference_waiting:
        found.append(
            f"{len(plan.preference_waiting)} preference file(s), which the preference kind "
            "reads (this workflow's config/schemas have no such kind)"
        )
    if scan.unread:
        shown = ", ".join(scan.rel(u.path) for u in scan.unread[:5])
        more = f" and {len(scan.unread) - 5} more" if len(scan.unread) > 5 else ""
        found.append(f"{len(scan.unread)} file(s) of no known format ({shown}{more})")
    if scan.hidden:
        found.append(f"{scan.hidden} hidden entr{'y' if scan.hidden == 1 else 'ies'}")
    lines = [f"nothing readable in {scan.folder}: " + ("; ".join(found) or "no file")]
    lines += plan.problems
    lines.append(
        "the formats read are listed in docs/input-formats.md (rederive.io.formats; paper "
        "kinds: items.jsonl or baselines.csv beside runs/)"
    )
    return ". ".join(lines)


def main(argv=None, prog: str = PROG) -> int:
    args = build_parser(prog).parse_args(argv)
    out = Path(args.out)
    folder = Path(args.folder)
    runner = "rederive" if prog.startswith("rederive") else f"{sys.executable} -m rederive.cli"
    command = f"{runner} run --cores 8 --configfile {shlex.quote(args.out)}"
    try:
        check_places(folder, out, args.force)
        text, plan, scan = init_config(folder, name=args.name, label=args.label, command=command)
    except Refusal as exc:
        print(f"rederive: init: {exc}", file=sys.stderr)
        return 2
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    what = "; ".join(
        f"{a.name} ({a.entry['kind']}" + (f", {len(a.runs)} runs" if a.runs else "") + ")"
        for a in plan.analyses
    )
    unread = f"; {len(scan.unread)} file(s) nobody reads, listed in it" if scan.unread else ""
    print(f"rederive: init: wrote {args.out}: {len(plan.analyses)} analyses: {what}{unread}")
    for problem in plan.problems:
        print(f"rederive: init: problem: {problem}", file=sys.stderr)
    if plan.preference_waiting:
        print(
            f"rederive: init: {len(plan.preference_waiting)} preference file(s) listed, not "
            "analysed: this workflow's config/schemas have no preference kind",
            file=sys.stderr,
        )
    print("Build with:")
    print(f"  {command}")
    return 1 if plan.problems else 0
