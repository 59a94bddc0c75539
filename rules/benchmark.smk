# Kind `benchmark`: any graded evaluation run (lm-evaluation-harness samples,
# Inspect .eval logs, matrix or long CSV/JSONL); the bundled analysis of this kind
# runs on the REAL ChemBench matrix. Options: config/kinds/benchmark.yaml. Flow: ingest runs in batches -> warehouse ->
# accuracy, pairwise/ranking, IRT, failure clustering, data quality -> figures,
# published check.


include: "benchmark_helpers.smk"


rule ingest_benchmark_batch:
    input:
        files=benchmark_batch_files,
    output:
        ingested=directory("results/{analysis}/ingested/{batch}"),
    log:
        "results/logs/{analysis}/ingest/{batch}.log",
    benchmark:
        "results/benchmarks/{analysis}/ingest/{batch}.tsv"
    wildcard_constraints:
        analysis=analyses_of("benchmark"),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(400, 20, largest_input=True),
        runtime=job_runtime(10, 0.5),
    params:
        raw_dir=raw_root,
        sources=benchmark_batch_sources,
        readers=benchmark_readers,
    script:
        "../scripts/rederive/studies/benchmark/ingest.py"


rule build_benchmark_warehouse:
    input:
        ingested=ingested_batches,
        item_metadata=optional_raw_file("items.csv"),
    output:
        db="results/{analysis}/{analysis}.duckdb",
    log:
        "results/logs/{analysis}/warehouse.log",
    benchmark:
        "results/benchmarks/{analysis}/warehouse.tsv"
    wildcard_constraints:
        analysis=analyses_of("benchmark"),
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
        item_sets=setting("item_sets"),
        shared_items=setting("shared_items"),
        partial_share=setting("partial_share"),
        min_n=setting("min_n"),
    script:
        "../scripts/rederive/studies/benchmark/warehouse.py"


rule analyse_benchmark_accuracy:
    input:
        db="results/{analysis}/{analysis}.duckdb",
    output:
        accuracy=report(
            "results/{analysis}/tables/accuracy.csv",
            caption="report/benchmark/accuracy.rst",
            category="{analysis}",
            subcategory="Tables",
        ),
        by_category=report(
            "results/{analysis}/tables/accuracy_by_category.csv",
            caption="report/benchmark/accuracy_by_category.rst",
            category="{analysis}",
            subcategory="Tables",
        ),
        by_task=report(
            "results/{analysis}/tables/accuracy_by_task.csv",
            caption="report/benchmark/accuracy_by_task.rst",
            category="{analysis}",
            subcategory="Tables",
        ),
        tex="results/{analysis}/tables/accuracy.tex",
    log:
        "results/logs/{analysis}/accuracy.log",
    benchmark:
        "results/benchmarks/{analysis}/accuracy.tsv"
    wildcard_constraints:
        analysis=analyses_of("benchmark"),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 60),
        runtime=job_runtime(15, 0.5),
    params:
        n_boot=setting("bootstrap", "n_boot"),
        seed=setting("bootstrap", "seed"),
        ci_level=setting("bootstrap", "level"),
        cluster_by=setting("cluster_by"),
        data_note=data_note,
        min_n=setting("min_n"),
        item_sets=setting("item_sets"),
        missing_grades_text=missing_grades_caption,
    script:
        "../scripts/rederive/studies/benchmark/accuracy.py"


