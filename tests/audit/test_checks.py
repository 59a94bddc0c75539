"""Every check with a case that passes and a case that fires."""

from fractions import Fraction

import pytest

from rederive.audit.cells import number
from rederive.audit.columns import Options, infer
from rederive.audit.errorbars import ci_findings, pm_findings
from rederive.audit.grim import grim, round_as
from rederive.audit.report import audit_layout
from rederive.audit.separability import separation
from rederive.audit.sizes import find_benchmark, load_registry
from rederive.audit.tables import read_table

WHERE = dict(table="t", line=2, row="A", column="acc")


def test_grim_consistent_and_not():
    assert grim(number("30.3"), 195).consistent  # 59/195 = 30.26%
    bad = grim(number("30.4"), 195)
    assert not bad.consistent and bad.below[0] == 59 and bad.above[0] == 60
    assert (
        grim(number("0.30"), 10, scale=1).consistent
        and not grim(number("0.35"), 10, scale=1).consistent
    )


def test_grim_rounding_conventions_are_named():
    # 1/8 = 12.5%: 12 under half-even and truncation, 13 under half-up.
    assert grim(number("12"), 8).modes == ("half-even", "truncate", "float")
    assert grim(number("13"), 8).modes == ("half-up",)
    # 2/3 = 66.666…%: truncation prints 66.6, rounding 66.7.
    assert grim(number("66.6"), 3).modes == ("truncate",)
    assert (
        round_as(Fraction(5, 2), 0, "half-even") == 2
        and round_as(Fraction(5, 2), 0, "half-up") == 3
    )


def test_grim_uninformative_when_n_is_large():
    assert not grim(number("50.1"), 12032).informative


def test_se_pm():
    # 50% of 100: SE 5.0 pp (5.03 with N-1).
    assert pm_findings(WHERE, number("50.0"), number("5.0"), 100, 100, "se", 0.95, None) == []
    bad = pm_findings(WHERE, number("50.0"), number("2.0"), 100, 100, "se", 0.95, None)
    assert bad[0].severity == "error" and "N ≈ 625" in bad[0].possible
    # 95% CI half-width 1.96 * 5 = 9.8.
    assert pm_findings(WHERE, number("50.0"), number("9.8"), 100, 100, "ci", 0.95, None) == []
    assert pm_findings(WHERE, number("50.0"), number("5.0"), 100, 100, "ci", 0.95, None)


def test_se_zero():
    # "0.0" at one decimal could be a rounded 0.017; at four decimals it cannot.
    assert not pm_findings(WHERE, number("0.4457"), number("0.0"), 817, 1, "se", 0.95, None)
    inside = pm_findings(WHERE, number("0.4457"), number("0.0000"), 817, 1, "se", 0.95, None)
    assert inside[0].severity == "error" and "impossible" in inside[0].possible
    edge = pm_findings(WHERE, number("0.0"), number("0.0"), 100, 100, "se", 0.95, None)
    assert edge[0].severity == "warning" and "degenerate" in edge[0].check


def test_se_clusters_bound():
    # With 20 clusters an SE up to sqrt(.25/19) = 11.5 pp is possible, above it not.
    assert pm_findings(WHERE, number("50.0"), number("10.0"), 100, 100, "se", 0.95, 20) == []
    assert pm_findings(WHERE, number("50.0"), number("14.0"), 100, 100, "se", 0.95, 20)


def test_ci_width():
    # 50% of 100: a 95% interval is about 19.6 pp wide.
    assert (
        ci_findings(WHERE, number("50.0"), number("40.2"), number("59.8"), 100, 100, 0.95, None)
        == []
    )
    narrow = ci_findings(
        WHERE, number("50.0"), number("48.0"), number("52.0"), 100, 100, 0.95, None
    )
    assert narrow[0].severity == "error"
    wide = ci_findings(WHERE, number("50.0"), number("20.0"), number("80.0"), 100, 100, 0.95, None)
    assert wide[0].severity == "warning"
    outside = ci_findings(
        WHERE, number("70.0"), number("40.2"), number("59.8"), 100, 100, 0.95, None
    )
    assert any("outside" in f.possible for f in outside)


def test_separation_verdicts():
    assert separation(0.80, 0.60, 1000).verdict((0.3, 0.7)) == "significant"
    assert separation(0.61, 0.58, 100).verdict((0.3, 0.7)) == "never"
    middle = separation(0.60, 0.57, 1000)  # needs rho >= 0.52
    assert middle.verdict((0.3, 0.7)) == "needs" and 0.3 < middle.needed <= 0.7


def _audit(tmp_path, text, **options):
    path = tmp_path / "t.csv"
    path.write_text(text, encoding="utf-8")
    opts = Options(**options)
    return audit_layout(infer(read_table(path), opts), opts)


