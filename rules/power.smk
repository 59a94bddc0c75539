# Power of each study's comparisons (issue 14): a power table and an MDE-against-n
# curve per study from the study's own comparison table and warehouse, then one
# figure drawn from those CSVs. Targets are listed in each <study>_targets().
# Resources: measured on the bundled data (results/benchmarks/*/power.tsv) peaks of
# 143-239 MB RSS and under 1 min wall (2-4 s CPU) per estimate job, 224-233 MB for
# each figure; about twice that as base. Estimate jobs load the warehouse's score
# matrix, so memory grows with its size; the figures read two small CSVs.


rule estimate_salitrap_power:
    input:
        db="results/salitrap/salitrap.duckdb",
        pairs="results/salitrap/tables/pairwise_tar.csv",
    output:
        power=report(
            "results/salitrap/tables/power.csv",
            caption="report/salitrap/power.rst",
            category="SaliTrap",
            subcategory="Power",
        ),
        curve="results/salitrap/tables/power_mde_curve.csv",
    log:
        "results/logs/salitrap/power.log",
    benchmark:
        "results/benchmarks/salitrap/power.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(500, 20),
        runtime=job_runtime(10, 0.5),
    params:
        power=SALITRAP["power"],
        fdr_q=SALITRAP["comparisons"]["fdr_q"],
        metrics=SALITRAP["metrics"],
    script:
        "../scripts/rederive/studies/salitrap/power.py"


rule plot_salitrap_power:
    input:
        power="results/salitrap/tables/power.csv",
        curve="results/salitrap/tables/power_mde_curve.csv",
    output:
        png=report(
            "results/salitrap/figures/power_mde.png",
            caption="report/salitrap/fig_power_mde.rst",
            category="SaliTrap",
            subcategory="Power",
        ),
        pdf="results/salitrap/figures/power_mde.pdf",
    log:
        "results/logs/salitrap/plot_power.log",
    benchmark:
        "results/benchmarks/salitrap/plot_power.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(500),
        runtime=job_runtime(10),
    params:
        title="SaliTrap model pairs (control TAR)",
        note="",
        simulated=salitrap_simulated(),
    script:
        "../scripts/rederive/plots/power.py"


rule estimate_tag_sycophancy_power:
    input:
        db="results/tag_sycophancy/tag_sycophancy.duckdb",
        effects="results/tag_sycophancy/tables/tag_effects.csv",
        cells="results/tag_sycophancy/tables/cell_counts.csv",
    output:
        power=report(
            "results/tag_sycophancy/tables/power.csv",
            caption="report/tag_sycophancy/power.rst",
            category="Tag sycophancy",
            subcategory="Power",
        ),
        curve="results/tag_sycophancy/tables/power_mde_curve.csv",
    log:
        "results/logs/tag_sycophancy/power.log",
    benchmark:
        "results/benchmarks/tag_sycophancy/power.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(500, 20),
        runtime=job_runtime(10, 0.5),
    params:
        power=TAGSYC["power"],
        fdr_q=TAGSYC["fdr_q"],
    script:
        "../scripts/rederive/studies/tag_sycophancy/power.py"


rule plot_tag_sycophancy_power:
    input:
        power="results/tag_sycophancy/tables/power.csv",
        curve="results/tag_sycophancy/tables/power_mde_curve.csv",
    output:
        png=report(
            "results/tag_sycophancy/figures/power_mde.png",
            caption="report/tag_sycophancy/fig_power_mde.rst",
            category="Tag sycophancy",
            subcategory="Power",
        ),
        pdf="results/tag_sycophancy/figures/power_mde.pdf",
    log:
        "results/logs/tag_sycophancy/plot_power.log",
    benchmark:
        "results/benchmarks/tag_sycophancy/plot_power.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(500),
        runtime=job_runtime(10),
    params:
        title="Tag sycophancy, per-model tag effect",
        note="",
        simulated=tag_sycophancy_simulated(),
    script:
        "../scripts/rederive/plots/power.py"


rule estimate_bias_awareness_power:
    input:
        db="results/bias_awareness/bias_awareness.duckdb",
        comparisons="results/bias_awareness/tables/comparisons.csv",
    output:
        power=report(
            "results/bias_awareness/tables/power.csv",
            caption="report/bias_awareness/power.rst",
            category="Bias awareness",
            subcategory="Power",
        ),
        curve="results/bias_awareness/tables/power_mde_curve.csv",
    log:
        "results/logs/bias_awareness/power.log",
    benchmark:
        "results/benchmarks/bias_awareness/power.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(500, 20),
        runtime=job_runtime(10, 0.5),
    params:
        power=BIAS_AWARENESS["power"],
        fdr_q=BIAS_AWARENESS["fdr_q"],
    script:
        "../scripts/rederive/studies/bias_awareness/power.py"


