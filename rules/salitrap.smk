# Kind `salitrap` (seed paper 000): ingest the run files in batches, build the
# warehouse, Tables 1-3 and 5-7, comparisons, IRT, failure sets, density, figures,
# power, published check. Options: config/kinds/salitrap.yaml.


include: "salitrap_helpers.smk"


rule ingest_salitrap_items:
    input:
        items_jsonl=raw_file("items.jsonl"),
    output:
        item_table="results/{analysis}/items.parquet",
    params:
        dimensions=setting("dimensions"),
    script:
        "../scripts/rederive/studies/salitrap/items.py"


rule ingest_salitrap_batch:
    input:
        runs=batch_run_files,
        item_table="results/{analysis}/items.parquet",
    output:
        ingested=directory("results/{analysis}/ingested/{batch}"),
    params:
        raw_dir=raw_root,
        runs=batch_runs,
        valid_labels=setting("labels", "valid"),
        invalid_labels=setting("labels", "invalid"),
        conditions=setting("conditions"),
        dimensions=setting("dimensions"),
    script:
        "../scripts/rederive/studies/salitrap/ingest.py"


rule build_salitrap_warehouse:
    input:
        item_table="results/{analysis}/items.parquet",
        ingested=ingested_batches,
        models=optional_raw_file("models.csv"),
    output:
        db="results/{analysis}/{analysis}.duckdb",
    script:
        "../scripts/rederive/studies/salitrap/warehouse.py"


rule tabulate_salitrap_main:
    input:
        db="results/{analysis}/{analysis}.duckdb",
    output:
        table1_csv=report(
            "results/{analysis}/tables/table1_tar_hfr.csv",
            caption="report/salitrap/table1.rst",
            category="{analysis}",
            subcategory="Tables",
        ),
        table1_tex="results/{analysis}/tables/table1_tar_hfr.tex",
        table2_csv=report(
            "results/{analysis}/tables/table2_scr_si.csv",
            caption="report/salitrap/table2.rst",
            category="{analysis}",
            subcategory="Tables",
        ),
        table2_tex="results/{analysis}/tables/table2_scr_si.tex",
        table3_csv=report(
            "results/{analysis}/tables/table3_dataset.csv",
            caption="report/salitrap/table3.rst",
            category="{analysis}",
            subcategory="Tables",
        ),
        table3_tex="results/{analysis}/tables/table3_dataset.tex",
        quality=report(
            "results/{analysis}/tables/data_quality.csv",
            caption="report/salitrap/data_quality.rst",
            category="{analysis}",
            subcategory="Data quality",
        ),
    params:
        dimensions=setting("dimensions"),
        bootstrap=setting("bootstrap"),
        metrics=setting("metrics"),
        simulated=is_simulated,
        min_n=setting("min_n"),
        shared_items=setting("shared_items"),
        partial_share=setting("partial_share"),
    script:
        "../scripts/rederive/studies/salitrap/tables.py"


rule check_salitrap_published:
    input:
        power="results/{analysis}/tables/power.csv",
        table1="results/{analysis}/tables/table1_tar_hfr.csv",
        table2="results/{analysis}/tables/table2_scr_si.csv",
        table3="results/{analysis}/tables/table3_dataset.csv",
        table6="results/{analysis}/tables/table6_liberation.csv",
        table7="results/{analysis}/tables/table7_interventions.csv",
        failure_pairs="results/{analysis}/tables/failure_pairs.csv",
        table5="results/{analysis}/tables/table5_pairs.csv",
        failed_by_all="results/{analysis}/tables/failed_by_all.csv",
        shared_items="results/{analysis}/tables/shared_items.csv",
        published=published_files,
    output:
        csv=report(
            "results/{analysis}/check/published_check.csv",
            caption="report/salitrap/check.rst",
            category="{analysis}",
            subcategory="Published check",
        ),
        md="results/{analysis}/check/published_check.md",
    params:
        power=setting("power"),
        published_dir=published_dir,
        simulated=is_simulated,
        tolerance=setting("check", "tolerance"),
    script:
        "../scripts/rederive/studies/salitrap/check.py"


rule tabulate_salitrap_liberation:
    input:
        db="results/{analysis}/{analysis}.duckdb",
    output:
        csv=report(
            "results/{analysis}/tables/table6_liberation.csv",
            caption="report/salitrap/table6.rst",
            category="{analysis}",
            subcategory="Tables",
        ),
        tex="results/{analysis}/tables/table6_liberation.tex",
    params:
        dimensions=setting("dimensions"),
        conditions=setting("liberation", "conditions"),
        sc_label=setting("liberation", "sc_label"),
        pass_labels=setting("metrics", "TAR", "numerator"),
        bootstrap=setting("bootstrap"),
        simulated=is_simulated,
        min_n=setting("min_n"),
    script:
        "../scripts/rederive/studies/salitrap/liberation.py"


