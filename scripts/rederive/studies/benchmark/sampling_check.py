"""The published check's pass@k, pass^k and maj@k rows: a paper's table and a tool's
own aggregate against ours.

Published (``published/*.csv``). A table whose columns name a sampling metric is
compared with ``tables/sampling.csv`` at the precision each value is printed with
(:mod:`rederive.printed`: ``0.273`` passes when ours rounds to it at three
decimals), in either shape:

* wide: the model in the first column (or a ``model`` column) and one column per
  metric and ``k``, ``pass@1``, ``pass^4``, ``maj@8`` (a header that says percent,
  ``pass@1 (%)`` or ``pass@1_pct``, or a ``%`` in a cell, reads as percent);
* long: columns ``model``, ``metric`` (``pass^k`` with a ``k`` column, or
  ``pass^2``) and ``value`` (τ-bench's README row written out, the bundled
  fixture's shape).

A published value whose model, metric or ``k`` the table has not is a row ``n/a``
saying why (model not in the run, ``k`` not in ``sampling.k``, sampling not set),
never dropped.

Harness-reported. Inspect's ``pass_at_{k}``/``pass_k_{k}`` reducers and evalplus's
``pass_at_k`` record the tool's own pass@k (and pass^k) per model and task
(:func:`rederive.io.inspect_log.reported_sampling_scores`, the evalplus reader's
``reported``). For ``k ≥ 2`` each is compared with the mean over the task's items
of our unbiased estimate from the same run's samples (:func:`task_estimates`;
pass@1 is the accuracy, checked as before). Both sides are exact formulas on the
same counts, so the tolerance is a floating-point one. lighteval's details keep
one value per document, already reduced over its samples: its pass@k metrics
are checked as any other per-document metric (the mean of the documents'
values against its results file), and give sampling.csv no samples.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from rederive.check import Check
from rederive.errors import InputError, relpath, under_root
from rederive.io.source import CsvRows
from rederive.io.warehouse import read_only
from rederive.printed import DECIMALS, read_published, score_scale
from rederive.stats.sampling import AVG_AT_N, estimate_matrix, sample_counts

#: A sampling metric with its ``k`` (``pass@1``, ``pass^4``, ``maj@8``) or with ``k``
#: itself (then a ``k`` column gives it); ``avg@n`` has none.
METRIC = re.compile(r"(?P<metric>pass@|pass\^|maj@)(?P<k>k|[1-9][0-9]*)|(?P<avg>avg@n)")
#: A wide column's header: a metric, optionally saying percent.
COLUMN = re.compile(
    rf"(?P<name>{METRIC.pattern})(?P<percent>\s*\(%\)|\s*%|_pct|_percent)?", re.IGNORECASE
)
#: Tolerance of a harness's pass@k against ours: both are exact formulas on the
#: same counts, summed in another order.
HARNESS_TOLERANCE = 1e-9

NOT_SET = (
    "sampling is not set for this analysis, so there is no pass@k to compare: set "
    "sampling: {k: [...]} with this k (docs/kinds/benchmark.md)"
)


def parse_metric(text) -> tuple[str, int | None] | None:
    """``(metric, k)`` of ``pass@4``-like text (k None for ``pass@k`` and ``avg@n``)."""
    match = METRIC.fullmatch(str(text).strip())
    if match is None:
        return None
    if match["avg"]:
        return AVG_AT_N, None
    metric = match["metric"] + "k"
    return metric, None if match["k"] == "k" else int(match["k"])


def csv_header(path: Path) -> list[str]:
    """The header cells of a CSV, stripped."""
    for _, cells in CsvRows(path):
        return [c.strip() for c in cells]
    return []


def is_sampling_table(path: Path) -> bool:
    """Whether a published CSV holds sampling metrics (wide columns or long rows)."""
    header = csv_header(path)
    if {"metric", "value"} <= set(header):
        return True
    return any(COLUMN.fullmatch(c) for c in header)


def _model_column(header: list[str]) -> str:
    return "model" if "model" in header else header[0]


def read_sampling_published(path: str | Path, scale: str = "auto") -> pd.DataFrame:
    """The sampling values of a published table, each as printed and as a fraction.

    Parameters
    ----------
    path : str or Path
        A CSV for which :func:`is_sampling_table` holds.
    scale : {"auto", "fraction", "percent"}
        ``check.published_scale`` (auto: :func:`rederive.printed.score_scale`).

    Returns
    -------
    DataFrame
        ``model, metric, k`` (Int64; NA for avg@n), ``value`` (a fraction),
        ``printed_decimals`` (of the fraction), ``scale_note``, ``line``; rows
        with an empty value are left out (nothing was printed).

    Raises
    ------
    InputError
        A metric the check does not know, a missing ``k``, a value that is not a
        number (file, line and column named).
    """
    path = Path(path)
    name = relpath(path)
    header = csv_header(path)
    model = _model_column(header)
    lines = _lines(path)
    forced = None if scale == "auto" else scale
    why_forced = f"check.published_scale: {scale}"
    rows = []
    if {"metric", "value"} <= set(header):
        text = ["k"] if "k" in header else []
        frame = read_published(path, ["value"], by=("metric", *text), text=[model, "metric", *text])
        raw = _raw(path, "value")
        factor, why = score_scale(raw, "value", forced, why_forced)
        for position, row in frame.iterrows():
            parsed = parse_metric(row["metric"])
            if parsed is None:
                raise InputError(
                    f"metric {row['metric']!r} is none of pass@<k>, pass^<k>, maj@<k>, "
                    "avg@n (or pass@k etc. with a k column)",
                    file=name,
                    line=lines[position],
                    field="metric",
                )
            metric, k = parsed
            if k is None and metric != AVG_AT_N:
                k = _k_cell(row.get("k"), name, lines[position])
            rows.append(
                _row(row[model], metric, k, row["value"], row["value" + DECIMALS], factor, why)
                | {"line": lines[position], "text": raw[position]}
            )
    else:
        columns = [c for c in header if COLUMN.fullmatch(c)]
        frame = read_published(path, columns, text=[model, *(["k"] if "k" in header else [])])
        for column in columns:
            match = COLUMN.fullmatch(column)
            metric, k = parse_metric(match["name"].lower())
            raw = _raw(path, column)
            if match["percent"]:
                factor, why = 100, f"the header {column!r} says percent"
            else:
                factor, why = score_scale(raw, column, forced, why_forced)
            for position, row in frame.iterrows():
                row_k = k
                if row_k is None and metric != AVG_AT_N:
                    row_k = _k_cell(row.get("k"), name, lines[position])
                rows.append(
                    _row(
                        row[model], metric, row_k, row[column], row[column + DECIMALS], factor, why
                    )
                    | {"line": lines[position], "text": raw[position]}
                )
    out = pd.DataFrame(
        rows,
        columns=["model", "metric", "k", "value", "printed_decimals", "scale_note", "line", "text"],
    )
    out = out[out["value"].notna()].reset_index(drop=True)
    out["k"] = out["k"].astype("Int64")
    out["printed_decimals"] = out["printed_decimals"].astype("Int64")
    return out.drop(columns="text")


def _lines(path: Path) -> list[int]:
    from rederive.printed import record_lines

    return record_lines(path)


def _raw(path: Path, column: str) -> list:
    from rederive.io.source import read_csv_frame

    frame = read_csv_frame(path, dtype=str, keep_default_na=False, na_values=[""])
    return [None if pd.isna(v) else v for v in frame[column]]


def _k_cell(value, name: str, line: int) -> int:
    try:
        k = int(str(value).strip())
    except (TypeError, ValueError):
        k = 0
    if k < 1:
        raise InputError(
            f"k {value!r} is not a whole number >= 1 (a metric written pass@k needs its k here)",
            file=name,
            line=line,
            field="k",
        )
    return k


def _row(model, metric, k, value, decimals, factor: int, why: str) -> dict:
    missing = value is None or (isinstance(value, float) and np.isnan(value))
    shift = 2 if factor == 100 else 0
    return {
        "model": str(model),
        "metric": metric,
        "k": k,
        "value": None if missing else float(value) / factor,
        "printed_decimals": None if pd.isna(decimals) else int(decimals) + shift,
        "scale_note": f"read as a percentage ({why}), compared / 100; " if factor == 100 else "",
    }


def published_checks(
    published: dict[str, pd.DataFrame], table: pd.DataFrame | None, tolerance: float
) -> list[Check]:
    """Each published sampling value against ``sampling.csv`` (``table``; None when the
    analysis does not set ``sampling``)."""
    out = []
    ours = {}
    models: set[str] = set()
    ks: set[int] = set()
    if table is not None:
        models = set(table["model"].astype(str))
        ks = {int(k) for k in table["k"].dropna()}
        for row in table.itertuples(index=False):
            k = None if pd.isna(row.k) else int(row.k)
            ours[(str(row.model), row.metric, k)] = row
    for name, frame in sorted(published.items()):
        for row in frame.itertuples(index=False):
            k = None if pd.isna(row.k) else int(row.k)
            at = "" if k is None else f" at k = {k}"
            found = ours.get((row.model, row.metric, k))
            value = None
            if table is None:
                note = NOT_SET
            elif row.model not in models:
                note = "model not in the run"
            elif found is None and k is not None and k not in ks:
                note = f"k = {k} is not in sampling.k: add it to compare"
            elif found is None:
                note = f"{row.metric} is not in sampling.metrics: add it to compare"
            elif pd.isna(found.estimate):
                note = f"not available: {found.note}"
            else:
                value = float(found.estimate)
                note = (
                    f"{row.metric}{at} over the model's {int(found.n_items):,} items "
                    f"({int(found.n_samples):,} samples; sampling.csv, interval "
                    f"[{100 * found.ci_low:.1f}, {100 * found.ci_high:.1f}] %)"
                )
            out.append(
                Check(
                    "benchmark",
                    name,
                    "cell",
                    row.model,
                    row.metric.replace("k", str(k)) if k is not None else row.metric,
                    float(row.value),
                    value,
                    tolerance,
                    f"{row.scale_note}{note}",
                    printed_decimals=None
                    if pd.isna(row.printed_decimals)
                    else int(row.printed_decimals),
                )
            )
    return out


def harness_rows(reported: pd.DataFrame) -> pd.Series:
    """Which reported rows are a sampling metric at ``k ≥ 2`` (compared here, not with
    the accuracy)."""
    if reported.empty:
        return pd.Series([], dtype=bool)
    parsed = [parse_metric(m) for m in reported["metric"].astype(str)]
    return pd.Series(
        [p is not None and p[0] != AVG_AT_N and (p[1] or 0) >= 2 for p in parsed],
        index=reported.index,
    )


def task_estimates(db_path: str | Path, wanted: pd.DataFrame) -> pd.DataFrame:
    """Our estimate of each wanted (model, task, metric) over the task's items.

    Parameters
    ----------
    db_path : path
        The warehouse; every graded row of the model and task (``responses``), the
        run the harness reported on, whatever ``item_sets`` kept.
    wanted : DataFrame
        ``model, task, metric`` (``pass@4``-like).

    Returns
    -------
    DataFrame
        ``wanted``'s rows with ``ours`` (NaN when not estimable) and ``note``.
    """
    pairs = wanted[["model", "task"]].drop_duplicates().reset_index(drop=True)
    with read_only(db_path) as con:
        con.register("_wanted", pairs)
        rows = con.execute(
            "SELECT r.model, r.task, r.item_id, r.epoch, r.correct FROM responses r "
            "JOIN _wanted w ON r.model = w.model AND r.task = w.task ORDER BY r.rowid"
        ).df()
    out = []
    groups = dict(tuple(rows.groupby(["model", "task"], sort=False)))
    for row in wanted.itertuples(index=False):
        metric, k = parse_metric(row.metric)
        samples = groups.get((row.model, row.task))
        ours, note = np.nan, ""
        if samples is None or samples.empty:
            note = "no graded rows of this model and task in the run"
        elif not np.isin(samples["correct"].to_numpy(dtype=float), (0.0, 1.0)).all():
            note = "not available: grades not 0/1 (the run's epochs are already reduced?)"
        else:
            counts = sample_counts(samples, item="item_id")
            matrix = estimate_matrix(counts, metric, k)
            values = matrix.values.iloc[:, 0]
            excluded = int(matrix.n_excluded[0])
            ours = float(values.mean()) if values.notna().any() else np.nan
            note = (
                f"ours: mean over {int(matrix.n_items[0]):,} items of the unbiased {metric} "
                f"({int(matrix.n_samples[0]):,} samples)"
                + (f"; {excluded:,} items with fewer than {k} samples left out" if excluded else "")
            )
        out.append({**row._asdict(), "ours": ours, "note": note})
    return pd.DataFrame(out, columns=[*wanted.columns, "ours", "note"])


def harness_checks(
    db_path: str | Path, reported: pd.DataFrame, root: Path | None = None
) -> list[Check]:
    """The reported sampling rows (:func:`harness_rows`) against :func:`task_estimates`."""
    if reported.empty:
        return []
    chosen = reported[harness_rows(reported)].sort_values(["model", "task", "metric", "filter"])
    if chosen.empty:
        return []
    got = task_estimates(db_path, chosen[["model", "task", "metric"]])
    return [
        Check(
            "benchmark",
            "harness-reported",
            "cell",
            f"{row.model} / {row.task}",
            f"{row.metric},{row.filter}",
            float(row.value),
            None if pd.isna(ours) else float(ours),
            HARNESS_TOLERANCE,
            f"as reported in {under_root(row.file, root)}; {note}",
        )
        for row, ours, note in zip(
            chosen.itertuples(index=False), got["ours"], got["note"], strict=True
        )
    ]


def statement(files: list[Path], has_table: bool) -> str:
    """What the sampling rows compare, in words for the report ("" without files)."""
    if not files:
        return ""
    names = ", ".join(under_root(p, Path(p).parent.parent) for p in files)
    if not has_table:
        return f"Published pass@k/pass^k in {names}: {NOT_SET}."
    return (
        f"Published pass@k/pass^k/maj@k from {names} against tables/sampling.csv (the mean "
        "over items of the unbiased estimator), at the precision each value is printed with."
    )
