# Study `tag_sycophancy` (seed paper 002): appended tag questions across models.
# ingest the run files in batches -> warehouse -> effects (bootstrap, BH, floor guard) ->
# panel analyses, audit tables, figures, published check. Config: config/tag_sycophancy.yaml.


include: "tag_sycophancy_helpers.smk"


rule ingest_tag_sycophancy_batch:
    input:
        runs=batch_run_files("tag_sycophancy"),
        item_file=raw_dir("tag_sycophancy") / "items.jsonl",
    output:
        ingested=directory("results/tag_sycophancy/ingested/{batch}"),
    log:
        "results/logs/tag_sycophancy/ingest/{batch}.log",
    benchmark:
        "results/benchmarks/tag_sycophancy/ingest/{batch}.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(400, 20, largest_input=True),
        runtime=job_runtime(10, 0.5),
    params:
        runs=batch_runs("tag_sycophancy"),
        arms=TAGSYC["arms"],
        endorse=TAGSYC["labelling"]["endorse"],
        reject=TAGSYC["labelling"]["reject"],
    script:
        "../scripts/rederive/studies/tag_sycophancy/ingest.py"


rule build_tag_sycophancy_warehouse:
    input:
        item_file=raw_dir("tag_sycophancy") / "items.jsonl",
        ingested=ingested_batches("tag_sycophancy"),
        models=tag_sycophancy_models_csv,
    output:
        db="results/tag_sycophancy/tag_sycophancy.duckdb",
    log:
        "results/logs/tag_sycophancy/warehouse.log",
    benchmark:
        "results/benchmarks/tag_sycophancy/warehouse.tsv"
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
        db="results/tag_sycophancy/tag_sycophancy.duckdb",
    output:
        table=tagsyc_report(f"{TAGSYC_TABLES}/tag_effects.csv", "tag_effects"),
        tex=f"{TAGSYC_TABLES}/tag_effects.tex",
        effects=tagsyc_report(f"{TAGSYC_TABLES}/arm_effects.csv", "arm_effects"),
        cells=f"{TAGSYC_TABLES}/cell_counts.csv",
    log:
        "results/logs/tag_sycophancy/tabulate_effects.log",
    benchmark:
        "results/benchmarks/tag_sycophancy/tabulate_effects.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 60),
        runtime=job_runtime(15, 0.5),
    params:
        arms=TAGSYC["arms"],
        n_boot=TAGSYC["bootstrap"]["n_boot"],
        level=TAGSYC["bootstrap"]["level"],
        seed=TAGSYC["bootstrap"]["seed"],
        q=TAGSYC["fdr_q"],
        floor_threshold=TAGSYC["floor_threshold"],
        min_n=TAGSYC["min_n"],
        simulated=tag_sycophancy_simulated(),
    script:
        "../scripts/rederive/studies/tag_sycophancy/effects.py"


rule tabulate_tag_sycophancy_panel:
    input:
        db="results/tag_sycophancy/tag_sycophancy.duckdb",
        table=f"{TAGSYC_TABLES}/tag_effects.csv",
        effects=f"{TAGSYC_TABLES}/arm_effects.csv",
        cells=f"{TAGSYC_TABLES}/cell_counts.csv",
    output:
        composition=tagsyc_report(f"{TAGSYC_TABLES}/composition.csv", "composition"),
        trend=tagsyc_report(f"{TAGSYC_TABLES}/lineage_trend.csv", "lineage_trend"),
        lineages=tagsyc_report(
            f"{TAGSYC_TABLES}/lineage_endpoints.csv", "lineage_endpoints"
        ),
        ablations=tagsyc_report(f"{TAGSYC_TABLES}/ablations.csv", "ablations"),
        maybe=tagsyc_report(f"{TAGSYC_TABLES}/maybe.csv", "maybe"),
        category=tagsyc_report(f"{TAGSYC_TABLES}/category_split.csv", "category_split"),
        summary=tagsyc_report(f"{TAGSYC_TABLES}/panel_summary.csv", "panel_summary"),
    log:
        "results/logs/tag_sycophancy/tabulate_panel.log",
    benchmark:
        "results/benchmarks/tag_sycophancy/tabulate_panel.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 60),
        runtime=job_runtime(15, 0.5),
    params:
        q=TAGSYC["fdr_q"],
        rubber_stamp_threshold=TAGSYC["rubber_stamp_threshold"],
        min_models_per_lineage=TAGSYC["trend"]["min_models_per_lineage"],
        exclude_floor_limited=TAGSYC["trend"]["exclude_floor_limited"],
    script:
        "../scripts/rederive/studies/tag_sycophancy/panel.py"


