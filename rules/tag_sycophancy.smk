# Study `tag_sycophancy` (seed paper 002): appended tag questions across models.
# ingest the run files in batches -> warehouse -> effects (bootstrap, BH, floor guard) ->
# panel analyses, audit tables, figures, published check. Config: config/kinds/tag_sycophancy.yaml.


include: "tag_sycophancy_helpers.smk"


rule ingest_tag_sycophancy_batch:
    input:
        runs=batch_run_files,
        item_file=raw_file("items.jsonl"),
    output:
        ingested=directory("results/{analysis}/ingested/{batch}"),
    params:
        raw_dir=raw_root,
        runs=batch_runs,
        arms=setting("arms"),
        endorse=setting("labelling", "endorse"),
        reject=setting("labelling", "reject"),
    script:
        "../scripts/rederive/studies/tag_sycophancy/ingest.py"


rule build_tag_sycophancy_warehouse:
    input:
        item_file=raw_file("items.jsonl"),
        ingested=ingested_batches,
        models=optional_raw_file("models.csv"),
    output:
        db="results/{analysis}/{analysis}.duckdb",
    script:
        "../scripts/rederive/studies/tag_sycophancy/warehouse.py"


rule tabulate_tag_sycophancy_effects:
    input:
        db="results/{analysis}/{analysis}.duckdb",
    output:
        table=tagsyc_report("results/{analysis}/tables/tag_effects.csv", "tag_effects"),
        tex="results/{analysis}/tables/tag_effects.tex",
        effects=tagsyc_report(
            "results/{analysis}/tables/arm_effects.csv", "arm_effects"
        ),
        cells="results/{analysis}/tables/cell_counts.csv",
    params:
        arms=setting("arms"),
        n_boot=setting("bootstrap", "n_boot"),
        level=setting("bootstrap", "level"),
        seed=setting("bootstrap", "seed"),
        q=setting("fdr_q"),
        floor_threshold=setting("floor_threshold"),
        min_n=setting("min_n"),
        simulated=is_simulated,
    script:
        "../scripts/rederive/studies/tag_sycophancy/effects.py"


rule tabulate_tag_sycophancy_panel:
    input:
        db="results/{analysis}/{analysis}.duckdb",
        table="results/{analysis}/tables/tag_effects.csv",
        effects="results/{analysis}/tables/arm_effects.csv",
        cells="results/{analysis}/tables/cell_counts.csv",
    output:
        composition=tagsyc_report(
            "results/{analysis}/tables/composition.csv", "composition"
        ),
        trend=tagsyc_report(
            "results/{analysis}/tables/lineage_trend.csv", "lineage_trend"
        ),
        lineages=tagsyc_report(
            "results/{analysis}/tables/lineage_endpoints.csv", "lineage_endpoints"
        ),
        ablations=tagsyc_report("results/{analysis}/tables/ablations.csv", "ablations"),
        maybe=tagsyc_report("results/{analysis}/tables/maybe.csv", "maybe"),
        category=tagsyc_report(
            "results/{analysis}/tables/category_split.csv", "category_split"
        ),
        summary=tagsyc_report(
            "results/{analysis}/tables/panel_summary.csv", "panel_summary"
        ),
    params:
        q=setting("fdr_q"),
        rubber_stamp_threshold=setting("rubber_stamp_threshold"),
        min_models_per_lineage=setting("trend", "min_models_per_lineage"),
        exclude_floor_limited=setting("trend", "exclude_floor_limited"),
    script:
        "../scripts/rederive/studies/tag_sycophancy/panel.py"


rule tabulate_tag_sycophancy_audit:
    input:
        db="results/{analysis}/{analysis}.duckdb",
    output:
        tokens=tagsyc_report(
            "results/{analysis}/tables/leading_tokens.csv", "leading_tokens"
        ),
        quality=tagsyc_report(
            "results/{analysis}/tables/data_quality.csv", "data_quality"
        ),
    params:
        endorse=setting("labelling", "endorse"),
        reject=setting("labelling", "reject"),
    script:
        "../scripts/rederive/studies/tag_sycophancy/audit.py"