rule tabulate_salitrap_interventions:
    input:
        db="results/{analysis}/{analysis}.duckdb",
    output:
        csv=report(
            "results/{analysis}/tables/table7_interventions.csv",
            caption="report/salitrap/table7.rst",
            category="{analysis}",
            subcategory="Tables",
        ),
        tex="results/{analysis}/tables/table7_interventions.tex",
    params:
        conditions=setting("interventions", "conditions"),
        metrics=setting("metrics"),
        bootstrap=setting("bootstrap"),
        simulated=is_simulated,
        min_n=setting("min_n"),
    script:
        "../scripts/rederive/studies/salitrap/interventions.py"


rule analyse_salitrap_density:
    input:
        db="results/{analysis}/{analysis}.duckdb",
    output:
        rates=report(
            "results/{analysis}/tables/density_rates.csv",
            caption="report/salitrap/density_rates.rst",
            category="{analysis}",
            subcategory="Distractor density",
        ),
        slopes=report(
            "results/{analysis}/tables/density_slopes.csv",
            caption="report/salitrap/density_slopes.rst",
            category="{analysis}",
            subcategory="Distractor density",
        ),
    params:
        dimensions=setting("dimensions"),
        metrics=setting("metrics"),
        metric_names=setting("density", "metrics"),
        low=setting("density", "low"),
        high=setting("density", "high"),
        bootstrap=setting("bootstrap"),
        min_n=setting("min_n"),
    script:
        "../scripts/rederive/studies/salitrap/density.py"


rule compare_salitrap_models:
    input:
        db="results/{analysis}/{analysis}.duckdb",
    output:
        pairs=report(
            "results/{analysis}/tables/pairwise_tar.csv",
            caption="report/salitrap/pairwise.rst",
            category="{analysis}",
            subcategory="Model comparisons",
        ),
        ranking=report(
            "results/{analysis}/tables/ranking.csv",
            caption="report/salitrap/ranking.rst",
            category="{analysis}",
            subcategory="Model comparisons",
        ),
        ranking_tex="results/{analysis}/tables/ranking.tex",
    params:
        metrics=setting("metrics"),
        q=setting("fdr_q"),
        bootstrap=setting("bootstrap"),
        simulated=is_simulated,
        min_n=setting("min_n"),
    script:
        "../scripts/rederive/studies/salitrap/comparisons.py"


rule tabulate_salitrap_labels:
    input:
        db="results/{analysis}/{analysis}.duckdb",
    output:
        csv=report(
            "results/{analysis}/tables/label_distribution.csv",
            caption="report/salitrap/label_distribution.rst",
            category="{analysis}",
            subcategory="Overview",
        ),
    params:
        metrics=setting("metrics"),
        valid_labels=setting("labels", "valid"),
    script:
        "../scripts/rederive/studies/salitrap/distribution.py"


rule analyse_salitrap_failure_sets:
    input:
        db="results/{analysis}/{analysis}.duckdb",
    output:
        pairs=report(
            "results/{analysis}/tables/failure_pairs.csv",
            caption="report/salitrap/failure_pairs.rst",
            category="{analysis}",
            subcategory="Failure sets",
        ),
        table5=report(
            "results/{analysis}/tables/table5_pairs.csv",
            caption="report/salitrap/table5.rst",
            category="{analysis}",
            subcategory="Tables",
        ),
        table5_tex="results/{analysis}/tables/table5_pairs.tex",
        failed_by_all=report(
            "results/{analysis}/tables/failed_by_all.csv",
            caption="report/salitrap/failed_by_all.rst",
            category="{analysis}",
            subcategory="Failure sets",
        ),
        linkage="results/{analysis}/tables/failure_linkage.csv",
        order="results/{analysis}/tables/failure_order.csv",
        shared_items=report(
            "results/{analysis}/tables/shared_items.csv",
            caption="report/salitrap/shared_items.rst",
            category="{analysis}",
            subcategory="Failure sets",
        ),
    params:
        metrics=setting("metrics"),
        linkage=setting("failure_sets", "linkage"),
        n_pairs=setting("failure_sets", "n_pairs"),
        simulated=is_simulated,
        min_n=setting("min_n"),
        shared_items=setting("shared_items"),
        partial_share=setting("partial_share"),
    script:
        "../scripts/rederive/studies/salitrap/failure_sets.py"


