# Study `salitrap` (seed paper 000): ingest the run files in batches, build the
# warehouse, Tables 1-3, data quality, published check. Config: config/salitrap.yaml.


include: "salitrap_helpers.smk"


rule ingest_salitrap_items:
    input:
        items_jsonl=raw_dir("salitrap") / "items.jsonl",
    output:
        item_table="results/salitrap/items.parquet",
    log:
        "results/logs/salitrap/ingest_items.log",
    benchmark:
        "results/benchmarks/salitrap/ingest_items.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(400, 20),
        runtime=job_runtime(10, 0.5),
    params:
        dimensions=SALITRAP["dimensions"],
    script:
        "../scripts/rederive/studies/salitrap/items.py"


rule ingest_salitrap_batch:
    input:
        runs=batch_run_files("salitrap"),
        item_table="results/salitrap/items.parquet",
    output:
        ingested=directory("results/salitrap/ingested/{batch}"),
    log:
        "results/logs/salitrap/ingest/{batch}.log",
    benchmark:
        "results/benchmarks/salitrap/ingest/{batch}.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(400, 20, largest_input=True),
        runtime=job_runtime(10, 0.5),
    params:
        runs=batch_runs("salitrap"),
        valid_labels=SALITRAP["labels"]["valid"],
        invalid_labels=SALITRAP["labels"]["invalid"],
        conditions=SALITRAP["conditions"],
        dimensions=SALITRAP["dimensions"],
    script:
        "../scripts/rederive/studies/salitrap/ingest.py"


rule build_salitrap_warehouse:
    input:
        item_table="results/salitrap/items.parquet",
        ingested=ingested_batches("salitrap"),
        models=salitrap_models_csv,
    output:
        db="results/salitrap/salitrap.duckdb",
    log:
        "results/logs/salitrap/warehouse.log",
    benchmark:
        "results/benchmarks/salitrap/warehouse.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(500, 100),
        runtime=job_runtime(10, 0.2),
    script:
        "../scripts/rederive/studies/salitrap/warehouse.py"


rule tabulate_salitrap_main:
    input:
        db="results/salitrap/salitrap.duckdb",
    output:
        table1_csv=report(
            "results/salitrap/tables/table1_tar_hfr.csv",
            caption="report/salitrap/table1.rst",
            category="SaliTrap",
            subcategory="Tables",
        ),
        table1_tex="results/salitrap/tables/table1_tar_hfr.tex",
        table2_csv=report(
            "results/salitrap/tables/table2_scr_si.csv",
            caption="report/salitrap/table2.rst",
            category="SaliTrap",
            subcategory="Tables",
        ),
        table2_tex="results/salitrap/tables/table2_scr_si.tex",
        table3_csv=report(
            "results/salitrap/tables/table3_dataset.csv",
            caption="report/salitrap/table3.rst",
            category="SaliTrap",
            subcategory="Tables",
        ),
        table3_tex="results/salitrap/tables/table3_dataset.tex",
        quality=report(
            "results/salitrap/tables/data_quality.csv",
            caption="report/salitrap/data_quality.rst",
            category="SaliTrap",
            subcategory="Data quality",
        ),
    log:
        "results/logs/salitrap/tabulate_main.log",
    benchmark:
        "results/benchmarks/salitrap/tabulate_main.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 60),
        runtime=job_runtime(15, 0.5),
    params:
        dimensions=SALITRAP["dimensions"],
        bootstrap=SALITRAP["bootstrap"],
        metrics=SALITRAP["metrics"],
        raw_dir=SALITRAP["raw_dir"],
        min_n=SALITRAP["min_n"],
    script:
        "../scripts/rederive/studies/salitrap/tables.py"


rule check_salitrap_published:
    input:
        power="results/salitrap/tables/power.csv",
        table1="results/salitrap/tables/table1_tar_hfr.csv",
        table2="results/salitrap/tables/table2_scr_si.csv",
        table3="results/salitrap/tables/table3_dataset.csv",
        table6="results/salitrap/tables/table6_liberation.csv",
        table7="results/salitrap/tables/table7_interventions.csv",
        failure_pairs="results/salitrap/tables/failure_pairs.csv",
        table5="results/salitrap/tables/table5_pairs.csv",
        failed_by_all="results/salitrap/tables/failed_by_all.csv",
    output:
        csv=report(
            "results/salitrap/check/published_check.csv",
            caption="report/salitrap/check.rst",
            category="SaliTrap",
            subcategory="Published check",
        ),
        md="results/salitrap/check/published_check.md",
    log:
        "results/logs/salitrap/check_published.log",
    benchmark:
        "results/benchmarks/salitrap/check_published.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 60),
        runtime=job_runtime(15, 0.5),
    params:
        power=SALITRAP["power"],
        published_dir=str(raw_dir("salitrap") / "published"),
        raw_dir=SALITRAP["raw_dir"],
        tolerance=SALITRAP["check"]["tolerance"],
    script:
        "../scripts/rederive/studies/salitrap/check.py"


