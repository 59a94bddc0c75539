"""Study ``benchmark``: accuracy with CIs, paired BH comparisons, ranking with ties,
1PL IRT and failure-set clustering for any graded evaluation run (lm-evaluation-harness
samples, Inspect ``.eval`` logs, a matrix CSV or a long CSV/JSONL).

The bundled default input is the real ChemBench matrix (2,854 questions × 22
models) from the irt-on-bench repository; see ``raw/benchmark/README.md``.
"""