rule plot_tag_sycophancy_figures:
    input:
        table="results/{analysis}/tables/tag_effects.csv",
        effects="results/{analysis}/tables/arm_effects.csv",
        trend="results/{analysis}/tables/lineage_trend.csv",
        maybe="results/{analysis}/tables/maybe.csv",
        summary="results/{analysis}/tables/panel_summary.csv",
        published=published_files,
    output:
        pngs=[
            tagsyc_report(f"results/{{analysis}}/figures/{n}.png", n)
            for n in TAGSYC_FIGURE_NAMES
        ],
        pdfs=[f"results/{{analysis}}/figures/{n}.pdf" for n in TAGSYC_FIGURE_NAMES],
    params:
        simulated=is_simulated,
        level=setting("bootstrap", "level"),
        floor_threshold=setting("floor_threshold"),
    script:
        "../scripts/rederive/studies/tag_sycophancy/figures.py"


rule check_tag_sycophancy_published:
    input:
        power="results/{analysis}/tables/power.csv",
        table="results/{analysis}/tables/tag_effects.csv",
        composition="results/{analysis}/tables/composition.csv",
        lineages="results/{analysis}/tables/lineage_endpoints.csv",
        summary="results/{analysis}/tables/panel_summary.csv",
    output:
        csv=tagsyc_report("results/{analysis}/check/published_check.csv", "check"),
        md="results/{analysis}/check/published_check.md",
    params:
        power=setting("power"),
        published_dir=published_dir,
        effect_tolerance=setting("check", "tolerance"),
        ci_tolerance=setting("check", "ci_tolerance"),
        simulated=is_simulated,
    script:
        "../scripts/rederive/studies/tag_sycophancy/check.py"


rule estimate_tag_sycophancy_power:
    input:
        db="results/{analysis}/{analysis}.duckdb",
        effects="results/{analysis}/tables/tag_effects.csv",
        cells="results/{analysis}/tables/cell_counts.csv",
    output:
        power=report(
            "results/{analysis}/tables/power.csv",
            caption="report/tag_sycophancy/power.rst",
            category="{analysis}",
            subcategory="Power",
        ),
        curve="results/{analysis}/tables/power_mde_curve.csv",
    params:
        power=setting("power"),
        fdr_q=setting("fdr_q"),
    script:
        "../scripts/rederive/studies/tag_sycophancy/power.py"


register_kind(
    "tag_sycophancy",
    headline=HeadlineSpec(table="tag_effects", ranks_models=False),
    runs=tag_sycophancy_runs,
    targets=tag_sycophancy_targets,
    power_title="Tag sycophancy, per-model tag effect",
    power_unit="items",
    layout=paper_layout(
        ["items.jsonl"],
        "items.jsonl and runs/<model>.jsonl (optional: models.csv, published/*.csv)",
    ),
)


# What each job asks a scheduler for (rules/common.smk: job_size): memory (MB)
# and runtime (min) bases, their growth per MB of input, from results/benchmarks/.
size_jobs(
    ingest_tag_sycophancy_batch=job_size(
        400, 10, mem_per_input_mb=20, runtime_per_input_mb=0.5, largest_input=True
    ),
    build_tag_sycophancy_warehouse=job_size(
        500, 10, mem_per_input_mb=100, runtime_per_input_mb=0.2
    ),
    tabulate_tag_sycophancy_effects=job_size(
        600, 15, mem_per_input_mb=60, runtime_per_input_mb=0.5
    ),
    tabulate_tag_sycophancy_panel=job_size(
        600, 15, mem_per_input_mb=60, runtime_per_input_mb=0.5
    ),
    tabulate_tag_sycophancy_audit=job_size(
        600, 15, mem_per_input_mb=60, runtime_per_input_mb=0.5
    ),
    plot_tag_sycophancy_figures=job_size(
        600, 15, mem_per_input_mb=10, runtime_per_input_mb=0.2
    ),
    check_tag_sycophancy_published=job_size(
        600, 15, mem_per_input_mb=60, runtime_per_input_mb=0.5
    ),
    estimate_tag_sycophancy_power=job_size(
        500, 10, mem_per_input_mb=20, runtime_per_input_mb=0.5
    ),
)
