"""Study ``bias_awareness``: susceptibility vs. awareness of injected bias in CoT.

Re-derives the trace-level diagnostic of Gao et al. (2026): per biased GSM8K
trial, susceptibility S_C2W (a correct unbiased answer turned wrong by the bias)
and awareness A (the trace references the injected content), summarised as
Pr[S], Pr[A], Pr[A | S] and the silent-failure rate TG = Pr[S = 1 ∧ A = 0].

References
----------
Gao, W., Wang, Y., Kong, L., et al. (2026). Beyond accuracy: measuring bias
    awareness in chain-of-thought reasoning for responsible AI evaluation.
    arXiv:2606.15127 (project copy: ``../shared/seeds/001_*``), §3 eqs. (1)–(4).
"""

STUDY = "bias_awareness"

#: Bias conditions of the paper (§4): B4 irrelevant context, B5 numeric anchor,
#: B6 misleading hint; ``none`` is the unbiased run that gives a_u(q).
BIASES = ("B4", "B5", "B6")
UNBIASED = "none"
CONDITIONS = (UNBIASED, *BIASES)

#: Label of "over all biases" rows (the paper's per-model N = 1,500 aggregates).
POOLED = "all"
