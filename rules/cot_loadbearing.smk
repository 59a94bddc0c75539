# Study `cot_loadbearing` (seed paper 003): ingest the run files in batches
# (validate, rule label), build the warehouse, Tables 1/2/5, gradients, labelling agreement, judge
# sensitivity, figures, published check. Config: config/kinds/cot_loadbearing.yaml.


include: "cot_loadbearing_helpers.smk"


rule ingest_cot_loadbearing_batch:
    input:
        runs=batch_run_files,
    output:
        ingested=directory("results/{analysis}/ingested/{batch}"),
    params:
        raw_dir=raw_root,
        runs=batch_runs,
        cue_words=setting("cue_words"),
    script:
        "../scripts/rederive/studies/cot_loadbearing/ingest.py"


rule build_cot_loadbearing_warehouse:
    input:
        ingested=ingested_batches,
        baselines=raw_file("baselines.csv"),
    output:
        db="results/{analysis}/{analysis}.duckdb",
    script:
        "../scripts/rederive/studies/cot_loadbearing/warehouse.py"


rule tabulate_cot_loadbearing_quality:
    input:
        ingested=ingested_batches,
    output:
        quality=report(
            "results/{analysis}/tables/data_quality.csv",
            caption="report/cot_loadbearing/data_quality.rst",
            category="{analysis}",
            subcategory="Data quality",
        ),
    script:
        "../scripts/rederive/studies/cot_loadbearing/quality.py"


rule tabulate_cot_loadbearing_shares:
    input:
        db="results/{analysis}/{analysis}.duckdb",
    output:
        table1=report(
            "results/{analysis}/tables/table1_main.csv",
            caption="report/cot_loadbearing/table1.rst",
            category="{analysis}",
            subcategory="Tables",
        ),
        table1_tex="results/{analysis}/tables/table1_main.tex",
        models_tex="results/{analysis}/tables/model_comparison.tex",
        table2=report(
            "results/{analysis}/tables/table2_decoupling.csv",
            caption="report/cot_loadbearing/table2.rst",
            category="{analysis}",
            subcategory="Tables",
        ),
        table2_tex="results/{analysis}/tables/table2_decoupling.tex",
    params:
        production=setting("production_variant"),
        n_boot=setting("bootstrap", "n_boot"),
        seed=setting("bootstrap", "seed"),
        simulated=is_simulated,
        main_model=setting("main_model"),
        decoupling_subject=setting("decoupling_subject"),
        min_n=setting("min_n"),
    script:
        "../scripts/rederive/studies/cot_loadbearing/shares.py"


rule tabulate_cot_loadbearing_gradients:
    input:
        db="results/{analysis}/{analysis}.duckdb",
    output:
        position=report(
            "results/{analysis}/tables/position.csv",
            caption="report/cot_loadbearing/position.rst",
            category="{analysis}",
            subcategory="Gradients",
        ),
        trend=report(
            "results/{analysis}/tables/position_trend.csv",
            caption="report/cot_loadbearing/position_trend.rst",
            category="{analysis}",
            subcategory="Gradients",
        ),
        remaining=report(
            "results/{analysis}/tables/remaining_steps.csv",
            caption="report/cot_loadbearing/remaining_steps.rst",
            category="{analysis}",
            subcategory="Gradients",
        ),
        strength=report(
            "results/{analysis}/tables/strength.csv",
            caption="report/cot_loadbearing/strength.rst",
            category="{analysis}",
            subcategory="Gradients",
        ),
        strength_tex="results/{analysis}/tables/strength.tex",
        subjects=report(
            "results/{analysis}/tables/mmlu_subjects.csv",
            caption="report/cot_loadbearing/mmlu_subjects.rst",
            category="{analysis}",
            subcategory="Gradients",
        ),
        subject_summary="results/{analysis}/tables/mmlu_subject_spread.csv",
    params:
        production=setting("production_variant"),
        n_boot=setting("bootstrap", "n_boot"),
        seed=setting("bootstrap", "seed"),
        simulated=is_simulated,
        remaining_bins=setting("remaining_bins"),
        min_subject_n=setting("min_subject_n"),
    script:
        "../scripts/rederive/studies/cot_loadbearing/gradients.py"


rule tabulate_cot_loadbearing_labelling:
    input:
        db="results/{analysis}/{analysis}.duckdb",
    output:
        confusion=report(
            "results/{analysis}/tables/rule_vs_judge_confusion.csv",
            caption="report/cot_loadbearing/confusion.rst",
            category="{analysis}",
            subcategory="Labelling",
        ),
        agreement=report(
            "results/{analysis}/tables/rule_vs_judge_agreement.csv",
            caption="report/cot_loadbearing/agreement.rst",
            category="{analysis}",
            subcategory="Labelling",
        ),
        judge=report(
            "results/{analysis}/tables/judge_sensitivity.csv",
            caption="report/cot_loadbearing/judge_sensitivity.rst",
            category="{analysis}",
            subcategory="Labelling",
        ),
        judge_summary="results/{analysis}/tables/judge_sensitivity_summary.csv",
    params:
        production=setting("production_variant"),
    script:
        "../scripts/rederive/studies/cot_loadbearing/labelling.py"


rule fit_cot_loadbearing_ordinal:
    input:
        db="results/{analysis}/{analysis}.duckdb",
    output:
        table=report(
            "results/{analysis}/tables/table5_deviance.csv",
            caption="report/cot_loadbearing/table5.rst",
            category="{analysis}",
            subcategory="Tables",
        ),
        table_tex="results/{analysis}/tables/table5_deviance.tex",
    params:
        production=setting("production_variant"),
        pool_model=setting("main_model"),
        simulated=is_simulated,
    script:
        "../scripts/rederive/studies/cot_loadbearing/ordinal.py"


