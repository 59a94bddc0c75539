"""The SaliTrap IRT job around the shared 1PL (rederive.stats.irt): response matrix
from labels, which ability is reported, the seed-cluster bootstrap, statistics.

Recovery, determinism and the bootstrap itself are tested with the shared module
(tests/stats/test_irt.py); here a small simulated Rasch matrix only has to show
that the study wires them together as its captions say.
"""

import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr

from rederive.stats.irt import fit_1pl
from rederive.stats.irt_mml import bootstrap_mml_ability
from rederive.studies.salitrap.irt_fit import (
    ABILITY_COLUMNS,
    abilities,
    binary_responses,
    summarise,
)

pytestmark = pytest.mark.slow

BOOT = dict(seed=3, level=0.95)


@pytest.fixture(scope="module")
def rasch():
    rng = np.random.default_rng(11)
    theta = np.linspace(-2, 2, 8)
    b = rng.normal(0, 1.2, 240)
    y = (rng.random((8, 240)) < 1 / (1 + np.exp(-(theta[:, None] - b[None, :])))).astype(float)
    responses = pd.DataFrame(
        y, index=[f"m{j}" for j in range(8)], columns=[f"i{k:03d}" for k in range(240)]
    )
    clusters = np.arange(240) // 3  # three items per seed
    # One short py-irt fit serves every test (convergence is not the point here).
    result = fit_1pl(responses, epochs=300, lr=0.02, priors="hierarchical", seed=3)
    ability = abilities(responses, result, clusters, n_boot=200, **BOOT)
    return responses, clusters, ability, result.difficulty, result


def test_binary_responses_from_labels():
    labels = pd.DataFrame(
        {
            "A": ["Strict Pass", "Hard Fail", np.nan],
            "B": ["CoT Hijacked", "Strict Pass", "Refusal"],
        },
        index=["i0", "i1", "i2"],
    )
    r = binary_responses(labels, ["Strict Pass"])
    assert list(r.index) == ["A", "B"] and list(r.columns) == ["i0", "i1", "i2"]
    np.testing.assert_array_equal(r.loc["A"].to_numpy(), [1.0, 0.0, np.nan])
    np.testing.assert_array_equal(r.loc["B"].to_numpy(), [0.0, 1.0, 0.0])


def test_reports_the_marginal_ml_ability_with_its_cluster_bootstrap(rasch):
    responses, clusters, ability, difficulty, result = rasch
    assert list(ability.columns) == [
        "model",
        *ABILITY_COLUMNS,
        "ability_pyirt",
        "ability_pyirt_sd",
        "interval_note",
    ]
    assert (ability["interval_note"] == "").all()
    # Same fit, same seed, same clusters: the shared marginal-ML bootstrap gives
    # these exact numbers, and the estimate is the marginal-ML one.
    shared = bootstrap_mml_ability(
        responses, result.mml, n_boot=200, seed=3, level=0.95, clusters=clusters
    ).table.assign(n_nonfinite=0)
    table = ability.set_index("model")
    pd.testing.assert_frame_equal(
        table[ABILITY_COLUMNS], shared[ABILITY_COLUMNS], check_names=False
    )
    np.testing.assert_array_equal(
        table["ability"].to_numpy(), result.mml.ability.reindex(table.index).to_numpy()
    )
    assert (table["ci_low"] <= table["ability"]).all() and (
        table["ability"] <= table["ci_high"]
    ).all()
    # py-irt's posterior mean is kept alongside, from the same fit.
    np.testing.assert_array_equal(
        table["ability_pyirt"].to_numpy(), result.ability.reindex(table.index).to_numpy()
    )
    assert difficulty.index.equals(responses.columns)


def test_clusters_change_the_intervals_not_the_estimate(rasch):
    responses, clusters, ability, _, result = rasch
    single = abilities(responses, result, np.arange(responses.shape[1]), n_boot=200, **BOOT)
    np.testing.assert_array_equal(single["ability"].to_numpy(), ability["ability"].to_numpy())
    assert not np.allclose(single["ci_low"].to_numpy(), ability["ci_low"].to_numpy())


