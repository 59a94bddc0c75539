# Kind `preference`: pairwise judged games (AlpacaEval annotations, Arena-Hard
# judgments, MT-bench pairwise judgments, Chatbot Arena battles, a long CSV/JSONL).
# Options: config/kinds/preference.yaml. Flow: ingest runs in batches -> warehouse
# (games) -> Bradley-Terry scores and ranking, win rates against the baseline,
# judges, data quality -> figures, published check. No bundled analysis.


include: "preference_helpers.smk"


rule ingest_preference_batch:
    input:
        files=preference_batch_files,
    output:
        ingested=directory("results/{analysis}/ingested/{batch}"),
    params:
        raw_dir=raw_root,
        sources=preference_batch_sources,
        readers=preference_readers,
    script:
        "../scripts/rederive/studies/preference/ingest.py"


rule build_preference_warehouse:
    input:
        ingested=ingested_batches,
    output:
        db="results/{analysis}/{analysis}.duckdb",
    script:
        "../scripts/rederive/studies/preference/warehouse.py"


rule fit_preference_scores:
    input:
        db="results/{analysis}/{analysis}.duckdb",
    output:
        scores=report(
            "results/{analysis}/tables/scores.csv",
            caption="report/preference/scores.rst",
            category="{analysis}",
            subcategory="Tables",
        ),
        pairwise=report(
            "results/{analysis}/tables/pairwise.csv",
            caption="report/preference/pairwise.rst",
            category="{analysis}",
            subcategory="Tables",
        ),
        ranking=report(
            "results/{analysis}/tables/ranking.csv",
            caption="report/preference/ranking.rst",
            category="{analysis}",
            subcategory="Tables",
        ),
        tex="results/{analysis}/tables/ranking.tex",
    # The longest job of the kind (the bootstrap): start it first.
    priority: 10
    params:
        baseline=setting("baseline"),
        ties=setting("ties"),
        strong_weight=setting("strong_weight"),
        elo=setting("elo"),
        resample=setting("resample"),
        win_rate_interval=setting("win_rate_interval"),
        bootstrap=setting("bootstrap"),
        min_n=setting("min_n"),
        fdr_q=setting("fdr_q"),
        comparisons=setting("comparisons"),
        scores_text=scores_text,
        bootstrap_text=bootstrap_text,
        win_interval_text=win_interval_text,
    script:
        "../scripts/rederive/studies/preference/scores.py"


rule analyse_preference_winrates:
    input:
        db="results/{analysis}/{analysis}.duckdb",
        length_control=length_control_files,
    output:
        win_rates=report(
            "results/{analysis}/tables/win_rates.csv",
            caption="report/preference/win_rates.rst",
            category="{analysis}",
            subcategory="Tables",
        ),
        tex="results/{analysis}/tables/win_rates.tex",
    params:
        baseline=setting("baseline"),
        min_n=setting("min_n"),
        length_control=setting("length_control"),
        length_control_text=length_control_text,
    script:
        "../scripts/rederive/studies/preference/winrates.py"


rule analyse_preference_judges:
    input:
        db="results/{analysis}/{analysis}.duckdb",
    output:
        position_bias=report(
            "results/{analysis}/tables/position_bias.csv",
            caption="report/preference/position_bias.rst",
            category="{analysis}",
            subcategory="Judges",
        ),
        agreement=report(
            "results/{analysis}/tables/agreement.csv",
            caption="report/preference/agreement.rst",
            category="{analysis}",
            subcategory="Judges",
        ),
        self_preference=report(
            "results/{analysis}/tables/self_preference.csv",
            caption="report/preference/self_preference.rst",
            category="{analysis}",
            subcategory="Judges",
        ),
    params:
        level=setting("bootstrap", "level"),
    script:
        "../scripts/rederive/studies/preference/judges.py"


rule tabulate_preference_quality:
    input:
        db="results/{analysis}/{analysis}.duckdb",
        ingested=ingested_batches,
    output:
        quality=report(
            "results/{analysis}/tables/data_quality.csv",
            caption="report/preference/data_quality.rst",
            category="{analysis}",
            subcategory="Data quality",
        ),
        models=report(
            "results/{analysis}/tables/models.csv",
            caption="report/preference/models.rst",
            category="{analysis}",
            subcategory="Data quality",
        ),
    params:
        baseline=setting("baseline"),
        min_n=setting("min_n"),
    script:
        "../scripts/rederive/studies/preference/quality.py"


rule plot_preference_figures:
    input:
        scores="results/{analysis}/tables/scores.csv",
        ranking="results/{analysis}/tables/ranking.csv",
        win_rates="results/{analysis}/tables/win_rates.csv",
    output:
        **{
            f"{name}_png": report(
                f"results/{{analysis}}/figures/{name}.png",
                caption=f"report/preference/fig_{name}.rst",
                category="{analysis}",
                subcategory="Figures",
            )
            for name in PREFERENCE_FIGURE_NAMES
        },
        **{
            f"{name}_pdf": f"results/{{analysis}}/figures/{name}.pdf"
            for name in PREFERENCE_FIGURE_NAMES
        },
    params:
        level=setting("bootstrap", "level"),
        bootstrap_text=bootstrap_text,
    script:
        "../scripts/rederive/studies/preference/figures.py"


rule check_preference_published:
    input:
        win_rates="results/{analysis}/tables/win_rates.csv",
        scores="results/{analysis}/tables/scores.csv",
        db="results/{analysis}/{analysis}.duckdb",
        published=published_files,
    output:
        csv=report(
            "results/{analysis}/check/published_check.csv",
            caption="report/preference/check.rst",
            category="{analysis}",
            subcategory="Published check",
        ),
        md="results/{analysis}/check/published_check.md",
    params:
        published_dir=published_dir,
        check=setting("check"),
    script:
        "../scripts/rederive/studies/preference/check.py"


register_kind(
    "preference",
    headline=HeadlineSpec(
        score="rating",
        low="ci_low",
        high="ci_high",
        score_label="Elo",
        unit="",
    ),
    runs=preference_runs,
    targets=preference_targets,
    layout=preference_layout,
    run_inputs=preference_run_inputs,
)


# What each job asks a scheduler for (rules/common.smk: job_size): memory (MB)
# and runtime (min) bases, their growth per MB of input. Sized from
# results/benchmarks/ of the fixture builds and bench/preference_scale.py (1 M
# games: ~0.8 GB peak in the scores job, 3 s of CPU for 1,000 replicates).
size_jobs(
    ingest_preference_batch=job_size(
        400, 10, mem_per_input_mb=15, runtime_per_input_mb=0.5, largest_input=True
    ),
    build_preference_warehouse=job_size(
        500, 10, mem_per_input_mb=20, runtime_per_input_mb=0.2
    ),
    fit_preference_scores=job_size(
        800, 20, mem_per_input_mb=40, runtime_per_input_mb=0.5
    ),
    analyse_preference_winrates=job_size(
        600, 20, mem_per_input_mb=30, runtime_per_input_mb=0.5
    ),
    analyse_preference_judges=job_size(
        600, 15, mem_per_input_mb=40, runtime_per_input_mb=0.5
    ),
    tabulate_preference_quality=job_size(
        500, 10, mem_per_input_mb=30, runtime_per_input_mb=0.2
    ),
    plot_preference_figures=job_size(500, 10),
    check_preference_published=job_size(
        500, 10, mem_per_input_mb=20, runtime_per_input_mb=0.2
    ),
)
