"""Rule ``check_benchmark_published``: each model's recomputed accuracy against
its published score.

``raw/benchmark/published/*.csv`` hold published per-model scores (first
column: model; column ``score``, or ``score_pct`` / ``score (%)`` for
percentages). For the bundled ChemBench matrix this is irt-on-bench's
``model_score_allcorrect.csv``, whose scores are the column means of the
matrix printed in full, so every cell must agree to floating-point precision.

Scores are read as printed (:mod:`rederive.printed`): a score passes when ours
rounds to it at the precision of its column (``0.273``: three decimals), the
tolerance on top. A column in percent (a ``%`` in a cell, a header saying
percent, a median above 1, or ``check.published_scale: percent``) is divided by
100, its precision with it, and every row says so; a fraction column with a
score above 1 is refused, naming the setting that fixes it.

What is compared: the published score is a model's fraction correct over the items
*it* answered. Ours is the same quantity, recomputed from the per-item scores
before any ``item_sets: intersection`` alignment (which only shapes the
comparisons between models, in accuracy.csv and after; accuracy.csv and
ranking.csv then show both numbers, labelled). Under ``item_sets: zero`` a
missing grade is part of the model's score (a 0), and accuracy.csv's value is
compared (:mod:`rederive.studies.benchmark.basis`). A published model absent
from the run, and a model of the run without a published score, each show as a
row with ``n/a`` rather than disappearing. ``internal`` rows: the accuracy
printed in percent is the exact fraction n_correct / n_items rounded half-up
once, with the same function as the accuracy table (our own two columns
against each other, not a comparison with the paper).

Harness check: lm-evaluation-harness (``results_*.json``) and Inspect
(``header.json``) record their own aggregate score per model and task; the mean of
our per-item scores over the same run must equal it (``harness-reported`` rows).
This is what catches a reader that mis-maps a filter, a metric or a score letter.
"""

import re
from pathlib import Path

import pandas as pd

from rederive.audit.columns import MEDIAN_FRACTION
from rederive.check import NO_PUBLISHED, Check, write_published_check
from rederive.errors import InputError, relpath, under_root
from rederive.io.names import read_csv
from rederive.io.shared_quality import note_sentences
from rederive.io.source import read_csv_frame
from rederive.io.warehouse import query, read_only
from rederive.printed import column_decimals, read_printed, record_lines, score_scale
from rederive.report.markdown import cell as md_cell
from rederive.runner import run
from rederive.studies.benchmark import sampling_check
from rederive.studies.benchmark.basis import check_compares_headline
from rederive.studies.benchmark.common import accuracy_percent, left_out_note

#: Headers of a published score column: ``score``, or one that says percent.
SCORE_HEADER = re.compile(r"score(\s*\(%\)|\s*%|_pct|_percent|\s*\(percent\))?", re.I)
#: What a user writes when the scale of a score column cannot be read from it.
SCALE_FIX = (
    "name the column score_pct (or 'score (%)'), or set "
    "check.published_scale: percent for the analysis"
)


def _score_column(columns: list[str], path: Path) -> str:
    found = [c for c in columns[1:] if SCORE_HEADER.fullmatch(c.strip())]
    if len(found) != 1:
        problem = "required column is missing" if not found else "more than one score column"
        raise InputError(
            f"{problem}: a published table has the model in its first column and one "
            "score column (score for fractions; score_pct or 'score (%)' for percentages)",
            file=relpath(path),
            line=1,
            field="score" if not found else ", ".join(found),
        )
    return found[0]


