"""The baseline-vs-candidate gate: is the new checkpoint worse than the one we ship?

``python -m rederive.gate`` (:mod:`rederive.gate.__main__`) runs it on a built
analysis (its warehouse, read-only) or straight on run files of any readable
format; the workflow's rule (``scripts/rederive/studies/benchmark/gate.py``)
runs it on an analysis's warehouse. The statistics are
:mod:`rederive.stats.gate`; :mod:`rederive.gate.data` loads the two models'
per-item scores and aligns them, :mod:`rederive.gate.compare` reaches the
verdicts, :mod:`rederive.gate.outputs` writes ``gate.csv``, ``gate.md`` and
``gate.json`` (docs/gate.md describes them).
"""
