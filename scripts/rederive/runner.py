"""Entry-point wrapper for Snakemake ``script:`` jobs.

Each script module ends with::

    if __name__ == "__main__" and "snakemake" in globals():
        run(main, snakemake)

``run`` sends Python logging to the rule's ``log:`` file, pins BLAS/torch to one
thread (parallelism comes from Snakemake running jobs side by side), and turns an
:class:`~rederive.errors.InputError` into a short message on stderr and in the log
instead of a traceback, exiting non-zero so Snakemake stops the DAG.
"""

from __future__ import annotations

import logging
import os
import sys

from rederive.errors import InputError

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")


def run(main, snakemake) -> None:
    log_path = snakemake.log[0] if len(snakemake.log) else None
    # The terminal gets warnings only; the rule's log file gets our INFO lines too.
    terminal = logging.StreamHandler(sys.stderr)
    terminal.setLevel(logging.WARNING)
    handlers = [terminal]
    if log_path:
        handlers.append(logging.FileHandler(log_path, mode="w"))
    # Our own modules log at INFO; third-party libraries only above WARNING (matplotlib's
    # font subsetter alone writes hundreds of INFO lines per PDF).
    logging.basicConfig(
        level=logging.WARNING,
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
        handlers=handlers,
        force=True,
    )
    for name in ("rederive", "__main__"):  # __main__: the script module Snakemake runs
        logging.getLogger(name).setLevel(logging.INFO)
    try:
        main(snakemake)
    except InputError as exc:
        message = f"\nrederive: input error in rule {snakemake.rule}:\n  {exc}\n"
        if log_path:
            with open(log_path, "a") as handle:
                handle.write(message)
        sys.stderr.write(message)
        sys.exit(1)
