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
    log:
        "results/logs/summary/published_check.log",
    benchmark:
        "results/benchmarks/summary/published_check.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(300),
        runtime=job_runtime(5),
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
    log:
        "results/logs/summary/provenance.log",
    benchmark:
        "results/benchmarks/summary/provenance.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(300),
        runtime=job_runtime(5, 0.05),
    params:
        analyses=lambda w: {name: ANALYSES[name] for name in BUILD},
        settings=lambda w: {k: v for k, v in config.items() if k != "analyses"},
    script:
        "../scripts/rederive/provenance.py"
