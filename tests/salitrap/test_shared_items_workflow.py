"""End to end: a partial SaliTrap run added beside complete ones changes nothing in
the other models' failure sets, Table 5 or IRT difficulties.

Two tiny projects through the real Snakefile, one with a fourth model that
answered only the first 8 of the 24 items: the shared-item tables must be
byte-identical, the partial model named in the Table 5 note and the published
check, and its rows counted in data_quality.csv.
"""

import shutil

import pandas as pd
import pytest
import tiny
from workflow_utils import REPO, run_workflow

from rederive.io.shared_quality import REASON

pytestmark = pytest.mark.slow

SAME = [
    "results/salitrap/tables/failure_pairs.csv",
    "results/salitrap/tables/table5_pairs.csv",
    "results/salitrap/tables/failed_by_all.csv",
    "results/salitrap/tables/failure_linkage.csv",
    "results/salitrap/tables/failure_order.csv",
    "results/salitrap/tables/irt_items.csv",
]
TARGETS = [
    *SAME,
    "results/salitrap/tables/table5_pairs.tex",
    "results/salitrap/tables/shared_items.csv",
    "results/salitrap/tables/data_quality.csv",
    "results/salitrap/tables/irt_models.csv",
    "results/salitrap/check/published_check.md",
]
PARTIAL = "Model-P"


def overrides() -> dict:
    return {
        "build": ["salitrap"],
        "ingest_batches": 2,
        # min_n 5: the partial model (8 valid rows) is partial, not small_n.
        "analyses": {
            "salitrap": {
                "bootstrap": {"n_boot": 200},
                "irt": {"epochs": 50, "n_boot": 20},
                "min_n": 5,
            }
        },
    }


def project(root, *, partial: bool):
    raw = root / "raw" / "salitrap"
    items = tiny.write_dataset(raw, experiments=True)
    shutil.copytree(REPO / "raw" / "salitrap" / "published", raw / "published")
    if partial:
        rows = tiny.run_rows(PARTIAL, items[:8], shift=4)
        tiny.write_jsonl(raw / "runs" / f"{PARTIAL}.jsonl", rows)
    run_workflow(root, overrides(), targets=TARGETS)
    return root


def test_partial_run_leaves_the_other_models_tables_identical(tmp_path):
    ours = project(tmp_path / "with", partial=True)
    base = project(tmp_path / "without", partial=False)
    for path in SAME:
        assert (ours / path).read_bytes() == (base / path).read_bytes(), path
    tables = ours / "results/salitrap/tables"
    shared = pd.read_csv(tables / "shared_items.csv").set_index("model")
    assert shared.loc[PARTIAL, "partial"] and not shared.loc[PARTIAL, "shared"]
    assert shared.drop(index=PARTIAL)["shared"].all()
    note = f"Models left out of the shared item set: {PARTIAL} (8 items; partial: 6 of the 22"
    assert note in (tables / "table5_pairs.tex").read_text()
    assert note in (ours / "results/salitrap/check/published_check.md").read_text()
    quality = pd.read_csv(tables / "data_quality.csv")
    own = quality[quality["run"] == PARTIAL].set_index("reason")["rows"]
    (reason,) = [r for r in own.index if r.startswith(REASON)]
    assert reason.endswith(f"[{PARTIAL}]") and own[reason] == 8 and own["used"] == 0
    models = pd.read_csv(tables / "irt_models.csv").set_index("model")
    assert models.loc[PARTIAL, "ability_note"].startswith("left out of the shared item set")
    assert pd.isna(models.loc[PARTIAL, "rank"])
