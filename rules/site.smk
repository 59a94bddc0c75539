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
    params:
        analyses=site_analyses,
    script:
        "../scripts/rederive/site/build.py"


# What each job asks a scheduler for (rules/common.smk: job_size): memory (MB)
# and runtime (min) bases, their growth per MB of input, from results/benchmarks/.
size_jobs(
    build_site=job_size(300, 5, mem_per_input_mb=20, runtime_per_input_mb=0.1),
)
