"""The rule scripts: published tables audited with per-table settings, and the summary."""

from rederive.audit.findings import to_csv
from rederive.audit.published import audit_tables, options_from
from rederive.audit.summary import summary_markdown


def test_per_table_settings_override():
    settings = {
        "n": 100,
        "sizes": {"x": 10},
        "tables": {"t6": {"n": None, "sizes": {}, "ignore": ["SI"]}},
    }
    assert options_from(settings, "other").n == 100 and options_from(settings, "other").sizes == {
        "x": 10
    }
    own = options_from(settings, "t6")
    assert own.n is None and own.sizes == {} and own.ignore == ("SI",)


def test_audit_tables_names_tables_and_notes_unreadable(tmp_path):
    (tmp_path / "good.csv").write_text("model,acc\nA,30.4\n", encoding="utf-8")
    (tmp_path / "bad.csv").write_text("model,acc\nA,1,2\n", encoding="utf-8")
    findings, lines = audit_tables(sorted(tmp_path.glob("*.csv")), {"n": 195}, tmp_path)
    assert {(f.table, f.check, f.severity) for f in findings} == {
        ("good.csv", "GRIM", "error"),
        ("bad.csv", "not audited", "note"),
    }
    assert str(tmp_path) not in "\n".join(lines) and str(tmp_path) not in to_csv(findings)


def test_summary_counts_and_lists_errors():
    rows = [
        {
            "analysis": "a",
            "table": "t.csv",
            "line": "2",
            "row": "A",
            "column": "acc",
            "check": "GRIM",
            "printed": "30.4%",
            "possible": "x",
            "severity": "error",
        },
        {
            "analysis": "a",
            "table": "t.csv",
            "line": "",
            "row": "",
            "column": "acc",
            "check": "ranks",
            "printed": "",
            "possible": "",
            "severity": "note",
        },
    ]
    text = summary_markdown(rows, ["a", "b"])
    assert "| a | t.csv | 1 | 0 | 1 |" in text and "| b | (no findings) | 0 | 0 | 0 |" in text
    assert (
        "| a | t.csv | 2 | A | acc | GRIM |" in text
        and "ranks" not in text.split("## Inconsistent")[1]
    )
