# Study `bias_awareness` (seed paper 001): ingest the run files in batches (answer
# extraction, S_C2W, keyword and judge awareness), build the warehouse, main/
# comparison/agreement tables, data quality, figures, published check.
# Config: config/bias_awareness.yaml.


include: "bias_awareness_helpers.smk"


rule ingest_bias_awareness_items:
    input:
        items_jsonl=raw_dir("bias_awareness") / "items.jsonl",
    output:
        item_table="results/bias_awareness/items.parquet",
    log:
        "results/logs/bias_awareness/ingest_items.log",
    benchmark:
        "results/benchmarks/bias_awareness/ingest_items.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(400, 20),
        runtime=job_runtime(10, 0.5),
    script:
        "../scripts/rederive/studies/bias_awareness/items.py"


rule ingest_bias_awareness_batch:
    input:
        runs=batch_run_files("bias_awareness"),
        item_table="results/bias_awareness/items.parquet",
    output:
        ingested=directory("results/bias_awareness/ingested/{batch}"),
    log:
        "results/logs/bias_awareness/ingest/{batch}.log",
    benchmark:
        "results/benchmarks/bias_awareness/ingest/{batch}.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(400, 20, largest_input=True),
        runtime=job_runtime(10, 0.5),
    params:
        runs=batch_runs("bias_awareness"),
        keyword_awareness=BIAS_AWARENESS["keyword_awareness"],
    script:
        "../scripts/rederive/studies/bias_awareness/ingest.py"


rule build_bias_awareness_warehouse:
    input:
        item_table="results/bias_awareness/items.parquet",
        ingested=ingested_batches("bias_awareness"),
    output:
        db="results/bias_awareness/bias_awareness.duckdb",
    log:
        "results/logs/bias_awareness/warehouse.log",
    benchmark:
        "results/benchmarks/bias_awareness/warehouse.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(500, 100),
        runtime=job_runtime(10, 0.2),
    script:
        "../scripts/rederive/studies/bias_awareness/warehouse.py"


rule tabulate_bias_awareness_rates:
    input:
        db="results/bias_awareness/bias_awareness.duckdb",
    output:
        rates=report(
            "results/bias_awareness/tables/rates.csv",
            caption="report/bias_awareness/rates.rst",
            category="Bias awareness",
            subcategory="Tables",
        ),
        main_csv=report(
            "results/bias_awareness/tables/main.csv",
            caption="report/bias_awareness/main.rst",
            category="Bias awareness",
            subcategory="Tables",
        ),
        main_tex="results/bias_awareness/tables/main.tex",
        outcomes="results/bias_awareness/tables/outcomes.csv",
    log:
        "results/logs/bias_awareness/tabulate_rates.log",
    benchmark:
        "results/benchmarks/bias_awareness/tabulate_rates.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 60),
        runtime=job_runtime(15, 0.5),
    params:
        seed=BIAS_AWARENESS["seed"],
        n_boot=BIAS_AWARENESS["n_boot"],
        level=BIAS_AWARENESS["ci_level"],
        simulated=bias_awareness_simulated(),
        min_n=BIAS_AWARENESS["min_n"],
    script:
        "../scripts/rederive/studies/bias_awareness/rates.py"


rule compare_bias_awareness_models:
    input:
        db="results/bias_awareness/bias_awareness.duckdb",
    output:
        csv=report(
            "results/bias_awareness/tables/comparisons.csv",
            caption="report/bias_awareness/comparisons.rst",
            category="Bias awareness",
            subcategory="Tables",
        ),
        tex="results/bias_awareness/tables/comparisons.tex",
    log:
        "results/logs/bias_awareness/compare_models.log",
    benchmark:
        "results/benchmarks/bias_awareness/compare_models.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 60),
        runtime=job_runtime(15, 0.5),
    params:
        seed=BIAS_AWARENESS["seed"],
        n_boot=BIAS_AWARENESS["n_boot"],
        level=BIAS_AWARENESS["ci_level"],
        fdr_q=BIAS_AWARENESS["fdr_q"],
        simulated=bias_awareness_simulated(),
        min_n=BIAS_AWARENESS["min_n"],
    script:
        "../scripts/rederive/studies/bias_awareness/compare.py"


