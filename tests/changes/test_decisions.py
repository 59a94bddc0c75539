"""Decisions that flipped: read from the columns the tables print."""

import json

from rederive.changes.decisions import flipped_decisions
from rederive.changes.tables import compare_tables
from rederive.io.csv_text import parse_table
from rederive.site.layout import HeadlineSpec

HEADLINES = {
    "benchmark": HeadlineSpec(score="accuracy_pct", score_label="accuracy", unit="%"),
    "tag_sycophancy": HeadlineSpec(table="tag_effects", ranks_models=False),
}


def flips(kind, old: dict, new: dict):
    old = {k: parse_table(v) for k, v in old.items()}
    new = {k: parse_table(v) for k, v in new.items()}
    diffs = {k: compare_tables(k, old[k], new[k]) for k in old.keys() & new.keys()}
    return flipped_decisions(HEADLINES[kind], diffs, old, new)


PAIRWISE_OLD = (
    "a,b,diff_pct,q_value,significant\nA,B,3.1,0.01,True\nA,C,1.0,0.20,False\nB,C,0.5,0.5,False\n"
)
PAIRWISE_NEW = (
    "a,b,diff_pct,q_value,significant\nA,B,1.2,0.08,False\nA,C,1.0,0.20,False\nB,C,0.5,0.5,False\n"
)


def test_significance_flip_carries_its_q_values():
    out = flips(
        "benchmark", {"tables/pairwise.csv": PAIRWISE_OLD}, {"tables/pairwise.csv": PAIRWISE_NEW}
    )
    assert [(d.decision, d.key, d.old, d.new, d.detail) for d in out] == [
        ("significance", '{"a": "A", "b": "B"}', "True", "False", "q_value 0.01 → 0.08")
    ]


def test_power_table_repeats_are_not_counted_again():
    power_old = PAIRWISE_OLD.replace("diff_pct", "diff_pp")
    power_new = PAIRWISE_NEW.replace("diff_pct", "diff_pp")
    out = flips(
        "benchmark",
        {"tables/pairwise.csv": PAIRWISE_OLD, "tables/power.csv": power_old},
        {"tables/pairwise.csv": PAIRWISE_NEW, "tables/power.csv": power_new},
    )
    assert [d.table for d in out] == ["tables/pairwise.csv"]


RANKING_OLD = (
    "order,model,accuracy_pct,rank_best,rank_worst,tied_with,small_n\n"
    "1,A,60.0,1,2,B,False\n2,B,59.0,1,2,A,False\n3,C,40.0,3,3,,False\n"
)
RANKING_NEW = (
    "order,model,accuracy_pct,rank_best,rank_worst,tied_with,small_n\n"
    "1,B,61.0,1,1,,False\n2,A,58.0,2,2,,False\n3,C,40.0,3,3,,True\n"
)


def test_rank_ranges_tie_groups_flags_and_the_top_model():
    out = flips(
        "benchmark", {"tables/ranking.csv": RANKING_OLD}, {"tables/ranking.csv": RANKING_NEW}
    )
    got = {(d.decision, d.key, d.old, d.new) for d in out}
    assert ("rank range", '{"model": "A"}', "1–2", "2–2") in got
    assert ("rank range", '{"model": "B"}', "1–2", "1–1") in got
    assert ("tie group", '{"model": "A"}', "B", "") in got
    assert ("flag", '{"model": "C"}', "False", "True") in got
    assert ("headline", "", "A", "B") in got


def test_a_flag_repeated_in_several_tables_is_one_decision_naming_the_others():
    old = "model,acc,small_n\nA,1,False\n"
    new = "model,acc,small_n\nA,2,True\n"
    out = flips(
        "benchmark",
        {"tables/accuracy.csv": old, "tables/irt_ability.csv": old},
        {"tables/accuracy.csv": new, "tables/irt_ability.csv": new},
    )
    assert len(out) == 1
    assert out[0].table == "tables/accuracy.csv"
    assert out[0].detail == "also in tables/irt_ability.csv"


