# Study `benchmark`: any graded evaluation run (lm-evaluation-harness samples,
# Inspect .eval logs, matrix or long CSV/JSONL). Default input: the REAL ChemBench
# matrix. Config: config/benchmark.yaml. Flow: ingest runs in batches -> warehouse ->
# accuracy, pairwise/ranking, IRT, failure clustering, data quality -> figures,
# published check.


include: "benchmark_helpers.smk"


rule ingest_benchmark_batch:
    input:
        files=benchmark_batch_files,
    output:
        ingested=directory("results/benchmark/ingested/{batch}"),
    log:
        "results/logs/benchmark/ingest/{batch}.log",
    benchmark:
        "results/benchmarks/benchmark/ingest/{batch}.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(400, 20, largest_input=True),
        runtime=job_runtime(10, 0.5),
    params:
        sources=benchmark_batch_sources,
        readers={
            "lm_eval": BENCHMARK["lm_eval"],
            "inspect": BENCHMARK["inspect"],
            "zip_limits": BENCHMARK["zip_limits"],
        },
    script:
        "../scripts/rederive/studies/benchmark/ingest.py"


rule build_benchmark_warehouse:
    input:
        ingested=ingested_batches("benchmark"),
        item_metadata=benchmark_items_file,
    output:
        db="results/benchmark/benchmark.duckdb",
    log:
        "results/logs/benchmark/warehouse.log",
    benchmark:
        "results/benchmarks/benchmark/warehouse.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(500, 100),
        runtime=job_runtime(10, 0.2),
    params:
        items_file=lambda w, input: (
            input.item_metadata[0] if input.item_metadata else ""
        ),
        item_sets=BENCHMARK["item_sets"],
    script:
        "../scripts/rederive/studies/benchmark/warehouse.py"


rule analyse_benchmark_accuracy:
    input:
        db="results/benchmark/benchmark.duckdb",
    output:
        accuracy=report(
            f"{BENCHMARK_TABLES}/accuracy.csv",
            caption="report/benchmark/accuracy.rst",
            category="Benchmark",
            subcategory="Tables",
        ),
        by_category=report(
            f"{BENCHMARK_TABLES}/accuracy_by_category.csv",
            caption="report/benchmark/accuracy_by_category.rst",
            category="Benchmark",
            subcategory="Tables",
        ),
        by_task=report(
            f"{BENCHMARK_TABLES}/accuracy_by_task.csv",
            caption="report/benchmark/accuracy_by_task.rst",
            category="Benchmark",
            subcategory="Tables",
        ),
        tex=f"{BENCHMARK_TABLES}/accuracy.tex",
    log:
        "results/logs/benchmark/accuracy.log",
    benchmark:
        "results/benchmarks/benchmark/accuracy.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 60),
        runtime=job_runtime(15, 0.5),
    params:
        n_boot=BENCHMARK["n_boot"],
        seed=BENCHMARK["seed"],
        ci_level=BENCHMARK["ci_level"],
        cluster_by=BENCHMARK["cluster_by"],
        data_note=benchmark_data_note(),
        min_n=BENCHMARK["min_n"],
    script:
        "../scripts/rederive/studies/benchmark/accuracy.py"


rule compare_benchmark_models:
    input:
        db="results/benchmark/benchmark.duckdb",
        accuracy=f"{BENCHMARK_TABLES}/accuracy.csv",
    output:
        pairwise=report(
            f"{BENCHMARK_TABLES}/pairwise.csv",
            caption="report/benchmark/pairwise.rst",
            category="Benchmark",
            subcategory="Tables",
        ),
        ranking=report(
            f"{BENCHMARK_TABLES}/ranking.csv",
            caption="report/benchmark/ranking.rst",
            category="Benchmark",
            subcategory="Tables",
        ),
        tex=f"{BENCHMARK_TABLES}/ranking.tex",
    log:
        "results/logs/benchmark/pairwise.log",
    benchmark:
        "results/benchmarks/benchmark/pairwise.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 60),
        runtime=job_runtime(15, 0.5),
    params:
        n_boot=BENCHMARK["n_boot"],
        seed=BENCHMARK["seed"],
        fdr_q=BENCHMARK["fdr_q"],
        cluster_by=BENCHMARK["cluster_by"],
        data_note=benchmark_data_note(),
        min_n=BENCHMARK["min_n"],
    script:
        "../scripts/rederive/studies/benchmark/pairwise.py"


rule fit_benchmark_irt:
    input:
        db="results/benchmark/benchmark.duckdb",
        accuracy=f"{BENCHMARK_TABLES}/accuracy.csv",
    output:
        ability=report(
            f"{BENCHMARK_TABLES}/irt_ability.csv",
            caption="report/benchmark/irt_ability.rst",
            category="Benchmark",
            subcategory="IRT",
        ),
        difficulty=report(
            f"{BENCHMARK_TABLES}/irt_difficulty.csv",
            caption="report/benchmark/irt_difficulty.rst",
            category="Benchmark",
            subcategory="IRT",
        ),
        fit=f"{BENCHMARK_TABLES}/irt_fit.csv",
    log:
        "results/logs/benchmark/irt.log",
    benchmark:
        "results/benchmarks/benchmark/irt.tsv"
    # The longest chain of its study (fit, then figures): start it first.
    priority: 10
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(1200, 60),
        runtime=job_runtime(60, 2),
    params:
        epochs=BENCHMARK["irt"]["epochs"],
        lr=BENCHMARK["irt"]["lr"],
        lr_decay=BENCHMARK["irt"]["lr_decay"],
        tol=BENCHMARK["irt"]["tol"],
        priors=BENCHMARK["irt"]["priors"],
        seed=BENCHMARK["irt"]["seed"],
        n_boot=BENCHMARK["n_boot"],
        ci_level=BENCHMARK["ci_level"],
        cluster_by=BENCHMARK["cluster_by"],
        min_n=BENCHMARK["min_n"],
    script:
        "../scripts/rederive/studies/benchmark/irt.py"


