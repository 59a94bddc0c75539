"""Rule ``check_benchmark_published``: each model's recomputed accuracy against
its published score.

``raw/benchmark/published/*.csv`` hold published per-model scores as fractions
(first column: model, column ``score``). For the bundled ChemBench matrix this
is irt-on-bench's ``model_score_allcorrect.csv``, whose scores are the column
means of the matrix, so every cell must agree to floating-point precision. A
published model absent from the run shows as ``n/a`` rather than disappearing.
Identity: the accuracy printed in percent must be the fraction rounded.

Harness check: lm-evaluation-harness (``results_*.json``) and Inspect
(``header.json``) record their own aggregate score per model and task; the mean of
our per-item scores over the same run must equal it (``harness-reported`` rows).
This is what catches a reader that mis-maps a filter, a metric or a score letter.
"""

from pathlib import Path

import pandas as pd

from rederive.check import NO_PUBLISHED, Check, compare_cells, write_published_check
from rederive.errors import InputError, relpath
from rederive.io.warehouse import query
from rederive.runner import run
from rederive.stats.rates import round_half_up


def read_published(path: Path) -> pd.DataFrame:
    frame = pd.read_csv(path)
    if "score" not in frame.columns:
        raise InputError("required column is missing", file=relpath(path), line=1, field="score")
    frame = frame.rename(columns={frame.columns[0]: "model"})
    return frame[["model", "score"]].rename(columns={"score": "accuracy"})


def checks(
    published: dict[str, pd.DataFrame], accuracy: pd.DataFrame, tolerance: float
) -> list[Check]:
    out: list[Check] = []
    for table, frame in sorted(published.items()):
        out += compare_cells(
            "benchmark",
            table,
            frame,
            accuracy[["model", "accuracy"]],
            keys=["model"],
            quantities=["accuracy"],
            tolerance=tolerance,
            note="fraction correct over the model's items",
        )
    for row in accuracy.itertuples(index=False):
        out.append(
            Check(
                "benchmark",
                "accuracy.csv",
                "identity",
                row.model,
                "accuracy_pct = round(100 * accuracy, 1)",
                round_half_up(100 * row.accuracy, 1),
                row.accuracy_pct,
                0.0,
                "percent column agrees with the fraction",
            )
        )
    return out


def harness_checks(
    reported: pd.DataFrame, responses: pd.DataFrame, tolerance: float
) -> list[Check]:
    """Our per-(model, task) accuracy against the score the harness itself reported."""
    if reported.empty:
        return []
    per_item = responses.groupby(["model", "task", "item_id"], sort=True)["correct"].mean()
    ours = per_item.groupby(["model", "task"]).mean().rename("ours").reset_index()
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
            f"as reported in {row.file}",
        )
        for row in merged.sort_values(["model", "task"]).itertuples(index=False)
    ]


def main(snakemake):
    folder = Path(snakemake.params.published_dir)
    files = sorted(folder.glob("*.csv")) if folder.is_dir() else []
    published = {p.stem: read_published(p) for p in files}
    accuracy = pd.read_csv(snakemake.input.accuracy)
    preamble = (
        f"Published scores from {', '.join(relpath(p) for p in files)}."
        if files
        else f"No published scores in {relpath(folder)} ({NO_PUBLISHED}): only identities are checked."
    )
    reported = query(snakemake.input.db, "SELECT * FROM reported")
    responses = query(snakemake.input.db, "SELECT model, task, item_id, correct FROM responses")
    # The harness rounds nothing, but sums floats in its own order: 1e-9 absorbs that.
    found = checks(published, accuracy, snakemake.params.tolerance) + harness_checks(
        reported, responses, 1e-9
    )
    # Power of the ranking's first place (rederive.studies.benchmark.power).
    from rederive.studies.benchmark.power import headline_checks

    level = snakemake.params.power
    found += headline_checks(
        pd.read_csv(snakemake.input.power), alpha=level["alpha"], power=level["target"]
    )
    write_published_check(
        found,
        snakemake.output.csv,
        snakemake.output.md,
        title="Benchmark: published-score check",
        preamble=preamble,
        data_note=snakemake.params.data_note,
    )


if __name__ == "__main__" and "snakemake" in globals():
    run(main, snakemake)  # noqa: F821
