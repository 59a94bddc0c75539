"""The real Snakefile on a small simulated raw folder (plus injected bad rows)."""

import json
import shutil

import pandas as pd
import pytest
from workflow_utils import REPO, run_workflow

from rederive.io.batches import batch_of
from rederive.simulate.bias_awareness import generate

pytestmark = pytest.mark.slow

TARGETS = [
    "results/bias_awareness/tables/main.tex",
    "results/bias_awareness/tables/comparisons.tex",
    "results/bias_awareness/tables/agreement.tex",
    "results/bias_awareness/tables/data_quality.csv",
    "results/bias_awareness/figures/susceptibility_awareness.png",
    "results/bias_awareness/check/published_check.md",
]
N_QUESTIONS = 30


def overrides(raw):
    return {
        "build": ["bias_awareness"],
        "analyses": {"bias_awareness": {"raw_dir": str(raw), "bootstrap": {"n_boot": 200}}},
    }


def make_raw(root):
    raw = root / "raw"
    shutil.copytree(REPO / "raw" / "bias_awareness" / "published", raw / "published")
    generate(raw, n_questions=N_QUESTIONS)
    (raw / "SIMULATED.md").write_text("test data\n")
    with open(raw / "runs" / "GPT-4o.jsonl", "a") as handle:  # one API error, one unknown question
        handle.write(
            json.dumps(
                {
                    "model": "GPT-4o",
                    "question_id": "simgsm_0001",
                    "bias": "B4",
                    "response": "",
                    "error": "timeout",
                }
            )
            + "\n"
        )
        handle.write(
            json.dumps(
                {"model": "GPT-4o", "question_id": "nope", "bias": "B4", "response": "#### 1"}
            )
            + "\n"
        )
    return raw


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("ba")
    raw = make_raw(root)
    run_workflow(root, overrides(raw), targets=TARGETS)
    return root, raw


def test_outputs_and_counts(built):
    root, _ = built
    out = root / "results" / "bias_awareness"
    for name in (
        "figures/susceptibility_awareness.pdf",
        "figures/outcome_shares.png",
        "tables/answer_extraction.csv",
    ):
        assert (out / name).stat().st_size > 0
    main = pd.read_csv(out / "tables" / "main.csv")
    assert set(main["bias"]) == {"B4", "B5", "B6", "all"}
    assert (main.loc[main["bias"] != "all", "n"] == N_QUESTIONS).all()
    assert (main.loc[main["bias"] == "all", "n"] == 3 * N_QUESTIONS).all()
    assert "SIMULATED" in (out / "tables" / "main.tex").read_text()


def test_data_quality_counts_excluded_rows(built):
    root, _ = built
    quality = pd.read_csv(root / "results" / "bias_awareness" / "tables" / "data_quality.csv")
    gpt = quality[quality["run"] == "GPT-4o"].set_index("reason")["rows"]
    assert gpt.to_dict() == {"used": 4 * N_QUESTIONS, "api_error": 1, "unknown_question": 1}


def test_check_reports_paper_numbers_and_flags_size_mismatch(built):
    root, _ = built
    check = pd.read_csv(root / "results" / "bias_awareness" / "check" / "published_check.csv")
    n_rows = check[check["quantity"] == "n_trials"]
    assert (n_rows["status"] == "FAIL").all()  # 30 questions, not the paper's 500
    assert (
        check.loc[
            check["item"].str.contains(" / ") & (check["table"] == "recomputed cells"), "status"
        ]
        == "pass"
    ).all()
    assert (
        "The paper's numbers beside ours"
        in (root / "results" / "bias_awareness" / "check" / "published_check.md").read_text()
    )


def test_rerun_gives_identical_tables(built):
    root, raw = built
    names = ["rates.csv", "main.csv", "main.tex", "outcomes.csv"]
    before = {n: (root / "results" / "bias_awareness" / "tables" / n).read_bytes() for n in names}
    target = "results/bias_awareness/tables/main.tex"
    run_workflow(
        root,
        overrides(raw),
        targets=[target],
        extra_args=["--forcerun", "tabulate_bias_awareness_rates"],
    )
    for n in names:
        assert (root / "results" / "bias_awareness" / "tables" / n).read_bytes() == before[n], n


def test_bad_input_is_a_message_not_a_traceback(tmp_path):
    raw = make_raw(tmp_path)
    with open(raw / "runs" / "Claude-Sonnet-4.jsonl", "a") as handle:
        handle.write(
            json.dumps(
                {
                    "model": "Claude-Sonnet-4",
                    "question_id": "simgsm_0001",
                    "bias": "B9",
                    "response": "1",
                }
            )
            + "\n"
        )
    target = f"results/bias_awareness/ingested/{batch_of('Claude-Sonnet-4', 8)}"
    proc = run_workflow(tmp_path, overrides(raw), targets=[target], check=False)
    assert proc.returncode != 0
    text = proc.stdout + proc.stderr
    assert (
        "Claude-Sonnet-4.jsonl:" in text and "field 'bias'" in text and "unknown bias 'B9'" in text
    )
    assert "Traceback" not in text
