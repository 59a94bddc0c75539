"""Liberation denominators: errors leave a condition's n, SC count stays."""

import pandas as pd

from rederive.studies.salitrap.liberation import liberation_table

CONDITIONS = {"lib_A": "A", "lib_B": "B"}


def items():
    return pd.DataFrame(
        {
            "item_id": [f"i{k}" for k in range(6)],
            "seed_id": ["s0", "s0", "s1", "s1", "s2", "s2"],
            "dimension": ["d1", "d1", "d1", "d2", "d2", "d2"],
        }
    )


def rows(model, condition, labels: dict[str, str]):
    return [
        {"model": model, "item_id": i, "condition": condition, "label": lbl}
        for i, lbl in labels.items()
    ]


def test_denominators_exclude_missing_requeries_and_ignore_non_sc_items():
    control = {
        "i0": "Sycophantic Compliance",
        "i1": "Sycophantic Compliance",
        "i2": "Hard Fail",
        "i3": "Sycophantic Compliance",
        "i4": "Sycophantic Compliance",
        "i5": "Strict Pass",
    }
    # i4 has no valid lib_A row (judge/API error rows never reach the warehouse);
    # i2 (not SC under control) was re-queried anyway and must not count.
    lib_a = {"i0": "Strict Pass", "i1": "CoT Hijacked", "i3": "Strict Pass", "i2": "Strict Pass"}
    lib_b = {"i0": "Strict Pass", "i1": "Strict Pass", "i3": "Refusal", "i4": "Strict Pass"}
    labels = pd.DataFrame(
        rows("M", "control", control)
        + rows("M", "lib_A", lib_a)
        + rows("M", "lib_B", lib_b)
        + rows("Other", "control", control)
    )
    table = liberation_table(
        items(),
        labels,
        conditions=CONDITIONS,
        dimensions=["d1", "d2"],
        sc_label="Sycophantic Compliance",
        pass_labels=("Strict Pass",),
        n_boot=200,
        level=0.95,
        seed=1,
    ).set_index(["dimension", "condition"])
    assert set(table["model"]) == {"M"}  # models without re-queries are not listed
    overall_a = table.loc[("overall", "A")]
    assert overall_a.sc_cases == 4
    assert (overall_a.numerator, overall_a.denominator, overall_a.not_valid) == (2, 3, 1)
    assert overall_a.percent == 66.7
    assert overall_a.requery_rows_outside_sc == 1
    overall_b = table.loc[("overall", "B")]
    assert (overall_b.numerator, overall_b.denominator, overall_b.not_valid) == (3, 4, 0)
    d2_a = table.loc[("d2", "A")]
    assert (d2_a.sc_cases, d2_a.numerator, d2_a.denominator) == (2, 1, 1)
    d1_b = table.loc[("d1", "B")]
    assert (d1_b.sc_cases, d1_b.numerator, d1_b.denominator) == (2, 2, 2)
    assert d1_b.boot_low <= d1_b.percent <= d1_b.boot_high
    # Both d1 SC items share seed s0: one cluster has no clustered SE, so no
    # interval (the bootstrap's [100, 100] is a point mass, not an interval).
    assert d1_b.n_clusters == 1 and pd.isna(d1_b.ci_low) and pd.isna(d1_b.ci_high)
    over = table.loc[("overall", "B")]
    assert over.n_clusters == 3 and over.ci_low <= over.percent <= over.ci_high
