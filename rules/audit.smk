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
    script:
        "../scripts/rederive/audit/summary.py"


# What each job asks a scheduler for (rules/common.smk: job_size): memory (MB)
# and runtime (min) bases, their growth per MB of input, from results/benchmarks/.
size_jobs(
    audit_published=job_size(300, 5),
    summarize_audits=job_size(300, 5),
)
