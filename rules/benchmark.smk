# Kind `benchmark`: any graded evaluation run (lm-evaluation-harness samples,
# Inspect .eval logs, matrix or long CSV/JSONL); the bundled analysis of this kind
# runs on the REAL ChemBench matrix. Options: config/kinds/benchmark.yaml. Flow: ingest runs in batches -> warehouse ->
# accuracy, pairwise/ranking, IRT, failure clustering, data quality -> figures,
# published check; and, for an analysis with a `gate:` block, the gate, and for
# one with a `sampling:` block, pass@k and pass^k with their figure.


include: "benchmark_helpers.smk"


rule ingest_benchmark_batch:
    input:
        files=benchmark_batch_files,
    output:
        ingested=directory("results/{analysis}/ingested/{batch}"),
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
    # The longest chain of its study (fit, then figures): start it first.
    priority: 10
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
    params:
        settings=setting("item_analysis"),
        data_note=data_note,
        fractional_scores=setting("fractional_scores"),
        fractional_scores_text=fractional_scores_caption,
    script:
        "../scripts/rederive/studies/benchmark/items.py"


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
    params:
        sampling=setting("sampling"),
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
        analysis="results/{analysis}/tables/item_analysis.csv",
        suspects="results/{analysis}/tables/suspect_items.csv",
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
        png=report(
            "results/{analysis}/figures/suspect_items.png",
            caption="report/benchmark/fig_suspect_items.rst",
            category="{analysis}",
            subcategory="Item analysis",
        ),
        pdf="results/{analysis}/figures/suspect_items.pdf",
    params:
        data_note=data_note,
        settings=setting("item_analysis"),
        item_column="item_key",
        simulated=is_simulated,
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
        sampling=sampling_input,
    output:
        csv=report(
            "results/{analysis}/check/published_check.csv",
            caption="report/benchmark/check.rst",
            category="{analysis}",
            subcategory="Published check",
        ),
        md="results/{analysis}/check/published_check.md",
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


# Many samples per item (pass@k, pass^k, maj@k, avg@n): only for an analysis that
# sets `sampling:` (register_kind's only_when below); the comparison only with
# sampling.rank_at.
rule analyse_benchmark_sampling:
    input:
        db="results/{analysis}/{analysis}.duckdb",
    output:
        sampling=report(
            "results/{analysis}/tables/sampling.csv",
            caption="report/benchmark/sampling.rst",
            category="{analysis}",
            subcategory="Sampling",
        ),
    params:
        sampling=setting("sampling"),
        n_boot=setting("bootstrap", "n_boot"),
        seed=setting("bootstrap", "seed"),
        ci_level=setting("bootstrap", "level"),
        cluster_by=setting("cluster_by"),
        sampling_text=sampling_caption,
    script:
        "../scripts/rederive/studies/benchmark/sampling.py"


rule compare_benchmark_sampling:
    input:
        db="results/{analysis}/{analysis}.duckdb",
    output:
        pairwise=report(
            "results/{analysis}/tables/sampling_pairwise.csv",
            caption="report/benchmark/sampling_pairwise.rst",
            category="{analysis}",
            subcategory="Sampling",
        ),
        ranking=report(
            "results/{analysis}/tables/sampling_ranking.csv",
            caption="report/benchmark/sampling_ranking.rst",
            category="{analysis}",
            subcategory="Sampling",
        ),
    params:
        sampling=setting("sampling"),
        n_boot=setting("bootstrap", "n_boot"),
        seed=setting("bootstrap", "seed"),
        ci_level=setting("bootstrap", "level"),
        fdr_q=setting("fdr_q"),
        min_n=setting("min_n"),
        cluster_by=setting("cluster_by"),
        comparisons=setting("comparisons"),
        sampling_text=sampling_caption,
    script:
        "../scripts/rederive/studies/benchmark/sampling_compare.py"


