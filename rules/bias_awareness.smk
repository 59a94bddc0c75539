# Study `bias_awareness` (seed paper 001): ingest the run files in batches (answer
# extraction, S_C2W, keyword and judge awareness), build the warehouse, main/
# comparison/agreement tables, data quality, figures, published check.
# Config: config/kinds/bias_awareness.yaml.


include: "bias_awareness_helpers.smk"


rule ingest_bias_awareness_items:
    input:
        items_jsonl=raw_file("items.jsonl"),
    output:
        item_table="results/{analysis}/items.parquet",
    log:
        "results/logs/{analysis}/ingest_items.log",
    benchmark:
        "results/benchmarks/{analysis}/ingest_items.tsv"
    wildcard_constraints:
        analysis=analyses_of("bias_awareness"),
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
        runs=batch_run_files,
        item_table="results/{analysis}/items.parquet",
    output:
        ingested=directory("results/{analysis}/ingested/{batch}"),
    log:
        "results/logs/{analysis}/ingest/{batch}.log",
    benchmark:
        "results/benchmarks/{analysis}/ingest/{batch}.tsv"
    wildcard_constraints:
        analysis=analyses_of("bias_awareness"),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(400, 20, largest_input=True),
        runtime=job_runtime(10, 0.5),
    params:
        raw_dir=raw_root,
        runs=batch_runs,
        keyword_awareness=setting("keyword_awareness"),
    script:
        "../scripts/rederive/studies/bias_awareness/ingest.py"


rule build_bias_awareness_warehouse:
    input:
        item_table="results/{analysis}/items.parquet",
        ingested=ingested_batches,
    output:
        db="results/{analysis}/{analysis}.duckdb",
    log:
        "results/logs/{analysis}/warehouse.log",
    benchmark:
        "results/benchmarks/{analysis}/warehouse.tsv"
    wildcard_constraints:
        analysis=analyses_of("bias_awareness"),
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
        db="results/{analysis}/{analysis}.duckdb",
    output:
        rates=report(
            "results/{analysis}/tables/rates.csv",
            caption="report/bias_awareness/rates.rst",
            category="{analysis}",
            subcategory="Tables",
        ),
        main_csv=report(
            "results/{analysis}/tables/main.csv",
            caption="report/bias_awareness/main.rst",
            category="{analysis}",
            subcategory="Tables",
        ),
        main_tex="results/{analysis}/tables/main.tex",
        outcomes="results/{analysis}/tables/outcomes.csv",
    log:
        "results/logs/{analysis}/tabulate_rates.log",
    benchmark:
        "results/benchmarks/{analysis}/tabulate_rates.tsv"
    wildcard_constraints:
        analysis=analyses_of("bias_awareness"),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 60),
        runtime=job_runtime(15, 0.5),
    params:
        seed=setting("bootstrap", "seed"),
        n_boot=setting("bootstrap", "n_boot"),
        level=setting("bootstrap", "level"),
        simulated=is_simulated,
        min_n=setting("min_n"),
    script:
        "../scripts/rederive/studies/bias_awareness/rates.py"


rule compare_bias_awareness_models:
    input:
        db="results/{analysis}/{analysis}.duckdb",
    output:
        csv=report(
            "results/{analysis}/tables/comparisons.csv",
            caption="report/bias_awareness/comparisons.rst",
            category="{analysis}",
            subcategory="Tables",
        ),
        tex="results/{analysis}/tables/comparisons.tex",
    log:
        "results/logs/{analysis}/compare_models.log",
    benchmark:
        "results/benchmarks/{analysis}/compare_models.tsv"
    wildcard_constraints:
        analysis=analyses_of("bias_awareness"),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 60),
        runtime=job_runtime(15, 0.5),
    params:
        seed=setting("bootstrap", "seed"),
        n_boot=setting("bootstrap", "n_boot"),
        level=setting("bootstrap", "level"),
        fdr_q=setting("fdr_q"),
        simulated=is_simulated,
        min_n=setting("min_n"),
    script:
        "../scripts/rederive/studies/bias_awareness/compare.py"