rule tabulate_salitrap_liberation:
    input:
        db="results/salitrap/salitrap.duckdb",
    output:
        csv=report(
            "results/salitrap/tables/table6_liberation.csv",
            caption="report/salitrap/table6.rst",
            category="SaliTrap",
            subcategory="Tables",
        ),
        tex="results/salitrap/tables/table6_liberation.tex",
    log:
        "results/logs/salitrap/tabulate_liberation.log",
    benchmark:
        "results/benchmarks/salitrap/tabulate_liberation.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 60),
        runtime=job_runtime(15, 0.5),
    params:
        dimensions=SALITRAP["dimensions"],
        conditions=SALITRAP["liberation"]["conditions"],
        sc_label=SALITRAP["liberation"]["sc_label"],
        pass_labels=SALITRAP["metrics"]["TAR"]["numerator"],
        bootstrap=SALITRAP["bootstrap"],
        raw_dir=SALITRAP["raw_dir"],
        min_n=SALITRAP["min_n"],
    script:
        "../scripts/rederive/studies/salitrap/liberation.py"


rule tabulate_salitrap_interventions:
    input:
        db="results/salitrap/salitrap.duckdb",
    output:
        csv=report(
            "results/salitrap/tables/table7_interventions.csv",
            caption="report/salitrap/table7.rst",
            category="SaliTrap",
            subcategory="Tables",
        ),
        tex="results/salitrap/tables/table7_interventions.tex",
    log:
        "results/logs/salitrap/tabulate_interventions.log",
    benchmark:
        "results/benchmarks/salitrap/tabulate_interventions.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 60),
        runtime=job_runtime(15, 0.5),
    params:
        conditions=SALITRAP["interventions"]["conditions"],
        metrics=SALITRAP["metrics"],
        bootstrap=SALITRAP["bootstrap"],
        raw_dir=SALITRAP["raw_dir"],
        min_n=SALITRAP["min_n"],
    script:
        "../scripts/rederive/studies/salitrap/interventions.py"


rule analyse_salitrap_density:
    input:
        db="results/salitrap/salitrap.duckdb",
    output:
        rates=report(
            "results/salitrap/tables/density_rates.csv",
            caption="report/salitrap/density_rates.rst",
            category="SaliTrap",
            subcategory="Distractor density",
        ),
        slopes=report(
            "results/salitrap/tables/density_slopes.csv",
            caption="report/salitrap/density_slopes.rst",
            category="SaliTrap",
            subcategory="Distractor density",
        ),
    log:
        "results/logs/salitrap/analyse_density.log",
    benchmark:
        "results/benchmarks/salitrap/analyse_density.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 60),
        runtime=job_runtime(15, 0.5),
    params:
        dimensions=SALITRAP["dimensions"],
        metrics=SALITRAP["metrics"],
        metric_names=SALITRAP["density"]["metrics"],
        low=SALITRAP["density"]["low"],
        high=SALITRAP["density"]["high"],
        bootstrap=SALITRAP["bootstrap"],
        min_n=SALITRAP["min_n"],
    script:
        "../scripts/rederive/studies/salitrap/density.py"


rule compare_salitrap_models:
    input:
        db="results/salitrap/salitrap.duckdb",
    output:
        pairs=report(
            "results/salitrap/tables/pairwise_tar.csv",
            caption="report/salitrap/pairwise.rst",
            category="SaliTrap",
            subcategory="Model comparisons",
        ),
        ranking=report(
            "results/salitrap/tables/ranking.csv",
            caption="report/salitrap/ranking.rst",
            category="SaliTrap",
            subcategory="Model comparisons",
        ),
        ranking_tex="results/salitrap/tables/ranking.tex",
    log:
        "results/logs/salitrap/compare_models.log",
    benchmark:
        "results/benchmarks/salitrap/compare_models.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 60),
        runtime=job_runtime(15, 0.5),
    params:
        metrics=SALITRAP["metrics"],
        q=SALITRAP["comparisons"]["fdr_q"],
        bootstrap=SALITRAP["bootstrap"],
        raw_dir=SALITRAP["raw_dir"],
        min_n=SALITRAP["min_n"],
    script:
        "../scripts/rederive/studies/salitrap/comparisons.py"


