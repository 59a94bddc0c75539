# The reviewer's audit of every analysis's published tables, written once: each
# raw/<analysis>/published/*.csv is checked from the table alone (GRIM, error bars,
# claims, ranks, identities; rederive.audit) with N from the analysis's `audit`
# settings (the paper's stated sizes), then gathered for the reviewer summary.


rule audit_published:
    input:
        published=published_files,
    output:
        csv="results/{analysis}/audit/published_audit.csv",
        md=report(
            "results/{analysis}/audit/published_audit.md",
            caption="report/audit.rst",
            category="{analysis}",
            subcategory="Published check",
        ),
    log:
        "results/logs/{analysis}/audit_published.log",
    benchmark:
        "results/benchmarks/{analysis}/audit_published.tsv"
    wildcard_constraints:
        analysis=built_analyses(),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(300),
        runtime=job_runtime(5),
    params:
        audit=setting("audit"),
        label=label,
        published_dir=published_dir,
    script:
        "../scripts/rederive/audit/published.py"


rule summarize_audits:
    input:
        audits=analysis_audits,
    output:
        csv="results/summary/published_audit.csv",
        md="results/summary/published_audit.md",
    log:
        "results/logs/summary/published_audit.log",
    benchmark:
        "results/benchmarks/summary/published_audit.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(300),
        runtime=job_runtime(5),
    script:
        "../scripts/rederive/audit/summary.py"
