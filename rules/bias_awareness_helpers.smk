# Input functions and targets of the bias_awareness rules (kept apart from the
# rules, as `snakemake --lint` asks).


BIAS_AWARENESS = config["bias_awareness"]


def bias_awareness_simulated():
    """Bundled simulated data carries SIMULATED.md; captions and notes say so."""
    return (raw_dir("bias_awareness") / "SIMULATED.md").exists()


def bias_awareness_published(wildcards):
    """The published headline numbers, when the raw folder has them (else no check)."""
    path = raw_dir("bias_awareness") / "published" / "bias_awareness_headline.csv"
    return [str(path)] if path.exists() else []


def bias_awareness_runs():
    return run_ids("bias_awareness")


def bias_awareness_targets():
    return [
        "results/bias_awareness/tables/power.csv",
        "results/bias_awareness/figures/power_mde.png",
        "results/bias_awareness/tables/main.tex",
        "results/bias_awareness/tables/comparisons.tex",
        "results/bias_awareness/tables/agreement.tex",
        "results/bias_awareness/tables/data_quality.csv",
        "results/bias_awareness/figures/susceptibility_awareness.png",
        "results/bias_awareness/check/published_check.md",
    ]
