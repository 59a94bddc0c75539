"""The real workflow on a small simulated panel: outputs, determinism, BH re-derivation.

The tests share one built directory and run in file order (the last one adds a model).
"""

import shutil

import numpy as np
import pandas as pd
import pytest
from workflow_utils import REPO, run_workflow

from rederive.io.batches import batch_of
from rederive.simulate.tag_sycophancy import generate
from rederive.stats.multitest import bh_adjust

pytestmark = pytest.mark.slow

PUBLISHED = REPO / "raw" / "tag_sycophancy" / "published"
MODELS = ["MythoMax-L2-13B", "Claude-Fable-5", "Gemini-3-Flash", "GPT-3.5-Turbo", "Grok-4.3"]
TABLES = "results/tag_sycophancy/tables"
FIGURES = ["fig1_forest", "fig2_baseline", "fig3_lineage_trend", "fig4_ablations", "fig5_maybe"]
TARGETS = [
    f"{TABLES}/tag_effects.csv",
    f"{TABLES}/panel_summary.csv",
    f"{TABLES}/leading_tokens.csv",
    "results/tag_sycophancy/check/published_check.md",
    *[f"results/tag_sycophancy/figures/{n}.png" for n in FIGURES],
]


def overrides(raw):
    return {
        "build": ["tag_sycophancy"],
        "analyses": {
            "tag_sycophancy": {
                "raw_dir": str(raw),
                "bootstrap": {"n_boot": 300, "level": 0.9, "seed": 5},
            }
        },
    }


def small_panel(raw, models):
    generate(raw, PUBLISHED, models=models, n_items=8, n_samples=2)
    shutil.copytree(PUBLISHED, raw / "published", dirs_exist_ok=True)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("tagsyc")
    small_panel(root / "raw", MODELS)
    run_workflow(root, overrides(root / "raw"), targets=TARGETS)
    return root


def test_outputs(built):
    for path in TARGETS + [
        f"{TABLES}/tag_effects.tex",
        f"{TABLES}/data_quality.csv",
        "results/tag_sycophancy/check/published_check.csv",
    ]:
        assert (built / path).stat().st_size > 0, path
    table = pd.read_csv(built / f"{TABLES}/tag_effects.csv")
    assert sorted(table["model"]) == sorted(MODELS)
    assert table.set_index("model").loc["Gemini-3-Flash", "class"] == "floor-limited"
    assert (table["ci_low"] <= table["effect"]).all() and (
        table["effect"] <= table["ci_high"]
    ).all()
    # every reply is accounted for: valid + failed = rows of the run file
    quality = pd.read_csv(built / f"{TABLES}/data_quality.csv")
    read = quality.groupby("run")["rows_read"].first()
    counted = quality.groupby("run")["rows"].sum()
    assert (read == counted).all()
    per_model = table.set_index("model")[["n_valid", "n_failed"]].sum(axis=1)
    assert (per_model.sort_index() == read.sort_index()).all()
    tokens = pd.read_csv(built / f"{TABLES}/leading_tokens.csv", keep_default_na=False)
    assert tokens["count"].sum() == table["n_valid"].sum()
    assert "Simulated data" in (built / f"{TABLES}/tag_effects.tex").read_text()


def test_rerun_is_byte_identical(built):
    names = [
        "tag_effects.csv",
        "tag_effects.tex",
        "arm_effects.csv",
        "panel_summary.csv",
        "maybe.csv",
        "lineage_trend.csv",
    ]
    first = {n: (built / TABLES / n).read_bytes() for n in names}
    run_workflow(
        built,
        overrides(built / "raw"),
        targets=[f"{TABLES}/panel_summary.csv"],
        extra_args=[
            "--forcerun",
            "tabulate_tag_sycophancy_effects",
            "tabulate_tag_sycophancy_panel",
            "--",  # end the --forcerun list: what follows are targets
        ],
    )
    for n in names:
        assert (built / TABLES / n).read_bytes() == first[n], n


def test_new_run_file_rederives_bh_for_all_models(built):
    before = pd.read_csv(built / f"{TABLES}/tag_effects.csv").set_index("model")
    ingested = built / "results/tag_sycophancy/ingested"
    stamps = {p: p.stat().st_mtime_ns for p in ingested.glob("*/labelled/*.parquet")}
    new_batch = batch_of("Llama-3.3-70B", 8)
    extra = built / "extra"
    generate(extra, PUBLISHED, models=["Llama-3.3-70B"], n_items=8, n_samples=2)
    shutil.copy(extra / "runs" / "Llama-3.3-70B.jsonl", built / "raw" / "runs")
    run_workflow(built, overrides(built / "raw"), targets=[f"{TABLES}/tag_effects.csv"])
    # only the new run file's batch is ingested again
    untouched = {p: s for p, s in stamps.items() if p.parts[-3] != new_batch}
    assert {p: p.stat().st_mtime_ns for p in untouched} == untouched
    assert (ingested / new_batch / "labelled" / "Llama-3.3-70B.parquet").exists()
    after = pd.read_csv(built / f"{TABLES}/tag_effects.csv").set_index("model")
    assert len(after) == len(MODELS) + 1
    # per-model bootstrap does not depend on the panel; the BH family does
    pd.testing.assert_series_equal(after.loc[before.index, "effect"], before["effect"])
    pd.testing.assert_series_equal(after.loc[before.index, "p_value"], before["p_value"])
    _, q = bh_adjust(after["p_value"].to_numpy(), 0.10)
    np.testing.assert_allclose(after["q_value"].to_numpy(), q, rtol=1e-5)
    assert not np.allclose(after.loc[before.index, "q_value"], before["q_value"])
