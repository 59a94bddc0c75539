"""Build the study warehouse: every labelled continuation plus the baseline counts.

References
----------
Paper 003 (CoT load-bearing), §4 (setup: problems, accuracy, baselines).
"""

import logging

import numpy as np
import pandas as pd

from rederive.errors import InputError, relpath
from rederive.io import warehouse
from rederive.io.accounting import load_runs
from rederive.io.batches import per_run_files
from rederive.io.source import read_csv_frame
from rederive.runner import run

log = logging.getLogger(__name__)

BASELINE_COLUMNS = ("model", "dataset", "n_problems", "n_correct", "n_baselines")


def read_baselines(path) -> pd.DataFrame:
    """``baselines.csv``: per model × dataset, problems tried, solved, kept as baselines."""
    name = relpath(path)
    frame = read_csv_frame(path)
    for column in BASELINE_COLUMNS:
        if column not in frame.columns:
            raise InputError("required column is missing", file=name, field=column)
    for column in BASELINE_COLUMNS[2:]:
        values = pd.to_numeric(frame[column], errors="coerce")
        bad = ~np.isfinite(values) | (values < 0) | (values != values.round())
        if bad.any():
            line = int(bad.to_numpy().nonzero()[0][0]) + 2
            raise InputError("must be a non-negative integer", file=name, line=line, field=column)
        frame[column] = values.astype(int)
    inconsistent = (frame["n_correct"] > frame["n_problems"]) | (
        frame["n_baselines"] > frame["n_correct"]
    )
    if inconsistent.any():
        line = int(inconsistent.to_numpy().nonzero()[0][0]) + 2
        raise InputError("need n_baselines <= n_correct <= n_problems", file=name, line=line)
    return frame[list(BASELINE_COLUMNS)].sort_values(["model", "dataset"]).reset_index(drop=True)


def main(snakemake) -> None:
    load_runs(per_run_files(snakemake.input.ingested, "accounting"))  # refuses identical files
    labelled_paths = per_run_files(snakemake.input.ingested, "labelled")
    labelled = warehouse.read_labelled(labelled_paths)
    # The layout is runs/<model>.jsonl: a model in two files is a copy or a mix-up.
    warehouse.check_one_run_per_model(
        labelled, advice="keep one run file per model (runs/<model>.jsonl)", field="model"
    )
    continuations = labelled.sort_values(["run", "line"], kind="stable")
    baselines = read_baselines(snakemake.input.baselines)
    warehouse.build(
        snakemake.output.db,
        {"continuations": continuations.reset_index(drop=True), "baselines": baselines},
    )
    log.info(
        "warehouse: %d continuations from %d runs",
        len(continuations),
        len(labelled_paths),
    )


if __name__ == "__main__" and "snakemake" in globals():
    run(main, snakemake)  # noqa: F821