rule plot_benchmark_sampling:
    input:
        sampling="results/{analysis}/tables/sampling.csv",
    output:
        png=report(
            "results/{analysis}/figures/sampling.png",
            caption="report/benchmark/fig_sampling.rst",
            category="{analysis}",
            subcategory="Sampling",
        ),
        pdf="results/{analysis}/figures/sampling.pdf",
    params:
        data_note=data_note,
        sampling_text=sampling_caption,
    script:
        "../scripts/rederive/studies/benchmark/sampling_figure.py"


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
    params:
        power=setting("power"),
        fdr_q=setting("fdr_q"),
        cluster_by=setting("cluster_by"),
    script:
        "../scripts/rederive/studies/benchmark/power.py"


rule gate_benchmark_candidates:
    input:
        db="results/{analysis}/{analysis}.duckdb",
    output:
        md=report(
            "results/{analysis}/gate/gate.md",
            caption="report/benchmark/gate.rst",
            category="{analysis}",
            subcategory="Gate",
        ),
        csv=report(
            "results/{analysis}/gate/gate.csv",
            caption="report/benchmark/gate_csv.rst",
            category="{analysis}",
            subcategory="Gate",
        ),
        json=report(
            "results/{analysis}/gate/gate.json",
            caption="report/benchmark/gate_json.rst",
            category="{analysis}",
            subcategory="Gate",
        ),
    params:
        gate=setting("gate"),
        cluster_by=setting("cluster_by"),
        min_n=setting("min_n"),
        power=setting("power"),
        gate_text=gate_caption,
    script:
        "../scripts/rederive/studies/benchmark/gate.py"


register_kind(
    "benchmark",
    headline=HeadlineSpec(
        score="accuracy_pct",
        low="ci_low_pct",
        high="ci_high_pct",
        score_label="accuracy",
        unit="%",
    ),
    runs=benchmark_runs,
    targets=benchmark_targets,
    power_title="Benchmark model pairs",
    power_unit="items (or clusters, with ``cluster_by``)",
    layout=benchmark_layout,
    run_inputs=benchmark_run_inputs,
    # Built only for an analysis that asks for them (benchmark_helpers.smk).
    only_when={**SAMPLING_RULES, "gate_benchmark_candidates": has_gate},
)


# What each job asks a scheduler for (rules/common.smk: job_size): memory (MB)
# and runtime (min) bases, their growth per MB of input, from results/benchmarks/.
size_jobs(
    ingest_benchmark_batch=job_size(
        400, 10, mem_per_input_mb=20, runtime_per_input_mb=0.5, largest_input=True
    ),
    build_benchmark_warehouse=job_size(
        500, 10, mem_per_input_mb=100, runtime_per_input_mb=0.2
    ),
    analyse_benchmark_accuracy=job_size(
        600, 15, mem_per_input_mb=60, runtime_per_input_mb=0.5
    ),
    compare_benchmark_models=job_size(
        600, 15, mem_per_input_mb=60, runtime_per_input_mb=0.5
    ),
    fit_benchmark_irt=job_size(1200, 60, mem_per_input_mb=60, runtime_per_input_mb=2),
    analyse_benchmark_items=job_size(
        600, 15, mem_per_input_mb=60, runtime_per_input_mb=0.5
    ),
    decompose_benchmark_noise=job_size(
        500, 10, mem_per_input_mb=60, runtime_per_input_mb=0.5
    ),
    cluster_benchmark_failures=job_size(
        600, 15, mem_per_input_mb=60, runtime_per_input_mb=0.5
    ),
    tabulate_benchmark_quality=job_size(
        600, 15, mem_per_input_mb=60, runtime_per_input_mb=0.5
    ),
    plot_benchmark_figures=job_size(
        600, 15, mem_per_input_mb=10, runtime_per_input_mb=0.2
    ),
    check_benchmark_published=job_size(
        600, 15, mem_per_input_mb=60, runtime_per_input_mb=0.5
    ),
    estimate_benchmark_power=job_size(
        500, 10, mem_per_input_mb=20, runtime_per_input_mb=0.5
    ),
    gate_benchmark_candidates=job_size(
        500, 10, mem_per_input_mb=20, runtime_per_input_mb=0.2
    ),
    analyse_benchmark_sampling=job_size(
        600, 15, mem_per_input_mb=60, runtime_per_input_mb=0.5
    ),
    compare_benchmark_sampling=job_size(
        600, 15, mem_per_input_mb=60, runtime_per_input_mb=0.5
    ),
    plot_benchmark_sampling=job_size(500, 10),
)