rule tabulate_tag_sycophancy_audit:
    input:
        db="results/tag_sycophancy/tag_sycophancy.duckdb",
    output:
        tokens=tagsyc_report(f"{TAGSYC_TABLES}/leading_tokens.csv", "leading_tokens"),
        quality=tagsyc_report(f"{TAGSYC_TABLES}/data_quality.csv", "data_quality"),
    log:
        "results/logs/tag_sycophancy/tabulate_audit.log",
    benchmark:
        "results/benchmarks/tag_sycophancy/tabulate_audit.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 60),
        runtime=job_runtime(15, 0.5),
    params:
        endorse=TAGSYC["labelling"]["endorse"],
        reject=TAGSYC["labelling"]["reject"],
    script:
        "../scripts/rederive/studies/tag_sycophancy/audit.py"


rule plot_tag_sycophancy_figures:
    input:
        table=f"{TAGSYC_TABLES}/tag_effects.csv",
        effects=f"{TAGSYC_TABLES}/arm_effects.csv",
        trend=f"{TAGSYC_TABLES}/lineage_trend.csv",
        maybe=f"{TAGSYC_TABLES}/maybe.csv",
        summary=f"{TAGSYC_TABLES}/panel_summary.csv",
    output:
        pngs=[
            tagsyc_report(f"{TAGSYC_FIGURES}/{n}.png", n) for n in TAGSYC_FIGURE_NAMES
        ],
        pdfs=[f"{TAGSYC_FIGURES}/{n}.pdf" for n in TAGSYC_FIGURE_NAMES],
    log:
        "results/logs/tag_sycophancy/plot_figures.log",
    benchmark:
        "results/benchmarks/tag_sycophancy/plot_figures.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 10),
        runtime=job_runtime(15, 0.2),
    params:
        simulated=tag_sycophancy_simulated(),
        level=TAGSYC["bootstrap"]["level"],
        floor_threshold=TAGSYC["floor_threshold"],
    script:
        "../scripts/rederive/studies/tag_sycophancy/figures.py"


rule check_tag_sycophancy_published:
    input:
        power="results/tag_sycophancy/tables/power.csv",
        table=f"{TAGSYC_TABLES}/tag_effects.csv",
        composition=f"{TAGSYC_TABLES}/composition.csv",
        lineages=f"{TAGSYC_TABLES}/lineage_endpoints.csv",
        summary=f"{TAGSYC_TABLES}/panel_summary.csv",
    output:
        csv=tagsyc_report("results/tag_sycophancy/check/published_check.csv", "check"),
        md="results/tag_sycophancy/check/published_check.md",
    log:
        "results/logs/tag_sycophancy/check_published.log",
    benchmark:
        "results/benchmarks/tag_sycophancy/check_published.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 60),
        runtime=job_runtime(15, 0.5),
    params:
        power=TAGSYC["power"],
        published_dir=str(raw_dir("tag_sycophancy") / "published"),
        effect_tolerance=TAGSYC["check"]["effect_tolerance"],
        ci_tolerance=TAGSYC["check"]["ci_tolerance"],
        simulated=tag_sycophancy_simulated(),
    script:
        "../scripts/rederive/studies/tag_sycophancy/check.py"