def read_published(path: Path, scale: str = "auto") -> pd.DataFrame:
    """A published score table, every score read as printed and as a fraction.

    Parameters
    ----------
    path : Path
        CSV with the model in the first column and a score column
        (:data:`SCORE_HEADER`).
    scale : {"auto", "fraction", "percent"}
        ``check.published_scale``; ``auto`` decides with
        :func:`rederive.printed.score_scale` (the audit's rule).

    Returns
    -------
    DataFrame
        ``model``, ``accuracy`` (a fraction), ``printed_decimals`` (of the
        fraction: a percentage printed at one decimal is a fraction at three),
        ``scale_note`` (how the score was read, "" for fractions) and
        ``median_rule`` (True when the scale was decided only by the median).

    Raises
    ------
    InputError
        No score column; a cell that is not a number; a negative score; a score
        above 1 in a column read as fractions, or above 100 in one read as
        percentages.
    """
    # Every cell as text: names are data ("NA", "1000"), and a score's digits are its precision.
    frame = read_csv_frame(path, dtype=str, keep_default_na=False, na_values=[""])
    column = _score_column(list(frame.columns), path)
    lines = record_lines(path)
    numbers = []
    for position, text in enumerate(frame[column]):
        try:
            numbers.append(read_printed(text))
        except ValueError as exc:
            raise InputError(
                str(exc), file=relpath(path), line=lines[position], field=column
            ) from None
    forced = None if scale == "auto" else scale
    factor, why = score_scale(frame[column], column, forced, f"check.published_scale: {scale}")
    bound = 1 if factor == 1 else 100
    for position, value in enumerate(numbers):
        if value is not None and value.value < 0:
            raise InputError(
                f"score {value.text!r} is negative: a published accuracy is in [0, {bound}]",
                file=relpath(path),
                line=lines[position],
                field=column,
            )
        if value is not None and value.value > bound:
            what = "fractions" if factor == 1 else "percentages"
            fix = SCALE_FIX if factor == 1 else "correct the score or the scale"
            raise InputError(
                f"score {value.text!r} is above {bound}, but the column reads as {what} ({why}); "
                f"a score cannot exceed {bound} {what}: {fix}",
                file=relpath(path),
                line=lines[position],
                field=column,
            )
    decimals = column_decimals(numbers)
    shift = 2 if factor == 100 else 0
    return pd.DataFrame(
        {
            "model": frame[frame.columns[0]].astype(str),
            "accuracy": [None if n is None else n.value / factor for n in numbers],
            "printed_decimals": pd.array(
                [None if d is None else d + shift for d in decimals], dtype="Int64"
            ),
            "scale_note": [
                f"published {n.text.strip()} read as a percentage ({why}), compared as "
                f"{n.text.strip().rstrip('%').strip()} / 100"
                if n is not None and factor == 100
                else ""
                for n in numbers
            ],
            "median_rule": why == MEDIAN_FRACTION,
        }
    )


def _percent_hint(check: Check) -> str:
    """The fix when a score read as a fraction by its median fails but would pass as a percentage."""
    if check.status != "FAIL" or check.published is None:
        return ""
    as_percent = Check(
        check.study,
        check.table,
        check.kind,
        check.item,
        check.quantity,
        check.published / 100,
        check.ours,
        check.tolerance,
        printed_decimals=None if check.printed_decimals is None else check.printed_decimals + 2,
    )
    if as_percent.status != "pass":
        return ""
    return (
        "; read as a percentage it would pass: the column was read as fractions "
        f"({MEDIAN_FRACTION}); if it is in percent, {SCALE_FIX}"
    )


def own_item_accuracy(responses: pd.DataFrame) -> pd.DataFrame:
    """Each model's accuracy over every item it answered, before ``item_sets`` alignment.

    Epochs are averaged within the item first, as in the warehouse. This is the
    number a harness publishes for a model, whatever the other models answered.
    """
    per_item = responses.groupby(["model", "task", "item_id"], sort=True)["correct"].mean()
    grouped = per_item.groupby("model")
    return pd.DataFrame(
        {"accuracy": grouped.mean(), "n_items": grouped.size().astype(int)}
    ).reset_index()