rule cluster_benchmark_failures:
    input:
        db="results/benchmark/benchmark.duckdb",
    output:
        jaccard=report(
            f"{BENCHMARK_TABLES}/jaccard.csv",
            caption="report/benchmark/jaccard.rst",
            category="Benchmark",
            subcategory="Failure clustering",
        ),
        co_failure=report(
            f"{BENCHMARK_TABLES}/co_failure.csv",
            caption="report/benchmark/co_failure.rst",
            category="Benchmark",
            subcategory="Failure clustering",
        ),
        linkage=f"{BENCHMARK_TABLES}/failure_linkage.csv",
        extreme_pairs=report(
            f"{BENCHMARK_TABLES}/extreme_pairs.csv",
            caption="report/benchmark/extreme_pairs.rst",
            category="Benchmark",
            subcategory="Failure clustering",
        ),
        failed_by_all=report(
            f"{BENCHMARK_TABLES}/failed_by_all.csv",
            caption="report/benchmark/failed_by_all.rst",
            category="Benchmark",
            subcategory="Failure clustering",
        ),
    log:
        "results/logs/benchmark/similarity.log",
    benchmark:
        "results/benchmarks/benchmark/similarity.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 60),
        runtime=job_runtime(15, 0.5),
    params:
        linkage=BENCHMARK["similarity"]["linkage"],
        n_extreme_pairs=BENCHMARK["similarity"]["n_extreme_pairs"],
    script:
        "../scripts/rederive/studies/benchmark/similarity.py"


rule tabulate_benchmark_quality:
    input:
        db="results/benchmark/benchmark.duckdb",
        ingested=ingested_batches("benchmark"),
    output:
        quality=report(
            f"{BENCHMARK_TABLES}/data_quality.csv",
            caption="report/benchmark/data_quality.rst",
            category="Benchmark",
            subcategory="Data quality",
        ),
        overlap=report(
            f"{BENCHMARK_TABLES}/item_overlap.csv",
            caption="report/benchmark/item_overlap.rst",
            category="Benchmark",
            subcategory="Data quality",
        ),
    log:
        "results/logs/benchmark/quality.log",
    benchmark:
        "results/benchmarks/benchmark/quality.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 60),
        runtime=job_runtime(15, 0.5),
    script:
        "../scripts/rederive/studies/benchmark/quality.py"


rule plot_benchmark_figures:
    input:
        accuracy=f"{BENCHMARK_TABLES}/accuracy.csv",
        pairwise=f"{BENCHMARK_TABLES}/pairwise.csv",
        ranking=f"{BENCHMARK_TABLES}/ranking.csv",
        ability=f"{BENCHMARK_TABLES}/irt_ability.csv",
        difficulty=f"{BENCHMARK_TABLES}/irt_difficulty.csv",
        jaccard=f"{BENCHMARK_TABLES}/jaccard.csv",
        linkage=f"{BENCHMARK_TABLES}/failure_linkage.csv",
    output:
        **{
            f"{name}_png": report(
                f"{BENCHMARK_FIGURES}/{name}.png",
                caption=f"report/benchmark/fig_{name}.rst",
                category="Benchmark",
                subcategory="Figures",
            )
            for name in BENCHMARK_FIGURE_NAMES
        },
        **{
            f"{name}_pdf": f"{BENCHMARK_FIGURES}/{name}.pdf"
            for name in BENCHMARK_FIGURE_NAMES
        },
    log:
        "results/logs/benchmark/figures.log",
    benchmark:
        "results/benchmarks/benchmark/figures.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 10),
        runtime=job_runtime(15, 0.2),
    params:
        data_note=benchmark_data_note(),
        fdr_q=BENCHMARK["fdr_q"],
    script:
        "../scripts/rederive/studies/benchmark/figures.py"


rule check_benchmark_published:
    input:
        power="results/benchmark/tables/power.csv",
        accuracy=f"{BENCHMARK_TABLES}/accuracy.csv",
        db="results/benchmark/benchmark.duckdb",
    output:
        csv=report(
            "results/benchmark/check/published_check.csv",
            caption="report/benchmark/check.rst",
            category="Benchmark",
            subcategory="Published check",
        ),
        md="results/benchmark/check/published_check.md",
    log:
        "results/logs/benchmark/check_published.log",
    benchmark:
        "results/benchmarks/benchmark/check_published.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 60),
        runtime=job_runtime(15, 0.5),
    params:
        power=BENCHMARK["power"],
        published_dir=str(raw_dir("benchmark") / "published"),
        tolerance=BENCHMARK["check"]["tolerance"],
        data_note=benchmark_data_note(),
    script:
        "../scripts/rederive/studies/benchmark/check.py"
