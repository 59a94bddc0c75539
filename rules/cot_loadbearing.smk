# Study `cot_loadbearing` (seed paper 003): ingest the run files in batches
# (validate, rule label), build the warehouse, Tables 1/2/5, gradients, labelling agreement, judge
# sensitivity, figures, published check. Config: config/cot_loadbearing.yaml.


include: "cot_loadbearing_helpers.smk"


rule ingest_cot_loadbearing_batch:
    input:
        runs=batch_run_files("cot_loadbearing"),
    output:
        ingested=directory("results/cot_loadbearing/ingested/{batch}"),
    log:
        "results/logs/cot_loadbearing/ingest/{batch}.log",
    benchmark:
        "results/benchmarks/cot_loadbearing/ingest/{batch}.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(400, 20, largest_input=True),
        runtime=job_runtime(10, 0.5),
    params:
        runs=batch_runs("cot_loadbearing"),
        cue_words=COT["cue_words"],
    script:
        "../scripts/rederive/studies/cot_loadbearing/ingest.py"


rule build_cot_loadbearing_warehouse:
    input:
        ingested=ingested_batches("cot_loadbearing"),
        baselines=raw_dir("cot_loadbearing") / "baselines.csv",
    output:
        db="results/cot_loadbearing/cot_loadbearing.duckdb",
    log:
        "results/logs/cot_loadbearing/warehouse.log",
    benchmark:
        "results/benchmarks/cot_loadbearing/warehouse.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(500, 100),
        runtime=job_runtime(10, 0.2),
    script:
        "../scripts/rederive/studies/cot_loadbearing/warehouse.py"


rule tabulate_cot_loadbearing_quality:
    input:
        ingested=ingested_batches("cot_loadbearing"),
    output:
        quality=report(
            "results/cot_loadbearing/tables/data_quality.csv",
            caption="report/cot_loadbearing/data_quality.rst",
            category="CoT load-bearing",
            subcategory="Data quality",
        ),
    log:
        "results/logs/cot_loadbearing/quality.log",
    benchmark:
        "results/benchmarks/cot_loadbearing/quality.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 60),
        runtime=job_runtime(15, 0.5),
    script:
        "../scripts/rederive/studies/cot_loadbearing/quality.py"


rule tabulate_cot_loadbearing_shares:
    input:
        db="results/cot_loadbearing/cot_loadbearing.duckdb",
    output:
        table1=report(
            "results/cot_loadbearing/tables/table1_main.csv",
            caption="report/cot_loadbearing/table1.rst",
            category="CoT load-bearing",
            subcategory="Tables",
        ),
        table1_tex="results/cot_loadbearing/tables/table1_main.tex",
        models_tex="results/cot_loadbearing/tables/model_comparison.tex",
        table2=report(
            "results/cot_loadbearing/tables/table2_decoupling.csv",
            caption="report/cot_loadbearing/table2.rst",
            category="CoT load-bearing",
            subcategory="Tables",
        ),
        table2_tex="results/cot_loadbearing/tables/table2_decoupling.tex",
    log:
        "results/logs/cot_loadbearing/shares.log",
    benchmark:
        "results/benchmarks/cot_loadbearing/shares.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 60),
        runtime=job_runtime(15, 0.5),
    params:
        production=COT["production_variant"],
        n_boot=COT["bootstrap"]["n_boot"],
        seed=COT["bootstrap"]["seed"],
        simulated=cot_loadbearing_simulated(),
        main_model=COT["main_model"],
        decoupling_subject=COT["decoupling_subject"],
        min_n=COT["min_n"],
    script:
        "../scripts/rederive/studies/cot_loadbearing/shares.py"


rule tabulate_cot_loadbearing_gradients:
    input:
        db="results/cot_loadbearing/cot_loadbearing.duckdb",
    output:
        position=report(
            "results/cot_loadbearing/tables/position.csv",
            caption="report/cot_loadbearing/position.rst",
            category="CoT load-bearing",
            subcategory="Gradients",
        ),
        trend=report(
            "results/cot_loadbearing/tables/position_trend.csv",
            caption="report/cot_loadbearing/position_trend.rst",
            category="CoT load-bearing",
            subcategory="Gradients",
        ),
        remaining=report(
            "results/cot_loadbearing/tables/remaining_steps.csv",
            caption="report/cot_loadbearing/remaining_steps.rst",
            category="CoT load-bearing",
            subcategory="Gradients",
        ),
        strength=report(
            "results/cot_loadbearing/tables/strength.csv",
            caption="report/cot_loadbearing/strength.rst",
            category="CoT load-bearing",
            subcategory="Gradients",
        ),
        strength_tex="results/cot_loadbearing/tables/strength.tex",
        subjects=report(
            "results/cot_loadbearing/tables/mmlu_subjects.csv",
            caption="report/cot_loadbearing/mmlu_subjects.rst",
            category="CoT load-bearing",
            subcategory="Gradients",
        ),
        subject_summary="results/cot_loadbearing/tables/mmlu_subject_spread.csv",
    log:
        "results/logs/cot_loadbearing/gradients.log",
    benchmark:
        "results/benchmarks/cot_loadbearing/gradients.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(900, 60),
        runtime=job_runtime(15, 0.5),
    params:
        production=COT["production_variant"],
        n_boot=COT["bootstrap"]["n_boot"],
        seed=COT["bootstrap"]["seed"],
        simulated=cot_loadbearing_simulated(),
        remaining_bins=COT["remaining_bins"],
        min_subject_n=COT["min_subject_n"],
    script:
        "../scripts/rederive/studies/cot_loadbearing/gradients.py"


