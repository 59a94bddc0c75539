"""Study `tag_sycophancy` (seed paper 002): appended tag questions across 45 models.

Modules, one job each: :mod:`.labelling` (leading-token rules), :mod:`.inputs`
(items / models.csv readers), :mod:`.ingest`, :mod:`.warehouse`, :mod:`.effects`
(balanced effects, bootstrap CI, BH, floor guard), :mod:`.panel` (composition,
trend, ablations, `maybe`, category split), :mod:`.audit` (token table, data
quality), :mod:`.figures`, :mod:`.check`.
"""

ARMS = ["ask", "tag", "tag_synonym", "stance", "tag_maybe"]
BASELINE_ARM = "ask"
OPTIONS = ["x", "y"]
LABELS = ["endorse", "reject", "evade"]