def _exact_means(con, table: str, keys: list[str], order: list[str], source: str) -> None:
    """``table`` (keys, ``n``, ``m``): the mean of ``m``/``correct`` of ``source`` per ``keys``.

    As pandas' groupby mean gives it: Kahan summation in ``order``. DuckDB's
    unordered ``fsum`` is exact for one value or whole numbers (0/1 scores);
    the other groups are summed again in ``order``, so no group pays for the
    ordered aggregate it does not need.
    """
    by = ", ".join(keys)
    join = " AND ".join(f"s.{k} = x.{k}" for k in keys)
    con.execute(
        f"""
        CREATE OR REPLACE TEMP TABLE {table} AS
        SELECT {by}, count(*) AS n, fsum(v) / count(v) AS m,
               coalesce(bool_and(v = 0 OR v = 1), true) AS whole
        FROM {source} GROUP BY {by}
        """
    )
    (inexact,) = con.execute(f"SELECT count(*) FROM {table} WHERE n > 1 AND NOT whole").fetchall()[
        0
    ]
    if inexact:
        con.execute(
            f"""
            UPDATE {table} SET m = f.m FROM (
                SELECT {", ".join("s." + k for k in keys)},
                       fsum(s.v ORDER BY {", ".join("s." + o for o in order)}) / count(s.v) AS m
                FROM {source} s JOIN (SELECT {by} FROM {table} WHERE n > 1 AND NOT whole) x
                  ON {join}
                GROUP BY {", ".join("s." + k for k in keys)}
            ) f WHERE {" AND ".join(f"{table}.{k} = f.{k}" for k in keys)}
            """
        )


