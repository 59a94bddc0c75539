"""data_quality.csv: per run, rows read, used and excluded by reason.

References
----------
Paper 003 (CoT load-bearing), §4: 21,238 valid labelled continuations.
"""

from rederive.io.accounting import load_accounting
from rederive.io.batches import per_run_files
from rederive.runner import run
from rederive.studies.cot_loadbearing.common import write_csv


def main(snakemake) -> None:
    frame = load_accounting(per_run_files(snakemake.input.ingested, "accounting"))
    write_csv(frame.sort_values(["run", "reason"], kind="stable"), snakemake.output.quality)


if __name__ == "__main__" and "snakemake" in globals():
    run(main, snakemake)  # noqa: F821
