"""Audit tables: every distinct leading token with its count and class; data quality.

The exact-match rule is only as good as its word lists; this table lets a
reviewer see every token the rule met (e.g. a "Yep" counted as evade because
the list lacked it) and how many replies each decided.
"""

import pandas as pd

from rederive.studies.tag_sycophancy.labelling import classify_token, word_set


def token_table(replies: pd.DataFrame, endorse_words, reject_words) -> pd.DataFrame:
    """One row per distinct leading token of a non-failed reply."""
    valid = replies[replies["label"] != "failed"]
    endorse, reject = word_set(endorse_words), word_set(reject_words)
    grouped = valid.groupby("token").agg(
        count=("label", "size"), n_models=("model", "nunique"), label=("label", "first")
    )
    grouped = grouped.reset_index()
    grouped["class"] = [classify_token(t, endorse, reject) for t in grouped["token"]]
    mismatch = grouped["class"] != grouped["label"]
    if mismatch.any():
        raise AssertionError(
            f"labelled replies disagree with the word lists for tokens {grouped.loc[mismatch, 'token'].tolist()}"
        )
    grouped["token"] = grouped["token"].replace({"": "(no word)"})
    grouped["share"] = (100 * grouped["count"] / grouped["count"].sum()).round(2)
    grouped["in_word_list"] = grouped["class"] != "evade"
    columns = ["token", "class", "count", "share", "n_models", "in_word_list"]
    return grouped.sort_values(["count", "token"], ascending=[False, True], kind="stable")[
        columns
    ].reset_index(drop=True)


def main(snakemake):
    from rederive.io.warehouse import query

    db = snakemake.input.db
    replies = query(db, "SELECT model, label, token FROM replies")
    token_table(replies, snakemake.params.endorse, snakemake.params.reject).to_csv(
        snakemake.output.tokens, index=False, lineterminator="\n"
    )
    quality = query(db, "SELECT * FROM accounting ORDER BY run, reason")
    quality.to_csv(snakemake.output.quality, index=False, lineterminator="\n")


if __name__ == "__main__" and "snakemake" in globals():
    from rederive.runner import run

    run(main, snakemake)  # noqa: F821
