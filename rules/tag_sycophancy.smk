# Study `tag_sycophancy` (seed paper 002): appended tag questions across models.
# ingest the run files in batches -> warehouse -> effects (bootstrap, BH, floor guard) ->
# panel analyses, audit tables, figures, published check. Config: config/kinds/tag_sycophancy.yaml.


include: "tag_sycophancy_helpers.smk"


rule ingest_tag_sycophancy_batch:
    input:
        runs=batch_run_files,
        item_file=raw_file("items.jsonl"),
    output:
        ingested=directory("results/{analysis}/ingested/{batch}"),
    log:
        "results/logs/{analysis}/ingest/{batch}.log",
    benchmark:
        "results/benchmarks/{analysis}/ingest/{batch}.tsv"
    wildcard_constraints:
        analysis=analyses_of("tag_sycophancy"),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(400, 20, largest_input=True),
        runtime=job_runtime(10, 0.5),
    params:
        raw_dir=raw_root,
        runs=batch_runs,
        arms=setting("arms"),
        endorse=setting("labelling", "endorse"),
        reject=setting("labelling", "reject"),
    script:
        "../scripts/rederive/studies/tag_sycophancy/ingest.py"


rule build_tag_sycophancy_warehouse:
    input:
        item_file=raw_file("items.jsonl"),
        ingested=ingested_batches,
        models=optional_raw_file("models.csv"),
    output:
        db="results/{analysis}/{analysis}.duckdb",
    log:
        "results/logs/{analysis}/warehouse.log",
    benchmark:
        "results/benchmarks/{analysis}/warehouse.tsv"
    wildcard_constraints:
        analysis=analyses_of("tag_sycophancy"),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(500, 100),
        runtime=job_runtime(10, 0.2),
    script:
        "../scripts/rederive/studies/tag_sycophancy/warehouse.py"


rule tabulate_tag_sycophancy_effects:
    input:
        db="results/{analysis}/{analysis}.duckdb",
    output:
        table=tagsyc_report("results/{analysis}/tables/tag_effects.csv", "tag_effects"),
        tex="results/{analysis}/tables/tag_effects.tex",
        effects=tagsyc_report(
            "results/{analysis}/tables/arm_effects.csv", "arm_effects"
        ),
        cells="results/{analysis}/tables/cell_counts.csv",
    log:
        "results/logs/{analysis}/tabulate_effects.log",
    benchmark:
        "results/benchmarks/{analysis}/tabulate_effects.tsv"
    wildcard_constraints:
        analysis=analyses_of("tag_sycophancy"),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 60),
        runtime=job_runtime(15, 0.5),
    params:
        arms=setting("arms"),
        n_boot=setting("bootstrap", "n_boot"),
        level=setting("bootstrap", "level"),
        seed=setting("bootstrap", "seed"),
        q=setting("fdr_q"),
        floor_threshold=setting("floor_threshold"),
        min_n=setting("min_n"),
        simulated=is_simulated,
    script:
        "../scripts/rederive/studies/tag_sycophancy/effects.py"


rule tabulate_tag_sycophancy_panel:
    input:
        db="results/{analysis}/{analysis}.duckdb",
        table="results/{analysis}/tables/tag_effects.csv",
        effects="results/{analysis}/tables/arm_effects.csv",
        cells="results/{analysis}/tables/cell_counts.csv",
    output:
        composition=tagsyc_report(
            "results/{analysis}/tables/composition.csv", "composition"
        ),
        trend=tagsyc_report(
            "results/{analysis}/tables/lineage_trend.csv", "lineage_trend"
        ),
        lineages=tagsyc_report(
            "results/{analysis}/tables/lineage_endpoints.csv", "lineage_endpoints"
        ),
        ablations=tagsyc_report("results/{analysis}/tables/ablations.csv", "ablations"),
        maybe=tagsyc_report("results/{analysis}/tables/maybe.csv", "maybe"),
        category=tagsyc_report(
            "results/{analysis}/tables/category_split.csv", "category_split"
        ),
        summary=tagsyc_report(
            "results/{analysis}/tables/panel_summary.csv", "panel_summary"
        ),
    log:
        "results/logs/{analysis}/tabulate_panel.log",
    benchmark:
        "results/benchmarks/{analysis}/tabulate_panel.tsv"
    wildcard_constraints:
        analysis=analyses_of("tag_sycophancy"),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 60),
        runtime=job_runtime(15, 0.5),
    params:
        q=setting("fdr_q"),
        rubber_stamp_threshold=setting("rubber_stamp_threshold"),
        min_models_per_lineage=setting("trend", "min_models_per_lineage"),
        exclude_floor_limited=setting("trend", "exclude_floor_limited"),
    script:
        "../scripts/rederive/studies/tag_sycophancy/panel.py"


