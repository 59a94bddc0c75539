"""``python -m rederive.audit``: exit codes, messages, outputs."""

from rederive.audit.__main__ import main


def _table(tmp_path, text, name="t.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_consistent_table_exits_0(tmp_path, capsys):
    path = _table(tmp_path, "model,acc\nA,30.3\nB,10.3\n")
    assert main([path, "--n", "195"]) == 0
    out = capsys.readouterr().out
    assert "'acc': score" in out and "N 195 (--n)" in out and "0 inconsistent" in out


def test_inconsistent_cell_exits_1_and_writes_csv_md(tmp_path, capsys):
    path = _table(tmp_path, "| model | acc |\n|---|---|\n| A | 30.4 |\n| B | 10.3 |\n", "t.md")
    csv, md = tmp_path / "f.csv", tmp_path / "f.md"
    assert main([path, "--n", "195", "--csv", str(csv), "--md", str(md)]) == 1
    assert "GRIM" in capsys.readouterr().out
    assert (
        csv.read_text().splitlines()[0] == "table,line,row,column,check,printed,possible,severity"
    )
    assert ",3,A,acc,GRIM,30.4%," in csv.read_text() and "| 3 | A | acc | GRIM |" in md.read_text()


def test_benchmark_flag_uses_the_registry(tmp_path, capsys):
    path = _table(tmp_path, "model,acc\nA,0.500\nB,0.501\n")
    # 0.500 = 82/164; 0.501 is no k/164 (82/164 = 0.500, 83/164 = 0.506).
    assert main([path, "--benchmark", "HumanEval"]) == 1
    out = capsys.readouterr().out
    assert "N 164 (--benchmark HumanEval, test split)" in out and "no k/164 prints as 0.501" in out


def test_unreadable_table_is_a_rederive_message(tmp_path, capsys):
    assert main([str(tmp_path / "missing.csv")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rederive: ") and "Traceback" not in err
    bad = _table(tmp_path, "model,acc\nA,1,2\n")
    assert main([bad]) == 2
    assert f"{bad}:2: 3 fields" in capsys.readouterr().err


def test_unknown_benchmark_and_unlabelled_pm(tmp_path, capsys):
    path = _table(tmp_path, "model,acc\nA,50.0 ± 5.0\n")
    assert main([path, "--benchmark", "nope"]) == 2
    assert "unknown benchmark" in capsys.readouterr().err
    assert main([path, "--n", "100"]) == 2
    assert "--pm se" in capsys.readouterr().err
    assert main([path, "--n", "100", "--pm", "se"]) == 0