rule tabulate_cot_loadbearing_labelling:
    input:
        db="results/cot_loadbearing/cot_loadbearing.duckdb",
    output:
        confusion=report(
            "results/cot_loadbearing/tables/rule_vs_judge_confusion.csv",
            caption="report/cot_loadbearing/confusion.rst",
            category="CoT load-bearing",
            subcategory="Labelling",
        ),
        agreement=report(
            "results/cot_loadbearing/tables/rule_vs_judge_agreement.csv",
            caption="report/cot_loadbearing/agreement.rst",
            category="CoT load-bearing",
            subcategory="Labelling",
        ),
        judge=report(
            "results/cot_loadbearing/tables/judge_sensitivity.csv",
            caption="report/cot_loadbearing/judge_sensitivity.rst",
            category="CoT load-bearing",
            subcategory="Labelling",
        ),
        judge_summary="results/cot_loadbearing/tables/judge_sensitivity_summary.csv",
    log:
        "results/logs/cot_loadbearing/labelling.log",
    benchmark:
        "results/benchmarks/cot_loadbearing/labelling.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 60),
        runtime=job_runtime(15, 0.5),
    params:
        production=COT["production_variant"],
    script:
        "../scripts/rederive/studies/cot_loadbearing/labelling.py"


rule fit_cot_loadbearing_ordinal:
    input:
        db="results/cot_loadbearing/cot_loadbearing.duckdb",
    output:
        table=report(
            "results/cot_loadbearing/tables/table5_deviance.csv",
            caption="report/cot_loadbearing/table5.rst",
            category="CoT load-bearing",
            subcategory="Tables",
        ),
        table_tex="results/cot_loadbearing/tables/table5_deviance.tex",
    log:
        "results/logs/cot_loadbearing/ordinal.log",
    benchmark:
        "results/benchmarks/cot_loadbearing/ordinal.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(1200, 60),
        runtime=job_runtime(60, 2),
    params:
        production=COT["production_variant"],
        pool_model=COT["main_model"],
        simulated=cot_loadbearing_simulated(),
    script:
        "../scripts/rederive/studies/cot_loadbearing/ordinal.py"


rule plot_cot_loadbearing_figures:
    input:
        table1="results/cot_loadbearing/tables/table1_main.csv",
        position="results/cot_loadbearing/tables/position.csv",
        remaining="results/cot_loadbearing/tables/remaining_steps.csv",
        subjects="results/cot_loadbearing/tables/mmlu_subjects.csv",
        judge="results/cot_loadbearing/tables/judge_sensitivity.csv",
    output:
        shares_png=report(
            "results/cot_loadbearing/figures/shares.png",
            caption="report/cot_loadbearing/fig_shares.rst",
            category="CoT load-bearing",
            subcategory="Figures",
        ),
        shares_pdf="results/cot_loadbearing/figures/shares.pdf",
        gradients_png=report(
            "results/cot_loadbearing/figures/gradients.png",
            caption="report/cot_loadbearing/fig_gradients.rst",
            category="CoT load-bearing",
            subcategory="Figures",
        ),
        gradients_pdf="results/cot_loadbearing/figures/gradients.pdf",
        subjects_png=report(
            "results/cot_loadbearing/figures/mmlu_subjects.png",
            caption="report/cot_loadbearing/fig_mmlu_subjects.rst",
            category="CoT load-bearing",
            subcategory="Figures",
        ),
        subjects_pdf="results/cot_loadbearing/figures/mmlu_subjects.pdf",
        judge_png=report(
            "results/cot_loadbearing/figures/judge_sensitivity.png",
            caption="report/cot_loadbearing/fig_judge_sensitivity.rst",
            category="CoT load-bearing",
            subcategory="Figures",
        ),
        judge_pdf="results/cot_loadbearing/figures/judge_sensitivity.pdf",
    log:
        "results/logs/cot_loadbearing/figures.log",
    benchmark:
        "results/benchmarks/cot_loadbearing/figures.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 10),
        runtime=job_runtime(15, 0.2),
    params:
        simulated=cot_loadbearing_simulated(),
        main_model=COT["main_model"],
    script:
        "../scripts/rederive/studies/cot_loadbearing/figures.py"


rule check_cot_loadbearing_published:
    input:
        power="results/cot_loadbearing/tables/power.csv",
        table1="results/cot_loadbearing/tables/table1_main.csv",
        table2="results/cot_loadbearing/tables/table2_decoupling.csv",
        table5="results/cot_loadbearing/tables/table5_deviance.csv",
        position="results/cot_loadbearing/tables/position.csv",
        trend="results/cot_loadbearing/tables/position_trend.csv",
        remaining="results/cot_loadbearing/tables/remaining_steps.csv",
        strength="results/cot_loadbearing/tables/strength.csv",
        subject_summary="results/cot_loadbearing/tables/mmlu_subject_spread.csv",
        judge_summary="results/cot_loadbearing/tables/judge_sensitivity_summary.csv",
        published=cot_loadbearing_published,
    output:
        csv=report(
            "results/cot_loadbearing/check/published_check.csv",
            caption="report/cot_loadbearing/check.rst",
            category="CoT load-bearing",
            subcategory="Published check",
        ),
        md="results/cot_loadbearing/check/published_check.md",
    log:
        "results/logs/cot_loadbearing/check.log",
    benchmark:
        "results/benchmarks/cot_loadbearing/check.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb(600, 60),
        runtime=job_runtime(15, 0.5),
    params:
        power=COT["power"],
        simulated=cot_loadbearing_simulated(),
        decoupling_subject=COT["decoupling_subject"],
        published_dir=str(raw_dir("cot_loadbearing") / "published"),
    script:
        "../scripts/rederive/studies/cot_loadbearing/check.py"