rule compare_benchmark_models:
    input:
        db="results/{analysis}/{analysis}.duckdb",
        accuracy="results/{analysis}/tables/accuracy.csv",
    output:
        pairwise=report(
            "results/{analysis}/tables/pairwise.csv",
            caption="report/benchmark/pairwise.rst",
            category="{analysis}",
            subcategory="Tables",
        ),
        ranking=report(
            "results/{analysis}/tables/ranking.csv",
            caption="report/benchmark/ranking.rst",
            category="{analysis}",
            subcategory="Tables",
        ),
        tex="results/{analysis}/tables/ranking.tex",
    log:
        "results/logs/{analysis}/pairwise.log",
    benchmark:
        "results/benchmarks/{analysis}/pairwise.tsv"
    wildcard_constraints:
        analysis=analyses_of("benchmark"),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 60),
        runtime=job_runtime(15, 0.5),
    params:
        n_boot=setting("bootstrap", "n_boot"),
        seed=setting("bootstrap", "seed"),
        fdr_q=setting("fdr_q"),
        ci_level=setting("bootstrap", "level"),
        cluster_by=setting("cluster_by"),
        data_note=data_note,
        min_n=setting("min_n"),
        comparisons=setting("comparisons"),
        missing_grades_text=missing_grades_caption,
    script:
        "../scripts/rederive/studies/benchmark/pairwise.py"


rule fit_benchmark_irt:
    input:
        db="results/{analysis}/{analysis}.duckdb",
        accuracy="results/{analysis}/tables/accuracy.csv",
    output:
        ability=report(
            "results/{analysis}/tables/irt_ability.csv",
            caption="report/benchmark/irt_ability.rst",
            category="{analysis}",
            subcategory="IRT",
        ),
        difficulty=report(
            "results/{analysis}/tables/irt_difficulty.csv",
            caption="report/benchmark/irt_difficulty.rst",
            category="{analysis}",
            subcategory="IRT",
        ),
        fit="results/{analysis}/tables/irt_fit.csv",
    log:
        "results/logs/{analysis}/irt.log",
    benchmark:
        "results/benchmarks/{analysis}/irt.tsv"
    wildcard_constraints:
        analysis=analyses_of("benchmark"),
    # The longest chain of its study (fit, then figures): start it first.
    priority: 10
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(1200, 60),
        runtime=job_runtime(60, 2),
    params:
        epochs=setting("irt", "epochs"),
        lr=setting("irt", "lr"),
        lr_decay=setting("irt", "lr_decay"),
        tol=setting("irt", "tol"),
        priors=setting("irt", "priors"),
        seed=setting("irt", "seed"),
        pyirt_max_cells=setting("irt", "pyirt_max_cells"),
        n_boot=setting("bootstrap", "n_boot"),
        ci_level=setting("bootstrap", "level"),
        cluster_by=setting("cluster_by"),
        min_n=setting("min_n"),
        fractional_scores=setting("fractional_scores"),
        fractional_scores_text=fractional_scores_caption,
    script:
        "../scripts/rederive/studies/benchmark/irt.py"


rule analyse_benchmark_items:
    input:
        db="results/{analysis}/{analysis}.duckdb",
    output:
        analysis=report(
            "results/{analysis}/tables/item_analysis.csv",
            caption="report/benchmark/item_analysis.rst",
            category="{analysis}",
            subcategory="Item analysis",
        ),
        suspects=report(
            "results/{analysis}/tables/suspect_items.csv",
            caption="report/benchmark/suspect_items.rst",
            category="{analysis}",
            subcategory="Item analysis",
        ),
        md="results/{analysis}/tables/suspect_items.md",
    log:
        "results/logs/{analysis}/items.log",
    benchmark:
        "results/benchmarks/{analysis}/items.tsv"
    wildcard_constraints:
        analysis=analyses_of("benchmark"),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 60),
        runtime=job_runtime(15, 0.5),
    params:
        settings=setting("item_analysis"),
        data_note=data_note,
        fractional_scores=setting("fractional_scores"),
        fractional_scores_text=fractional_scores_caption,
    script:
        "../scripts/rederive/studies/benchmark/items.py"