def item_accuracy(db_path: str | Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`own_item_accuracy` and each (model, task)'s mean item score, in SQL.

    The same numbers as the pandas functions on the warehouse's ``responses``
    (epoch means first, then means in (task, item_id) order, Kahan summed),
    aggregated by DuckDB: at 150 M graded rows only per-model and per-task rows
    reach pandas.

    Returns
    -------
    own : DataFrame
        ``model``, ``accuracy``, ``n_items`` (models sorted).
    per_task : DataFrame
        ``model``, ``task``, ``ours``.
    """
    with read_only(db_path) as con:
        _exact_means(
            con,
            "_per_item",
            ["model", "task", "item_id"],
            ["_row"],
            "(SELECT rowid AS _row, model, task, item_id, CAST(correct AS DOUBLE) AS v "
            "FROM responses)",
        )
        items = "(SELECT model, task, item_id, m AS v FROM _per_item)"
        _exact_means(con, "_per_model", ["model"], ["task", "item_id"], items)
        _exact_means(con, "_per_task", ["model", "task"], ["item_id"], items)
        own = con.execute(
            "SELECT model, m AS accuracy, n AS n_items FROM _per_model ORDER BY model"
        ).df()
        per_task = con.execute(
            "SELECT model, task, m AS ours FROM _per_task ORDER BY model, task"
        ).df()
    own["n_items"] = own["n_items"].astype(int)
    return own, per_task


def task_accuracy(responses: pd.DataFrame) -> pd.DataFrame:
    """Per (model, task): the mean of the per-item epoch means (``ours``)."""
    per_item = responses.groupby(["model", "task", "item_id"], sort=True)["correct"].mean()
    return per_item.groupby(["model", "task"]).mean().rename("ours").reset_index()


def checks(
    published: dict[str, pd.DataFrame],
    accuracy: pd.DataFrame,
    tolerance: float,
    own: pd.DataFrame | None = None,
) -> list[Check]:
    """Published score against each model's accuracy over its own items, plus identities.

    ``own`` (from :func:`own_item_accuracy`) is what is compared; without it the
    accuracy table is (every model then answered the same items). A model of the
    run that a published table does not list gets a row with no published value.
    """
    own_given = own
    own = accuracy[["model", "accuracy", "n_items"]] if own is None else own
    shared = accuracy.set_index("model")["n_items"]
    # Models whose accuracy.csv value counts missing grades as 0 (item_sets: zero).
    zeros = (
        {
            m: int(n - k)
            for m, n, k in zip(
                accuracy["model"], accuracy["n_items"], accuracy["n_items_own"], strict=True
            )
            if n != k
        }
        if "n_items_own" in accuracy
        else {}
    )
    out: list[Check] = []
    for table, frame in sorted(published.items()):
        for column, empty in (
            ("printed_decimals", None),
            ("scale_note", ""),
            ("median_rule", False),
        ):
            if column not in frame.columns:
                frame = frame.assign(**{column: empty})
        merged = frame.merge(own, on="model", how="outer", suffixes=("_pub", "_ours"))
        for row in merged.sort_values("model").itertuples(index=False):
            pub = None if pd.isna(row.accuracy_pub) else float(row.accuracy_pub)
            ours = None if pd.isna(row.accuracy_ours) else float(row.accuracy_ours)
            if pub is None:
                note = "no published value for this model"
            elif ours is None:
                note = "model not in the run"
            elif own_given is None and row.model in zeros:
                note = (
                    f"fraction correct over {int(row.n_items):,} items, "
                    f"{zeros[row.model]:,} missing grade(s) counted as 0 (accuracy.csv; "
                    "item_sets: zero)"
                )
            elif int(row.n_items) == int(shared.get(row.model, row.n_items)):
                note = (
                    f"fraction correct over the model's {int(row.n_items):,} items (accuracy.csv)"
                )
            else:
                note = (
                    f"fraction correct over all {int(row.n_items):,} items the model answered; "
                    f"accuracy.csv uses the {int(shared[row.model]):,} shared items"
                )
            if isinstance(row.scale_note, str) and row.scale_note:
                note = f"{row.scale_note}; {note}"
            check = Check(
                "benchmark",
                table,
                "cell",
                row.model,
                "accuracy",
                pub,
                ours,
                tolerance,
                note,
                printed_decimals=None
                if pd.isna(row.printed_decimals)
                else int(row.printed_decimals),
            )
            if row.median_rule is True:
                check.note += _percent_hint(check)
            out.append(check)
    for row in accuracy.itertuples(index=False):
        out.append(
            Check(
                "benchmark",
                "accuracy.csv",
                "internal",
                row.model,
                "accuracy_pct = round(100 * accuracy, 1)",
                # The fraction column read as its shortest decimal (0.2875 is 23/80
                # exactly), rounded once by the function the accuracy table uses.
                accuracy_percent(row.accuracy, 1),
                row.accuracy_pct,
                0.0,
                "percent column agrees with the fraction column, rounded half-up once",
            )
        )
    return out


def comparison_statement(
    accuracy: pd.DataFrame,
    own: pd.DataFrame,
    files: list[Path],
    folder: Path | None = None,
    item_sets: str = "intersection",
) -> str:
    """What the published check compares, in words for the report."""
    if not files:
        where = f" in {under_root(folder, folder.parent)}/" if folder is not None else ""
        return (
            f"No published scores{where} ({NO_PUBLISHED}): only internal checks and "
            "harness-reported scores are checked."
        )
    text = (
        f"Published scores from {', '.join(under_root(p, Path(p).parent.parent) for p in files)} (fraction correct per "
        "model, as harnesses publish it; a column in percent is divided by 100, as each row "
        "says) against each model's recomputed fraction correct over every item it answered, "
        "at the precision each score is printed with (printed_decimals)."
    )
    lost = own.merge(accuracy[["model", "n_items"]], on="model", suffixes=("", "_shared"))
    lost = lost[lost["n_items"] != lost["n_items_shared"]]
    if not lost.empty and item_sets == "zero":
        text = text.replace(
            "each model's recomputed fraction correct over every item it answered",
            "each model's accuracy.csv value (item_sets: zero: a missing grade counts as 0)",
        )
        text += (
            f" {len(lost)} model(s) have missing grades counted as 0 over "
            f"{int(lost['n_items_shared'].iloc[0]):,} items; their score over their own "
            "items is accuracy_own in accuracy.csv."
        )
    elif not lost.empty:
        text += (
            f" Under item_sets: intersection, accuracy.csv covers only the "
            f"{int(lost['n_items_shared'].iloc[0]):,} items every model answered; "
            f"{len(lost)} model(s) answered more, so their accuracy.csv value is not the "
            "published quantity and is not compared; it is labelled there (basis), with "
            "the compared score beside it (accuracy_own)."
        )
    return text


def check_preamble(*sentences: str) -> str:
    """The report's opening paragraph from ``sentences`` (empty ones dropped).

    Model and file names reach it (the models left out of the shared items, the
    published files), so it is escaped like a table cell
    (:func:`rederive.report.markdown.cell`): a ``|`` or a line break in a name
    cannot start a table, a heading or a new paragraph.
    """
    return md_cell(" ".join(s for s in sentences if s))


def harness_checks(
    reported: pd.DataFrame, ours: pd.DataFrame, tolerance: float, root: Path | None = None
) -> list[Check]:
    """Our per-(model, task) accuracy (``ours``: :func:`task_accuracy`) against the
    score the harness itself reported (its pass@k at k >= 2 are compared with our
    pass@k instead: :mod:`rederive.studies.benchmark.sampling_check`)."""
    if reported.empty:
        return []
    reported = reported[~sampling_check.harness_rows(reported)]
    merged = reported.merge(ours, on=["model", "task"], how="left")
    return [
        Check(
            "benchmark",
            "harness-reported",
            "cell",
            f"{row.model} / {row.task}",
            f"{row.metric},{row.filter}",
            float(row.value),
            None if pd.isna(row.ours) else float(row.ours),
            tolerance,
            f"as reported in {under_root(row.file, root)}",
        )
        for row in merged.sort_values(["model", "task"]).itertuples(index=False)
    ]


def published_tables(files: list[Path], scale: str) -> tuple[dict, dict]:
    """The published score tables and the published sampling tables, by file stem.

    A file with sampling columns (:func:`sampling_check.is_sampling_table`) is a
    sampling table, and also a score table when it has a score column.
    """
    scores, sampling = {}, {}
    for path in files:
        if sampling_check.is_sampling_table(path):
            sampling[path.stem] = sampling_check.read_sampling_published(path, scale)
            header = sampling_check.csv_header(path)
            if not any(SCORE_HEADER.fullmatch(c) for c in header[1:]):
                continue
        scores[path.stem] = read_published(path, scale)
    return scores, sampling


def main(snakemake):
    folder = Path(snakemake.params.published_dir)
    all_files = sorted(folder.glob("*.csv")) if folder.is_dir() else []
    scale = snakemake.params.published_scale
    published, sampling_published = published_tables(all_files, scale)
    files = [p for p in all_files if p.stem in published]
    sampling_files = [p for p in all_files if p.stem in sampling_published]
    # sampling.csv is an input only when the analysis sets sampling (sampling_input).
    given = getattr(snakemake.input, "sampling", None)
    sampling_input = [given] if isinstance(given, str) else list(given or [])
    sampling_table = read_csv(sampling_input[0]) if sampling_input else None
    accuracy = read_csv(snakemake.input.accuracy)
    reported = query(snakemake.input.db, "SELECT * FROM reported")
    own, per_task = item_accuracy(snakemake.input.db)
    item_sets = snakemake.params.item_sets
    # Under item_sets: zero a missing grade is part of the score: accuracy.csv's
    # value is the one compared (rederive.studies.benchmark.basis).
    compared = None if check_compares_headline(item_sets) else own
    # The harness rounds nothing, but sums floats in its own order: 1e-9 absorbs that.
    root = Path(snakemake.params.published_dir).parent
    found = checks(published, accuracy, snakemake.params.tolerance, compared) + harness_checks(
        reported, per_task, 1e-9, root=root
    )
    # pass@k / pass^k / maj@k: a paper's table against sampling.csv, a tool's own
    # pass@k (k >= 2) against ours from the same samples.
    found += sampling_check.published_checks(
        sampling_published, sampling_table, snakemake.params.tolerance
    )
    found += sampling_check.harness_checks(snakemake.input.db, reported, root=root)
    # Power of the ranking's first place (rederive.studies.benchmark.power).
    from rederive.studies.benchmark.power import headline_checks

    level = snakemake.params.power
    found += headline_checks(
        read_csv(snakemake.input.power), alpha=level["alpha"], power=level["target"]
    )
    write_published_check(
        found,
        snakemake.output.csv,
        snakemake.output.md,
        analysis=snakemake.wildcards.analysis,
        title="Benchmark: published-score check",
        preamble=check_preamble(
            comparison_statement(accuracy, own, files, folder, item_sets)
            if files or not sampling_files
            else "No published accuracy scores: only internal checks and harness-reported "
            "scores are checked for accuracy.",
            sampling_check.statement(sampling_files, sampling_table is not None),
            left_out_note(snakemake.input.db),
            snakemake.params.missing_grades_text,
            note_sentences(read_csv(snakemake.input.quality)),
        ),
        data_note=snakemake.params.data_note,
    )


if __name__ == "__main__" and "snakemake" in globals():
    run(main, snakemake)  # noqa: F821