rule fit_salitrap_irt:
    input:
        db="results/{analysis}/{analysis}.duckdb",
    output:
        item_params=report(
            "results/{analysis}/tables/irt_items.csv",
            caption="report/salitrap/irt_items.rst",
            category="{analysis}",
            subcategory="IRT",
        ),
        model_params=report(
            "results/{analysis}/tables/irt_models.csv",
            caption="report/salitrap/irt_models.rst",
            category="{analysis}",
            subcategory="IRT",
        ),
        by_dimension="results/{analysis}/tables/irt_difficulty_by_dimension.csv",
        stats="results/{analysis}/tables/irt_statistics.csv",
    # The longest chain of its study (fit, then figures): start it first.
    priority: 10
    params:
        dimensions=setting("dimensions"),
        metrics=setting("metrics"),
        epochs=setting("irt", "epochs"),
        lr=setting("irt", "lr"),
        lr_decay=setting("irt", "lr_decay"),
        tol=setting("irt", "tol"),
        priors=setting("irt", "priors"),
        seed=setting("irt", "seed"),
        n_boot=setting("irt", "n_boot"),
        warm_start=setting("irt", "warm_start"),
        warm_start_file=lambda w: f"results/{w.analysis}/cache/irt_warm_start.csv",
        level=setting("bootstrap", "level"),
        min_n=setting("min_n"),
        shared_items=setting("shared_items"),
        partial_share=setting("partial_share"),
    script:
        "../scripts/rederive/studies/salitrap/irt_fit.py"


rule analyse_salitrap_items:
    input:
        db="results/{analysis}/{analysis}.duckdb",
    output:
        analysis=report(
            "results/{analysis}/tables/item_analysis.csv",
            caption="report/salitrap/item_analysis.rst",
            category="{analysis}",
            subcategory="Item analysis",
        ),
        suspects=report(
            "results/{analysis}/tables/suspect_items.csv",
            caption="report/salitrap/suspect_items.rst",
            category="{analysis}",
            subcategory="Item analysis",
        ),
        md="results/{analysis}/tables/suspect_items.md",
    params:
        metrics=setting("metrics"),
        settings=setting("item_analysis"),
        min_n=setting("min_n"),
        shared_items=setting("shared_items"),
        partial_share=setting("partial_share"),
        data_note=data_note,
    script:
        "../scripts/rederive/studies/salitrap/item_analysis.py"


rule plot_salitrap_figures:
    # One job draws every figure: each figure job paid ~1.7 s of CPU to import
    # pandas, matplotlib, seaborn and SciPy before drawing (bench/job_cpu.py).
    input:
        rates="results/{analysis}/tables/density_rates.csv",
        slopes="results/{analysis}/tables/density_slopes.csv",
        table6="results/{analysis}/tables/table6_liberation.csv",
        table7="results/{analysis}/tables/table7_interventions.csv",
        distribution="results/{analysis}/tables/label_distribution.csv",
        pairs="results/{analysis}/tables/failure_pairs.csv",
        linkage="results/{analysis}/tables/failure_linkage.csv",
        order="results/{analysis}/tables/failure_order.csv",
        analysis="results/{analysis}/tables/item_analysis.csv",
        suspects="results/{analysis}/tables/suspect_items.csv",
        item_params="results/{analysis}/tables/irt_items.csv",
        model_params="results/{analysis}/tables/irt_models.csv",
        stats="results/{analysis}/tables/irt_statistics.csv",
    output:
        fig6_png=report(
            "results/{analysis}/figures/fig6_density.png",
            caption="report/salitrap/fig6.rst",
            category="{analysis}",
            subcategory="Distractor density",
        ),
        fig6_pdf="results/{analysis}/figures/fig6_density.pdf",
        fig12_png=report(
            "results/{analysis}/figures/fig12_density_by_dimension.png",
            caption="report/salitrap/fig12.rst",
            category="{analysis}",
            subcategory="Distractor density",
        ),
        fig12_pdf="results/{analysis}/figures/fig12_density_by_dimension.pdf",
        fig7_png=report(
            "results/{analysis}/figures/fig7_liberation.png",
            caption="report/salitrap/fig7.rst",
            category="{analysis}",
            subcategory="Liberation and interventions",
        ),
        fig7_pdf="results/{analysis}/figures/fig7_liberation.pdf",
        fig8_png=report(
            "results/{analysis}/figures/fig8_interventions.png",
            caption="report/salitrap/fig8.rst",
            category="{analysis}",
            subcategory="Liberation and interventions",
        ),
        fig8_pdf="results/{analysis}/figures/fig8_interventions.pdf",
        overview_png=report(
            "results/{analysis}/figures/overview_labels.png",
            caption="report/salitrap/fig_overview.rst",
            category="{analysis}",
            subcategory="Overview",
        ),
        overview_pdf="results/{analysis}/figures/overview_labels.pdf",
        fig5_png=report(
            "results/{analysis}/figures/fig5_dendrogram.png",
            caption="report/salitrap/fig5.rst",
            category="{analysis}",
            subcategory="Failure sets",
        ),
        fig5_pdf="results/{analysis}/figures/fig5_dendrogram.pdf",
        fig10_png=report(
            "results/{analysis}/figures/fig10_co_failure.png",
            caption="report/salitrap/fig10.rst",
            category="{analysis}",
            subcategory="Failure sets",
        ),
        fig10_pdf="results/{analysis}/figures/fig10_co_failure.pdf",
        fig11_png=report(
            "results/{analysis}/figures/fig11_jaccard.png",
            caption="report/salitrap/fig11.rst",
            category="{analysis}",
            subcategory="Failure sets",
        ),
        fig11_pdf="results/{analysis}/figures/fig11_jaccard.pdf",
        png=report(
            "results/{analysis}/figures/suspect_items.png",
            caption="report/salitrap/fig_suspect_items.rst",
            category="{analysis}",
            subcategory="Item analysis",
        ),
        pdf="results/{analysis}/figures/suspect_items.pdf",
        fig4_png=report(
            "results/{analysis}/figures/fig4_irt.png",
            caption="report/salitrap/fig4.rst",
            category="{analysis}",
            subcategory="IRT",
        ),
        fig4_pdf="results/{analysis}/figures/fig4_irt.pdf",
        fig9_png=report(
            "results/{analysis}/figures/fig9_naturalness_difficulty.png",
            caption="report/salitrap/fig9.rst",
            category="{analysis}",
            subcategory="IRT",
        ),
        fig9_pdf="results/{analysis}/figures/fig9_naturalness_difficulty.pdf",
    params:
        simulated=is_simulated,
        settings=setting("item_analysis"),
        item_column="item_id",
        data_note=data_note,
    script:
        "../scripts/rederive/studies/salitrap/figures_all.py"


