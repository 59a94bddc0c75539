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
    script:
        "../scripts/rederive/studies/bias_awareness/items.py"


rule ingest_bias_awareness_batch:
    input:
        runs=batch_run_files,
        item_table="results/{analysis}/items.parquet",
    output:
        ingested=directory("results/{analysis}/ingested/{batch}"),
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
    params:
        power=setting("power"),
        fdr_q=setting("fdr_q"),
    script:
        "../scripts/rederive/studies/bias_awareness/power.py"


register_kind(
    "bias_awareness",
    headline=HeadlineSpec(table="main", ranks_models=False),
    runs=bias_awareness_runs,
    targets=bias_awareness_targets,
    power_title="Bias awareness model differences",
    power_unit="questions",
    layout=paper_layout(
        ["items.jsonl"],
        "items.jsonl and runs/<model>.jsonl (optional: published/*.csv)",
    ),
)


# What each job asks a scheduler for (rules/common.smk: job_size): memory (MB)
# and runtime (min) bases, their growth per MB of input, from results/benchmarks/.
size_jobs(
    ingest_bias_awareness_items=job_size(
        400, 10, mem_per_input_mb=20, runtime_per_input_mb=0.5
    ),
    ingest_bias_awareness_batch=job_size(
        400, 10, mem_per_input_mb=20, runtime_per_input_mb=0.5, largest_input=True
    ),
    build_bias_awareness_warehouse=job_size(
        500, 10, mem_per_input_mb=100, runtime_per_input_mb=0.2
    ),
    tabulate_bias_awareness_rates=job_size(
        600, 15, mem_per_input_mb=60, runtime_per_input_mb=0.5
    ),
    compare_bias_awareness_models=job_size(
        600, 15, mem_per_input_mb=60, runtime_per_input_mb=0.5
    ),
    tabulate_bias_awareness_agreement=job_size(
        600, 15, mem_per_input_mb=60, runtime_per_input_mb=0.5
    ),
    tabulate_bias_awareness_quality=job_size(
        600, 15, mem_per_input_mb=60, runtime_per_input_mb=0.5
    ),
    plot_bias_awareness_figures=job_size(
        600, 15, mem_per_input_mb=10, runtime_per_input_mb=0.2
    ),
    check_bias_awareness_published=job_size(
        600, 15, mem_per_input_mb=60, runtime_per_input_mb=0.5
    ),
    estimate_bias_awareness_power=job_size(
        500, 10, mem_per_input_mb=20, runtime_per_input_mb=0.5
    ),
)