rule plot_cot_loadbearing_figures:
    input:
        table1="results/{analysis}/tables/table1_main.csv",
        position="results/{analysis}/tables/position.csv",
        remaining="results/{analysis}/tables/remaining_steps.csv",
        subjects="results/{analysis}/tables/mmlu_subjects.csv",
        judge="results/{analysis}/tables/judge_sensitivity.csv",
    output:
        shares_png=report(
            "results/{analysis}/figures/shares.png",
            caption="report/cot_loadbearing/fig_shares.rst",
            category="{analysis}",
            subcategory="Figures",
        ),
        shares_pdf="results/{analysis}/figures/shares.pdf",
        gradients_png=report(
            "results/{analysis}/figures/gradients.png",
            caption="report/cot_loadbearing/fig_gradients.rst",
            category="{analysis}",
            subcategory="Figures",
        ),
        gradients_pdf="results/{analysis}/figures/gradients.pdf",
        subjects_png=report(
            "results/{analysis}/figures/mmlu_subjects.png",
            caption="report/cot_loadbearing/fig_mmlu_subjects.rst",
            category="{analysis}",
            subcategory="Figures",
        ),
        subjects_pdf="results/{analysis}/figures/mmlu_subjects.pdf",
        judge_png=report(
            "results/{analysis}/figures/judge_sensitivity.png",
            caption="report/cot_loadbearing/fig_judge_sensitivity.rst",
            category="{analysis}",
            subcategory="Figures",
        ),
        judge_pdf="results/{analysis}/figures/judge_sensitivity.pdf",
    params:
        simulated=is_simulated,
        main_model=setting("main_model"),
    script:
        "../scripts/rederive/studies/cot_loadbearing/figures.py"


rule check_cot_loadbearing_published:
    input:
        power="results/{analysis}/tables/power.csv",
        table1="results/{analysis}/tables/table1_main.csv",
        table2="results/{analysis}/tables/table2_decoupling.csv",
        table5="results/{analysis}/tables/table5_deviance.csv",
        position="results/{analysis}/tables/position.csv",
        trend="results/{analysis}/tables/position_trend.csv",
        remaining="results/{analysis}/tables/remaining_steps.csv",
        strength="results/{analysis}/tables/strength.csv",
        subject_summary="results/{analysis}/tables/mmlu_subject_spread.csv",
        judge_summary="results/{analysis}/tables/judge_sensitivity_summary.csv",
        published=published_files,
    output:
        csv=report(
            "results/{analysis}/check/published_check.csv",
            caption="report/cot_loadbearing/check.rst",
            category="{analysis}",
            subcategory="Published check",
        ),
        md="results/{analysis}/check/published_check.md",
    params:
        power=setting("power"),
        simulated=is_simulated,
        decoupling_subject=setting("decoupling_subject"),
        published_dir=published_dir,
    script:
        "../scripts/rederive/studies/cot_loadbearing/check.py"


rule estimate_cot_loadbearing_power:
    input:
        db="results/{analysis}/{analysis}.duckdb",
        table2="results/{analysis}/tables/table2_decoupling.csv",
    output:
        power=report(
            "results/{analysis}/tables/power.csv",
            caption="report/cot_loadbearing/power.rst",
            category="{analysis}",
            subcategory="Power",
        ),
        curve="results/{analysis}/tables/power_mde_curve.csv",
    params:
        power=setting("power"),
        fdr_q=setting("fdr_q"),
        production=setting("production_variant"),
        subject=setting("decoupling_subject"),
    script:
        "../scripts/rederive/studies/cot_loadbearing/power.py"


register_kind(
    "cot_loadbearing",
    headline=HeadlineSpec(table="table1_main", ranks_models=False),
    runs=cot_loadbearing_runs,
    targets=cot_loadbearing_targets,
    power_title="CoT load-bearing, numeric vs text perturbation",
    power_unit="problems",
    layout=paper_layout(
        ["baselines.csv"],
        "baselines.csv and runs/<model>.jsonl (optional: published/*.csv)",
    ),
)


# What each job asks a scheduler for (rules/common.smk: job_size): memory (MB)
# and runtime (min) bases, their growth per MB of input, from results/benchmarks/.
size_jobs(
    ingest_cot_loadbearing_batch=job_size(
        400, 10, mem_per_input_mb=20, runtime_per_input_mb=0.5, largest_input=True
    ),
    build_cot_loadbearing_warehouse=job_size(
        500, 10, mem_per_input_mb=100, runtime_per_input_mb=0.2
    ),
    tabulate_cot_loadbearing_quality=job_size(
        600, 15, mem_per_input_mb=60, runtime_per_input_mb=0.5
    ),
    tabulate_cot_loadbearing_shares=job_size(
        600, 15, mem_per_input_mb=60, runtime_per_input_mb=0.5
    ),
    tabulate_cot_loadbearing_gradients=job_size(
        900, 15, mem_per_input_mb=60, runtime_per_input_mb=0.5
    ),
    tabulate_cot_loadbearing_labelling=job_size(
        600, 15, mem_per_input_mb=60, runtime_per_input_mb=0.5
    ),
    fit_cot_loadbearing_ordinal=job_size(
        1200, 60, mem_per_input_mb=60, runtime_per_input_mb=2
    ),
    plot_cot_loadbearing_figures=job_size(
        600, 15, mem_per_input_mb=10, runtime_per_input_mb=0.2
    ),
    check_cot_loadbearing_published=job_size(
        600, 15, mem_per_input_mb=60, runtime_per_input_mb=0.5
    ),
    estimate_cot_loadbearing_power=job_size(
        500, 10, mem_per_input_mb=20, runtime_per_input_mb=0.5
    ),
)
