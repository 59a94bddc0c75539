"""data_quality.csv: per run, rows read, used and excluded by reason.

References
----------
Paper 003 (CoT load-bearing), §4: 21,238 valid labelled continuations.
"""

from rederive.io.accounting import load_accounting
from rederive.io.batches import per_run_files
from rederive.io.shared_quality import same_content_notes, with_notes
from rederive.runner import run
from rederive.studies.cot_loadbearing.common import write_csv


def main(snakemake) -> None:
    frame = load_accounting(per_run_files(snakemake.input.ingested, "accounting"))
    frame = frame.sort_values(["run", "reason"], kind="stable")
    # Two runs read from files with the same bytes: a note naming both.
    write_csv(with_notes(frame, same_content_notes(frame)), snakemake.output.quality)


if __name__ == "__main__" and "snakemake" in globals():
    run(main, snakemake)  # noqa: F821
