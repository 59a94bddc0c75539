"""Rule ``plot_salitrap_figures``: every SaliTrap figure in one job.

Each module below draws its figures from the CSVs it names; one job runs them
all because a job's own cost (a process, its imports, Snakemake's scheduling
and bookkeeping) was more than most figures cost (bench/job_cpu.py).

References
----------
SaliTrap (seed paper 000), Figs 4–12.
"""

from rederive.plots import items
from rederive.studies.salitrap import (
    figure_overview,
    figures_density,
    figures_experiments,
    figures_failure_sets,
    figures_irt,
)

DRAWN_BY = (
    figure_overview,
    figures_density,
    figures_experiments,
    figures_failure_sets,
    figures_irt,
    items,
)


def main(snakemake):
    for module in DRAWN_BY:
        module.main(snakemake)


if __name__ == "__main__" and "snakemake" in globals():
    from rederive.runner import run

    run(main, snakemake)  # noqa: F821