rule plot_benchmark_items:
    input:
        analysis="results/{analysis}/tables/item_analysis.csv",
        suspects="results/{analysis}/tables/suspect_items.csv",
    output:
        png=report(
            "results/{analysis}/figures/suspect_items.png",
            caption="report/benchmark/fig_suspect_items.rst",
            category="{analysis}",
            subcategory="Item analysis",
        ),
        pdf="results/{analysis}/figures/suspect_items.pdf",
    log:
        "results/logs/{analysis}/plot_items.log",
    benchmark:
        "results/benchmarks/{analysis}/plot_items.tsv"
    wildcard_constraints:
        analysis=analyses_of("benchmark"),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(500, 10),
        runtime=job_runtime(10, 0.2),
    params:
        settings=setting("item_analysis"),
        item_column="item_key",
        data_note=data_note,
        simulated=is_simulated,
        fractional_scores_text=fractional_scores_caption,
    script:
        "../scripts/rederive/plots/items.py"


rule decompose_benchmark_noise:
    input:
        db="results/{analysis}/{analysis}.duckdb",
        pairwise="results/{analysis}/tables/pairwise.csv",
    output:
        noise=report(
            "results/{analysis}/tables/noise.csv",
            caption="report/benchmark/noise.rst",
            category="{analysis}",
            subcategory="Power",
        ),
    log:
        "results/logs/{analysis}/noise.log",
    benchmark:
        "results/benchmarks/{analysis}/noise.tsv"
    wildcard_constraints:
        analysis=analyses_of("benchmark"),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(500, 60),
        runtime=job_runtime(10, 0.5),
    script:
        "../scripts/rederive/studies/benchmark/noise.py"


rule cluster_benchmark_failures:
    input:
        db="results/{analysis}/{analysis}.duckdb",
    output:
        jaccard=report(
            "results/{analysis}/tables/jaccard.csv",
            caption="report/benchmark/jaccard.rst",
            category="{analysis}",
            subcategory="Failure clustering",
        ),
        co_failure=report(
            "results/{analysis}/tables/co_failure.csv",
            caption="report/benchmark/co_failure.rst",
            category="{analysis}",
            subcategory="Failure clustering",
        ),
        linkage="results/{analysis}/tables/failure_linkage.csv",
        leaves=report(
            "results/{analysis}/tables/failure_leaves.csv",
            caption="report/benchmark/failure_leaves.rst",
            category="{analysis}",
            subcategory="Failure clustering",
        ),
        extreme_pairs=report(
            "results/{analysis}/tables/extreme_pairs.csv",
            caption="report/benchmark/extreme_pairs.rst",
            category="{analysis}",
            subcategory="Failure clustering",
        ),
        failed_by_all=report(
            "results/{analysis}/tables/failed_by_all.csv",
            caption="report/benchmark/failed_by_all.rst",
            category="{analysis}",
            subcategory="Failure clustering",
        ),
    log:
        "results/logs/{analysis}/similarity.log",
    benchmark:
        "results/benchmarks/{analysis}/similarity.tsv"
    wildcard_constraints:
        analysis=analyses_of("benchmark"),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 60),
        runtime=job_runtime(15, 0.5),
    params:
        linkage=setting("similarity", "linkage"),
        n_extreme_pairs=setting("similarity", "n_extreme_pairs"),
        top_k=setting("similarity", "top_k"),
        optimal_ordering_up_to=setting("similarity", "optimal_ordering_up_to"),
        fractional_scores=setting("fractional_scores"),
        failure_set_text=failure_set_caption,
    script:
        "../scripts/rederive/studies/benchmark/similarity.py"


