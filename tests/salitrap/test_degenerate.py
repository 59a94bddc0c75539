"""Degenerate inputs, in process: a one-row model, a perfect score, one model, and
no ``published/`` folder (each once a traceback or a silent winner)."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from rederive.studies.salitrap import check
from rederive.studies.salitrap.comparisons import latex, pairwise_tar, ranking
from rederive.studies.salitrap.irt_fit import irt_not_estimable, summarise
from rederive.studies.salitrap.metrics import METRICS


def matrix_with_one_row_model(n_items=120, seed=0):
    rng = np.random.default_rng(seed)
    items = pd.DataFrame(
        {
            "item_id": [f"i{k:03d}" for k in range(n_items)],
            "seed_id": [f"s{k // 4}" for k in range(n_items)],
        }
    )
    labels = {
        m: np.where(rng.random(n_items) < share, "Strict Pass", "Hard Fail")
        for m, share in {"Strong": 0.7, "Weak": 0.3}.items()
    }
    tiny = np.full(n_items, None, dtype=object)
    tiny[0] = "Strict Pass"  # one row, TAR 100%
    labels["Tiny"] = tiny
    return items, pd.DataFrame(labels, index=items["item_id"])


def test_one_row_model_is_flagged_not_ranked_and_not_in_bh():
    """Before: Tiny ranked first, "significantly" better than Strong (q < 0.05)."""
    items, matrix = matrix_with_one_row_model()
    kwargs = dict(metric=METRICS["TAR"], n_boot=300, level=0.95, seed=3, q=0.05)
    pairs, estimates = pairwise_tar(items, matrix, min_n=20, **kwargs)
    with_tiny = (pairs["model_a"] == "Tiny") | (pairs["model_b"] == "Tiny")
    assert pairs.loc[with_tiny, "small_n"].all() and not pairs.loc[~with_tiny, "small_n"].any()
    assert pairs.loc[with_tiny, "q_value"].isna().all()
    assert not pairs.loc[with_tiny, "significant"].any()
    # The one remaining pair is its own BH family: q = p.
    rest = pairs[~with_tiny].iloc[0]
    assert rest["q_value"] == pytest.approx(rest["p_value"])
    table = ranking(pairs, estimates).set_index("model")
    assert pd.isna(table.loc["Tiny", "rank"]) and table.loc["Tiny", "small_n"]
    assert table.loc["Strong", "rank"] == 1 and table.loc["Weak", "rank"] == 2
    assert table.loc["Tiny", "tar"] == 100.0  # its own number is kept
    tex = latex(table.reset_index(), 0.05, simulated=False, min_n=20)
    assert "1 model below the minimum n (20 valid control rows)" in tex and "Tiny" in tex
    # Without the guard (min_n = 1) Tiny is the silent winner this replaces.
    pairs1, estimates1 = pairwise_tar(items, matrix, min_n=1, **kwargs)
    assert ranking(pairs1, estimates1).iloc[0]["model"] == "Tiny"


def test_perfect_score_ability_is_nan_with_reason_and_unranked():
    """Before: ability inf, ranked first."""
    responses = pd.DataFrame(
        [[1, 1, 1, 1], [1, 0, 1, 0], [0, 0, 1, 0]],
        index=["Perfect", "Mid", "Low"],
        columns=["a", "b", "c", "d"],
        dtype=float,
    )
    ability = pd.DataFrame(
        {
            "model": ["Perfect", "Mid", "Low"],
            "ability": [np.inf, 0.3, -1.0],
            "se_boot": [np.nan, 0.5, 0.6],
            "ci_low": [np.inf, -0.5, -2.0],
            "ci_high": [np.inf, 1.0, 0.0],
            "n_nonfinite": [20, 1, 0],
            "ability_pyirt": [1.5, 0.2, -0.9],
        }
    )
    items = pd.DataFrame(
        {
            "item_id": list("abcd"),
            "dimension": "d1",
            "naturalness": [1, 2, 3, 4],
            "difficulty": [0.5, -0.2, -1.0, 0.7],
        }
    )
    table, _, stats = summarise(ability, items, responses, ["d1"], {}, min_n=1)
    t = table.set_index("model")
    assert np.isnan(t.loc["Perfect", "ability"]) and np.isnan(t.loc["Perfect", "ci_high"])
    assert t.loc["Perfect", "ability_note"] == "perfect score (4/4): ML ability is +inf"
    assert pd.isna(t.loc["Perfect", "rank"])
    assert t.loc["Mid", "rank"] == 1 and t.loc["Low", "rank"] == 2
    assert not np.isinf(table.select_dtypes("number").to_numpy(dtype=float)).any()
    assert stats.set_index("statistic").loc["ability_sd", "n"] == 2


def test_one_model_has_no_1pl_but_a_reason():
    """Before: ValueError traceback from the IRT step."""
    one = pd.DataFrame([[1.0, 0.0, 1.0]], index=["solo"], columns=["a", "b", "c"])
    assert irt_not_estimable(one) == (
        "1PL not fitted: needs at least 2 models and 2 items, got 1 x 3"
    )
    assert irt_not_estimable(pd.concat([one, one.rename(index={"solo": "b"})])) == ""


def test_check_without_published_says_so(tmp_path):
    """Before: FileNotFoundError on published/salitrap_table1_tar_hfr.csv."""
    out = SimpleNamespace(csv=tmp_path / "check.csv", md=tmp_path / "check.md")
    params = SimpleNamespace(
        published_dir=str(tmp_path / "published"), tolerance=0.05, simulated=False
    )
    check.main(
        SimpleNamespace(
            params=params,
            output=out,
            input=SimpleNamespace(),
            wildcards=SimpleNamespace(analysis="x"),
        )
    )
    assert pd.read_csv(out.csv).empty
    text = out.md.read_text()
    assert "No published numbers to compare" in text and "Every check passes" not in text


def test_partial_published_folder_is_an_input_error(tmp_path):
    from rederive.errors import InputError

    folder = tmp_path / "published"
    folder.mkdir()
    (folder / "salitrap_table1_tar_hfr.csv").write_text("model\n")
    out = SimpleNamespace(csv=tmp_path / "check.csv", md=tmp_path / "check.md")
    params = SimpleNamespace(published_dir=str(folder), tolerance=0.05, simulated=False)
    with pytest.raises(InputError, match="salitrap_table2_scr_si.csv"):
        check.main(
            SimpleNamespace(
                params=params,
                output=out,
                input=SimpleNamespace(),
                wildcards=SimpleNamespace(analysis="x"),
            )
        )


def test_every_row_excluded_is_one_clear_message():
    """Before: a traceback in each of five analysis jobs (KeyError, TypeError, ValueError)."""
    from rederive.errors import InputError
    from rederive.io.accounting import require_usable_rows

    accounting = pd.DataFrame(
        {
            "file": ["runs/A.jsonl"] * 2 + ["runs/B.jsonl"] * 2,
            "reason": ["used", "judge_error", "used", "judge_error"],
            "rows": [0, 24, 0, 24],
        }
    )
    with pytest.raises(InputError, match=r"every one was excluded \(judge_error: 48\)"):
        require_usable_rows(accounting, what="labelled row")
    accounting.loc[0, "rows"] = 1
    require_usable_rows(accounting)


def test_irt_figures_without_a_fit_say_why():
    """Before (once the fit was skipped): seaborn UnboundLocalError on an all-NaN boxplot."""
    import matplotlib

    matplotlib.use("Agg")
    from rederive.studies.salitrap.figures_irt import fig4, fig9

    reason = "1PL not fitted: needs at least 2 models and 2 items, got 1 x 4"
    items = pd.DataFrame(
        {
            "item_id": list("abcd"),
            "dimension": "Dimension 1: Missing Prerequisite",
            "naturalness": [1, 2, 3, 4],
            "difficulty": np.nan,
        }
    )
    models = pd.DataFrame(
        {"model": ["solo"], "ability": [np.nan], "tar": [50.0], "ability_note": [reason]}
    )
    stats = pd.DataFrame(
        {
            "statistic": [
                "spearman_rho_ability_tar",
                "trend_slope_difficulty_per_naturalness_point",
                "trend_intercept",
                "pearson_r_naturalness_difficulty",
            ],
            "value": np.nan,
            "p_value": np.nan,
        }
    )
    fig = fig4(items, models, stats)
    assert reason in [t.get_text() for t in fig.axes[0].texts]
    fig9(items, stats)
