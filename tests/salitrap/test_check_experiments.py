"""Identities of the published Tables 5-7, computed from the project's CSVs."""

from pathlib import Path

import pandas as pd
import pytest

from rederive.check import checks_frame
from rederive.studies.salitrap.check_experiments import (
    dimension_fits,
    experiment_checks,
    jaccard_bounds,
)

PUBLISHED = Path(__file__).resolve().parents[2] / "raw" / "salitrap" / "published"


@pytest.fixture(scope="module")
def identities():
    frame = checks_frame(experiment_checks(PUBLISHED, {}, 0.05))
    assert set(frame["kind"]) == {"identity"}
    return frame


def find(frame, item, quantity_start):
    rows = frame[(frame["item"] == item) & frame["quantity"].str.startswith(quantity_start)]
    assert len(rows) >= 1, (item, quantity_start)
    return rows


def test_table5_jaccard_follows_from_co_failure_and_table1(identities):
    rows = identities[identities["quantity"].str.startswith("Jaccard =")]
    assert len(rows) == 10 and (rows["status"] == "pass").all()


def test_table6_claude_46_row_carries_another_models_sc_split(identities):
    row = find(identities, "Claude-Opus-4.6", "per-dimension rates are k/n").iloc[0]
    assert row["status"] == "FAIL"
    assert "Claude-Opus-4.7 (44/29/26/56)" in row["note"]
    sc = find(identities, "Claude-Opus-4.6", "# SC / Table 3 items").iloc[0]
    assert sc["status"] == "FAIL" and "Claude-Opus-4.7" in sc["note"]
    for model in ("GLM-5.1", "Kimi-K2", "DeepSeek-R1"):
        assert (find(identities, model, "per-dimension rates")["status"] == "pass").all()


def test_table7_control_rows_and_unsigned_deltas(identities):
    control = find(identities, "Claude-Opus-4.6", "control TAR = Table 1")
    assert control.iloc[0]["status"] == "FAIL"
    assert "Claude-Opus-4.7's" in control.iloc[0]["note"]
    for model in ("GLM-5.1", "DeepSeek-V4-Pro"):
        assert find(identities, model, "control TAR = Table 1").iloc[0]["status"] == "FAIL"
    signed = find(identities, "Claude-Opus-4.6 / P1", "printed TAR change =").iloc[0]
    assert signed["status"] == "FAIL" and signed["ours"] == pytest.approx(-6.2)
    magnitude = find(identities, "Claude-Opus-4.6 / P1", "|printed TAR change|").iloc[0]
    assert magnitude["status"] == "pass"
    glm = find(identities, "GLM-5.1 / P1", "printed TAR change =").iloc[0]
    assert glm["status"] == "pass"


def test_helpers_on_hand_cases():
    lo, hi = jaccard_bounds(0.5, 0.6, 0.7, 0.0, 0.0)
    assert lo == hi == pytest.approx(0.5 / 0.8)
    assert dimension_fits([50.0, 25.0], 4, 0)
    assert not dimension_fits([33.3], 4, 0) and dimension_fits([33.3], 4, 1)


def test_cells_compare_our_tables(tmp_path):
    table7 = pd.DataFrame(
        [
            {"model": "GLM-5.1", "condition": "P1", "metric": "TAR", "percent": 57.4},
            {"model": "GLM-5.1", "condition": "P1", "metric": "HFR", "percent": 0.9},
        ]
    )
    frame = checks_frame(experiment_checks(PUBLISHED, {"table7": table7}, 0.05))
    cells = frame[(frame["kind"] == "cell") & (frame["item"] == "GLM-5.1 / P1")]
    status = dict(zip(cells["quantity"], cells["status"], strict=True))
    assert status["TAR"] == "pass" and status["HFR"] == "FAIL"
    assert status["TAR change vs control (as printed)"] == "n/a"
