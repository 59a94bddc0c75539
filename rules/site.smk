# The static results site: results/site/index.html lists every analysis (data
# source, published-check counts, top model and its tie group); one page per
# analysis shows every table inline, every figure with its report caption, and
# the provenance. Built from files other rules wrote; it computes nothing.


include: "site_helpers.smk"


rule build_site:
    input:
        outputs=site_inputs,
        captions=site_captions,
        code=SITE_FILES,
        summary=[
            "results/summary/published_check.md",
            "results/summary/published_check.csv",
        ],
        provenance="results/summary/provenance.json",
    output:
        site=directory("results/site"),
    log:
        "results/logs/summary/site.log",
    benchmark:
        "results/benchmarks/summary/site.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(300, 20),
        runtime=job_runtime(5, 0.1),
    params:
        analyses=site_analyses,
    script:
        "../scripts/rederive/site/build.py"
