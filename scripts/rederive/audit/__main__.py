"""``python -m rederive.audit TABLE [--n N | --benchmark NAME] [...]``: audit a results table.

Exit status: 0 no inconsistent cell, 1 at least one (a finding of severity
``error``), 2 the table or the flags could not be used (a ``rederive:`` message,
never a traceback).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rederive.audit.columns import Options
from rederive.audit.findings import to_csv, to_markdown
from rederive.audit.report import audit_file
from rederive.audit.sizes import find_benchmark
from rederive.errors import InputError

#: The program name in usage lines (``rederive <command>`` passes its own).
PROG = "python -m rederive.audit"


def _sizes(text: str) -> dict[str, int]:
    out = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, eq, value = part.rpartition("=")
        if not eq or not name.strip() or not value.strip().isdigit() or int(value) < 1:
            raise argparse.ArgumentTypeError(f"{part!r}: write sizes as name=N,name=N (N ≥ 1)")
        out[name.strip()] = int(value)
    return out


def _corr(text: str) -> tuple[float, float]:
    try:
        lo, hi = (float(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError("--corr takes LOW,HIGH, e.g. 0.3,0.7") from None
    if not -1 <= lo <= hi < 1:
        raise argparse.ArgumentTypeError("--corr needs -1 ≤ LOW ≤ HIGH < 1")
    return lo, hi


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=prog,
        description="Check a results table (CSV, Markdown, LaTeX tabular) from the table alone: "
        "GRIM, error bars, claims, ranks, identities.",
        epilog="Exit status: 0 no inconsistent cell, 1 at least one (a finding of severity "
        "error), 2 the table or the flags could not be used.",
    )
    p.add_argument("table", help="the table file")
    size = p.add_mutually_exclusive_group()
    size.add_argument("--n", type=int, help="items behind every score (the benchmark size)")
    size.add_argument(
        "--benchmark", help="take N from the registry (e.g. MMLU-Pro, GSM8K, 'GPQA Diamond')"
    )
    p.add_argument(
        "--sizes", type=_sizes, default={}, help="per-row or per-column sizes: name=N,name=N"
    )
    p.add_argument("--n-column", help="the N column to use when the table has several")
    p.add_argument("--scale", choices=("percent", "fraction"), help="override the inferred scale")
    p.add_argument("--pm", choices=("se", "ci95", "ci90", "ci99", "sd"), help="what ± means")
    p.add_argument("--ci-level", type=float, help="level of bracketed CIs (default 0.95)")
    p.add_argument("--clusters", type=int, help="the design has this many clusters (SE bound)")
    p.add_argument("--columns", help="only these score columns (comma-separated)")
    p.add_argument("--ignore", help="columns to leave out (comma-separated)")
    p.add_argument(
        "--means",
        help="columns that are means of per-item values in [0, 1], not k/N: a weighted "
        "win rate (comma-separated; X beside discrete_X is recognised)",
    )
    p.add_argument(
        "--partition", action="append", default=[], help="columns that must sum to 100: a,b,c"
    )
    p.add_argument("--claims", nargs="+", default=[], help="claims 'A>B' or 'A>B@column'")
    p.add_argument("--baseline", help="row that starred cells are compared with")
    p.add_argument(
        "--corr", type=_corr, default=(0.3, 0.7), help="plausible item correlations (0.3,0.7)"
    )
    p.add_argument("--alpha", type=float, default=0.05, help="two-sided level of a claim (0.05)")
    p.add_argument("--csv", type=Path, help="also write the findings as CSV here")
    p.add_argument("--md", type=Path, help="also write the findings as Markdown here")
    return p


def options_from(args) -> Options:
    n, source = args.n, "--n" if args.n else ""
    if args.benchmark:
        try:
            b = find_benchmark(args.benchmark)
        except KeyError as err:
            raise InputError(err.args[0]) from None
        n, source = b.size, f"--benchmark {b.name}, {b.split} split"
    if n is not None and n < 1:
        raise InputError("--n must be at least 1")
    split = lambda s: tuple(x.strip() for x in s.split(",") if x.strip()) if s else ()  # noqa: E731
    return Options(
        n=n,
        n_source=source,
        sizes=args.sizes,
        n_column=args.n_column,
        scale=args.scale,
        pm=args.pm,
        ci_level=args.ci_level,
        clusters=args.clusters,
        columns=split(args.columns),
        ignore=split(args.ignore),
        means=split(args.means),
        partitions=tuple(split(p) for p in args.partition),
        claims=tuple(args.claims),
        baseline=args.baseline,
        corr=args.corr,
        alpha=args.alpha,
    )


def main(argv=None, prog: str = PROG) -> int:
    args = build_parser(prog).parse_args(argv)
    try:
        options = options_from(args)
        result = audit_file(args.table, options)
    except InputError as err:
        print(f"rederive: {err}", file=sys.stderr)
        return 2
    print(result.text())
    if args.csv:
        args.csv.write_text(to_csv(result.findings), encoding="utf-8")
    if args.md:
        args.md.write_text("\n".join(to_markdown(result.findings)) + "\n", encoding="utf-8")
    return 1 if result.inconsistent else 0


if __name__ == "__main__":
    sys.exit(main())