rule tabulate_salitrap_labels:
    input:
        db="results/salitrap/salitrap.duckdb",
    output:
        csv=report(
            "results/salitrap/tables/label_distribution.csv",
            caption="report/salitrap/label_distribution.rst",
            category="SaliTrap",
            subcategory="Overview",
        ),
    log:
        "results/logs/salitrap/tabulate_labels.log",
    benchmark:
        "results/benchmarks/salitrap/tabulate_labels.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 60),
        runtime=job_runtime(15, 0.5),
    params:
        metrics=SALITRAP["metrics"],
        valid_labels=SALITRAP["labels"]["valid"],
    script:
        "../scripts/rederive/studies/salitrap/distribution.py"


rule plot_salitrap_density:
    input:
        rates="results/salitrap/tables/density_rates.csv",
        slopes="results/salitrap/tables/density_slopes.csv",
    output:
        fig6_png=report(
            "results/salitrap/figures/fig6_density.png",
            caption="report/salitrap/fig6.rst",
            category="SaliTrap",
            subcategory="Distractor density",
        ),
        fig6_pdf="results/salitrap/figures/fig6_density.pdf",
        fig12_png=report(
            "results/salitrap/figures/fig12_density_by_dimension.png",
            caption="report/salitrap/fig12.rst",
            category="SaliTrap",
            subcategory="Distractor density",
        ),
        fig12_pdf="results/salitrap/figures/fig12_density_by_dimension.pdf",
    log:
        "results/logs/salitrap/plot_density.log",
    benchmark:
        "results/benchmarks/salitrap/plot_density.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 10),
        runtime=job_runtime(15, 0.2),
    params:
        simulated=salitrap_simulated(),
    script:
        "../scripts/rederive/studies/salitrap/figures_density.py"


rule plot_salitrap_experiments:
    input:
        table6="results/salitrap/tables/table6_liberation.csv",
        table7="results/salitrap/tables/table7_interventions.csv",
    output:
        fig7_png=report(
            "results/salitrap/figures/fig7_liberation.png",
            caption="report/salitrap/fig7.rst",
            category="SaliTrap",
            subcategory="Liberation and interventions",
        ),
        fig7_pdf="results/salitrap/figures/fig7_liberation.pdf",
        fig8_png=report(
            "results/salitrap/figures/fig8_interventions.png",
            caption="report/salitrap/fig8.rst",
            category="SaliTrap",
            subcategory="Liberation and interventions",
        ),
        fig8_pdf="results/salitrap/figures/fig8_interventions.pdf",
    log:
        "results/logs/salitrap/plot_experiments.log",
    benchmark:
        "results/benchmarks/salitrap/plot_experiments.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 10),
        runtime=job_runtime(15, 0.2),
    params:
        simulated=salitrap_simulated(),
    script:
        "../scripts/rederive/studies/salitrap/figures_experiments.py"


rule plot_salitrap_overview:
    input:
        distribution="results/salitrap/tables/label_distribution.csv",
    output:
        overview_png=report(
            "results/salitrap/figures/overview_labels.png",
            caption="report/salitrap/fig_overview.rst",
            category="SaliTrap",
            subcategory="Overview",
        ),
        overview_pdf="results/salitrap/figures/overview_labels.pdf",
    log:
        "results/logs/salitrap/plot_overview.log",
    benchmark:
        "results/benchmarks/salitrap/plot_overview.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 10),
        runtime=job_runtime(15, 0.2),
    params:
        simulated=salitrap_simulated(),
    script:
        "../scripts/rederive/studies/salitrap/figure_overview.py"


rule analyse_salitrap_failure_sets:
    input:
        db="results/salitrap/salitrap.duckdb",
    output:
        pairs=report(
            "results/salitrap/tables/failure_pairs.csv",
            caption="report/salitrap/failure_pairs.rst",
            category="SaliTrap",
            subcategory="Failure sets",
        ),
        table5=report(
            "results/salitrap/tables/table5_pairs.csv",
            caption="report/salitrap/table5.rst",
            category="SaliTrap",
            subcategory="Tables",
        ),
        table5_tex="results/salitrap/tables/table5_pairs.tex",
        failed_by_all=report(
            "results/salitrap/tables/failed_by_all.csv",
            caption="report/salitrap/failed_by_all.rst",
            category="SaliTrap",
            subcategory="Failure sets",
        ),
        linkage="results/salitrap/tables/failure_linkage.csv",
        order="results/salitrap/tables/failure_order.csv",
    log:
        "results/logs/salitrap/analyse_failure_sets.log",
    benchmark:
        "results/benchmarks/salitrap/analyse_failure_sets.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 60),
        runtime=job_runtime(15, 0.5),
    params:
        metrics=SALITRAP["metrics"],
        linkage=SALITRAP["failure_sets"]["linkage"],
        n_pairs=SALITRAP["failure_sets"]["n_pairs"],
        raw_dir=SALITRAP["raw_dir"],
        min_n=SALITRAP["min_n"],
    script:
        "../scripts/rederive/studies/salitrap/failure_sets.py"


