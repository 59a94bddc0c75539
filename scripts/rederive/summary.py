"""One published-number check summary across all enabled studies."""

from pathlib import Path

import pandas as pd

from rederive.check import summary_markdown


def combine(paths) -> pd.DataFrame:
    frames = [pd.read_csv(p, keep_default_na=True) for p in paths]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def main(snakemake):
    frame = combine(snakemake.input.checks)
    frame.to_csv(snakemake.output.csv, index=False, lineterminator="\n", float_format="%.6g")
    per_study = []
    for study, group in frame.groupby("study", sort=False):
        counts = group["status"].value_counts()
        per_study.append(
            f"| {study} | {len(group)} | {counts.get('pass', 0)} | {counts.get('FAIL', 0)} | {counts.get('n/a', 0)} |"
        )
    preamble = "\n".join(
        [
            "Every number each study's paper states that the data determines, recomputed and compared "
            "(`cell`), and the identities the published tables must satisfy (`identity`). Per-study "
            "details: `results/<study>/check/published_check.md`.",
            "",
            "| study | checks | pass | FAIL | n/a |",
            "|---|---:|---:|---:|---:|",
            *per_study,
        ]
    )
    Path(snakemake.output.md).write_text(
        summary_markdown(
            frame, title="rederive: published-number check, all studies", preamble=preamble
        )
    )


if __name__ == "__main__" and "snakemake" in globals():
    from rederive.runner import run

    run(main, snakemake)  # noqa: F821