def test_without_bootstrap_the_same_ability_and_no_interval(rasch):
    responses, clusters, ability, _, result = rasch
    plain = abilities(responses, result, clusters, n_boot=0, **BOOT)
    np.testing.assert_allclose(plain["ability"].to_numpy(), ability["ability"].to_numpy())
    assert plain["ci_low"].isna().all() and plain["se_boot"].isna().all()


def test_complete_data_orders_models_as_tar(rasch):
    responses, _, ability, difficulty, _ = rasch
    items = pd.DataFrame(
        {
            "item_id": responses.columns,
            "dimension": "d1",
            "naturalness": np.arange(responses.shape[1]) % 5,
            "difficulty": difficulty.to_numpy(),
        }
    )
    table, by_dimension, stats = summarise(ability, items, responses, ["d1"], {"epochs": 300})
    stat = stats.set_index("statistic")["value"]
    # Number of passes is sufficient for the 1PL ability: rank correlation 1.
    assert stat["spearman_rho_ability_tar"] == pytest.approx(1.0)
    assert spearmanr(table["ability_pyirt"], table["tar"]).statistic > 0.9
    assert "spearman_rho_pyirt_ability_tar" in stat.index and stat["setting_epochs"] == 300
    assert list(table["rank"]) == list(range(1, 9))
    assert (table["ability"].diff().dropna() <= 0).all()
    assert set(by_dimension["dimension"]) == {"d1", "overall"}


def test_same_seed_same_tables(rasch):
    responses, clusters, ability, _, result = rasch
    pd.testing.assert_frame_equal(
        ability, abilities(responses, result, clusters, n_boot=200, **BOOT)
    )


def test_item_table_counts_extremes_and_puts_the_interval_beside_its_estimate(rasch):
    responses, *_, result = rasch
    # 8 models x 240 items at difficulty SD 1.2: some items every model passes/fails.
    assert result.n_items_all_correct > 0 and result.n_items_all_wrong > 0
    table = result.item_table(extreme_labels=("all pass", "all fail"))
    assert list(table.columns) == [
        "difficulty",
        "difficulty_sd",
        "difficulty_low",
        "difficulty_high",
        "difficulty_spread",
        "difficulty_mml",
        "extreme",
    ]
    assert (table["difficulty_low"] < table["difficulty"]).all()
    assert (table["difficulty"] < table["difficulty_high"]).all()
    # Spread-matched: same order, wider than the shrunk posterior means.
    assert spearmanr(table["difficulty"], table["difficulty_spread"]).statistic == pytest.approx(
        1.0
    )
    assert table["difficulty_spread"].std() > table["difficulty"].std()
    items = pd.DataFrame(
        {
            "item_id": responses.columns,
            "dimension": np.where(np.arange(responses.shape[1]) % 2, "d1", "d2"),
            "naturalness": np.arange(responses.shape[1]) % 5,
        }
    ).join(table.reset_index(drop=True))
    ability = abilities(responses, result, np.arange(responses.shape[1]), n_boot=0, **BOOT)
    _, by_dimension, _ = summarise(ability, items, responses, ["d1", "d2"], {})
    overall = by_dimension.set_index("dimension").loc["overall"]
    assert overall["items_all_pass"] == result.n_items_all_correct
    assert overall["items_all_fail"] == result.n_items_all_wrong
    assert overall["sd"] == pytest.approx(table["difficulty_spread"].std(ddof=1))


def test_warm_start_cache_is_written_then_used(rasch, tmp_path):
    """irt.warm_start: the first fit writes the cache, the next one starts from it."""
    from types import SimpleNamespace

    from rederive.studies.salitrap.irt_fit import _fit

    responses, *_ = rasch
    cache = tmp_path / "cache" / "irt_warm_start.csv"
    p = SimpleNamespace(
        epochs=300,
        priors="hierarchical",
        lr=0.02,
        lr_decay=0.99,
        tol=0.01,
        seed=3,
        warm_start=True,
        warm_start_file=str(cache),
    )
    first = _fit(responses, p)
    assert first.warm_started == 0 and cache.exists()
    second = _fit(responses, p)
    assert second.warm_started == sum(responses.shape)
    assert np.abs(second.ability - first.ability).max() < 0.1
    # Off (the default): no cache is read or written.
    off = _fit(responses, SimpleNamespace(**{**vars(p), "warm_start": False}))
    assert off.warm_started == 0