rule plot_salitrap_failure_sets:
    input:
        pairs="results/salitrap/tables/failure_pairs.csv",
        linkage="results/salitrap/tables/failure_linkage.csv",
        order="results/salitrap/tables/failure_order.csv",
    output:
        fig5_png=report(
            "results/salitrap/figures/fig5_dendrogram.png",
            caption="report/salitrap/fig5.rst",
            category="SaliTrap",
            subcategory="Failure sets",
        ),
        fig5_pdf="results/salitrap/figures/fig5_dendrogram.pdf",
        fig10_png=report(
            "results/salitrap/figures/fig10_co_failure.png",
            caption="report/salitrap/fig10.rst",
            category="SaliTrap",
            subcategory="Failure sets",
        ),
        fig10_pdf="results/salitrap/figures/fig10_co_failure.pdf",
        fig11_png=report(
            "results/salitrap/figures/fig11_jaccard.png",
            caption="report/salitrap/fig11.rst",
            category="SaliTrap",
            subcategory="Failure sets",
        ),
        fig11_pdf="results/salitrap/figures/fig11_jaccard.pdf",
    log:
        "results/logs/salitrap/plot_failure_sets.log",
    benchmark:
        "results/benchmarks/salitrap/plot_failure_sets.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 10),
        runtime=job_runtime(15, 0.2),
    params:
        simulated=salitrap_simulated(),
    script:
        "../scripts/rederive/studies/salitrap/figures_failure_sets.py"


rule fit_salitrap_irt:
    input:
        db="results/salitrap/salitrap.duckdb",
    output:
        item_params=report(
            "results/salitrap/tables/irt_items.csv",
            caption="report/salitrap/irt_items.rst",
            category="SaliTrap",
            subcategory="IRT",
        ),
        model_params=report(
            "results/salitrap/tables/irt_models.csv",
            caption="report/salitrap/irt_models.rst",
            category="SaliTrap",
            subcategory="IRT",
        ),
        by_dimension="results/salitrap/tables/irt_difficulty_by_dimension.csv",
        stats="results/salitrap/tables/irt_statistics.csv",
    log:
        "results/logs/salitrap/fit_irt.log",
    benchmark:
        "results/benchmarks/salitrap/fit_irt.tsv"
    # The longest chain of its study (fit, then figures): start it first.
    priority: 10
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(1200, 60),
        runtime=job_runtime(60, 2),
    params:
        dimensions=SALITRAP["dimensions"],
        metrics=SALITRAP["metrics"],
        epochs=SALITRAP["irt"]["epochs"],
        lr=SALITRAP["irt"]["lr"],
        lr_decay=SALITRAP["irt"]["lr_decay"],
        tol=SALITRAP["irt"]["tol"],
        priors=SALITRAP["irt"]["priors"],
        seed=SALITRAP["irt"]["seed"],
        n_boot=SALITRAP["irt"]["n_boot"],
        warm_start=SALITRAP["irt"]["warm_start"],
        warm_start_file="results/salitrap/cache/irt_warm_start.csv",
        level=SALITRAP["bootstrap"]["level"],
        min_n=SALITRAP["min_n"],
    script:
        "../scripts/rederive/studies/salitrap/irt_fit.py"


rule plot_salitrap_irt:
    input:
        item_params="results/salitrap/tables/irt_items.csv",
        model_params="results/salitrap/tables/irt_models.csv",
        stats="results/salitrap/tables/irt_statistics.csv",
    output:
        fig4_png=report(
            "results/salitrap/figures/fig4_irt.png",
            caption="report/salitrap/fig4.rst",
            category="SaliTrap",
            subcategory="IRT",
        ),
        fig4_pdf="results/salitrap/figures/fig4_irt.pdf",
        fig9_png=report(
            "results/salitrap/figures/fig9_naturalness_difficulty.png",
            caption="report/salitrap/fig9.rst",
            category="SaliTrap",
            subcategory="IRT",
        ),
        fig9_pdf="results/salitrap/figures/fig9_naturalness_difficulty.pdf",
    log:
        "results/logs/salitrap/plot_irt.log",
    benchmark:
        "results/benchmarks/salitrap/plot_irt.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 10),
        runtime=job_runtime(15, 0.2),
    params:
        simulated=salitrap_simulated(),
    script:
        "../scripts/rederive/studies/salitrap/figures_irt.py"
