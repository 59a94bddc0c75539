"""``python -m rederive.gate``: is the candidate worse than the baseline? An exit status for CI.

Exit status: 0 pass, 1 worse (or, with ``--by task``, a task that regressed),
2 inconclusive, 4 not better (only with ``--fail-on not-better``), 3 unusable
input or flags (a ``rederive:`` message). docs/gate.md has the details.
"""

from __future__ import annotations

import argparse
import sys

from rederive.errors import InputError
from rederive.gate.compare import EXIT_UNUSABLE, FAIL_ON, Settings, run_gate
from rederive.gate.data import open_source
from rederive.gate.outputs import summary_lines, to_json, write_all

#: The program name in usage lines (``rederive <command>`` passes its own).
PROG = "python -m rederive.gate"

DESCRIPTION = """\
Gate a candidate against a baseline on the items both answered: the paired
difference candidate − baseline with its two-sided interval (Tango's paired
score interval for 0/1 scores, paired t for fractional scores, clustered t with
--cluster-by), and a verdict:

  better        the interval lies above 0 (exact McNemar for 0/1 scores)
  not worse     its lower bound lies above −margin (non-inferiority)
  worse         its upper bound lies below −margin
  inconclusive  otherwise; the items (or epochs) that would decide it are given

Each one-sided test is at (1 − level)/2. RESULTS_OR_RAW is a built analysis
(results/<name>, read-only), a raw folder (raw_dir layout or a folder of
mixed outputs) or run files of any readable format.
"""

EPILOG = """\
exit status:
  0  pass (better or not worse; with --fail-on worse also inconclusive)
  1  worse (or, with --by task, a task that regressed after BH)
  2  inconclusive (unless --fail-on worse)
  4  not worse but not better (only with --fail-on not-better)
  3  unusable input or flags (a message starting "rederive:")

examples:
  python -m rederive.gate results/benchmark --baseline GPT-4o --candidate o1
  python -m rederive.gate new/ --baseline-from last_release/ --baseline m --candidate m
  python -m rederive.gate a.json b.json --baseline A --candidate B --out gate/ --json
"""


class _Parser(argparse.ArgumentParser):
    """argparse with usage errors as exit status 3 (argparse's 2 means inconclusive here)."""

    def error(self, message):
        self.print_usage(sys.stderr)
        self.exit(EXIT_UNUSABLE, f"rederive: {message}\n")


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    p = _Parser(
        prog=prog,
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "paths",
        nargs="+",
        metavar="RESULTS_OR_RAW",
        help="a built analysis folder (results/<name>), a raw folder, or run files",
    )
    p.add_argument("--baseline", required=True, metavar="MODEL", help="the baseline model")
    p.add_argument(
        "--candidate",
        required=True,
        action="append",
        metavar="MODEL",
        help="a candidate model (repeat for several; each is gated against the baseline)",
    )
    p.add_argument(
        "--baseline-from",
        action="append",
        metavar="PATH",
        help="where the baseline comes from, when not RESULTS_OR_RAW (another analysis or folder "
        "sharing item ids, e.g. last release's runs); repeat for several run files",
    )
    p.add_argument(
        "--format",
        metavar="NAME",
        help="read run files and folders as this input format instead of detecting it",
    )
    p.add_argument(
        "--margin-pp",
        type=float,
        default=1.0,
        metavar="PP",
        help="non-inferiority margin in percentage points (default 1)",
    )
    p.add_argument(
        "--level",
        type=float,
        default=0.95,
        help="two-sided confidence level; each one-sided test is at (1 − level)/2 (default 0.95)",
    )
    p.add_argument(
        "--by",
        choices=("none", "task"),
        default="none",
        help="also gate each task, with Benjamini–Hochberg across tasks (default none)",
    )
    p.add_argument(
        "--cluster-by",
        choices=("none", "category", "group"),
        default="none",
        help="items come in clusters of this column: clustered t with C − 1 df (default none)",
    )
    p.add_argument(
        "--fail-on",
        choices=FAIL_ON,
        default="inconclusive",
        help="worse: only worse fails; inconclusive: worse and inconclusive fail (default); "
        "not-better: anything short of better fails",
    )
    p.add_argument(
        "--min-n",
        type=int,
        default=20,
        metavar="N",
        help="fewest shared items a verdict rests on; fewer is inconclusive (default 20)",
    )
    p.add_argument(
        "--power",
        type=float,
        default=0.8,
        help="power of the MDE and of the items needed (default 0.8)",
    )
    p.add_argument("--out", metavar="DIR", help="write gate.csv, gate.md and gate.json here")
    p.add_argument(
        "--json", action="store_true", help="print gate.json instead of the summary lines"
    )
    return p


def main(argv=None, prog: str = PROG) -> int:
    try:
        args = build_parser(prog).parse_args(argv)
    except SystemExit as stop:  # --help (0) or a usage error (3): a status, not an exception
        return int(stop.code or 0)
    try:
        settings = Settings(
            margin_pp=args.margin_pp,
            level=args.level,
            by=args.by,
            cluster_by=args.cluster_by,
            fail_on=args.fail_on,
            min_n=args.min_n,
            power=args.power,
        )
        if args.format is not None:
            from rederive.io import formats

            formats.get(args.format)
        candidates = open_source(args.paths, args.format)
        baseline = open_source(args.baseline_from, args.format) if args.baseline_from else None
        report = run_gate(
            baseline or candidates, args.baseline, candidates, args.candidate, settings
        )
    except (InputError, ValueError) as err:
        print(f"rederive: {err}", file=sys.stderr)
        return EXIT_UNUSABLE
    if args.out:
        write_all(report, args.out)
    if args.json:
        sys.stdout.write(to_json(report))
    else:
        print("\n".join(summary_lines(report)))
    return report["exit_code"]


if __name__ == "__main__":
    sys.exit(main())