rule tabulate_tag_sycophancy_audit:
    input:
        db="results/{analysis}/{analysis}.duckdb",
    output:
        tokens=tagsyc_report(
            "results/{analysis}/tables/leading_tokens.csv", "leading_tokens"
        ),
        quality=tagsyc_report(
            "results/{analysis}/tables/data_quality.csv", "data_quality"
        ),
    log:
        "results/logs/{analysis}/tabulate_audit.log",
    benchmark:
        "results/benchmarks/{analysis}/tabulate_audit.tsv"
    wildcard_constraints:
        analysis=analyses_of("tag_sycophancy"),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 60),
        runtime=job_runtime(15, 0.5),
    params:
        endorse=setting("labelling", "endorse"),
        reject=setting("labelling", "reject"),
    script:
        "../scripts/rederive/studies/tag_sycophancy/audit.py"


rule plot_tag_sycophancy_figures:
    input:
        table="results/{analysis}/tables/tag_effects.csv",
        effects="results/{analysis}/tables/arm_effects.csv",
        trend="results/{analysis}/tables/lineage_trend.csv",
        maybe="results/{analysis}/tables/maybe.csv",
        summary="results/{analysis}/tables/panel_summary.csv",
        published=published_files,
    output:
        pngs=[
            tagsyc_report(f"results/{{analysis}}/figures/{n}.png", n)
            for n in TAGSYC_FIGURE_NAMES
        ],
        pdfs=[f"results/{{analysis}}/figures/{n}.pdf" for n in TAGSYC_FIGURE_NAMES],
    log:
        "results/logs/{analysis}/plot_figures.log",
    benchmark:
        "results/benchmarks/{analysis}/plot_figures.tsv"
    wildcard_constraints:
        analysis=analyses_of("tag_sycophancy"),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 10),
        runtime=job_runtime(15, 0.2),
    params:
        simulated=is_simulated,
        level=setting("bootstrap", "level"),
        floor_threshold=setting("floor_threshold"),
    script:
        "../scripts/rederive/studies/tag_sycophancy/figures.py"


rule check_tag_sycophancy_published:
    input:
        power="results/{analysis}/tables/power.csv",
        table="results/{analysis}/tables/tag_effects.csv",
        composition="results/{analysis}/tables/composition.csv",
        lineages="results/{analysis}/tables/lineage_endpoints.csv",
        summary="results/{analysis}/tables/panel_summary.csv",
    output:
        csv=tagsyc_report("results/{analysis}/check/published_check.csv", "check"),
        md="results/{analysis}/check/published_check.md",
    log:
        "results/logs/{analysis}/check_published.log",
    benchmark:
        "results/benchmarks/{analysis}/check_published.tsv"
    wildcard_constraints:
        analysis=analyses_of("tag_sycophancy"),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 60),
        runtime=job_runtime(15, 0.5),
    params:
        power=setting("power"),
        published_dir=published_dir,
        effect_tolerance=setting("check", "tolerance"),
        ci_tolerance=setting("check", "ci_tolerance"),
        simulated=is_simulated,
    script:
        "../scripts/rederive/studies/tag_sycophancy/check.py"


rule estimate_tag_sycophancy_power:
    input:
        db="results/{analysis}/{analysis}.duckdb",
        effects="results/{analysis}/tables/tag_effects.csv",
        cells="results/{analysis}/tables/cell_counts.csv",
    output:
        power=report(
            "results/{analysis}/tables/power.csv",
            caption="report/tag_sycophancy/power.rst",
            category="{analysis}",
            subcategory="Power",
        ),
        curve="results/{analysis}/tables/power_mde_curve.csv",
    log:
        "results/logs/{analysis}/power.log",
    benchmark:
        "results/benchmarks/{analysis}/power.tsv"
    wildcard_constraints:
        analysis=analyses_of("tag_sycophancy"),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(500, 20),
        runtime=job_runtime(10, 0.5),
    params:
        power=setting("power"),
        fdr_q=setting("fdr_q"),
    script:
        "../scripts/rederive/studies/tag_sycophancy/power.py"


register_kind(
    "tag_sycophancy",
    runs=tag_sycophancy_runs,
    targets=tag_sycophancy_targets,
    power_title="Tag sycophancy, per-model tag effect",
    power_unit="items",
    layout=paper_layout(
        ["items.jsonl"],
        "items.jsonl and runs/<model>.jsonl (optional: models.csv, published/*.csv)",
    ),
)
