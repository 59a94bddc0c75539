# Every build of every analysis knows its predecessor: report_changes keeps the
# build's tables, checks and input manifest in results/<name>/history/ and says
# what changed since the previous build in results/<name>/changes/ (docs/changes.md).


include: "changes_helpers.smk"


rule report_changes:
    input:
        outputs=kept_outputs,
        raw=analysis_raw_files,
    output:
        csv="results/{analysis}/changes/changes.csv",
        md=report(
            "results/{analysis}/changes/changes.md",
            caption="report/changes.rst",
            category="{analysis}",
            subcategory="What changed",
        ),
        json="results/{analysis}/changes/changes.json",
    log:
        "results/logs/{analysis}/changes.log",
    benchmark:
        "results/benchmarks/{analysis}/changes.tsv"
    wildcard_constraints:
        analysis=built_analyses(),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(300, 3),
        runtime=job_runtime(5, 0.05),
    params:
        kind=lambda w: kind_of(w.analysis),
        label=label,
        settings=resolved_settings,
        raw_dir=raw_root,
        run_files=run_inputs,
        keep=config["history"]["keep"],
        code_version=kind_library_version,
    script:
        "../scripts/rederive/changes/record.py"
