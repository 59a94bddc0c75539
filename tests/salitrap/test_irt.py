"""1PL recovery on data simulated from a known Rasch model, and the ability bootstrap.

Thresholds: with 12 models the Rasch model pins abilities well (each sees
every item) but an item's difficulty only through 12 binary answers, so we ask
abilities for a rank correlation >= 0.95 and a centred error <= 0.6 logits, and
difficulties only for a Pearson correlation >= 0.8 (an item all 12 models pass
or fail carries no information beyond its sign).
"""

import numpy as np
import pandas as pd
import pytest
from scipy.stats import pearsonr, spearmanr

from rederive.stats.bootstrap import rng_for
from rederive.stats.irt import fit_1pl
from rederive.studies.salitrap.irt_pyirt import bootstrap_ability

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def rasch():
    rng = np.random.default_rng(11)
    theta = np.linspace(-2, 2, 12)
    b = rng.normal(0, 1.2, 300)
    y = (rng.random((12, 300)) < 1 / (1 + np.exp(-(theta[:, None] - b[None, :])))).astype(float)
    y[0, :3] = np.nan  # a few missing cells must not break anything
    responses = pd.DataFrame(
        y, index=[f"m{j:02d}" for j in range(12)], columns=[f"i{k:03d}" for k in range(300)]
    )
    result = fit_1pl(responses, epochs=300, priors="hierarchical", lr=0.1, seed=3)
    return theta, b, responses, result


def test_recovers_abilities_and_difficulties(rasch):
    theta, b, responses, result = rasch
    ability = result.ability.reindex(responses.index).to_numpy()
    assert spearmanr(ability, theta).statistic >= 0.95
    centred = (ability - ability.mean()) - (theta - theta.mean())
    assert np.abs(centred).max() <= 0.6
    difficulty = result.difficulty.reindex(responses.columns).to_numpy()
    assert pearsonr(difficulty, b).statistic >= 0.8


def test_same_seed_same_fit(rasch):
    _, _, responses, result = rasch
    again = fit_1pl(responses, epochs=300, priors="hierarchical", lr=0.1, seed=3)
    np.testing.assert_array_equal(result.ability.to_numpy(), again.ability.to_numpy())


def test_ability_intervals_cover_and_order(rasch):
    theta, _, responses, result = rasch
    clusters = np.arange(responses.shape[1]) // 3
    ci = bootstrap_ability(
        responses, result, clusters=clusters, n_boot=300, rng=rng_for(1, "t"), level=0.95
    )
    ability = result.ability.reindex(responses.index).to_numpy()
    assert (ci["ci_low"].to_numpy() <= ability).all() and (
        ability <= ci["ci_high"].to_numpy()
    ).all()
    width = (ci["ci_high"] - ci["ci_low"]).to_numpy()
    # 300 items: intervals of a few tenths of a logit, never degenerate
    assert (width > 0.1).all() and (width < 2.0).all()
