"""A raw folder without ``published/`` (a user's own runs): every study's check job
writes a header-only table and says "no published numbers to compare", and the
cross-study summary lists the study with that note (in process)."""

import re
from types import SimpleNamespace

import pandas as pd
import pytest

from rederive import summary
from rederive.check import NO_PUBLISHED, published_available
from rederive.studies.bias_awareness import check as bias_check
from rederive.studies.cot_loadbearing import check as cot_check
from rederive.studies.salitrap import check as salitrap_check
from rederive.studies.tag_sycophancy import check as tag_check

PARAMS = {
    "salitrap": dict(tolerance=0.05),
    "tag_sycophancy": dict(effect_tolerance=3.0, ci_tolerance=5.0, simulated=False),
    "bias_awareness": dict(tolerance=0.05, simulated=False),
    "cot_loadbearing": dict(simulated=False, decoupling_subject="x"),
}
MODULES = {
    "salitrap": salitrap_check,
    "tag_sycophancy": tag_check,
    "bias_awareness": bias_check,
    "cot_loadbearing": cot_check,
}


def run_check(study, root, published_dir):
    out = root / "results" / study / "check"
    out.mkdir(parents=True)
    output = SimpleNamespace(csv=out / "published_check.csv", md=out / "published_check.md")
    params = SimpleNamespace(published_dir=str(published_dir), **PARAMS[study])
    MODULES[study].main(
        SimpleNamespace(
            params=params,
            output=output,
            input=SimpleNamespace(),
            wildcards=SimpleNamespace(analysis=study),
        )
    )
    return output


@pytest.mark.parametrize("study", sorted(MODULES))
@pytest.mark.parametrize("folder", ["missing", "empty"])
def test_check_without_published_numbers(tmp_path, study, folder):
    published = tmp_path / "raw" / "published"
    if folder == "empty":
        published.mkdir(parents=True)
    output = run_check(study, tmp_path, published)
    frame = pd.read_csv(output.csv)
    assert frame.empty and "status" in frame.columns
    text = output.md.read_text()
    assert f"{NO_PUBLISHED.capitalize()}:" in text and "No checks were made." in text


def test_summary_lists_a_study_without_published_numbers(tmp_path):
    with_checks = tmp_path / "results" / "benchmark" / "check" / "published_check.csv"
    with_checks.parent.mkdir(parents=True)
    pd.DataFrame(
        [
            {
                "study": "benchmark",
                "table": "t",
                "kind": "cell",
                "item": "m",
                "quantity": "accuracy",
                "published": 0.5,
                "ours": 0.5,
                "difference": 0.0,
                "tolerance": 0.0,
                "relation": "==",
                "status": "pass",
                "note": "",
            }
        ]
    ).to_csv(with_checks, index=False)
    empty = run_check("tag_sycophancy", tmp_path, tmp_path / "nothing").csv
    out = tmp_path / "summary"
    out.mkdir()
    output = SimpleNamespace(csv=out / "s.csv", md=out / "s.md", html=out / "s.html")
    none = SimpleNamespace(earlier={})
    summary.main(
        SimpleNamespace(
            input=SimpleNamespace(checks=[str(with_checks), str(empty)]), output=output, params=none
        )
    )
    md = output.md.read_text()
    assert f"| tag_sycophancy |  | 0 |  |  |  |  |  | {NO_PUBLISHED} |" in md
    assert "| benchmark | cell | 1 | 1 | 0 |  |  | 0 |  |" in md
    # Only studies without any checks: still a summary, not a traceback.
    summary.main(
        SimpleNamespace(input=SimpleNamespace(checks=[str(empty)]), output=output, params=none)
    )
    assert "No checks were made." in output.md.read_text()


def test_folder_with_only_other_files_counts_as_absent(tmp_path):
    (tmp_path / "README.md").write_text("notes\n")
    assert not published_available(tmp_path, ["x.csv"])


def test_summary_html_has_no_index_column():
    """The counts table starts with the study column: no empty cell under a
    stray "status" header (the column level unstack() names)."""
    frame = pd.DataFrame(
        {
            "study": ["a", "a", "b"],
            "table": ["T1", "T1", "T2"],
            "kind": ["cell", "cell", "identity"],
            "status": ["pass", "FAIL", "pass"],
        }
    )
    html = summary.summary_html(frame)
    counts = html[html.index("<h2>Counts</h2>") : html.index("<h2>Cells: FAIL (1)")]
    headers = re.findall(r"<th>(.*?)</th>", counts)
    assert headers == [
        "study",
        "kind",
        "checks",
        "pass",
        "FAIL",
        "detectable",
        "underpowered",
        "n/a",
        "note",
    ]
    assert "<th></th>" not in counts