rule plot_bias_awareness_power:
    input:
        power="results/bias_awareness/tables/power.csv",
        curve="results/bias_awareness/tables/power_mde_curve.csv",
    output:
        png=report(
            "results/bias_awareness/figures/power_mde.png",
            caption="report/bias_awareness/fig_power_mde.rst",
            category="Bias awareness",
            subcategory="Power",
        ),
        pdf="results/bias_awareness/figures/power_mde.pdf",
    log:
        "results/logs/bias_awareness/plot_power.log",
    benchmark:
        "results/benchmarks/bias_awareness/plot_power.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(500),
        runtime=job_runtime(10),
    params:
        title="Bias awareness model differences",
        note="",
        simulated=bias_awareness_simulated(),
    script:
        "../scripts/rederive/plots/power.py"


rule estimate_cot_loadbearing_power:
    input:
        db="results/cot_loadbearing/cot_loadbearing.duckdb",
        table2="results/cot_loadbearing/tables/table2_decoupling.csv",
    output:
        power=report(
            "results/cot_loadbearing/tables/power.csv",
            caption="report/cot_loadbearing/power.rst",
            category="CoT load-bearing",
            subcategory="Power",
        ),
        curve="results/cot_loadbearing/tables/power_mde_curve.csv",
    log:
        "results/logs/cot_loadbearing/power.log",
    benchmark:
        "results/benchmarks/cot_loadbearing/power.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(500, 20),
        runtime=job_runtime(10, 0.5),
    params:
        power=COT["power"],
        production=COT["production_variant"],
        subject=COT["decoupling_subject"],
    script:
        "../scripts/rederive/studies/cot_loadbearing/power.py"


rule plot_cot_loadbearing_power:
    input:
        power="results/cot_loadbearing/tables/power.csv",
        curve="results/cot_loadbearing/tables/power_mde_curve.csv",
    output:
        png=report(
            "results/cot_loadbearing/figures/power_mde.png",
            caption="report/cot_loadbearing/fig_power_mde.rst",
            category="CoT load-bearing",
            subcategory="Power",
        ),
        pdf="results/cot_loadbearing/figures/power_mde.pdf",
    log:
        "results/logs/cot_loadbearing/plot_power.log",
    benchmark:
        "results/benchmarks/cot_loadbearing/plot_power.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(500),
        runtime=job_runtime(10),
    params:
        title="CoT load-bearing, numeric vs text perturbation",
        note="",
        simulated=cot_loadbearing_simulated(),
    script:
        "../scripts/rederive/plots/power.py"


rule estimate_benchmark_power:
    input:
        db="results/benchmark/benchmark.duckdb",
        pairwise="results/benchmark/tables/pairwise.csv",
    output:
        power=report(
            "results/benchmark/tables/power.csv",
            caption="report/benchmark/power.rst",
            category="Benchmark",
            subcategory="Power",
        ),
        curve="results/benchmark/tables/power_mde_curve.csv",
    log:
        "results/logs/benchmark/power.log",
    benchmark:
        "results/benchmarks/benchmark/power.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(500, 20),
        runtime=job_runtime(10, 0.5),
    params:
        power=BENCHMARK["power"],
        fdr_q=BENCHMARK["fdr_q"],
        cluster_by=BENCHMARK["cluster_by"],
    script:
        "../scripts/rederive/studies/benchmark/power.py"


rule plot_benchmark_power:
    input:
        power="results/benchmark/tables/power.csv",
        curve="results/benchmark/tables/power_mde_curve.csv",
    output:
        png=report(
            "results/benchmark/figures/power_mde.png",
            caption="report/benchmark/fig_power_mde.rst",
            category="Benchmark",
            subcategory="Power",
        ),
        pdf="results/benchmark/figures/power_mde.pdf",
    log:
        "results/logs/benchmark/plot_power.log",
    benchmark:
        "results/benchmarks/benchmark/plot_power.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(500),
        runtime=job_runtime(10),
    params:
        title="Benchmark model pairs",
        note=benchmark_data_note(),
        simulated=False,
    script:
        "../scripts/rederive/plots/power.py"
