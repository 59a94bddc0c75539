# The power figure of every analysis, written once: minimum detectable difference
# against n, drawn from the power table and curve its kind's estimate_<kind>_power
# rule writes. Resources: 224-233 MB RSS measured per figure on the bundled data
# (results/benchmarks/*/plot_power.tsv), about twice that as base.


rule plot_power:
    input:
        power="results/{analysis}/tables/power.csv",
        curve="results/{analysis}/tables/power_mde_curve.csv",
    output:
        png=report(
            "results/{analysis}/figures/power_mde.png",
            caption="report/power_mde.rst",
            category="{analysis}",
            subcategory="Power",
        ),
        pdf="results/{analysis}/figures/power_mde.pdf",
    params:
        title=power_title,
        note=power_note,
        simulated=is_simulated,
        unit=power_unit,
    script:
        "../scripts/rederive/plots/power.py"


# What each job asks a scheduler for (rules/common.smk: job_size): memory (MB)
# and runtime (min) bases, their growth per MB of input, from results/benchmarks/.
size_jobs(
    plot_power=job_size(500, 10),
)
