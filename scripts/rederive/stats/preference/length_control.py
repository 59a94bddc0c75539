"""AlpacaEval 2's length-controlled win rate: its GLM, reproduced.

Dubois et al. (2024) fit, for one model against the baseline, a logistic GLM of
the annotator's preference on three features and no intercept:

- ``tanh(std_delta_len)``, the length difference ``len_baseline − len_model`` (in
  characters) over its standard deviation across the model's instructions;
- ``instruction_difficulty``, one number per instruction (AlpacaEval's
  ``instruction_difficulty.csv``, from a joint fit over many models);
- ``not_gamed_baseline``, 1 for the model's rows (0 for the gamed baselines').

The length-controlled win rate is the mean over instructions of the predicted
preference with the length term set to 0 (``tanh(0)``), times 100; its "SE" is
the SEM of those predictions. ``length_controlled_v1`` (AlpacaEval 2.0's
leaderboard) also trains on the annotations of two *gamed* baselines
(``gpt4_1106_preview_verbose`` and ``_concise``), each row weighted
``λ / 2 = 0.1``, which regularises the model's length coefficient towards
theirs; ``length_controlled_noreg`` does not.

The fit is AlpacaEval's ``fit_LogisticRegressionCV`` with continuous targets:
each row is duplicated, once with label 1 and weight ``p·w``, once with label 0
and weight ``(1 − p)·w``; an L1-penalised logistic regression (liblinear,
``random_state=123``, ``C`` from 10 values on a log grid) chooses ``C`` by 5-fold
``GroupKFold`` (the two copies of a row in one fold) on the weighted log loss of
the continuous targets. It runs here with scikit-learn, as AlpacaEval does.

AlpacaEval publishes ``instruction_difficulty.csv`` and the gamed annotations
(``df_gamed.csv``) on the Hugging Face Hub only; the caller supplies both
(``instruction_difficulty`` per game; ``gamed`` rows), and without the published
ones the published LC values cannot be rebuilt.

References
----------
Dubois, Y., Galambosi, B., Liang, P. & Hashimoto, T. B. (2024). Length-controlled
    AlpacaEval: a simple way to debias automatic evaluators. arXiv:2404.04475.
AlpacaEval, ``src/alpaca_eval/metrics/glm_winrate.py`` (``length_controlled_v1``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["GLM_FEATURES", "REGULARIZE_LAMBDA", "length_controlled_win_rate"]

GLM_FEATURES = ("np.tanh(std_delta_len)", "instruction_difficulty", "not_gamed_baseline")
#: ``length_controlled_v1``'s ``regularize_to_baseline_lambda``.
REGULARIZE_LAMBDA = 0.2


def _design(tanh_len, difficulty, not_gamed):
    return np.column_stack(
        [
            np.asarray(tanh_len, dtype=float),
            np.asarray(difficulty, dtype=float),
            np.asarray(not_gamed, dtype=float),
        ]
    )


def _fit_cv(x, p, weight, n_splits: int):
    """AlpacaEval's ``fit_LogisticRegressionCV`` with continuous targets ``p``."""
    import sklearn
    from sklearn.linear_model import LogisticRegressionCV
    from sklearn.metrics import make_scorer
    from sklearn.model_selection import GroupKFold

    def logloss_continuous(y_true, y_pred, true_prob, true_sample_weight=None):
        target = np.where(y_true == 1, true_prob, 1 - true_prob)
        pred = np.clip(y_pred, 1e-15, 1 - 1e-15)
        loss = target * np.log(pred) + (1 - target) * np.log(1 - pred)
        if true_sample_weight is not None:
            loss = loss * true_sample_weight
        return -np.mean(loss)

    n = x.shape[0]
    x2 = np.vstack([x, x])
    y2 = np.concatenate([np.ones(n), np.zeros(n)])
    true_prob = np.concatenate([p, 1 - p])
    groups = np.concatenate([np.arange(n), np.arange(n)])
    true_weight = None if weight is None else np.concatenate([weight, weight])
    fit_weight = true_prob if weight is None else true_prob * true_weight
    with sklearn.config_context(enable_metadata_routing=True):
        scorer = make_scorer(
            logloss_continuous, response_method="predict_proba", greater_is_better=False
        ).set_score_request(true_sample_weight=True, true_prob=True)
        model = LogisticRegressionCV(
            cv=GroupKFold(n_splits=n_splits),
            scoring=scorer,
            random_state=123,
            dual=False,
            l1_ratios=(1.0,),
            solver="liblinear",
            fit_intercept=False,
            use_legacy_attributes=False,
        )
        model.set_fit_request(sample_weight=True)
        model.fit(
            x2,
            y2,
            sample_weight=fit_weight,
            groups=groups,
            true_sample_weight=true_weight,
            true_prob=true_prob,
        )
    return model


