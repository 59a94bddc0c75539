"""Row keys and cell comparison of two versions of a results table."""

from rederive.changes.tables import cells_agree, compare_tables, row_key
from rederive.io.csv_text import parse_table


def table(text: str):
    return parse_table(text.strip() + "\n")


def test_key_is_the_first_identifier_column_unique_in_both():
    old = table("model,accuracy\nA,0.5\nB,0.6")
    new = table("model,accuracy\nA,0.5\nB,0.7\nC,0.1")
    assert row_key(old, new) == ["model"]


def test_pairs_take_two_columns_and_constant_columns_are_skipped():
    old = table("study,a,b,diff\ns,A,B,1\ns,A,C,2\ns,B,C,3")
    assert row_key(old, old) == ["a", "b"]


def test_a_position_column_is_tried_after_the_names():
    old = table("order,model,acc\n1,A,0.6\n2,B,0.5")
    new = table("order,model,acc\n1,B,0.7\n2,A,0.6")
    assert row_key(old, new) == ["model"]
    diff = compare_tables("ranking.csv", old, new)
    # B moved to the top: two rows changed, none added or removed.
    assert not diff.rows_added and not diff.rows_removed
    assert {(c.key["model"], c.column, c.old, c.new) for c in diff.cells} == {
        ("A", "order", "1", "2"),
        ("B", "order", "2", "1"),
        ("B", "acc", "0.5", "0.7"),
    }


def test_hashes_floats_and_flags_are_never_keys():
    old = table("run,sha256,reason,rows\nr1,aa,x,1\nr1,aa,y,2\nr2,cc,x,3")
    new = table("run,sha256,reason,rows\nr1,bb,x,1\nr1,bb,y,2\nr2,cc,x,3")
    assert row_key(old, new) == ["run", "reason"]
    assert [(c.column, c.old, c.new) for c in compare_tables("t", old, new).cells] == [
        ("sha256", "aa", "bb"),
        ("sha256", "aa", "bb"),
    ]
    floats = table("x,y,flag\n0.5,1,True\n0.25,2,False")
    assert row_key(floats, floats) == ["y"]


def test_integer_columns_are_keys():
    old = table("n,mde\n10,5.1\n20,3.2")
    new = table("n,mde\n10,5.0\n20,3.2\n40,2.1")
    diff = compare_tables("curve.csv", old, new)
    assert diff.key == ["n"]
    assert diff.rows_added == [{"n": "40"}]
    assert [(c.key, c.old, c.new) for c in diff.cells] == [({"n": "10"}, "5.1", "5.0")]


def test_no_unique_key_compares_rows_by_position():
    old = table("label,v\nx,1.5\nx,2.5")
    new = table("label,v\nx,1.5\nx,3.5")
    diff = compare_tables("t", old, new)
    assert diff.key == []
    assert [(c.key, c.column, c.old, c.new) for c in diff.cells] == [
        ({"row": "2"}, "v", "2.5", "3.5")
    ]


def test_columns_added_and_removed_rows_added_and_removed():
    old = table("model,a,b\nA,1,2\nB,1,2")
    new = table("model,a,c\nA,1,9\nC,1,9")
    diff = compare_tables("t", old, new)
    assert diff.columns_added == ["c"] and diff.columns_removed == ["b"]
    assert diff.rows_added == [{"model": "C"}] and diff.rows_removed == [{"model": "B"}]
    assert diff.cells == [] and diff.changed


def test_names_with_commas_quotes_and_line_breaks_are_kept_as_text():
    text = 'model,score\n"a,b ""x""",1\n"line\nbreak",2\n'
    old, new = parse_table(text), parse_table(text.replace(",2\n", ",3\n"))
    diff = compare_tables("t", old, new)
    assert [(c.key["model"], c.new) for c in diff.cells] == [("line\nbreak", "3")]


def test_cells_compare_as_printed_unless_a_tolerance_is_given():
    assert not cells_agree("0.10", "0.1")
    assert cells_agree("0.10", "0.1", 1e-12)
    assert cells_agree("1.0", "1.05", 0.1)
    assert not cells_agree("1.0", "1.2", 0.1)
    assert not cells_agree("a", "b", 1.0)
    assert cells_agree("nan", "nan", 1e-9)