def test_published_check_status_flips_with_the_numbers():
    old = "study,table,kind,item,quantity,published,ours,status\nx,T1,cell,GPT-4o,effect,-8.5,-8.5,pass\nx,T1,cell,B,effect,1,1,pass\n"
    new = "study,table,kind,item,quantity,published,ours,status\nx,T1,cell,GPT-4o,effect,-8.5,-0.2,FAIL\nx,T1,cell,B,effect,1,1,pass\n"
    out = flips(
        "tag_sycophancy", {"check/published_check.csv": old}, {"check/published_check.csv": new}
    )
    assert len(out) == 1
    d = out[0]
    assert (d.decision, d.old, d.new, d.detail) == ("check", "pass", "FAIL", "ours -8.5 → -0.2")
    assert '"item": "GPT-4o"' in d.key


def test_nothing_flips_when_only_numbers_move():
    old = RANKING_OLD
    new = RANKING_OLD.replace("60.0", "60.1")
    assert flips("benchmark", {"tables/ranking.csv": old}, {"tables/ranking.csv": new}) == []


def gate_csv(rows: list[dict]) -> str:
    """gate/gate.csv as the gate writes it (its columns, in order), from a few cells."""
    from rederive.gate.outputs import CSV_COLUMNS

    lines = [",".join(CSV_COLUMNS)]
    for row in rows:
        lines.append(",".join(str(row.get(c, "")) for c in CSV_COLUMNS))
    return "\n".join(lines) + "\n"


def gate_rows(margin: str, claude: str, task_b: str) -> list[dict]:
    common = {"baseline": "GPT-4o", "margin_pp": margin, "level": "0.95", "n_items": 2854}
    return [
        {**common, "candidate": "o1", "scope": "overall", "verdict": "better", "diff_pp": "3.19"},
        {
            **common,
            "candidate": "Claude",
            "scope": "overall",
            "verdict": claude,
            "diff_pp": "1.37",
            "ci_low_pp": "-0.89",
        },
        {**common, "candidate": "Claude", "scope": "task", "task": "a", "verdict": "not worse"},
        {**common, "candidate": "Claude", "scope": "task", "task": "b", "verdict": task_b},
    ]


def test_a_gate_verdict_that_flips_is_a_decision_with_its_margin():
    old = {"gate/gate.csv": gate_csv(gate_rows("1.00", "not worse", "inconclusive"))}
    new = {"gate/gate.csv": gate_csv(gate_rows("0.50", "inconclusive", "worse"))}
    out = flips("benchmark", old, new)
    assert [(d.decision, json.loads(d.key), d.column, d.old, d.new, d.detail) for d in out] == [
        (
            "gate",
            {"baseline": "GPT-4o", "candidate": "Claude", "scope": "overall", "task": ""},
            "verdict",
            "not worse",
            "inconclusive",
            "margin_pp 1.00 → 0.50",
        ),
        (
            "gate",
            {"baseline": "GPT-4o", "candidate": "Claude", "scope": "task", "task": "b"},
            "verdict",
            "inconclusive",
            "worse",
            "margin_pp 1.00 → 0.50",
        ),
    ]
    # Nothing flips when only the margin's text moves.
    same = {"gate/gate.csv": gate_csv(gate_rows("0.50", "not worse", "inconclusive"))}
    assert flips("benchmark", old, same) == []


def test_the_closing_line_names_an_overall_gate_verdict_that_flipped():
    from rederive.changes.report import compare_snapshots
    from rederive.changes.snapshots import MemorySnapshot

    def snapshot(claude, task_b):
        text = gate_csv(gate_rows("1.00", claude, task_b)).encode()
        return MemorySnapshot(None, {"gate/gate.csv": text})

    report = compare_snapshots(
        "bench",
        "benchmark",
        snapshot("not worse", "inconclusive"),
        snapshot("inconclusive", "worse"),
        old_name="build 1",
        new_name="build 2",
    )
    assert report.output_summary() == (
        "no table changed, 2 decisions flipped, gate Claude not worse → inconclusive"
    )
    rows = [r for r in report.rows() if r["section"] == "decision"]
    assert [(r["subject"], r["table"], r["old"], r["new"]) for r in rows] == [
        ("gate", "gate/gate.csv", "not worse", "inconclusive"),
        ("gate", "gate/gate.csv", "inconclusive", "worse"),
    ]
