"""Run the workflow's Python jobs in forks of one warm interpreter.

A cold build runs about ninety short Python jobs. Started the usual way, each
is a fresh interpreter that spends most of its CPU importing pandas, SciPy,
matplotlib and the rest before it does any work (bench/README.md, "Where a cold
build's CPU goes"). Here one server process per Snakemake run imports those
libraries once; every ``script:`` job is then a ``fork()`` of it that runs the
script exactly as ``python <script>`` would (same working directory,
environment, ``sys.argv``, ``__main__``, exit status, stdout and stderr), so
outputs are byte-identical either way (tested).

- :mod:`.client` replaces how Snakemake starts a Python script job, in the main
  Snakemake process of a local run only; everything else (a cluster job, a conda
  or container job, a job with more than one thread, ``--edit-notebook``) runs
  the usual way. ``REDERIVE_JOB_SERVER=0`` turns it off.
- :mod:`.server` is the warm process: it forks, reaps and reports jobs, and
  ends with the Snakemake process that started it, taking its jobs with it.

Only third-party libraries and Snakemake's own modules are imported ahead: the
workflow's own code is imported by each job from the files on disk, as before,
so an edit between runs is never run stale.
"""