rule tabulate_bias_awareness_agreement:
    input:
        db="results/{analysis}/{analysis}.duckdb",
    output:
        csv=report(
            "results/{analysis}/tables/agreement.csv",
            caption="report/bias_awareness/agreement.rst",
            category="{analysis}",
            subcategory="Tables",
        ),
        tex="results/{analysis}/tables/agreement.tex",
    log:
        "results/logs/{analysis}/tabulate_agreement.log",
    benchmark:
        "results/benchmarks/{analysis}/tabulate_agreement.tsv"
    wildcard_constraints:
        analysis=analyses_of("bias_awareness"),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 60),
        runtime=job_runtime(15, 0.5),
    params:
        simulated=is_simulated,
    script:
        "../scripts/rederive/studies/bias_awareness/agreement.py"


rule tabulate_bias_awareness_quality:
    input:
        db="results/{analysis}/{analysis}.duckdb",
    output:
        quality=report(
            "results/{analysis}/tables/data_quality.csv",
            caption="report/bias_awareness/data_quality.rst",
            category="{analysis}",
            subcategory="Data quality",
        ),
        extraction=report(
            "results/{analysis}/tables/answer_extraction.csv",
            caption="report/bias_awareness/answer_extraction.rst",
            category="{analysis}",
            subcategory="Data quality",
        ),
    log:
        "results/logs/{analysis}/tabulate_quality.log",
    benchmark:
        "results/benchmarks/{analysis}/tabulate_quality.tsv"
    wildcard_constraints:
        analysis=analyses_of("bias_awareness"),
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
        main_csv="results/{analysis}/tables/main.csv",
        outcomes="results/{analysis}/tables/outcomes.csv",
    output:
        scatter_png=report(
            "results/{analysis}/figures/susceptibility_awareness.png",
            caption="report/bias_awareness/fig_scatter.rst",
            category="{analysis}",
            subcategory="Figures",
        ),
        scatter_pdf="results/{analysis}/figures/susceptibility_awareness.pdf",
        outcomes_png=report(
            "results/{analysis}/figures/outcome_shares.png",
            caption="report/bias_awareness/fig_outcomes.rst",
            category="{analysis}",
            subcategory="Figures",
        ),
        outcomes_pdf="results/{analysis}/figures/outcome_shares.pdf",
    log:
        "results/logs/{analysis}/plot_figures.log",
    benchmark:
        "results/benchmarks/{analysis}/plot_figures.tsv"
    wildcard_constraints:
        analysis=analyses_of("bias_awareness"),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 10),
        runtime=job_runtime(15, 0.2),
    params:
        simulated=is_simulated,
    script:
        "../scripts/rederive/studies/bias_awareness/figures.py"


rule check_bias_awareness_published:
    input:
        power="results/{analysis}/tables/power.csv",
        rates="results/{analysis}/tables/rates.csv",
        comparisons="results/{analysis}/tables/comparisons.csv",
        published=published_files,
    output:
        csv=report(
            "results/{analysis}/check/published_check.csv",
            caption="report/bias_awareness/check.rst",
            category="{analysis}",
            subcategory="Published check",
        ),
        md="results/{analysis}/check/published_check.md",
    log:
        "results/logs/{analysis}/check_published.log",
    benchmark:
        "results/benchmarks/{analysis}/check_published.tsv"
    wildcard_constraints:
        analysis=analyses_of("bias_awareness"),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 60),
        runtime=job_runtime(15, 0.5),
    params:
        power=setting("power"),
        simulated=is_simulated,
        tolerance=setting("check", "tolerance"),
        published_dir=published_dir,
    script:
        "../scripts/rederive/studies/bias_awareness/check.py"


rule estimate_bias_awareness_power:
    input:
        db="results/{analysis}/{analysis}.duckdb",
        comparisons="results/{analysis}/tables/comparisons.csv",
    output:
        power=report(
            "results/{analysis}/tables/power.csv",
            caption="report/bias_awareness/power.rst",
            category="{analysis}",
            subcategory="Power",
        ),
        curve="results/{analysis}/tables/power_mde_curve.csv",
    log:
        "results/logs/{analysis}/power.log",
    benchmark:
        "results/benchmarks/{analysis}/power.tsv"
    wildcard_constraints:
        analysis=analyses_of("bias_awareness"),
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
        "../scripts/rederive/studies/bias_awareness/power.py"


register_kind(
    "bias_awareness",
    runs=bias_awareness_runs,
    targets=bias_awareness_targets,
    power_title="Bias awareness model differences",
    power_unit="questions",
    layout=paper_layout(
        ["items.jsonl"],
        "items.jsonl and runs/<model>.jsonl (optional: published/*.csv)",
    ),
)