rule tabulate_bias_awareness_agreement:
    input:
        db="results/bias_awareness/bias_awareness.duckdb",
    output:
        csv=report(
            "results/bias_awareness/tables/agreement.csv",
            caption="report/bias_awareness/agreement.rst",
            category="Bias awareness",
            subcategory="Tables",
        ),
        tex="results/bias_awareness/tables/agreement.tex",
    log:
        "results/logs/bias_awareness/tabulate_agreement.log",
    benchmark:
        "results/benchmarks/bias_awareness/tabulate_agreement.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 60),
        runtime=job_runtime(15, 0.5),
    params:
        simulated=bias_awareness_simulated(),
    script:
        "../scripts/rederive/studies/bias_awareness/agreement.py"


rule tabulate_bias_awareness_quality:
    input:
        db="results/bias_awareness/bias_awareness.duckdb",
    output:
        quality=report(
            "results/bias_awareness/tables/data_quality.csv",
            caption="report/bias_awareness/data_quality.rst",
            category="Bias awareness",
            subcategory="Data quality",
        ),
        extraction=report(
            "results/bias_awareness/tables/answer_extraction.csv",
            caption="report/bias_awareness/answer_extraction.rst",
            category="Bias awareness",
            subcategory="Data quality",
        ),
    log:
        "results/logs/bias_awareness/tabulate_quality.log",
    benchmark:
        "results/benchmarks/bias_awareness/tabulate_quality.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 60),
        runtime=job_runtime(15, 0.5),
    script:
        "../scripts/rederive/studies/bias_awareness/quality.py"


rule plot_bias_awareness_figures:
    input:
        main_csv="results/bias_awareness/tables/main.csv",
        outcomes="results/bias_awareness/tables/outcomes.csv",
    output:
        scatter_png=report(
            "results/bias_awareness/figures/susceptibility_awareness.png",
            caption="report/bias_awareness/fig_scatter.rst",
            category="Bias awareness",
            subcategory="Figures",
        ),
        scatter_pdf="results/bias_awareness/figures/susceptibility_awareness.pdf",
        outcomes_png=report(
            "results/bias_awareness/figures/outcome_shares.png",
            caption="report/bias_awareness/fig_outcomes.rst",
            category="Bias awareness",
            subcategory="Figures",
        ),
        outcomes_pdf="results/bias_awareness/figures/outcome_shares.pdf",
    log:
        "results/logs/bias_awareness/plot_figures.log",
    benchmark:
        "results/benchmarks/bias_awareness/plot_figures.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 10),
        runtime=job_runtime(15, 0.2),
    params:
        simulated=bias_awareness_simulated(),
    script:
        "../scripts/rederive/studies/bias_awareness/figures.py"


rule check_bias_awareness_published:
    input:
        power="results/bias_awareness/tables/power.csv",
        rates="results/bias_awareness/tables/rates.csv",
        comparisons="results/bias_awareness/tables/comparisons.csv",
        published=bias_awareness_published,
    output:
        csv=report(
            "results/bias_awareness/check/published_check.csv",
            caption="report/bias_awareness/check.rst",
            category="Bias awareness",
            subcategory="Published check",
        ),
        md="results/bias_awareness/check/published_check.md",
    log:
        "results/logs/bias_awareness/check_published.log",
    benchmark:
        "results/benchmarks/bias_awareness/check_published.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 60),
        runtime=job_runtime(15, 0.5),
    params:
        power=BIAS_AWARENESS["power"],
        simulated=bias_awareness_simulated(),
        tolerance=BIAS_AWARENESS["published_tolerance_pp"],
        published_dir=str(raw_dir("bias_awareness") / "published"),
    script:
        "../scripts/rederive/studies/bias_awareness/check.py"