def test_bold_claims(tmp_path):
    close = _audit(tmp_path, "model,acc\nA,**61.0**\nB,58.0\n", n=100)
    assert [f.check for f in close.findings if f.severity == "warning"] == ["claim: bold"]
    far = _audit(tmp_path, "model,acc\nA,**90.0**\nB,58.0\n", n=100)
    assert not [f for f in far.findings if f.check.startswith("claim")]


def test_explicit_claims_and_contradiction(tmp_path):
    text = "model,acc\nA,61.0\nB,58.0\n"
    ok = _audit(tmp_path, text, n=100000, claims=("A>B",))
    assert not [f for f in ok.findings if f.check.startswith("claim")]
    wrong = _audit(tmp_path, text, n=100, claims=("B>A",))
    assert [f.severity for f in wrong.findings if f.check.startswith("claim")] == ["error"]


def test_stars_need_a_baseline(tmp_path):
    text = "model,acc\nbase,50.0\nA,61.0*\n"
    asked = _audit(tmp_path, text, n=100)
    assert any("--baseline" in f.possible for f in asked.findings)
    tested = _audit(tmp_path, text, n=100, baseline="base")
    assert any(f.check == "claim: stars" and f.severity == "warning" for f in tested.findings)


def test_ranks_tie_groups(tmp_path):
    tied = _audit(tmp_path, "model,acc\nA,61.0\nB,60.0\nC,20.0\n", n=100)
    ranks = [f for f in tied.findings if f.check == "ranks"]
    assert len(ranks) == 1 and "A = B" in ranks[0].possible and "C" not in ranks[0].possible
    apart = _audit(tmp_path, "model,acc\nA,90.0\nB,50.0\nC,10.0\n", n=100)
    assert not [f for f in apart.findings if f.check == "ranks"]


def test_partition(tmp_path):
    ok = _audit(tmp_path, "model,a,b,c\nX,33.3,33.3,33.3\n", partitions=(("a", "b", "c"),))
    assert not ok.findings
    bad = _audit(tmp_path, "model,a,b,c\nX,33.3,33.3,35.3\n", partitions=(("a", "b", "c"),))
    assert [f.check for f in bad.findings] == ["identity: partition"]


def test_counts_implied_by_rates(tmp_path):
    ok = _audit(tmp_path, "model,correct,acc\nA,59,30.3\n", n=195)
    assert not [f for f in ok.findings if f.check == "identity: count"]
    bad = _audit(tmp_path, "model,correct,acc\nA,60,30.3\n", n=195)
    assert [f.check for f in bad.findings if f.severity == "error"] == ["identity: count"]


def test_weighted_total(tmp_path):
    text = "model,part,acc\nA,x,50.0\nA,y,10.0\nA,overall,{total}\n"
    sizes = {"x": 100, "y": 300, "overall": 400}
    ok = _audit(tmp_path, text.format(total="20.0"), sizes=sizes)
    assert not [f for f in ok.findings if f.check.startswith("identity")]
    bad = _audit(tmp_path, text.format(total="30.0"), sizes=sizes)
    assert [f.check for f in bad.findings if f.severity == "error"] == ["identity: weighted total"]


def test_total_n_is_sum_of_parts(tmp_path):
    ok = _audit(tmp_path, "part,n,acc\nx,100,50.0\ny,300,10.0\nall,400,20.0\n")
    assert not [f for f in ok.findings if f.severity == "error"]
    bad = _audit(tmp_path, "part,n,acc\nx,100,50.0\ny,300,10.0\nall,401,20.0\n")
    assert "identity: total N" in [f.check for f in bad.findings]


def test_unlabelled_pm_asks_for_a_flag(tmp_path):
    from rederive.errors import InputError

    with pytest.raises(InputError, match="--pm"):
        _audit(tmp_path, "model,acc\nA,50.0 ± 5.0\n", n=100)
    assert not _audit(tmp_path, "model,acc\nA,50.0 ± 5.0\n", n=100, pm="se").findings


def test_registry_sizes():
    names = {b.name: b.size for b in load_registry()}
    assert names["MMLU"] == 14042 and names["MMLU-Pro"] == 12032 and names["GSM8K"] == 1319
    assert names["HumanEval"] == 164 and names["GPQA Diamond"] == 198 and names["MATH-500"] == 500
    assert names["SWE-bench Verified"] == 500 and names["SWE-bench Lite"] == 300
    assert names["ChemBench"] == 2854 and names["SaliTrap"] == 1145
    assert all(b.source and b.split for b in load_registry())
    assert find_benchmark("gpqa diamond").size == 198
    with pytest.raises(KeyError, match="unknown benchmark"):
        find_benchmark("no-such-bench")


def test_impossible_percentage_is_grim_not_a_crash(tmp_path):
    result = _audit(tmp_path, "model,acc\nA,**130.3**\nB,58.0\nC,57.0\n", n=100)
    assert [(f.check, f.row) for f in result.findings if f.severity == "error"] == [("GRIM", "A")]
