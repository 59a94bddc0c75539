# Outputs over every built analysis: one published-number check summary and the provenance
# record (input hashes, package versions, git commit, config).


rule summarize_published_checks:
    input:
        checks=analysis_checks,
    output:
        csv="results/summary/published_check.csv",
        html=report(
            "results/summary/published_check.html",
            caption="report/summary_check.rst",
            category="Summary",
        ),
        md="results/summary/published_check.md",
    params:
        earlier=lambda w: {n: e.note() for n, e in earlier_analyses().items()},
    script:
        "../scripts/rederive/summary.py"


rule write_provenance:
    input:
        raw=raw_inputs,
    output:
        json=report(
            "results/summary/provenance.json",
            caption="report/provenance.rst",
            category="Summary",
        ),
    params:
        analyses=lambda w: {name: ANALYSES[name] for name in BUILD},
        settings=lambda w: {k: v for k, v in config.items() if k != "analyses"},
    script:
        "../scripts/rederive/provenance.py"


# What each job asks a scheduler for (rules/common.smk: job_size): memory (MB)
# and runtime (min) bases, their growth per MB of input, from results/benchmarks/.
size_jobs(
    summarize_published_checks=job_size(300, 5),
    write_provenance=job_size(300, 5, runtime_per_input_mb=0.05),
)
