"""A reviewer's audit of a results table without the raw data (``python -m rederive.audit``).

Reads a table (CSV, Markdown, a LaTeX ``tabular``), infers what each column is,
and checks what the table alone allows: GRIM (:mod:`.grim`), error bars
(:mod:`.errorbars`), claims (:mod:`.claims`), ranks (:mod:`.ranks`) and identities
(:mod:`.identities`), with N from ``--n``, a column, ``--sizes`` or the benchmark
registry (:mod:`.sizes`, ``benchmarks.csv``). See docs/audit.md.
"""