def length_controlled_win_rate(
    values,
    len_model,
    len_baseline,
    instruction_difficulty,
    *,
    gamed: pd.DataFrame | None = None,
    regularize_lambda: float | None = REGULARIZE_LAMBDA,
    n_splits: int = 5,
) -> dict:
    """Length-controlled win rate of one model against the baseline (AlpacaEval 2).

    Parameters
    ----------
    values : array_like, shape (n,)
        The model's preference per instruction in [0, 1] (``p − 1``); NaN rows
        are left out of the fit (as AlpacaEval does) but predicted.
    len_model, len_baseline : array_like, shape (n,)
        Output lengths in characters.
    instruction_difficulty : array_like, shape (n,)
        AlpacaEval's instruction difficulty of each instruction.
    gamed : DataFrame, optional
        The gamed baselines' rows: ``preference`` (in [0, 1]), ``std_delta_len``
        and ``instruction_difficulty`` — AlpacaEval's ``df_gamed.csv``. With it
        and ``regularize_lambda``, the ``length_controlled_v1`` fit; without,
        ``length_controlled_noreg``.
    regularize_lambda : float or None
    n_splits : int
        Folds of the cross-validation of ``C``.

    Returns
    -------
    dict
        ``length_controlled_winrate``, ``lc_standard_error`` (percent),
        ``weights`` (the three coefficients by AlpacaEval's feature names),
        ``glm`` (``length_controlled_v1`` or ``length_controlled_noreg``).
    """
    v = np.asarray(values, dtype=float)
    delta = pd.Series(np.asarray(len_baseline, dtype=float) - np.asarray(len_model, dtype=float))
    std_delta = (delta / delta.std()).to_numpy()
    difficulty = np.asarray(instruction_difficulty, dtype=float)
    x = _design(np.tanh(std_delta), difficulty, np.ones(v.size))
    keep = ~np.isnan(v)
    x_train, p_train, weight = x[keep], v[keep], None
    glm = "length_controlled_noreg"
    if gamed is not None and regularize_lambda:
        glm = "length_controlled_v1"
        g = gamed.dropna(subset=["preference"])
        x_gamed = _design(
            np.tanh(g["std_delta_len"].to_numpy(dtype=float)),
            g["instruction_difficulty"],
            np.zeros(len(g)),
        )
        x_train = np.vstack([x_gamed, x_train])
        p_train = np.concatenate([g["preference"].to_numpy(dtype=float), p_train])
        weight = np.concatenate([np.full(len(g), regularize_lambda / 2), np.ones(int(keep.sum()))])
    model = _fit_cv(x_train, p_train, weight, n_splits)
    predicted = model.predict_proba(_design(np.zeros(v.size), difficulty, np.ones(v.size)))[:, 1]
    return {
        "length_controlled_winrate": 100 * float(predicted.mean()),
        "lc_standard_error": 100 * float(pd.Series(predicted).sem()),
        "weights": dict(zip(GLM_FEATURES, model.coef_[0].tolist(), strict=True)),
        "glm": glm,
    }
