"""Kind ``preference``: pairwise judged games (AlpacaEval annotations, Arena-Hard
judgments, MT-bench pairwise judgments, Chatbot Arena battles, a long CSV/JSONL).

One module per job of ``rules/preference.smk``: ``ingest`` (readers of
:mod:`rederive.io.preference` → labelled games), ``warehouse`` (the ``games``
table), ``scores`` (Bradley–Terry on the Elo scale, prompt-bootstrap intervals,
rank ranges), ``winrates`` (against the baseline, with SE and length control),
``judges`` (position bias, agreement, self-preference), ``quality``,
``figures`` and ``check``; ``sources`` and ``common`` are what they share. The
statistics are :mod:`rederive.stats.preference`'s.
"""
