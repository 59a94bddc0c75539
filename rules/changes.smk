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
    params:
        kind=lambda w: kind_of(w.analysis),
        label=label,
        settings=resolved_settings,
        raw_dir=raw_root,
        run_files=run_inputs,
        keep=config["history"]["keep"],
        code_version=kind_library_version,
        headline=lambda w: headline_of(w.analysis),
    script:
        "../scripts/rederive/changes/record.py"


# What each job asks a scheduler for (rules/common.smk: job_size): memory (MB)
# and runtime (min) bases, their growth per MB of input, from results/benchmarks/.
size_jobs(
    report_changes=job_size(300, 5, mem_per_input_mb=3, runtime_per_input_mb=0.05),
)