rule estimate_salitrap_power:
    input:
        db="results/{analysis}/{analysis}.duckdb",
        pairs="results/{analysis}/tables/pairwise_tar.csv",
    output:
        power=report(
            "results/{analysis}/tables/power.csv",
            caption="report/salitrap/power.rst",
            category="{analysis}",
            subcategory="Power",
        ),
        curve="results/{analysis}/tables/power_mde_curve.csv",
    params:
        power=setting("power"),
        fdr_q=setting("fdr_q"),
        metrics=setting("metrics"),
    script:
        "../scripts/rederive/studies/salitrap/power.py"


register_kind(
    "salitrap",
    headline=HeadlineSpec(score="tar", score_label="control TAR", unit="%"),
    runs=salitrap_runs,
    targets=salitrap_targets,
    power_title="SaliTrap model pairs (control TAR)",
    power_unit="seed clusters",
    layout=paper_layout(
        ["items.jsonl"],
        "items.jsonl and runs/<run>.jsonl (optional: models.csv, published/*.csv)",
    ),
)


# What each job asks a scheduler for (rules/common.smk: job_size): memory (MB)
# and runtime (min) bases, their growth per MB of input, from results/benchmarks/.
size_jobs(
    ingest_salitrap_items=job_size(
        400, 10, mem_per_input_mb=20, runtime_per_input_mb=0.5
    ),
    ingest_salitrap_batch=job_size(
        400, 10, mem_per_input_mb=20, runtime_per_input_mb=0.5, largest_input=True
    ),
    build_salitrap_warehouse=job_size(
        500, 10, mem_per_input_mb=100, runtime_per_input_mb=0.2
    ),
    tabulate_salitrap_main=job_size(
        600, 15, mem_per_input_mb=60, runtime_per_input_mb=0.5
    ),
    check_salitrap_published=job_size(
        600, 15, mem_per_input_mb=60, runtime_per_input_mb=0.5
    ),
    tabulate_salitrap_liberation=job_size(
        600, 15, mem_per_input_mb=60, runtime_per_input_mb=0.5
    ),
    tabulate_salitrap_interventions=job_size(
        600, 15, mem_per_input_mb=60, runtime_per_input_mb=0.5
    ),
    analyse_salitrap_density=job_size(
        600, 15, mem_per_input_mb=60, runtime_per_input_mb=0.5
    ),
    compare_salitrap_models=job_size(
        600, 15, mem_per_input_mb=60, runtime_per_input_mb=0.5
    ),
    tabulate_salitrap_labels=job_size(
        600, 15, mem_per_input_mb=60, runtime_per_input_mb=0.5
    ),
    plot_salitrap_figures=job_size(
        800, 20, mem_per_input_mb=10, runtime_per_input_mb=0.5
    ),
    analyse_salitrap_failure_sets=job_size(
        600, 15, mem_per_input_mb=60, runtime_per_input_mb=0.5
    ),
    fit_salitrap_irt=job_size(1200, 60, mem_per_input_mb=60, runtime_per_input_mb=2),
    analyse_salitrap_items=job_size(
        600, 15, mem_per_input_mb=60, runtime_per_input_mb=0.5
    ),
    estimate_salitrap_power=job_size(
        500, 10, mem_per_input_mb=20, runtime_per_input_mb=0.5
    ),
)
