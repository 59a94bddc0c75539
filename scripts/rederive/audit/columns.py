"""What each column of a results table means, inferred from its header and cells.

Each column gets a role — ``label`` (names the row), ``score`` (a proportion k/N),
``mean`` (a mean of per-item values in [0, 1] that is not a count over items: a
*weighted* win rate such as AlpacaEval's, whose judge gives a probability per
item), ``n`` (the row's denominator), ``count`` (the row's k), ``se``,
``ci_low`` / ``ci_high`` (of the score column they name), ``other`` (a number
that is not a proportion over the benchmark: a z, a difference, the SE of a
column that is not a proportion) or ``ignored`` — and a scale (percent or
fraction) with the reason, so the inference can be printed back. A score column
named as a win rate counts a draw as half a win, so its k is a multiple of ½
(GRIM over 2N). A ``mean`` column is recognised by its header (``X`` beside
``discrete_X``, AlpacaEval's layout) or named by ``--means``.
Where the table does not say, the audit asks: an unlabelled ``±`` needs ``--pm``,
several N columns need ``--n-column``; a scale is inferred from the values and
printed with the flag that overrides it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rederive.audit.cells import Cell, parse_cell
from rederive.audit.tables import Table
from rederive.errors import InputError

_N_HEADER = re.compile(
    r"^(n|#|n_\w+|num_\w+|#\s*\w+|items|size|trials|questions|problems|samples|n\s*\(.*\))$", re.I
)
_COUNT_HEADER = re.compile(
    r"^(k|correct|n_correct|hits|successes|num_correct|solved|resolved)$", re.I
)
_SE_HEADER = re.compile(
    r"^(se|s\.e\.|sem|stderr|std_err|standard[_ ]error)$|[_ ](se|stderr|sem|standard[_ ]error)$",
    re.I,
)
_SE_SUFFIX = re.compile(r"[_ ]?(se|stderr|sem|standard[_ ]error)$", re.I)
#: A win rate: a draw counts half a win, so its numerator is a multiple of ½.
_WIN_RATE = re.compile(r"win[_ ]?rate", re.I)
#: Among several N-like columns, the one that is the row's total.
_TOTAL_N = re.compile(r"^(n_total|total)$", re.I)
_LO = re.compile(r"^(.*?)[_ ]?(lo|low|lower|ci_lo|ci_low|lcl)$", re.I)
_HI = re.compile(r"^(.*?)[_ ]?(hi|high|upper|ci_hi|ci_high|ucl)$", re.I)
_OTHER = re.compile(
    r"(?<![a-z])(mean|avg|average|z|sd|std|deviance|tokens?|time|length|naturalness|rank|year|params|elo|"
    r"jaccard|corr|correlation|kappa|ratio|delta|diff|difference|effect|change|gap|trend|slope|"
    r"coef|odds|auc|f1|bleu|rouge|loss|perplexity|ppl|cost|latency|injected)(?![a-z])|_(z|delta|effect)$|^delta_|vs_",
    re.I,
)
_PERCENT_HEADER = re.compile(r"%|\bpct\b|_pct\b|percent|\bshare\b|_share\b", re.I)
_SE_WORDS = re.compile(r"\b(se|s\.e\.|sem|stderr|standard error)\b", re.I)
_CI_WORDS = re.compile(r"(\d+)\s*%\s*(ci|conf|interval)|\bci\b|confidence", re.I)
#: Row labels that name the total of the other rows of their group.
TOTAL_LABELS = re.compile(r"^(overall|total|all|average|avg|mean|pooled|combined)$", re.I)


@dataclass
class Options:
    """What the user told the audit (CLI flags or an analysis's ``audit`` config)."""

    n: int | None = None
    n_source: str = ""
    sizes: dict[str, int] = field(default_factory=dict)
    n_column: str | None = None
    scale: str | None = None  # "percent" | "fraction"
    pm: str | None = None  # "se" | "ci95" | "sd"
    ci_level: float | None = None
    clusters: int | None = None
    columns: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    means: tuple[str, ...] = ()
    partitions: tuple[tuple[str, ...], ...] = ()
    claims: tuple[str, ...] = ()
    baseline: str | None = None
    corr: tuple[float, float] = (0.3, 0.7)
    alpha: float = 0.05
    power: float = 0.8


@dataclass
class Column:
    index: int
    name: str
    role: str
    reason: str
    scale: int | None = None  # 100 percent, 1 fraction
    scale_reason: str = ""
    target: int | None = None  # the score column an se / ci column belongs to
    pm: str | None = None
    ci_level: float = 0.95
    halves: bool = False  # a win rate: k counts a draw as ½ (GRIM over 2N)


@dataclass
class Layout:
    """A parsed table with the inferred meaning of every column."""

    table: Table
    cells: list[list[Cell]]
    columns: list[Column]
    notes: list[str]

    def of(self, role: str) -> list[Column]:
        return [c for c in self.columns if c.role == role]

    def label(self, i: int) -> str:
        parts = [self.table.rows[i][c.index] for c in self.of("label")]
        return " / ".join(p for p in parts if p) or f"row {i + 1}"


#: :func:`scale_of`'s reason for a column read as fractions by default.
MEDIAN_FRACTION = "median value in [0, 1]"


def scale_of(col: list[Cell], name: str, forced: str | None, why: str = "") -> tuple[int, str]:
    """Whether a column of printed scores is in percent (100) or a fraction (1), and why.

    In this order: ``forced`` (``"percent"`` / ``"fraction"``, said by the user,
    ``why`` names where), a ``%`` in any cell, a header that says percent
    (``%``, ``pct``, ``_pct``, ``percent``, ``share``), a median value above 1;
    otherwise a fraction, reason ``"median value in [0, 1]"``. The median, not
    the maximum, so one impossible 130% does not turn a fraction column into
    percent. The published check reads its score columns with the same rule.
    """
    if forced:
        return (100 if forced == "percent" else 1), why or f"--scale {forced}"
    if any(c.percent_sign for c in col):
        return 100, "cells carry %"
    if _PERCENT_HEADER.search(name):
        return 100, "header says percent"
    values = sorted(abs(float(c.value)) for c in col if c.numeric)
    if values and values[len(values) // 2] > 1:
        return 100, "median value above 1"
    return 1, MEDIAN_FRACTION


def _is_integer(col: list[Cell]) -> bool:
    nums = [c for c in col if c.numeric]
    return bool(nums) and all(c.value.decimals == 0 and c.value.value >= 0 for c in nums)


def infer(table: Table, options: Options) -> Layout:
    """Roles and scales of ``table``'s columns under ``options`` (see the module docstring)."""
    cells = [[parse_cell(t) for t in r] for r in table.rows]
    columns: list[Column] = []
    notes: list[str] = []
    unit_of = {k: v.lower() for k, v in table.units.items()}
    lowered = {h.lower() for h in table.header}
    for j, name in enumerate(table.header):
        col = [r[j] for r in cells]
        filled = [c for c in col if not c.missing]
        numeric = [c for c in filled if c.numeric or c.ci is not None]
        if name in options.ignore:
            columns.append(Column(j, name, "ignored", "--ignore"))
        elif not filled:
            columns.append(Column(j, name, "ignored", "empty"))
        elif len(numeric) < max(1, len(filled) / 2):
            columns.append(Column(j, name, "label", "text"))
        elif options.columns and name not in options.columns:
            columns.append(Column(j, name, "ignored", "not in --columns"))
        elif unit_of.get(name) == "count" or (
            _is_integer(filled) and (_N_HEADER.match(name) or _COUNT_HEADER.match(name))
        ):
            role = "count" if _COUNT_HEADER.match(name) else "n"
            columns.append(
                Column(
                    j,
                    name,
                    role,
                    "integer column named like " + ("a count" if role == "count" else "an N"),
                )
            )
        elif _SE_HEADER.search(name):
            columns.append(Column(j, name, "se", "header names a standard error, not a proportion"))
        elif _LO.match(name) and not options.columns:
            columns.append(Column(j, name, "ci_low", "header names a lower bound"))
        elif _HI.match(name) and not options.columns:
            columns.append(Column(j, name, "ci_high", "header names an upper bound"))
        elif not options.columns and _OTHER.search(name):
            columns.append(
                Column(
                    j,
                    name,
                    "other",
                    f"header names a non-proportion ({_OTHER.search(name).group(0)})",
                )
            )
        elif any(c.numeric and c.value.value < 0 for c in filled):
            columns.append(
                Column(j, name, "other", "negative values: a difference, not a proportion")
            )
        elif not options.columns and all(c.ci is not None and c.value is None for c in numeric):
            columns.append(Column(j, name, "ci", "cells are intervals"))
        else:
            forced = options.scale or _unit_scale(unit_of.get(name))
            scale, why = scale_of(filled, name, forced, "" if options.scale else "unit column")
            if why == MEDIAN_FRACTION:
                why += "; --scale percent if not"
            values = sorted(float(c.value) for c in filled if c.numeric)
            # A column said to be a percentage stays one, so a value above 100 is flagged, not hidden.
            said = forced or _PERCENT_HEADER.search(name) or any(c.percent_sign for c in filled)
            if values and values[len(values) // 2] > scale and not said:
                columns.append(Column(j, name, "other", f"values above {scale}: not a proportion"))
                continue
            if name in options.means or f"discrete_{name.lower()}" in lowered:
                reason = (
                    "--means"
                    if name in options.means
                    else f"discrete_{name} beside it: a weighted mean of per-item preferences"
                )
                columns.append(
                    Column(j, name, "mean", reason + ", not a count over items", scale, why)
                )
                continue
            column = Column(j, name, "score", "numbers", scale, why)
            if _WIN_RATE.search(name):
                column.halves = True
                column.reason = "numbers; a win rate: a draw counts half"
            columns.append(column)
    _attach(columns, table, cells, options, notes)
    return Layout(table, cells, columns, notes)


def _unit_scale(unit: str | None) -> str | None:
    if unit in ("percent", "%", "pct"):
        return "percent"
    if unit in ("fraction", "proportion"):
        return "fraction"
    return None


def _attach(columns, table, cells, options, notes) -> None:
    """Pair se / CI columns with their score column and settle what ``±`` means."""
    scores = [c for c in columns if c.role in ("score", "mean")]
    by_name = {c.name: c for c in scores}
    for c in columns:
        if c.role in ("se", "ci_low", "ci_high", "ci"):
            stem = (_LO.match(c.name) or _HI.match(c.name)) if c.role.startswith("ci_") else None
            prefix = stem.group(1).rstrip("_ ") if stem else _SE_SUFFIX.sub("", c.name)
            match = next(
                (
                    s
                    for n, s in by_name.items()
                    if prefix and re.match(re.escape(prefix) + r"($|[_ ])", n, re.I)
                ),
                None,
            )
            named = _named_other(prefix, columns, c) if prefix and match is None else None
            if named is not None:
                c.role, c.reason = (
                    "other",
                    f"the error of {named.name!r}, which is not a proportion",
                )
                continue
            left = [s for s in scores if s.index < c.index]
            target = match or (left[-1] if left else None)
            if target is None:
                c.role, c.reason = "other", "an interval or SE with no score column before it"
                continue
            c.target = target.index
            c.scale, c.scale_reason = target.scale, f"as {target.name!r}"
            c.ci_level = _level(c.name, options)
    header_text = " ".join(table.header)
    for s in scores:
        pms = [r[s.index] for r in cells if r[s.index].pm is not None]
        if not pms:
            continue
        if options.pm:
            s.pm = "ci" if options.pm.startswith("ci") else options.pm
            if s.pm == "ci":
                s.ci_level = int(options.pm[2:] or 95) / 100
        elif _SE_WORDS.search(s.name) or (
            _SE_WORDS.search(header_text) and not _CI_WORDS.search(header_text)
        ):
            s.pm = "se"
        elif _CI_WORDS.search(s.name) or _CI_WORDS.search(header_text):
            s.pm = "ci"
            s.ci_level = _level(s.name if _CI_WORDS.search(s.name) else header_text, options)
        else:
            raise InputError(
                f"the ± in column {s.name!r} is not labelled as a standard error or a CI half-width: "
                "give --pm se, --pm ci95 or --pm sd",
                file=table.path,
                field=s.name,
            )
    ns = [c for c in columns if c.role == "n"]
    totals = [c for c in ns if _TOTAL_N.match(c.name)]
    if not options.n_column and len(ns) > 1 and len(totals) == 1:
        for c in ns:
            if c is not totals[0]:
                c.role, c.reason = "other", f"a count beside the row's total ({totals[0].name})"
        ns = totals
    if options.n_column:
        named = [c for c in ns if c.name == options.n_column]
        if not named:
            raise InputError(
                f"--n-column {options.n_column!r} is not an N column of the table", file=table.path
            )
        for c in ns:
            if c.name != options.n_column:
                c.role, c.reason = "other", f"an N column, not --n-column {options.n_column}"
    elif len(ns) > 1:
        notes.append(
            "several N columns ("
            + ", ".join(c.name for c in ns)
            + "): none used; give --n-column NAME"
        )
        for c in ns:
            c.role, c.reason = "other", "one of several N columns (--n-column picks one)"


def _named_other(prefix: str, columns: list[Column], own: Column) -> Column | None:
    """The column that is not a score a prefix names (``lc`` of ``lc_standard_error``:
    ``length_controlled_winrate``, by name or by the initials of its words)."""
    key = prefix.lower()
    for c in columns:
        if c is own or c.role in ("score", "mean", "se", "ci_low", "ci_high", "ci"):
            continue
        words = [w for w in re.split(r"[_ ]+", c.name.lower()) if w]
        if c.name.lower().startswith(key) or "".join(w[0] for w in words).startswith(key):
            return c
    return None


def _level(text: str, options: Options) -> float:
    if options.ci_level:
        return options.ci_level
    m = re.search(r"(\d{2})\s*%", text)
    return int(m.group(1)) / 100 if m else 0.95


def describe(layout: Layout, options: Options, n_of) -> list[str]:
    """The inference printed back, one line per column (``n_of(column)`` says its N)."""
    t = layout.table
    out = [f"{t.path}: {t.syntax}, {len(t.rows)} rows × {len(t.header)} columns"]
    for c in layout.columns:
        what = f"  {c.name!r}: {c.role} ({c.reason})"
        if c.role in ("score", "mean"):
            what += (
                f", {'percent' if c.scale == 100 else 'fraction'} ({c.scale_reason}), N {n_of(c)}"
            )
            if c.pm:
                what += f", ± = {'SE' if c.pm == 'se' else 'SD' if c.pm == 'sd' else f'{c.ci_level:.0%} CI half-width'}"
        elif c.role in ("se", "ci_low", "ci_high", "ci") and c.target is not None:
            what += f" of {t.header[c.target]!r}"
            if c.role != "se":
                what += f", level {c.ci_level:.0%}" + (
                    "" if options.ci_level else " (assumed unless the header says; --ci-level)"
                )
        out.append(what)
    out += [f"  note: {n}" for n in layout.notes]
    return out
