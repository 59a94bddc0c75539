# Study `salitrap` (seed paper 000): ingest each run file, build the warehouse,
# Tables 1-3, data quality, published check. Config: config/salitrap.yaml.


include: "salitrap_helpers.smk"


rule ingest_salitrap_items:
    input:
        items_jsonl=raw_dir("salitrap") / "items.jsonl",
    output:
        item_table="results/salitrap/items.parquet",
    log:
        "results/logs/salitrap/ingest_items.log",
    conda:
        CONDA_ENV
    params:
        dimensions=SALITRAP["dimensions"],
    script:
        "../scripts/rederive/studies/salitrap/items.py"


rule ingest_salitrap_run:
    input:
        run=raw_dir("salitrap") / "runs" / "{run}.jsonl",
        item_table="results/salitrap/items.parquet",
    output:
        labelled="results/salitrap/labelled/{run}.parquet",
        accounting="results/salitrap/accounting/{run}.json",
    log:
        "results/logs/salitrap/ingest/{run}.log",
    conda:
        CONDA_ENV
    params:
        valid_labels=SALITRAP["labels"]["valid"],
        invalid_labels=SALITRAP["labels"]["invalid"],
        conditions=SALITRAP["conditions"],
        dimensions=SALITRAP["dimensions"],
    script:
        "../scripts/rederive/studies/salitrap/ingest.py"


rule build_salitrap_warehouse:
    input:
        item_table="results/salitrap/items.parquet",
        labelled=lambda w: expand(
            "results/salitrap/labelled/{run}.parquet", run=salitrap_runs()
        ),
        accounting=lambda w: expand(
            "results/salitrap/accounting/{run}.json", run=salitrap_runs()
        ),
        models=salitrap_models_csv,
    output:
        db="results/salitrap/salitrap.duckdb",
    log:
        "results/logs/salitrap/warehouse.log",
    conda:
        CONDA_ENV
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
    params:
        dimensions=SALITRAP["dimensions"],
        n_boot=SALITRAP["bootstrap"]["n_boot"],
        level=SALITRAP["bootstrap"]["level"],
        seed=SALITRAP["bootstrap"]["seed"],
        metrics=SALITRAP["metrics"],
        raw_dir=SALITRAP["raw_dir"],
    script:
        "../scripts/rederive/studies/salitrap/tables.py"


rule check_salitrap_published:
    input:
        table1="results/salitrap/tables/table1_tar_hfr.csv",
        table2="results/salitrap/tables/table2_scr_si.csv",
        table3="results/salitrap/tables/table3_dataset.csv",
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
    conda:
        CONDA_ENV
    params:
        published_dir=str(raw_dir("salitrap") / "published"),
        raw_dir=SALITRAP["raw_dir"],
        tolerance=SALITRAP["check"]["tolerance"],
    script:
        "../scripts/rederive/studies/salitrap/check.py"