rule tabulate_benchmark_quality:
    input:
        db="results/{analysis}/{analysis}.duckdb",
        ingested=ingested_batches,
    output:
        quality=report(
            "results/{analysis}/tables/data_quality.csv",
            caption="report/benchmark/data_quality.rst",
            category="{analysis}",
            subcategory="Data quality",
        ),
        overlap=report(
            "results/{analysis}/tables/item_overlap.csv",
            caption="report/benchmark/item_overlap.rst",
            category="{analysis}",
            subcategory="Data quality",
        ),
        shared_items=report(
            "results/{analysis}/tables/shared_items.csv",
            caption="report/benchmark/shared_items.rst",
            category="{analysis}",
            subcategory="Data quality",
        ),
    log:
        "results/logs/{analysis}/quality.log",
    benchmark:
        "results/benchmarks/{analysis}/quality.tsv"
    wildcard_constraints:
        analysis=analyses_of("benchmark"),
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
        accuracy="results/{analysis}/tables/accuracy.csv",
        pairwise="results/{analysis}/tables/pairwise.csv",
        ranking="results/{analysis}/tables/ranking.csv",
        ability="results/{analysis}/tables/irt_ability.csv",
        difficulty="results/{analysis}/tables/irt_difficulty.csv",
        jaccard="results/{analysis}/tables/jaccard.csv",
        linkage="results/{analysis}/tables/failure_linkage.csv",
        leaves="results/{analysis}/tables/failure_leaves.csv",
    output:
        **{
            f"{name}_png": report(
                f"results/{{analysis}}/figures/{name}.png",
                caption=f"report/benchmark/fig_{name}.rst",
                category="{analysis}",
                subcategory="Figures",
            )
            for name in BENCHMARK_FIGURE_NAMES
        },
        **{
            f"{name}_pdf": f"results/{{analysis}}/figures/{name}.pdf"
            for name in BENCHMARK_FIGURE_NAMES
        },
    log:
        "results/logs/{analysis}/figures.log",
    benchmark:
        "results/benchmarks/{analysis}/figures.tsv"
    wildcard_constraints:
        analysis=analyses_of("benchmark"),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 10),
        runtime=job_runtime(15, 0.2),
    params:
        data_note=data_note,
        fdr_q=setting("fdr_q"),
        top_k=setting("similarity", "top_k"),
        fractional_scores_text=fractional_scores_caption,
        failure_set_text=failure_set_caption,
    script:
        "../scripts/rederive/studies/benchmark/figures.py"


rule check_benchmark_published:
    input:
        power="results/{analysis}/tables/power.csv",
        accuracy="results/{analysis}/tables/accuracy.csv",
        db="results/{analysis}/{analysis}.duckdb",
        quality="results/{analysis}/tables/data_quality.csv",
        published=published_files,
    output:
        csv=report(
            "results/{analysis}/check/published_check.csv",
            caption="report/benchmark/check.rst",
            category="{analysis}",
            subcategory="Published check",
        ),
        md="results/{analysis}/check/published_check.md",
    log:
        "results/logs/{analysis}/check_published.log",
    benchmark:
        "results/benchmarks/{analysis}/check_published.tsv"
    wildcard_constraints:
        analysis=analyses_of("benchmark"),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 60),
        runtime=job_runtime(15, 0.5),
    params:
        power=setting("power"),
        published_dir=published_dir,
        tolerance=setting("check", "tolerance"),
        published_scale=setting("check", "published_scale"),
        data_note=data_note,
        item_sets=setting("item_sets"),
        missing_grades_text=missing_grades_caption,
    script:
        "../scripts/rederive/studies/benchmark/check.py"


rule estimate_benchmark_power:
    input:
        db="results/{analysis}/{analysis}.duckdb",
        pairwise="results/{analysis}/tables/pairwise.csv",
    output:
        power=report(
            "results/{analysis}/tables/power.csv",
            caption="report/benchmark/power.rst",
            category="{analysis}",
            subcategory="Power",
        ),
        curve="results/{analysis}/tables/power_mde_curve.csv",
    log:
        "results/logs/{analysis}/power.log",
    benchmark:
        "results/benchmarks/{analysis}/power.tsv"
    wildcard_constraints:
        analysis=analyses_of("benchmark"),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(500, 20),
        runtime=job_runtime(10, 0.5),
    params:
        power=setting("power"),
        fdr_q=setting("fdr_q"),
        cluster_by=setting("cluster_by"),
    script:
        "../scripts/rederive/studies/benchmark/power.py"


register_kind(
    "benchmark",
    runs=benchmark_runs,
    targets=benchmark_targets,
    power_title="Benchmark model pairs",
    power_unit="items (or clusters, with ``cluster_by``)",
    layout=benchmark_layout,
    run_inputs=benchmark_run_inputs,
)
